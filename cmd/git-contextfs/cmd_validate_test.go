package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// memDoc is a memory file as the hygiene report's m() helper writes it:
// extra frontmatter lines start at line 5.
func memDoc(id, typ, extra string) string {
	return "---\nid: " + id + "\ntype: " + typ + "\ntitle: T " + id + "\n" + extra +
		"created: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\n---\nBody of " + id + ".\n"
}

// TestCLIValidateReportsExpiresSelfLinksSupersedesAndCycles: validate
// reports, with FILE:LINE and exit status 1, a malformed expires:, a link
// to the memory itself, a supersedes naming no memory and a supersedes
// cycle; null expires: and a date or time pass.
func TestCLIValidateReportsExpiresSelfLinksSupersedesAndCycles(t *testing.T) {
	const dir0 = ".contextfs/memories/"
	tests := []struct {
		name  string
		files map[string]string // ID → extra frontmatter
		code  int
		want  []string // lines of stdout
	}{
		{"valid expiries", map[string]string{"exp1": "expires: 2025-01-31\n", "exp2": "expires: 2025-01-31T18:00:00Z\n", "exp3": "expires: null\n", "exp4": "expires:\n"}, 0, nil},
		{"not a date", map[string]string{"exp1": "expires: not-a-date\n"}, 1,
			[]string{dir0 + `exp1.md:5: field: expires: must be a date like 2025-01-31 or an RFC 3339 time like 2025-01-31T18:00:00Z; got "not-a-date"`}},
		{"a list", map[string]string{"exp2": "expires: [2025-01-31]\n"}, 1,
			[]string{dir0 + "exp2.md:5: field: expires: must be a date like 2025-01-31 or an RFC 3339 time like 2025-01-31T18:00:00Z; got a list"}},
		{"a self-link", map[string]string{"selfl": "links:\n  - selfl\n"}, 1,
			[]string{dir0 + "selfl.md:6: field: links[0]: must not be the memory's own ID"}},
		{"a supersedes naming a deleted version is history, not a problem", map[string]string{"dsup": "supersedes:\n  - nosuchmem\n"}, 0, nil},
		{"a supersedes cycle", map[string]string{"cyca": "supersedes:\n  - cycb\n", "cycb": "supersedes:\n  - cyca\n"}, 1,
			[]string{dir0 + "cyca.md:6: cycle: supersedes[0]: makes a supersedes cycle, cyca → cycb → cyca",
				dir0 + "cycb.md:6: cycle: supersedes[0]: makes a supersedes cycle, cycb → cyca → cycb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			for id, extra := range tt.files {
				writeFile(t, dir, dir0+id+".md", memDoc(id, "fact", extra))
			}
			r := cli(t, dir, "", "validate")
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if r.stdout == "" {
				lines = nil
			}
			bad := r.code != tt.code || len(lines) != len(tt.want)
			for i := 0; !bad && i < len(lines); i++ {
				bad = !strings.HasPrefix(lines[i], tt.want[i])
			}
			if bad {
				t.Errorf("validate: exit %d\n%s%s\nwant exit %d and lines starting\n%s", r.code, r.stdout, r.stderr, tt.code, strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestCLIPreCommitRefusesASupersedesCycle: the hook runs the same checks,
// so a commit that closes a cycle with a committed memory is refused.
func TestCLIPreCommitRefusesASupersedesCycle(t *testing.T) {
	dir := hookedRepo(t)
	writeFile(t, dir, ".contextfs/memories/cyca.md", memDoc("cyca", "fact", "supersedes:\n  - cycb\n"))
	writeFile(t, dir, ".contextfs/memories/cycb.md", memDoc("cycb", "fact", ""))
	testgit.Run(t, dir, "add", "-A")
	if msg, code := gitEnv(t, dir, nil, "commit", "-q", "-m", "chain"); code != 0 {
		t.Fatalf("a chain was refused: exit %d\n%s", code, msg)
	}
	writeFile(t, dir, ".contextfs/memories/cycb.md", memDoc("cycb", "fact", "supersedes:\n  - cyca\n"))
	testgit.Run(t, dir, "add", "-A")
	msg, code := gitEnv(t, dir, nil, "commit", "-q", "-m", "cycle")
	if code == 0 || !strings.Contains(msg, ".contextfs/memories/cycb.md:6: cycle: supersedes[0]: makes a supersedes cycle, cycb → cyca → cycb") {
		t.Fatalf("pre-commit let a supersedes cycle through: exit %d\n%s", code, msg)
	}
}

func TestCLIValidateTakesFoldersAndStaysInTheRepository(t *testing.T) {
	const dir0 = ".contextfs/memories/"
	dir := testgit.Init(t)
	writeFile(t, dir, dir0+"good.md", memDoc("good1234", "fact", ""))
	writeFile(t, dir, dir0+"sub/bad.md", memDoc("bad12345", "nosuchtype", ""))
	writeFile(t, dir, ".contextfs/other/fine.md", memDoc("fine1234", "fact", ""))
	tests := []struct {
		name string
		args []string
		code int
		in   string // in stdout or stderr
		not  string
	}{
		{"a folder stands for the memory files under it", []string{"validate", dir0}, 1, "sub/bad.md", "fine.md"},
		{"a folder of valid files", []string{"validate", ".contextfs/other"}, 0, "1 memory file(s) valid", ""},
		{"a file named twice is checked once", []string{"validate", dir0 + "good.md", dir0, dir0 + "good.md"}, 1, "sub/bad.md", "duplicate"},
		{"a path outside the repository", []string{"validate", os.TempDir()}, 1, "outside the repository", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, dir, "", tt.args...)
			out := r.stdout + r.stderr
			if r.code != tt.code || !strings.Contains(out, tt.in) || tt.not != "" && strings.Contains(out, tt.not) {
				t.Errorf("exit %d, output %q; want exit %d with %q and without %q", r.code, out, tt.code, tt.in, tt.not)
			}
		})
	}
}

// TestCLIValidateReportsEveryConflictInAFile: each conflict left in a
// memory is a problem of its own, at its "<<<<<<< " line, so none is found
// only after the others are resolved.
func TestCLIValidateReportsEveryConflictInAFile(t *testing.T) {
	const path = ".contextfs/memories/conf.md"
	dir := testgit.Init(t)
	writeFile(t, dir, path, "---\nid: conf1234\ntype: fact\ntitle: T\n"+
		"<<<<<<< ours\ntags: [a]\n=======\ntags: [b]\n>>>>>>> theirs\n"+ // line 5
		"created: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\n---\n"+
		"<<<<<<< ours\nTwenty.\n=======\nThirty.\n>>>>>>> theirs\n") // line 13
	r := cli(t, dir, "", "validate")
	want := path + ":5: conflict: unresolved merge conflict marker\n" +
		path + ":13: conflict: unresolved merge conflict marker\n"
	if r.code != 1 || r.stdout != want {
		t.Fatalf("validate: exit %d\n%s%s\nwant exit 1 and\n%s", r.code, r.stdout, r.stderr, want)
	}
}

// TestCLIValidateAndReviewWorkWithoutTheCache: validate and review read
// memory files and commits, not the cache, so an unusable cache folder
// (here a file where .git/contextfs should be) does not stop them, as it
// does not stop the pre-commit hook. review leaves out only what the cache
// knows, the memories attached to the changed code, and says so.
func TestCLIValidateAndReviewWorkWithoutTheCache(t *testing.T) {
	dir := reviewRepo(t)
	writeFile(t, dir, wfDir+"bad.md", "no frontmatter\n")
	if err := os.WriteFile(filepath.Join(dir, ".git", "contextfs"), []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"validate reports the invalid file", []string{"validate"}, 1, wfDir + "bad.md:1: syntax:", ""},
		{"validate of valid files", []string{"validate", "--no-secrets", wfDir + "pool.md"}, 0, "", "1 memory file(s) valid"},
		{"review compares the commits", []string{"review", "--json"}, 0, `"id": "sql0000001"`,
			"the memories attached to the changed code are left out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, dir, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) || strings.Contains(r.stderr, "cache: mkdir") && tt.stderr == "" {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nwant exit %d, stdout with %q, stderr with %q", r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}
