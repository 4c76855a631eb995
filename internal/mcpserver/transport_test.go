package mcpserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestParseFrameClassifiesBadFrames checks the error code given to each
// kind of frame the server cannot serve.
func TestParseFrameClassifiesBadFrames(t *testing.T) {
	cases := []struct {
		name  string
		frame string
		code  int64 // 0: a message
		id    string
	}{
		{"a request is a message", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{"a notification is a message", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{"garbage is a parse error", `not json`, jsonrpc.CodeParseError, ""},
		{"truncated JSON is a parse error", `{"jsonrpc":"2.0","id":1`, jsonrpc.CodeParseError, ""},
		{"a bracket inside a string does not count as nesting", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"` + strings.Repeat("[", 500) + `"}}`, 0, ""},
		{"deep nesting is an invalid request", strings.Repeat("[", 200) + strings.Repeat("]", 200), jsonrpc.CodeInvalidRequest, ""},
		{"a wrong version keeps its id", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"a"`},
		{"an object id is not echoed", `{"jsonrpc":"1.0","id":{},"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{"a batch is an invalid request", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg, fe := ParseFrame([]byte(c.frame), DefaultMaxDepth)
			if c.code == 0 {
				if fe != nil || msg == nil {
					t.Fatalf("got %v, want a message", fe)
				}
				return
			}
			if fe == nil || fe.Code != c.code || string(fe.ID) != c.id {
				t.Fatalf("got %+v, want code %d id %q", fe, c.code, c.id)
			}
		})
	}
}

// TestFrameReaderSkipsOverLongFramesWithoutBufferingThem checks that a
// frame over the limit is reported once and the next frame is read whole.
func TestFrameReaderSkipsOverLongFramesWithoutBufferingThem(t *testing.T) {
	in := "\n" + strings.Repeat("x", 200<<10) + "\n" + `{"a":1}` + "\r\n" + `{"b":2}`
	fr := &frameReader{r: bufio.NewReaderSize(strings.NewReader(in), 4096), max: 1024, depth: 8}
	if _, err := fr.next(); !errors.As(err, new(*FrameError)) {
		t.Fatalf("over-long frame: %v", err)
	}
	if cap(fr.buf) > 8192 {
		t.Errorf("buffered %d bytes for a skipped frame", cap(fr.buf))
	}
	for _, want := range []string{`{"a":1}`, `{"b":2}`} {
		got, err := fr.next()
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	if _, err := fr.next(); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
}

// FuzzFrameReader feeds arbitrary bytes through the frame reader and
// parser: neither may panic, and every frame is a message or an error
// with a JSON-RPC code.
func FuzzFrameReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"garbage\n{\"jsonrpc\":\"2.0\"\n",
		"[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]\n",
		`{"jsonrpc":"2.0","id":"x\"[","method":"tools/call","params":{"name":"a"}}` + "\r\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := &frameReader{r: bufio.NewReaderSize(bytes.NewReader(data), 16), max: 256, depth: 16}
		for range 1000 {
			line, err := fr.next()
			if fe, ok := errors.AsType[*FrameError](err); ok {
				if fe.Code != jsonrpc.CodeInvalidRequest {
					t.Fatalf("size error code %d", fe.Code)
				}
				continue
			}
			if err != nil {
				return
			}
			msg, fe := ParseFrame(line, fr.depth)
			if (msg == nil) == (fe == nil) {
				t.Fatalf("frame %q: message %v and error %v", line, msg, fe)
			}
			if fe != nil && fe.Code != jsonrpc.CodeParseError && fe.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("frame %q: code %d", line, fe.Code)
			}
		}
	})
}
