package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// embedServer is an OpenAI-compatible embedding server the test can take
// down (503, as a proxy with nothing behind it answers) and bring back.
// Its vectors have one axis per subject the test uses.
type embedServer struct {
	*httptest.Server
	down atomic.Bool
}

func newEmbedServer(t *testing.T) *embedServer {
	t.Helper()
	s := &embedServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.down.Load() {
			http.Error(w, `{"error":"model is loading"}`, http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []datum `json:"data"`
		}
		for i, text := range req.Input {
			// One axis per subject, and a little of the rest.
			text = strings.ToLower(text)
			v := []float32{0.1, 0, 0}
			if strings.Contains(text, "deploy") {
				v[1] = 1
			}
			if strings.Contains(text, "postgres") {
				v[2] = 1
			}
			out.Data = append(out.Data, datum{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestCommandsWhileTheEmbeddingServerIsDown: with the OpenAI-compatible
// embedder's server unavailable, what needs no new vector still works
// (list, recall, a keyword search, a save, which is indexed later), with a
// notice; a semantic search fails, saying why; and once the server is
// back, what was saved meanwhile is indexed and found by meaning (and the
// vectors of the keyword searches' document set, loaded without any, are
// not trusted).
func TestCommandsWhileTheEmbeddingServerIsDown(t *testing.T) {
	srv := newEmbedServer(t)
	dir := testgit.Init(t)
	env := append(testgit.Env(), "CONTEXTFS_EMBEDDER=openai", "CONTEXTFS_EMBED_MODEL=fake",
		"CONTEXTFS_EMBED_URL="+srv.URL+"/v1", "CONTEXTFS_WATCH=off")
	run := func(args ...string) result {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), args...)
		cmd.Dir, cmd.Env = dir, env
		return runProcess(t, cmd)
	}
	must := func(args ...string) result {
		t.Helper()
		r := run(args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		return r
	}
	// The first memory is indexed by the built-in embedder: the switch to
	// the server's model, while it is down, is part of what is tested.
	builtin := exec.Command(filepath.Join(binDir, "git-contextfs"), "save", "--type", "fact", "Postgres connections are pooled with pgxpool")
	builtin.Dir, builtin.Env = dir, append(testgit.Env(), "CONTEXTFS_WATCH=off")
	r := runProcess(t, builtin)
	if r.code != 0 {
		t.Fatalf("save: exit %d\n%s", r.code, r.stderr)
	}
	pool := strings.TrimSpace(r.stdout)

	srv.down.Store(true)
	t.Run("list answers from the cache", func(t *testing.T) {
		if r := must("list"); !strings.Contains(r.stdout, pool) {
			t.Errorf("list without %s:\n%s", pool, r.stdout)
		}
	})
	t.Run("recall answers", func(t *testing.T) {
		if r := must("recall", pool); !strings.Contains(r.stdout, "pgxpool") {
			t.Errorf("recall:\n%s", r.stdout)
		}
	})
	t.Run("a hybrid search falls back to keywords and says so", func(t *testing.T) {
		r := must("search", "pgxpool")
		if !strings.Contains(r.stdout, pool) || !strings.Contains(r.stderr, "keyword results only") || !strings.Contains(r.stderr, "503") {
			t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		}
	})
	t.Run("a semantic search fails and says why", func(t *testing.T) {
		r := run("search", "--mode", "semantic", "pgxpool")
		if r.code != 1 || !strings.Contains(r.stderr, "503") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("the same text again is still not saved twice", func(t *testing.T) {
		r := must("save", "--type", "fact", "Postgres connections are pooled with pgxpool")
		if strings.TrimSpace(r.stdout) != pool || !strings.Contains(r.stderr, "word for word") {
			t.Errorf("stdout %q, stderr:\n%s", r.stdout, r.stderr)
		}
	})
	var deploy string
	t.Run("a new memory is saved, unchecked for similarity, and said to be unindexed", func(t *testing.T) {
		r := must("save", "--json", "--type", "fact", "Deploys go out on Tuesdays")
		var out struct {
			ID, Path, Action, Unchecked string
		}
		decodeJSON(t, r.stdout, &out)
		deploy = out.ID
		if out.Action != "saved" || out.Unchecked == "" || !strings.Contains(r.stderr, "not indexed") {
			t.Errorf("%+v\nstderr:\n%s", out, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, out.Path)); err != nil {
			t.Error(err)
		}
	})

	srv.down.Store(false)
	t.Run("once the server is back, the memory saved meanwhile is indexed", func(t *testing.T) {
		if r := must("list"); !strings.Contains(r.stdout, deploy) || strings.Contains(r.stderr, "unavailable") {
			t.Errorf("list:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		}
		if r := must("search", "--mode", "semantic", "--json", "when do we deploy"); !strings.Contains(r.stdout, deploy) {
			t.Errorf("semantic search without %s:\n%s", deploy, r.stdout)
		}
	})
}
