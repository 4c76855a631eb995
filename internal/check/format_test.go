package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

func TestCanonicalForm(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     string // "" when the input is already canonical
		wantRule string // the problem's rule, when it does not parse
	}{
		{
			name: "keys are put in the standard order and the body is kept byte for byte",
			in:   "---\ntitle: T\ntype: fact\nid: abcd1234\nupdated: 2024-05-01T10:00:00Z\ncreated: 2024-05-01T10:00:00Z\n---\nBody  \n\n\n",
			want: "---\nid: abcd1234\ntype: fact\ntitle: T\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nBody  \n\n\n",
		},
		{
			name: "a canonical file is left as it is",
			in:   "---\nid: abcd1234\ntype: fact\ntitle: T\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nBody\n",
		},
		{
			name:     "a file that does not parse is a syntax problem",
			in:       "---\nid: [abcd\n---\nBody\n",
			wantRule: "syntax",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, prob, err := CanonicalForm("x.md", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantRule != "" {
				if prob == nil || prob.Rule != tt.wantRule || prob.Path != "x.md" {
					t.Fatalf("problem %+v, want rule %s on x.md", prob, tt.wantRule)
				}
				return
			}
			if prob != nil {
				t.Fatalf("problem %v", prob)
			}
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if string(out) != want {
				t.Errorf("CanonicalForm =\n%s\nwant\n%s", out, want)
			}
		})
	}
}

func TestFormatWritesOnlyWhenAskedAndReportsBrokenFiles(t *testing.T) {
	dir := testgit.Init(t)
	files := map[string]string{
		".contextfs/a.md": "---\ntype: fact\nid: aaaa1111\ntitle: A\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nA\n",
		".contextfs/b.md": "---\nid: bbbb2222\ntype: fact\ntitle: B\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nB\n",
		".contextfs/c.md": "---\nid: [broken\n---\nC\n",
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{".contextfs/a.md", ".contextfs/b.md", ".contextfs/c.md"}

	res := Format(repo, paths, false)
	if !res.Check || res.Files != 3 || strings.Join(res.Changed, ",") != ".contextfs/a.md" ||
		len(res.Problems) != 1 || res.Problems[0].Path != ".contextfs/c.md" {
		t.Fatalf("Format(check) = %+v, want a.md to change and c.md a problem", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".contextfs/a.md")); string(b) != files[".contextfs/a.md"] {
		t.Fatal("Format without write changed a file")
	}

	res = Format(repo, paths, true)
	if res.Check || strings.Join(res.Changed, ",") != ".contextfs/a.md" {
		t.Fatalf("Format(write) = %+v, want a.md rewritten", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".contextfs/a.md")); !strings.HasPrefix(string(b), "---\nid: aaaa1111\ntype: fact\n") {
		t.Errorf("a.md after Format:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".contextfs/c.md")); string(b) != files[".contextfs/c.md"] {
		t.Error("Format touched a file that does not parse")
	}
	if res := Format(repo, paths, true); len(res.Changed) != 0 {
		t.Errorf("second Format changed %v, want nothing", res.Changed)
	}
}
