package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestCrashConsistency kills the real binary with SIGKILL at a random
// moment of save, update, delete, reindex and the merge driver, and checks
// after every kill that no memory other than the one the command touched
// changed, that every memory file is whole (it decodes), and, at the end,
// that the cache answers searches exactly as a fresh rebuild does.
//
// CONTEXTFS_STRESS=N runs N iterations instead of the suite's 12 (make
// stress runs 200; docs/RELIABILITY.md has the figures).
func TestCrashConsistency(t *testing.T) {
	iters := 12
	if n, err := strconv.Atoi(os.Getenv("CONTEXTFS_STRESS")); err == nil && n > 0 {
		iters = n
	}
	dir := testgit.Init(t)
	mem := filepath.Join(dir, ".contextfs", "memories")
	words := []string{"cache", "pool", "retry", "deploy", "index", "token", "queue", "shard"}
	for i := range 6 {
		ok(t, dir, "save", "--type", "fact", "--title", fmt.Sprintf("Seed %d about %s", i, words[i]),
			fmt.Sprintf("The %s works with the %s; seed %d.", words[i], words[(i+3)%len(words)], i))
	}
	rng := rand.New(rand.NewPCG(1, uint64(iters)))
	ops := []string{"save", "update", "delete", "reindex", "merge"}
	var kills, completed int
	start := time.Now()
	for i := range iters {
		before := memorySnapshot(t, mem)
		op := ops[rng.IntN(len(ops))]
		var args []string
		target := ""
		ids := memoryIDs(t, before)
		switch op {
		case "save":
			args = []string{"save", "--type", "fact", fmt.Sprintf("Iteration %d: the %s is tuned.", i, words[rng.IntN(len(words))])}
		case "update":
			if len(ids) == 0 {
				continue
			}
			target = ids[rng.IntN(len(ids))]
			args = []string{"update", target, "--title", fmt.Sprintf("Updated at %d", i), fmt.Sprintf("Body %d: the %s changed.", i, words[rng.IntN(len(words))])}
		case "delete":
			if len(ids) < 4 {
				continue
			}
			target = ids[rng.IntN(len(ids))]
			args = []string{"delete", target}
		case "reindex":
			args = []string{"reindex"}
		case "merge":
			args = mergeArgs(t, i)
		}
		delay := time.Duration(rng.IntN(500)) * time.Millisecond
		killed := runAndKill(t, dir, args, delay)
		if killed {
			kills++
		} else {
			completed++
		}
		after := memorySnapshot(t, mem)
		checkCrash(t, fmt.Sprintf("iteration %d (%s, killed %v after %v)", i, op, killed, delay), before, after, target)
		if op == "merge" {
			checkMergeResult(t, args, killed)
		}
	}
	t.Logf("%d iterations in %v: %d killed, %d completed", iters, time.Since(start).Round(time.Millisecond), kills, completed)
	// The cache left by all those kills answers as a fresh rebuild does.
	queries := []string{"cache", "pool retry", "tuned deploy", "queue shard index"}
	var got []string
	for _, q := range queries {
		got = append(got, ok(t, dir, "search", "--json", "--limit", "20", q))
	}
	ok(t, dir, "reindex")
	for i, q := range queries {
		if want := ok(t, dir, "search", "--json", "--limit", "20", q); got[i] != want {
			t.Errorf("search %q after the kills differs from a fresh rebuild:\n%s\nwant:\n%s", q, got[i], want)
		}
	}
}

// runAndKill runs the binary and sends SIGKILL after delay unless it has
// finished; it reports whether it killed it.
func runAndKill(t *testing.T, dir string, args []string, delay time.Duration) bool {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), "CONTEXTFS_WATCH=off")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return false
	case <-time.After(delay):
		cmd.Process.Signal(syscall.SIGKILL)
		err := <-done
		ee, ok := err.(*exec.ExitError)
		return ok && !ee.Exited()
	}
}

// memorySnapshot reads every file under the memories folder (temp files
// included, which checkCrash tells apart).
func memorySnapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func memoryIDs(t *testing.T, files map[string][]byte) []string {
	var ids []string
	for name, b := range files {
		if gitstore.IsTempName(name) {
			continue
		}
		m, _, err := gitstore.Decode(name, b)
		if err != nil {
			t.Fatalf("%s does not decode: %v", name, err)
		}
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return ids
}

// checkCrash fails unless every memory the command did not target is
// unchanged, the targeted one is its old self, a whole new version or
// gone (delete), and every file is whole.
func checkCrash(t *testing.T, what string, before, after map[string][]byte, target string) {
	t.Helper()
	for name, b := range after {
		if gitstore.IsTempName(name) {
			continue // left by the kill; cleaned on a later write
		}
		m, _, err := gitstore.Decode(name, b)
		if err != nil {
			t.Fatalf("%s: %s is torn: %v\n%s", what, name, err, b)
		}
		if old, ok := before[name]; ok && !bytes.Equal(old, b) && m.ID != target {
			t.Fatalf("%s: %s changed though the command did not touch it", what, name)
		}
	}
	for name, b := range before {
		if gitstore.IsTempName(name) {
			continue
		}
		if _, ok := after[name]; !ok {
			m, _, _ := gitstore.Decode(name, b)
			if m.ID != target {
				t.Fatalf("%s: %s was lost", what, name)
			}
		}
	}
}

// mergeArgs writes a base and two sides of one memory for the merge
// driver, which rewrites CURRENT in place.
func mergeArgs(t *testing.T, i int) []string {
	t.Helper()
	d := t.TempDir()
	memory := func(title, body string) string {
		return "---\nid: merge" + strconv.Itoa(i) + "x\ntype: fact\ntitle: " + title +
			"\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n" + body
	}
	files := map[string]string{
		"base":    memory("Base", "line one\nline two\n"),
		"current": memory("Ours", "line one\nline two\n"),
		"other":   memory("Base", "line one\nline two changed\n"),
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(d, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"merge-driver", filepath.Join(d, "base"), filepath.Join(d, "current"), filepath.Join(d, "other")}
}

// checkMergeResult checks the merge driver's CURRENT is the old side or
// the whole merge, never a part of either.
func checkMergeResult(t *testing.T, args []string, killed bool) {
	t.Helper()
	b, err := os.ReadFile(args[2])
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	merged := strings.Contains(s, "title: Ours") && strings.Contains(s, "line two changed")
	old := strings.Contains(s, "title: Ours") && strings.Contains(s, "line two\n") && !strings.Contains(s, "changed")
	if !merged && !(killed && old) {
		t.Fatalf("merge driver left CURRENT torn (killed %v):\n%s", killed, s)
	}
}
