package hooks

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestExportOnCommitReadsAndWritesTheLocalList(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	if got, err := ExportOnCommit(ctx, r.dir); err != nil || got != nil {
		t.Fatalf("unset: %v, %v", got, err)
	}
	// Written by hand, with spaces, repeats and a second value.
	r.git("config", "--local", ExportOnCommitKey, " agents-md ,, claude-md,agents-md")
	r.git("config", "--local", "--add", ExportOnCommitKey, "cursor-rules")
	if got, _ := ExportOnCommit(ctx, r.dir); !slices.Equal(got, []string{"agents-md", "claude-md", "cursor-rules"}) {
		t.Fatalf("read %v", got)
	}
	steps := []struct {
		target string
		on     bool
		want   []string
	}{
		{"claude-md", false, []string{"agents-md", "cursor-rules"}},
		{"agents-md", true, []string{"cursor-rules", "agents-md"}},
		{"cursor-rules", false, []string{"agents-md"}},
		{"agents-md", false, nil},
		{"agents-md", false, nil},
	}
	for _, st := range steps {
		got, err := SetExportOnCommit(ctx, r.dir, st.target, st.on)
		if err != nil || !slices.Equal(got, st.want) {
			t.Fatalf("set %s %v: %v, %v; want %v", st.target, st.on, got, err, st.want)
		}
		if read, _ := ExportOnCommit(ctx, r.dir); !slices.Equal(read, st.want) {
			t.Fatalf("after set %s %v, read %v", st.target, st.on, read)
		}
	}
}

func TestCommitTouchesSeesOnlyTheCommitsOwnChanges(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	write := func(rel, s string) {
		writeTestFile(t, filepath.Join(r.dir, rel), s, 0o644)
		r.git("add", "-A")
		r.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", rel)
	}
	touches := func(rev string) bool {
		t.Helper()
		ok, err := CommitTouches(ctx, r.dir, rev, ".contextfs")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if touches("HEAD") {
		t.Error("the empty root commit touches .contextfs")
	}
	write(".contextfs/a.md", "a\n")
	if !touches("HEAD") {
		t.Error("a commit adding a memory does not touch .contextfs")
	}
	write("code.go", "package x\n")
	if touches("HEAD") {
		t.Error("a commit of code touches .contextfs")
	}
	write(".contextfs-notes", "not the folder\n")
	if touches("HEAD") {
		t.Error("a sibling file with the folder's name as prefix counts")
	}
	// A merge concluded by git commit counts what it brought in.
	r.git("checkout", "-q", "-b", "side")
	write(".contextfs/b.md", "b\n")
	r.git("checkout", "-q", "-")
	write("other.go", "package x\n")
	r.git("-c", "core.hooksPath=/dev/null", "merge", "-q", "--no-commit", "side")
	r.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-edit")
	if !touches("HEAD") {
		t.Error("a merge bringing in a memory does not touch .contextfs")
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".contextfs", "b.md")); err != nil {
		t.Fatal(err)
	}
}
