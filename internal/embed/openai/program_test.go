package openai

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/embed"
)

// The tests here are of embed.New's openai embedder and the program it
// runs, git-contextfs-embed: what the in-process Client has no part in.

// wrapper writes a shell script that records its pid and command line in
// dir, then runs body (by default, the real program with the same
// arguments).
func wrapper(t *testing.T, body string) (script, dir string) {
	t.Helper()
	dir = t.TempDir()
	if body == "" {
		body = `exec "` + programPath + `" "$@"`
	}
	script = filepath.Join(dir, "embed-program")
	text := "#!/bin/sh\n" +
		`echo $$ >> "` + dir + `/pids"` + "\n" +
		`echo "$@" "key=$` + embed.EnvProgramKey + `" >> "` + dir + `/args"` + "\n" +
		body + "\n"
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, dir
}

// pids returns the pids the wrapper in dir has recorded, oldest first.
func pids(t *testing.T, dir string) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "pids"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func newProgramClient(t *testing.T, cfg embed.Config) embed.Embedder {
	t.Helper()
	cfg.Provider = embed.ProviderOpenAI
	e, err := embed.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.(interface{ Close() error }).Close() })
	return e
}

func TestProgramStartsOnFirstEmbedAndServesTheRest(t *testing.T) {
	f, srv := newFake(t, 4)
	script, dir := wrapper(t, "")
	e := newProgramClient(t, embed.Config{BaseURL: srv.URL + "/v1", Program: script, APIKey: "sk-secret-1"})
	if got := pids(t, dir); len(got) != 0 {
		t.Fatalf("the program started before any embedding: pids %v", got)
	}
	for i := range 3 {
		if _, err := e.Embed(context.Background(), []string{"call " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := pids(t, dir); len(got) != 1 {
		t.Errorf("three calls started the program %d times, want once", len(got))
	}
	if len(f.auth) != 3 || f.auth[0] != "Bearer sk-secret-1" {
		t.Errorf("Authorization headers = %q, want the key on each of 3 requests", f.auth)
	}
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	line := string(args)
	if !strings.HasSuffix(strings.TrimSpace(line), "key=sk-secret-1") || strings.Count(line, "sk-secret-1") != 1 {
		t.Errorf("the key must reach the program in %s and not on its command line:\n%s", embed.EnvProgramKey, line)
	}
}

func TestProgramKilledBetweenCallsIsStartedAgain(t *testing.T) {
	_, srv := newFake(t, 4)
	script, dir := wrapper(t, "")
	e := newProgramClient(t, embed.Config{BaseURL: srv.URL + "/v1", Program: script})
	if _, err := e.Embed(context.Background(), []string{"first"}); err != nil {
		t.Fatal(err)
	}
	first := pids(t, dir)[0]
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait until it has died: a zombie, since only the embedder reaps it.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(first) + "/status")
		if err != nil || strings.Contains(string(b), "(zombie)") {
			break
		}
	}
	got, err := e.Embed(context.Background(), []string{"second"})
	if err != nil {
		t.Fatalf("Embed after the program was killed: %v", err)
	}
	if len(got) != 1 || got[0][0] != float32(len("second")) {
		t.Errorf("vectors = %v, want the fake's vector of %q", got, "second")
	}
	if p := pids(t, dir); len(p) != 2 {
		t.Errorf("the program was started %d times, want twice", len(p))
	}
}

func TestProgramThatIsMissingOrBrokenIsNamed(t *testing.T) {
	_, srv := newFake(t, 4)
	tests := []struct {
		name string
		body string // the program's script; "" is no program at all
		want []string
	}{
		{"no program beside the running one or on PATH", "",
			[]string{embed.ProgramName + " is not installed in", "go install github.com/contextfs/contextfs/cmd/" + embed.ProgramName + "@latest"}},
		{"a program of another protocol says so", `exec "` + programPath + `" "$@" --protocol 9`,
			[]string{"this build speaks protocol 1, not 9", "make install", "exit status 2"}},
		{"an answer outside the protocol", `read line; echo "<html>not embeddings</html>"`,
			[]string{"answered", "not protocol 1", "make install"}},
		{"a program that crashes is quoted", `echo "panic: something broke" >&2; exit 3`,
			[]string{"stopped (exit status 3)", "panic: something broke"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := embed.Config{BaseURL: srv.URL + "/v1"}
			if tt.body != "" {
				cfg.Program, _ = wrapper(t, tt.body)
			} else {
				t.Setenv("PATH", t.TempDir()) // and the test binary's folder has none
			}
			e := newProgramClient(t, cfg)
			_, err := e.Embed(context.Background(), []string{"hello"})
			if err == nil {
				t.Fatal("Embed succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if errors.Is(err, embed.ErrUnavailable) {
				t.Errorf("error %q is ErrUnavailable; a missing or broken program is a mistake to fix", err)
			}
		})
	}
}

func TestCloseEndsTheProgram(t *testing.T) {
	_, srv := newFake(t, 4)
	script, dir := wrapper(t, "")
	e, err := embed.New(embed.Config{Provider: embed.ProviderOpenAI, BaseURL: srv.URL + "/v1", Program: script})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"hello"}); err != nil {
		t.Fatal(err)
	}
	if err := e.(interface{ Close() error }).Close(); err != nil {
		t.Fatal(err)
	}
	pid := pids(t, dir)[0]
	if alive(pid) {
		t.Errorf("the program (pid %d) is still running after Close", pid)
	}
	if _, err := e.Embed(context.Background(), []string{"again"}); err != nil {
		t.Errorf("Embed after Close: %v; want a new program started", err)
	}
	e.(interface{ Close() error }).Close()
}

// Calls made at once run at once, each with a program of its own (the
// index's workers embed concurrently), and the programs are kept for the
// calls that follow.
func TestConcurrentCallsRunInParallel(t *testing.T) {
	f, srv := newFake(t, 4)
	var mu sync.Mutex
	inflight, most := 0, 0
	both := make(chan struct{})
	f.override = func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inflight++
		most = max(most, inflight)
		if inflight == 2 {
			close(both)
		}
		mu.Unlock()
		select { // wait for the other request, which comes only if calls run at once
		case <-both:
		case <-time.After(30 * time.Second):
		}
		mu.Lock()
		inflight--
		mu.Unlock()
		inner := &fakeServer{t: t, dim: 4}
		inner.ServeHTTP(w, r)
	}
	script, dir := wrapper(t, "")
	e := newProgramClient(t, embed.Config{BaseURL: srv.URL + "/v1", Program: script})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			if _, err := e.Embed(context.Background(), []string{"call " + strconv.Itoa(g)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most != 2 {
		t.Errorf("at most %d requests were in flight at once, want 2", most)
	}
	for range 3 {
		if _, err := e.Embed(context.Background(), []string{"later"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(pids(t, dir)); n != 2 {
		t.Errorf("%d programs were started, want 2: one per concurrent call, kept for the later ones", n)
	}
}
