package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// wfMemory is a memory file as contextfs writes it.
func wfMemory(id, typ, title, extra, body string) string {
	return "---\nid: " + id + "\ntype: " + typ + "\ntitle: " + title + "\n" + extra +
		"created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\n" + body
}

func wfWrite(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const wfDir = ".contextfs/memories/"

// reviewRepo is a repository whose branch "feature" adds, edits,
// supersedes, deletes and moves memories relative to main.
func reviewRepo(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	wfWrite(t, dir, "main.go", "package main\n")
	wfWrite(t, dir, wfDir+"pool.md", wfMemory("pool000001", "decision", "Pool connections",
		"tags:\n  - db\n  - perf\ndata:\n  status: proposed\n", "We pool.\nTwenty per instance.\n"))
	wfWrite(t, dir, wfDir+"orm.md", wfMemory("orm0000001", "decision", "Use an ORM", "data:\n  status: accepted\n", "Use GORM.\n"))
	wfWrite(t, dir, wfDir+"gone.md", wfMemory("gone000001", "fact", "Staging is on Heroku", "", "Heroku.\n"))
	wfWrite(t, dir, wfDir+"release.md", wfMemory("move000001", "procedural", "Release checklist", "", "Tag and push.\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "start")

	testgit.Run(t, dir, "checkout", "-q", "-b", "feature")
	wfWrite(t, dir, wfDir+"pool.md", wfMemory("pool000001", "decision", "Pool connections",
		"tags:\n  - db\n  - postgres\ndata:\n  status: accepted\n", "We pool.\nThirty per instance.\nOne pool per process.\n"))
	wfWrite(t, dir, wfDir+"sql.md", wfMemory("sql0000001", "decision", "Write SQL by hand",
		"supersedes:\n  - orm0000001\ndata:\n  status: accepted\n", "sqlc instead of an ORM.\n"))
	testgit.Run(t, dir, "rm", "-q", wfDir+"gone.md")
	if err := os.MkdirAll(filepath.Join(dir, wfDir+"procedures"), 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "mv", wfDir+"release.md", wfDir+"procedures/release.md")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "knowledge changes")
	return dir
}

// wfReport is the JSON report, as much of it as the tests check.
type wfReport struct {
	Base       string `json:"base"`
	Head       string `json:"head"`
	BaseCommit string `json:"base_commit"`
	Changes    []struct {
		Kind         string `json:"kind"`
		ID           string `json:"id"`
		Type         string `json:"type"`
		Title        string `json:"title"`
		Path         string `json:"path"`
		OldPath      string `json:"old_path"`
		SupersededBy string `json:"superseded_by"`
		Fields       []struct {
			Field   string   `json:"field"`
			Old     string   `json:"old"`
			New     string   `json:"new"`
			Added   []string `json:"added"`
			Removed []string `json:"removed"`
			Summary string   `json:"summary"`
			Diff    string   `json:"diff"`
		} `json:"fields"`
	} `json:"changes"`
	Problems []struct {
		Path string `json:"path"`
		Rule string `json:"rule"`
	} `json:"problems"`
	Secrets []struct {
		Path     string `json:"path"`
		Rule     string `json:"rule"`
		Redacted string `json:"redacted"`
	} `json:"secrets"`
}

func TestReviewReportsEveryKindOfChangeInJSONForEveryRangeForm(t *testing.T) {
	dir := reviewRepo(t)
	mainSHA := testgit.Run(t, dir, "rev-parse", "main")
	type change struct{ kind, id, path, oldPath, by string }
	want := []change{
		{"added", "sql0000001", wfDir + "sql.md", "", ""},
		{"changed", "pool000001", wfDir + "pool.md", "", ""},
		{"changed", "move000001", wfDir + "procedures/release.md", wfDir + "release.md", ""},
		{"superseded", "orm0000001", wfDir + "orm.md", "", "sql0000001"},
		{"deleted", "gone000001", wfDir + "gone.md", "", ""},
	}
	tests := []struct {
		name     string
		args     []string
		wantBase string
	}{
		{"default range is the merge base with main", nil, "main"},
		{"a base alone", []string{"main"}, "main"},
		{"two-dot range", []string{"main..feature"}, "main"},
		{"three-dot range", []string{"main...HEAD"}, "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r wfReport
			decodeJSON(t, ok(t, dir, append([]string{"review", "--format", "json"}, tt.args...)...), &r)
			var got []change
			for _, c := range r.Changes {
				got = append(got, change{c.Kind, c.ID, c.Path, c.OldPath, c.SupersededBy})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("changes:\n got %+v\nwant %+v", got, want)
			}
			if r.Base != tt.wantBase || r.BaseCommit != mainSHA {
				t.Errorf("base = %q at %s, want %q at %s", r.Base, r.BaseCommit, tt.wantBase, mainSHA)
			}
			if len(r.Problems) != 0 || len(r.Secrets) != 0 || r.Problems == nil || r.Secrets == nil {
				t.Errorf("problems %v, secrets %v; want empty lists", r.Problems, r.Secrets)
			}
		})
	}
}

func TestReviewListsTheFieldsOfAnEditedMemory(t *testing.T) {
	dir := reviewRepo(t)
	var r wfReport
	decodeJSON(t, ok(t, dir, "review", "--json"), &r)
	got := map[string]string{}
	for _, c := range r.Changes {
		if c.ID != "pool000001" {
			continue
		}
		for _, f := range c.Fields {
			got[f.Field] = strings.Join([]string{f.Old, f.New, strings.Join(f.Added, ","), strings.Join(f.Removed, ","), f.Summary}, "|")
			if f.Field == "body" && !strings.Contains(f.Diff, "-Twenty per instance.\n+Thirty per instance.\n+One pool per process.\n") {
				t.Errorf("body diff:\n%s", f.Diff)
			}
		}
	}
	want := map[string]string{
		"tags":        "||postgres|perf|",
		"data.status": "proposed|accepted|||",
		"body":        "||||+2 −1 lines",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields = %q, want %q", got, want)
	}
}

func TestReviewMarkdownHasSectionsByKindAndType(t *testing.T) {
	dir := reviewRepo(t)
	md := ok(t, dir, "review", "main..feature")
	wantInOrder := []string{
		"<!-- contextfs-review -->",
		"**1 added, 2 changed, 1 superseded, 1 deleted; 0 problems, 0 secrets**",
		"#### Added (1)",
		"**decision**",
		"- **Write SQL by hand** `sql0000001` · `.contextfs/memories/sql.md`",
		"#### Changed (2)",
		"- **Pool connections** `pool000001` · `.contextfs/memories/pool.md`",
		"  - **tags**: added `postgres`; removed `perf`",
		"  - **data.status**: `proposed` → `accepted`",
		"  - **body**: +2 −1 lines",
		"  ```diff",
		"**procedural**",
		"- **Release checklist** `move000001` · `.contextfs/memories/procedures/release.md` (renamed from `.contextfs/memories/release.md`)",
		"#### Superseded (1)",
		"- **Use an ORM** `orm0000001` · `.contextfs/memories/orm.md` — superseded by `sql0000001`",
		"#### Deleted (1)",
		"**fact**",
		"- **Staging is on Heroku** `gone000001` · `.contextfs/memories/gone.md`",
	}
	rest := md
	for _, w := range wantInOrder {
		i := strings.Index(rest, w+"\n")
		if i < 0 {
			t.Fatalf("report lacks %q (in this order):\n%s", w, md)
		}
		rest = rest[i+len(w):]
	}
}

func TestReviewFailOnGatesOnlyOnTheNamedFindings(t *testing.T) {
	key := "AKIA" + "Z7QWERTYUIOPASDF" // built at run time so no scanner flags this file
	invalid := wfMemory("bad0000001", "decision", "Maybe", "data:\n  status: maybe\n", "Undecided.\n")
	secret := wfMemory("key0000001", "fact", "Deploy key", "", "The deploy key is "+key+".\n")
	tests := []struct {
		name     string
		file     string // added on a branch, or "" for none
		args     []string
		wantCode int
		wantErr  string
	}{
		{"clean change passes every gate", "", []string{"--fail-on", "invalid,secrets"}, 0, ""},
		{"invalid memory fails --fail-on invalid", invalid, []string{"--fail-on", "invalid"}, 1, "1 invalid memory problem(s)"},
		{"invalid memory passes without --fail-on", invalid, nil, 0, ""},
		{"invalid memory passes --fail-on secrets", invalid, []string{"--fail-on", "secrets"}, 0, ""},
		{"secret fails --fail-on secrets", secret, []string{"--fail-on", "secrets"}, 1, "1 suspected secret(s)"},
		{"repeated --fail-on", secret, []string{"--fail-on", "invalid", "--fail-on", "secrets"}, 1, "suspected secret"},
		{"secret passes --fail-on invalid", secret, []string{"--fail-on", "invalid"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := reviewRepo(t)
			if tt.file != "" {
				wfWrite(t, dir, wfDir+"new.md", tt.file)
				testgit.Run(t, dir, "add", "-A")
				testgit.Run(t, dir, "commit", "-q", "-m", "more")
			}
			r := cli(t, dir, "", append([]string{"review", "main..HEAD", "--format", "json"}, tt.args...)...)
			if r.code != tt.wantCode || !strings.Contains(r.stderr, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", r.code, r.stderr, tt.wantCode, tt.wantErr)
			}
			var rep wfReport
			decodeJSON(t, r.stdout, &rep) // the report is printed whatever the verdict
			if strings.Contains(r.stdout, key) {
				t.Error("the report discloses the secret")
			}
			if tt.file == secret && (len(rep.Secrets) != 1 || rep.Secrets[0].Rule != "aws-access-key-id") {
				t.Errorf("secrets = %+v", rep.Secrets)
			}
			if tt.file == invalid && (len(rep.Problems) != 1 || rep.Problems[0].Rule != "schema") {
				t.Errorf("problems = %+v", rep.Problems)
			}
		})
	}
}

func TestReviewRejectsBadUsage(t *testing.T) {
	dir := reviewRepo(t)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown revision", []string{"review", "nosuchbranch..HEAD"}, `unknown revision "nosuchbranch"`},
		{"unknown head", []string{"review", "main..nope"}, `unknown revision "nope"`},
		{"unknown format", []string{"review", "--format", "yaml"}, "--format must be markdown or json"},
		{"unknown gate", []string{"review", "--fail-on", "typos"}, `--fail-on takes invalid or secrets, not "typos"`},
		{"too many arguments", []string{"review", "a", "b"}, "takes 0 to 1 argument(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, dir, "", tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", r.code, r.stderr, exitUsage, tt.wantErr)
			}
		})
	}
}

// commitRepo is a repository with one commit holding code and a memory.
func commitRepo(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	wfWrite(t, dir, "main.go", "package main\n")
	wfWrite(t, dir, wfDir+"gone.md", wfMemory("gone000001", "fact", "Staging is on Heroku", "", "Heroku.\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "start")
	return dir
}

func TestCommitCommitsOnlyMemoriesAndLeavesStagedWorkStaged(t *testing.T) {
	dir := commitRepo(t)
	before := testgit.Run(t, dir, "rev-parse", "HEAD")
	wfWrite(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	testgit.Run(t, dir, "add", "main.go")
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--title", "Use pgx pools", "Pool with pgxpool."))
	ok(t, dir, "delete", "gone000001")

	sha := strings.TrimSpace(ok(t, dir, "commit"))
	if got := testgit.Run(t, dir, "rev-parse", "HEAD"); got != sha {
		t.Fatalf("printed %q, HEAD is %s", sha, got)
	}
	if got := testgit.Run(t, dir, "rev-parse", "HEAD~1"); got != before {
		t.Errorf("HEAD~1 = %s, want %s: HEAD should advance by one commit", got, before)
	}
	files := testgit.Run(t, dir, "show", "--name-only", "--no-renames", "--format=", "HEAD")
	if !strings.Contains(files, id) || !strings.Contains(files, wfDir+"gone.md") || strings.Contains(files, "main.go") {
		t.Errorf("commit holds:\n%s\nwant the new and the deleted memory only", files)
	}
	if got := testgit.Run(t, dir, "diff", "--cached", "--name-only"); got != "main.go" {
		t.Errorf("staged after commit: %q, want main.go", got)
	}
	if got := testgit.Run(t, dir, "diff", "--cached", "main.go"); !strings.Contains(got, "+func main() {}") {
		t.Errorf("the user's staged change was lost:\n%s", got)
	}
	msg := testgit.Run(t, dir, "log", "-1", "--format=%B")
	for _, w := range []string{"contextfs: add 1 decision, delete 1 fact", "- added decision " + id + ": Use pgx pools", "- deleted fact gone000001: Staging is on Heroku"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message lacks %q:\n%s", w, msg)
		}
	}
}

func TestCommitWithNothingToCommitExitsZeroWithoutACommit(t *testing.T) {
	dir := commitRepo(t)
	before := testgit.Run(t, dir, "rev-parse", "HEAD")
	wfWrite(t, dir, "main.go", "package main // edited\n")
	r := cli(t, dir, "", "commit")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "nothing to commit") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and a notice", r.code, r.stdout, r.stderr)
	}
	if got := testgit.Run(t, dir, "rev-parse", "HEAD"); got != before {
		t.Errorf("HEAD moved to %s", got)
	}
}

func TestCommitRefusesAnInvalidMemory(t *testing.T) {
	dir := commitRepo(t)
	before := testgit.Run(t, dir, "rev-parse", "HEAD")
	wfWrite(t, dir, wfDir+"bad.md", wfMemory("bad0000001", "decision", "Maybe", "data:\n  status: maybe\n", "Undecided.\n"))
	r := cli(t, dir, "", "commit")
	if r.code != exitFail || !strings.Contains(r.stderr, wfDir+"bad.md") || !strings.Contains(r.stderr, "--no-verify") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming the file", r.code, r.stderr)
	}
	if got := testgit.Run(t, dir, "rev-parse", "HEAD"); got != before {
		t.Fatalf("HEAD moved to %s although the commit was refused", got)
	}
	ok(t, dir, "commit", "--no-verify", "-m", "Keep the draft")
	if got := testgit.Run(t, dir, "log", "-1", "--format=%s"); got != "Keep the draft" {
		t.Errorf("subject = %q", got)
	}
}

func TestCommitJSONAndDryRun(t *testing.T) {
	dir := commitRepo(t)
	before := testgit.Run(t, dir, "rev-parse", "HEAD")
	wfWrite(t, dir, wfDir+"gone.md", wfMemory("gone000001", "fact", "Staging is on Kubernetes", "", "Kubernetes.\n"))

	dry := ok(t, dir, "commit", "--dry-run")
	if !strings.Contains(dry, "contextfs: update 1 fact") || !strings.Contains(dry, "modified  "+wfDir+"gone.md") {
		t.Errorf("dry run printed:\n%s", dry)
	}
	if got := testgit.Run(t, dir, "rev-parse", "HEAD"); got != before {
		t.Fatalf("a dry run moved HEAD to %s", got)
	}

	var res struct {
		SHA     string `json:"sha"`
		Message string `json:"message"`
		Files   []struct {
			Path, Status, ID, Type, Title string
		} `json:"files"`
	}
	decodeJSON(t, ok(t, dir, "commit", "--json"), &res)
	if res.SHA != testgit.Run(t, dir, "rev-parse", "HEAD") || !strings.HasPrefix(res.Message, "contextfs: update 1 fact") ||
		len(res.Files) != 1 || res.Files[0].Status != "modified" || res.Files[0].ID != "gone000001" {
		t.Errorf("JSON result = %+v", res)
	}
}
