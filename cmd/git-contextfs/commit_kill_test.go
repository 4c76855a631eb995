package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestCommitKilledAtRandomNeverLetsAGitCommitLoseAMemory sends SIGKILL to
// `git contextfs commit` after a random delay (the real binary, its git
// children left to finish as a kill of one process leaves them), then
// checks that the index never holds a memory older than HEAD's nor lacks
// one HEAD and the work tree hold, and that a following `git commit -a`
// keeps every memory of the work tree. commitflow's kill test covers each
// step deterministically; this one covers moments inside them.
func TestCommitKilledAtRandomNeverLetsAGitCommitLoseAMemory(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "init")
	rng := rand.New(rand.NewPCG(7, 11))
	var ids []string
	kills := 0
	for i := range 20 {
		// Change the work tree: a new memory, and an update of an old one.
		var m map[string]any
		decodeJSON(t, ok(t, dir, "save", "--json", "--dedup", "allow", "--type", "fact", "--title", fmt.Sprintf("Note %d", i), fmt.Sprintf("Note %d about the deploy.", i)), &m)
		ids = append(ids, m["id"].(string))
		if i > 0 {
			ok(t, dir, "update", "--scope", "repo", ids[rng.IntN(i)], "--add-tag", fmt.Sprintf("t%d", i))
		}
		delay := time.Duration(rng.IntN(150)) * time.Millisecond
		if runAndKill(t, dir, []string{"commit"}, delay) {
			kills++
		}
		what := fmt.Sprintf("iteration %d (killed after %v)", i, delay)
		for _, lock := range []string{"index.lock", "HEAD.lock", "refs/heads/main.lock"} {
			// A git child finishes on its own; give it the moment it needs.
			for try := 0; try < 50 && exists(filepath.Join(dir, ".git", lock)); try++ {
				time.Sleep(20 * time.Millisecond)
			}
			if exists(filepath.Join(dir, ".git", lock)) {
				t.Fatalf("%s: .git/%s left behind", what, lock)
			}
		}
		head, index, work := blobs(t, dir, "ls-tree", "-r", "HEAD"), blobs(t, dir, "ls-files", "--stage"), workBlobs(t, dir)
		for p, oid := range index {
			if gitstore.IsMemoryPath(p) && oid != head[p] && oid != work[p] {
				t.Fatalf("%s: the index holds %s at a version neither HEAD's nor the work tree's", what, p)
			}
		}
		for p := range head {
			if _, ok := index[p]; !ok && work[p] != "" {
				t.Fatalf("%s: the index lacks %s, which HEAD and the work tree hold", what, p)
			}
		}
		testgit.Run(t, dir, "commit", "-q", "-a", "--allow-empty", "-m", "user")
		after := blobs(t, dir, "ls-tree", "-r", "HEAD")
		for p, oid := range work {
			if gitstore.IsMemoryPath(p) && after[p] != oid && after[p] != head[p] {
				t.Fatalf("%s: git commit -a left %s neither as it was nor as the work tree has it", what, p)
			}
			if gitstore.IsMemoryPath(p) && head[p] != "" && after[p] == "" {
				t.Fatalf("%s: git commit -a deleted %s", what, p)
			}
		}
	}
	// The next memory commit commits whatever is left and leaves no
	// temporary index.
	ok(t, dir, "commit")
	if left, _ := filepath.Glob(filepath.Join(dir, ".git", "contextfs", "commit-index*")); len(left) > 0 {
		t.Errorf("temporary index left after a completed commit: %v", left)
	}
	t.Logf("20 commits, %d killed", kills)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// blobs runs a git listing (ls-tree -r, ls-files --stage) and returns
// path → blob.
func blobs(t *testing.T, dir string, args ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(testgit.Run(t, dir, args...), "\n") {
		meta, p, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if args[0] == "ls-tree" {
			out[p] = f[2]
		} else {
			out[p] = f[1]
		}
	}
	return out
}

// workBlobs is path → blob of the work tree's files under .contextfs/.
func workBlobs(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range strings.Split(testgit.Run(t, dir, "ls-files", "--cached", "--others", "--exclude-standard", "--", ".contextfs"), "\n") {
		if p != "" && exists(filepath.Join(dir, p)) {
			out[p] = testgit.Run(t, dir, "hash-object", "--", p)
		}
	}
	return out
}
