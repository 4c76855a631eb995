package hooks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestRegisterMergeDriverKeepsGitattributesBytes(t *testing.T) {
	t.Parallel()
	line := ".contextfs/**/*.md merge=contextfs"
	tests := []struct {
		name   string
		before *string // nil: no .gitattributes
		want   string  // after Register
		back   string  // after Unregister; "" means removed
	}{
		{"no file", nil, line + "\n", ""},
		{"lines ending in newline", ptr("*.png binary\n# docs\n*.md diff=markdown\n"),
			"*.png binary\n# docs\n*.md diff=markdown\n" + line + "\n", "*.png binary\n# docs\n*.md diff=markdown\n"},
		{"no trailing newline", ptr("*.png binary"), "*.png binary\n" + line + "\n", "*.png binary\n"},
		{"CRLF", ptr("*.png binary\r\n"), "*.png binary\r\n" + line + "\r\n", "*.png binary\r\n"},
		{"line already there", ptr("*.png binary\n" + line + "\n*.txt text\n"),
			"*.png binary\n" + line + "\n*.txt text\n", "*.png binary\n*.txt text\n"},
		{"ours with more attributes is theirs", ptr(".contextfs/**/*.md   merge=contextfs diff=markdown\n"),
			".contextfs/**/*.md   merge=contextfs diff=markdown\n", ".contextfs/**/*.md   merge=contextfs diff=markdown\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			ctx := context.Background()
			attrs := filepath.Join(r.dir, ".gitattributes")
			if tt.before != nil {
				writeTestFile(t, attrs, *tt.before, 0o644)
			}
			for i := range 2 {
				if err := RegisterMergeDriver(ctx, r.dir); err != nil {
					t.Fatal(err)
				}
				if got := snap(t, attrs); got != (snapshot{true, tt.want, 0o644}) {
					t.Errorf("register #%d: .gitattributes = %q, want %q", i+1, got.data, tt.want)
				}
			}
			st, err := CheckMergeDriver(ctx, r.dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := (MergeDriverState{Configured: true, Attributes: true, Driver: mergeDriverCommand}); st != want {
				t.Errorf("CheckMergeDriver = %+v, want %+v", st, want)
			}
			if got := r.git("config", "merge.contextfs.name"); got != "contextfs memory merge" {
				t.Errorf("merge.contextfs.name = %q", got)
			}

			if err := UnregisterMergeDriver(ctx, r.dir); err != nil {
				t.Fatal(err)
			}
			if err := UnregisterMergeDriver(ctx, r.dir); err != nil {
				t.Fatalf("second Unregister: %v", err)
			}
			want := snapshot{tt.back != "", tt.back, 0o644}
			if tt.back == "" {
				want = snapshot{}
			}
			if got := snap(t, attrs); got != want {
				t.Errorf(".gitattributes after Unregister = %+v, want %+v", got, want)
			}
			st, err = CheckMergeDriver(ctx, r.dir)
			if err != nil {
				t.Fatal(err)
			}
			if st.Configured || st.Driver != "" {
				t.Errorf("CheckMergeDriver after Unregister = %+v", st)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestRegisterMergeDriverLeavesConfigFileAloneWhenCurrent(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	ctx := context.Background()
	if err := RegisterMergeDriver(ctx, r.dir); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(r.dir, ".git", "config")
	before, _ := os.Stat(cfg)
	if err := RegisterMergeDriver(ctx, r.dir); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(cfg)
	if !os.SameFile(before, after) {
		t.Error("a second Register rewrote .git/config")
	}
}

func TestCheckMergeDriverSeesOverridingAttributes(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	ctx := context.Background()
	if err := RegisterMergeDriver(ctx, r.dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(r.dir, ".gitattributes"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("*.md merge=union\n")
	f.Close()
	st, err := CheckMergeDriver(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Attributes {
		t.Errorf("CheckMergeDriver = %+v, want Attributes false under a later *.md line", st)
	}
}

func TestRegisteredMergeDriverResolvesConflictingMemories(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	if err := RegisterMergeDriver(context.Background(), r.dir); err != nil {
		t.Fatal(err)
	}
	mem := filepath.Join(r.dir, ".contextfs", "notes", "a.md")
	writeTestFile(t, mem, "base\n", 0o644)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "base")
	main := r.git("symbolic-ref", "--short", "HEAD")
	r.git("checkout", "-q", "-b", "side")
	writeTestFile(t, mem, "side\n", 0o644)
	r.git("commit", "-q", "-am", "side")
	r.git("checkout", "-q", main)
	writeTestFile(t, mem, "main\n", 0o644)
	r.git("commit", "-q", "-am", "main")
	if _, errOut, err := r.runIn(r.dir, nil, "merge", "-q", "--no-edit", "side"); err != nil {
		t.Fatalf("merge: %v\n%s", err, errOut)
	}
	if got := snap(t, mem).data; got != "merged .contextfs/notes/a.md\n" {
		t.Errorf("merged memory = %q, want the driver's output", got)
	}
}
