package commitflow

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/testgit"
)

func memoryFile(id, body string) string {
	return "---\nid: " + id + "\ntype: fact\ntitle: Memory " + id + "\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\n" + body
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stagedRepo is a repository with one committed memory (kept.md), a
// changed and a new memory in the work tree, and an unrelated staged
// file; it returns the repository and a temporary index staged by stage.
func stagedRepo(t *testing.T, newBody string) (dir string, tmp git.Cmd, parent string, changes []rawChange) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir = testgit.Init(t)
	writeFile(t, dir, ".contextfs/kept.md", memoryFile("kept000001", "Kept.\n"))
	writeFile(t, dir, ".contextfs/old.md", memoryFile("old0000001", "Old.\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	writeFile(t, dir, ".contextfs/old.md", memoryFile("old0000001", "Changed.\n"))
	writeFile(t, dir, ".contextfs/new.md", newBody)
	writeFile(t, dir, "main.go", "package main\n")
	testgit.Run(t, dir, "add", "main.go")

	ctx := context.Background()
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	parent, err = headCommit(ctx, git.Cmd{Dir: dir})
	if err != nil || parent == "" {
		t.Fatalf("headCommit = %q, %v; want the base commit", parent, err)
	}
	index, err := tempIndex(repo.GitDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(index) })
	if _, err := os.Stat(index); !os.IsNotExist(err) {
		t.Fatalf("tempIndex left a file at %s: git refuses an empty index", index)
	}
	tmp = git.Cmd{Dir: dir, Env: append(os.Environ(), "GIT_INDEX_FILE="+index)}
	changes, err = stage(ctx, tmp, parent, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tmp, parent, changes
}

func TestHeadCommitOnAnUnbornBranchIsEmpty(t *testing.T) {
	dir := testgit.Init(t)
	if sha, err := headCommit(context.Background(), git.Cmd{Dir: dir}); sha != "" || err != nil {
		t.Errorf("headCommit = %q, %v; want \"\", nil", sha, err)
	}
}

func TestStageHoldsTheMemoryChangesAndNothingElse(t *testing.T) {
	_, _, _, changes := stagedRepo(t, memoryFile("new0000001", "New.\n"))
	var got []string
	for _, c := range changes {
		got = append(got, string(c.status)+" "+c.path)
	}
	want := []string{"A .contextfs/new.md", "M .contextfs/old.md"}
	if !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q (main.go is staged but not a memory)", got, want)
	}
}

func TestVerifyFindsInvalidMemoriesAndSecrets(t *testing.T) {
	key := "AKIA" + "Z7QWERTYUIOPASDF" // built at run time so no scanner flags this file
	tests := []struct {
		name                      string
		newBody                   string
		wantProblems, wantSecrets int
	}{
		{"valid memories pass", memoryFile("new0000001", "New.\n"), 0, 0},
		{"an ID used by another memory is a problem", memoryFile("kept000001", "Copy.\n"), 1, 0},
		{"a credential is a secret", memoryFile("new0000001", "key "+key+"\n"), 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, tmp, _, changes := stagedRepo(t, tt.newBody)
			res := &Result{}
			blobs, err := verify(context.Background(), tmp, changes, config.SecretsConfig{}, res)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) != tt.wantProblems || len(res.Secrets) != tt.wantSecrets {
				t.Errorf("problems %v, secrets %v; want %d and %d", res.Problems, res.Secrets, tt.wantProblems, tt.wantSecrets)
			}
			for _, c := range changes {
				if _, ok := blobs[c.newOID]; !ok {
					t.Errorf("blob of %s not read", c.path)
				}
			}
		})
	}
}

func TestWriteCommitsTheTemporaryIndexAndMovesHEAD(t *testing.T) {
	dir, tmp, parent, changes := stagedRepo(t, memoryFile("new0000001", "New.\n"))
	ctx := context.Background()
	res := &Result{Parent: parent, Message: "contextfs: test"}
	if err := write(ctx, git.Cmd{Dir: dir}, tmp, changes, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if head := testgit.Run(t, dir, "rev-parse", "HEAD"); head != res.SHA || res.SHA == "" {
		t.Errorf("HEAD %s, want the new commit %q", head, res.SHA)
	}
	if got := testgit.Run(t, dir, "show", "--name-only", "--format=%s", "HEAD"); got != "contextfs: test\n\n.contextfs/new.md\n.contextfs/old.md" {
		t.Errorf("commit:\n%s", got)
	}
	// main.go stays staged; the memories are no longer shown as changed.
	if got := testgit.Run(t, dir, "status", "--porcelain"); got != "A  main.go" {
		t.Errorf("status after write:\n%s", got)
	}

	// A second write from the same parent finds HEAD moved and refuses.
	again := &Result{Parent: parent, Message: "again"}
	if err := write(ctx, git.Cmd{Dir: dir}, tmp, changes, again, Options{}); err == nil || again.SHA != "" {
		t.Errorf("write over a moved HEAD = %v (sha %q), want a refusal", err, again.SHA)
	}
}

func TestParseRawDiff(t *testing.T) {
	zero := "0000000000000000000000000000000000000000"
	out := ":000000 100644 " + zero + " 1111111111111111111111111111111111111111 A\x00a.md\x00" +
		":100644 000000 2222222222222222222222222222222222222222 " + zero + " D\x00b.md\x00"
	cs, err := parseRawDiff([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].status != 'A' || cs[0].oldOID != "" || cs[0].path != "a.md" ||
		cs[1].status != 'D' || cs[1].newOID != "" || cs[1].path != "b.md" {
		t.Errorf("parseRawDiff = %+v", cs)
	}
	if _, err := parseRawDiff([]byte(":bad\x00x\x00")); err == nil {
		t.Error("parseRawDiff accepted a malformed line")
	}
	if cs, err := parseRawDiff(nil); cs != nil || err != nil {
		t.Errorf("parseRawDiff(nil) = %v, %v", cs, err)
	}
}

// A write that finds HEAD moved commits nothing and puts back the index
// entries it had set: the user's own staged version of a memory, and no
// entry for a memory the user had not staged.
func TestWriteOverAMovedHEADPutsTheIndexBack(t *testing.T) {
	dir, tmp, parent, changes := stagedRepo(t, memoryFile("new0000001", "New.\n"))
	ctx := context.Background()
	writeFile(t, dir, ".contextfs/old.md", memoryFile("old0000001", "Staged by hand.\n"))
	testgit.Run(t, dir, "add", ".contextfs/old.md")
	writeFile(t, dir, ".contextfs/old.md", memoryFile("old0000001", "Changed.\n"))
	before := testgit.Run(t, dir, "ls-files", "--stage")
	// Someone else commits meanwhile, without touching the index.
	other := testgit.Run(t, dir, "commit-tree", "-p", parent, "-m", "other", parent+"^{tree}")
	testgit.Run(t, dir, "update-ref", "HEAD", other)

	res := &Result{Parent: parent, Message: "contextfs: test"}
	if err := write(ctx, git.Cmd{Dir: dir}, tmp, changes, res, Options{}); err == nil || res.SHA != "" {
		t.Fatalf("write over a moved HEAD = %v (sha %q), want a refusal", err, res.SHA)
	}
	if after := testgit.Run(t, dir, "ls-files", "--stage"); after != before {
		t.Errorf("index after the refused write:\n%s\nwant it as before:\n%s", after, before)
	}
	if head := testgit.Run(t, dir, "rev-parse", "HEAD"); head != other {
		t.Errorf("HEAD %s, want the other commit %s", head, other)
	}
}
