package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestMergeDriverQuotesPathsForTheShell: git quotes %P for the shell
// itself, so a path holding '"' or "$(...)" must reach the driver (or the
// fallback's message) as one word, never break the command (a syntax
// error left ours in place without markers) nor run what it holds.
func TestMergeDriverQuotesPathsForTheShell(t *testing.T) {
	for _, name := range []string{`5" screens.md`, `$(touch PWNED).md`, "back`touch PWNED`tick.md", `it's.md`} {
		for _, withBinary := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, binary on PATH %v", name, withBinary), func(t *testing.T) {
				r := newRepo(t)
				if err := RegisterMergeDriver(context.Background(), r.dir); err != nil {
					t.Fatal(err)
				}
				rel := filepath.Join(".contextfs", "memories", name)
				lines := []string{"---", "id: abcd1234", "type: fact", "title: T", "---", "one", "two", "three", "four", "five", "six", "seven"}
				write := func(ls []string) { writeTestFile(t, filepath.Join(r.dir, rel), strings.Join(ls, "\n")+"\n", 0o644) }
				write(lines)
				r.git("add", "-A")
				r.git("commit", "-qm", "base")
				r.git("checkout", "-qb", "b")
				theirs := slices.Clone(lines)
				theirs[11] = "seven, theirs"
				write(theirs)
				r.git("commit", "-qam", "theirs")
				r.git("checkout", "-q", "-")
				ours := slices.Clone(lines)
				ours[5] = "one, ours"
				write(ours)
				r.git("commit", "-qam", "ours")
				path := r.path
				if !withBinary {
					path = r.bare
				}
				_, errOut, err := r.runIn(r.dir, []string{"PATH=" + path}, "merge", "--no-edit", "b")
				for _, dir := range []string{r.dir, filepath.Dir(r.dir)} {
					if _, statErr := os.Stat(filepath.Join(dir, "PWNED")); statErr == nil {
						t.Fatalf("the path's command ran (merge: %v, %s)", err, errOut)
					}
				}
				got, readErr := os.ReadFile(filepath.Join(r.dir, rel))
				if readErr != nil {
					t.Fatal(readErr)
				}
				if withBinary {
					// The fake driver writes "merged PATH" when it got the path whole.
					if err != nil || strings.TrimSpace(string(got)) != "merged "+rel {
						t.Errorf("merge: %v %s; file %q, want the driver to get the path %q", err, errOut, got, rel)
					}
					return
				}
				if err != nil || !strings.Contains(string(got), "one, ours") || !strings.Contains(string(got), "seven, theirs") {
					t.Errorf("the text fallback lost a side (merge: %v, %s):\n%s", err, errOut, got)
				}
				if !strings.Contains(errOut, "git-contextfs is not on PATH, so "+rel+" was merged") {
					t.Errorf("the message does not name the path as it is: %s", errOut)
				}
			})
		}
	}
}
