package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// rpcReply is one JSON-RPC response line from the server.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// mcpProc is a `git-contextfs mcp` process spoken to line by line.
type mcpProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan rpcReply
	stderr  *bytes.Buffer
}

func startMCP(t *testing.T, dir string) *mcpProc {
	t.Helper()
	return startMCPEnv(t, dir, nil)
}

// startMCPEnv is startMCP with env added to the test environment.
func startMCPEnv(t *testing.T, dir string, env []string) *mcpProc {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "mcp")
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	return startMCPCmd(t, cmd)
}

// startMCPCmd starts cmd, an MCP server, and reads its replies.
func startMCPCmd(t *testing.T, cmd *exec.Cmd) *mcpProc {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &mcpProc{t: t, cmd: cmd, stdin: stdin, replies: make(chan rpcReply, 64), stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var r rpcReply
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				r.Error = &struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				}{Message: "unparsable reply: " + sc.Text()}
			}
			p.replies <- r
		}
		close(p.replies)
	}()
	return p
}

func (p *mcpProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("write to the server: %v\nstderr: %s", err, p.stderr)
	}
}

// next returns the next reply, failing if none comes or the server exited.
func (p *mcpProc) next() rpcReply {
	p.t.Helper()
	select {
	case r, ok := <-p.replies:
		if !ok {
			p.t.Fatalf("the server closed its output\nstderr: %s", p.stderr)
		}
		return r
	case <-time.After(30 * time.Second):
		p.t.Fatalf("no reply in 30s\nstderr: %s", p.stderr)
	}
	return rpcReply{}
}

// ping checks that the server still serves after whatever came before.
func (p *mcpProc) ping(id int) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	r := p.next()
	if string(r.ID) != fmt.Sprint(id) || r.Error != nil {
		p.t.Fatalf("ping %d: got id %s error %+v", id, r.ID, r.Error)
	}
}

// TestMCPBadFramesAreAnsweredAndServingGoesOn sends each kind of bad frame
// that used to stop the server and checks that it answers with the
// JSON-RPC error for it and then still answers a ping.
func TestMCPBadFramesAreAnsweredAndServingGoesOn(t *testing.T) {
	p := startMCP(t, testgit.Init(t))
	deep := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`
	cases := []struct {
		name   string
		frame  string
		code   int64
		wantID string
	}{
		{"garbage line is a parse error", "hello, server", -32700, "null"},
		{"truncated JSON is a parse error", `{"jsonrpc":"2.0","id":5,"method":"tools/list"`, -32700, "null"},
		{"over-long line is an invalid request", `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"` + strings.Repeat("a", 9<<20) + `"}}`, -32600, "null"},
		{"nesting deeper than 1000 levels is an invalid request", deep, -32600, "null"},
		{"a JSON value that is not a message is an invalid request", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
		{"a batch is an invalid request", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600, "null"},
		{"a tool call before initialize is an invalid request", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}`, -32600, "10"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p.t = t
			p.send(c.frame)
			r := p.next()
			if r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.wantID {
				t.Fatalf("reply id %s error %+v, want code %d id %s", r.ID, r.Error, c.code, c.wantID)
			}
			p.ping(100 + i)
		})
	}
	p.t = t
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\nstderr: %s", err, p.stderr)
	}
}

// TestMCPAnswersEveryRequestReadBeforeEOF writes a handshake and a run of
// saves, closes stdin at once, and expects a reply to every save and
// every memory on disk: a client that retries unanswered calls would
// otherwise save twice.
func TestMCPAnswersEveryRequestReadBeforeEOF(t *testing.T) {
	dir := testgit.Init(t)
	p := startMCP(t, dir)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const saves = 8
	for i := range saves {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"save_memory","arguments":{"type":"fact","dedup":"allow","content":"Fact number %d about the build cache."}}}`+"\n", 10+i, i)
	}
	p.send(strings.TrimSuffix(in.String(), "\n"))
	p.stdin.Close()
	got := map[string]bool{}
	for r := range p.replies {
		if r.Error != nil {
			t.Errorf("reply %s: error %+v", r.ID, r.Error)
		}
		got[string(r.ID)] = true
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\nstderr: %s", err, p.stderr)
	}
	for i := range saves {
		if !got[fmt.Sprint(10+i)] {
			t.Errorf("no reply to save %d (replies: %v)\nstderr: %s", 10+i, got, p.stderr)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md"))
	if len(entries) != saves {
		t.Errorf("%d memory files, want %d", len(entries), saves)
	}
}
