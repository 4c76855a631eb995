package review

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
)

// mem writes a memory file the way contextfs does.
func mem(id, typ, title string, extra string, body string) []byte {
	return []byte("---\nid: " + id + "\ntype: " + typ + "\ntitle: " + title + "\n" + extra +
		"created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\n" + body)
}

func file(path string, content []byte) gitstore.RefFile {
	return gitstore.RefFile{Path: path, OID: gitstore.BlobOID(content), Content: content}
}

const dir = ".contextfs/memories/"

// fixture is a base and head holding one of every kind of change.
func fixture() (base, head []gitstore.RefFile) {
	pool := mem("pool000001", "decision", "Pool connections", "tags:\n  - db\n  - perf\ndata:\n  status: proposed\n", "We pool.\nTwenty per instance.\n")
	pool2 := mem("pool000001", "decision", "Pool connections", "tags:\n  - db\n  - postgres\ndata:\n  status: accepted\n", "We pool.\nThirty per instance.\nOne pool per process.\n")
	old := mem("orm0000001", "decision", "Use an ORM", "data:\n  status: accepted\n", "Use GORM.\n")
	repl := mem("sql0000001", "decision", "Write SQL by hand", "supersedes:\n  - orm0000001\ndata:\n  status: accepted\n", "sqlc instead of an ORM.\n")
	gone := mem("gone000001", "fact", "Staging is on Heroku", "", "Heroku.\n")
	moved := mem("move000001", "procedural", "Release checklist", "", "Tag and push.\n")
	same := mem("same000001", "fact", "Unchanged fact", "", "Still true.\n")
	base = []gitstore.RefFile{
		file(dir+"pool.md", pool), file(dir+"orm.md", old), file(dir+"gone.md", gone),
		file(dir+"release.md", moved), file(dir+"same.md", same),
	}
	head = []gitstore.RefFile{
		file(dir+"pool.md", pool2), file(dir+"orm.md", old), file(dir+"sql.md", repl),
		file(dir+"procedures/release.md", moved), file(dir+"same.md", same),
	}
	return base, head
}

func TestCompareReportsEveryKindOfChange(t *testing.T) {
	base, head := fixture()
	r := Compare(base, head, nil)
	type got struct{ kind, id, path, oldPath, by string }
	var gots []got
	for _, c := range r.Changes {
		gots = append(gots, got{c.Kind, c.ID, c.Path, c.OldPath, c.SupersededBy})
	}
	want := []got{
		{Added, "sql0000001", dir + "sql.md", "", ""},
		{Changed, "pool000001", dir + "pool.md", "", ""},
		{Changed, "move000001", dir + "procedures/release.md", dir + "release.md", ""},
		{Superseded, "orm0000001", dir + "orm.md", "", "sql0000001"},
		{Deleted, "gone000001", dir + "gone.md", "", ""},
	}
	if !reflect.DeepEqual(gots, want) {
		t.Fatalf("changes:\n got %+v\nwant %+v", gots, want)
	}
	if len(r.Problems) != 0 || len(r.Secrets) != 0 {
		t.Errorf("problems %v, secrets %v; want none", r.Problems, r.Secrets)
	}
	if got, want := r.Summary(), "1 added, 2 changed, 1 superseded, 1 deleted; 0 problems, 0 secrets"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

func TestCompareListsChangedFieldsOneByOne(t *testing.T) {
	base, head := fixture()
	r := Compare(base, head, nil)
	var fields []FieldChange
	for _, c := range r.Changes {
		if c.ID == "pool000001" {
			fields = c.Fields
		}
	}
	want := []FieldChange{
		{Field: "tags", Added: []string{"postgres"}, Removed: []string{"perf"}},
		{Field: "data.status", Old: "proposed", New: "accepted"},
		{Field: "body", Summary: "+2 −1 lines", Diff: "@@ -1,2 +1,3 @@\n We pool.\n-Twenty per instance.\n+Thirty per instance.\n+One pool per process.\n"},
	}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("fields:\n got %#v\nwant %#v", fields, want)
	}
}

func TestCompareShowsStructuredDataAndCustomKeys(t *testing.T) {
	old := mem("pool000001", "decision", "Pool", "links:\n  - https://a.example\ndata:\n  alternatives: [pgbouncer]\n  decided_by: core\n", "x\n")
	cur := mem("pool000001", "decision", "Pool", "owner: db-team\ndata:\n  alternatives: [pgbouncer, lib/pq]\n", "x\n")
	r := Compare([]gitstore.RefFile{file(dir+"p.md", old)}, []gitstore.RefFile{file(dir+"p.md", cur)}, nil)
	want := []FieldChange{
		{Field: "links", Removed: []string{"https://a.example"}},
		{Field: "data.alternatives", Old: `["pgbouncer"]`, New: `["pgbouncer","lib/pq"]`},
		{Field: "data.decided_by", Old: "core"},
		{Field: "owner", New: "db-team"},
	}
	if len(r.Changes) != 1 || !reflect.DeepEqual(r.Changes[0].Fields, want) {
		t.Fatalf("changes = %+v\nwant fields %+v", r.Changes, want)
	}
}

func TestCompareIsDeterministicWhateverTheInputOrder(t *testing.T) {
	base, head := fixture()
	first, _ := json.Marshal(Compare(base, head, nil))
	slices.Reverse(base)
	slices.Reverse(head)
	second, _ := json.Marshal(Compare(base, head, nil))
	if string(first) != string(second) {
		t.Fatalf("reports differ:\n%s\n%s", first, second)
	}
}

func TestCompareSupersededCases(t *testing.T) {
	old := mem("orm0000001", "decision", "Use an ORM", "data:\n  status: accepted\n", "Use GORM.\n")
	retired := mem("orm0000001", "decision", "Use an ORM", "data:\n  status: superseded\n", "Use GORM.\n")
	byPrefix := mem("sql0000001", "decision", "Write SQL", "supersedes:\n  - orm00\n", "sqlc.\n")
	byLink := mem("sql0000001", "decision", "Write SQL", "links:\n  - {id: orm0000001, rel: supersedes}\n", "sqlc.\n")
	tests := []struct {
		name       string
		base, head []gitstore.RefFile
		want       map[string]Change // by ID: kind and superseded_by
	}{
		{
			name: "status becoming superseded retires the memory itself",
			base: []gitstore.RefFile{file(dir+"orm.md", old)},
			head: []gitstore.RefFile{file(dir+"orm.md", retired)},
			want: map[string]Change{"orm0000001": {Kind: Superseded}},
		},
		{
			name: "supersedes by unique ID prefix",
			base: []gitstore.RefFile{file(dir+"orm.md", old)},
			head: []gitstore.RefFile{file(dir+"orm.md", old), file(dir+"sql.md", byPrefix)},
			want: map[string]Change{"orm0000001": {Kind: Superseded, SupersededBy: "sql0000001"}, "sql0000001": {Kind: Added}},
		},
		{
			name: "a link with rel supersedes supersedes as a supersedes entry does",
			base: []gitstore.RefFile{file(dir+"orm.md", old)},
			head: []gitstore.RefFile{file(dir+"orm.md", old), file(dir+"sql.md", byLink)},
			want: map[string]Change{"orm0000001": {Kind: Superseded, SupersededBy: "sql0000001"}, "sql0000001": {Kind: Added}},
		},
		{
			name: "superseded and deleted in one change stays a deletion that names its successor",
			base: []gitstore.RefFile{file(dir+"orm.md", old)},
			head: []gitstore.RefFile{file(dir+"sql.md", byPrefix)},
			want: map[string]Change{"orm0000001": {Kind: Deleted, SupersededBy: "sql0000001"}, "sql0000001": {Kind: Added}},
		},
		{
			name: "a memory already superseded on the base side is not reported again",
			base: []gitstore.RefFile{file(dir+"orm.md", retired)},
			head: []gitstore.RefFile{file(dir+"orm.md", retired), file(dir+"sql.md", byPrefix)},
			want: map[string]Change{"sql0000001": {Kind: Added}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(tt.base, tt.head, nil)
			got := map[string]Change{}
			for _, c := range r.Changes {
				got[c.ID] = Change{Kind: c.Kind, SupersededBy: c.SupersededBy}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCompareValidatesAndScansOnlyWhatHeadTouches(t *testing.T) {
	key := "AKIA" + "Z7QWERTYUIOPASDF" // built at run time so no scanner flags this file
	brokenBefore := []byte("---\nid: [unclosed\n---\nbody\n")
	secretBefore := mem("keys000001", "fact", "Old key", "", "aws_access_key_id = "+key+"\n")
	badType := mem("bad0000001", "nonsense", "Bad type", "", "x\n")
	broken := []byte("---\nid: x\ntype: fact\ntitle: [unclosed\n---\n")
	dupe := mem("same000001", "fact", "Duplicate", "", "x\n")
	leak := mem("leak000001", "fact", "Leaked key", "", "The key is "+key+".\n")
	same := mem("same000001", "fact", "Unchanged", "", "x\n")
	base := []gitstore.RefFile{file(dir+"old-broken.md", brokenBefore), file(dir+"old-secret.md", secretBefore), file(dir+"same.md", same)}
	head := append(slices.Clone(base),
		file(dir+"bad.md", badType), file(dir+"broken.md", broken), file(dir+"dupe.md", dupe), file(dir+"leak.md", leak))
	r := Compare(base, head, nil)
	var probs []string
	for _, p := range r.Problems {
		probs = append(probs, p.Path+" "+p.Rule)
	}
	wantProbs := []string{dir + "bad.md type", dir + "broken.md syntax", dir + "dupe.md duplicate-id"}
	if !reflect.DeepEqual(probs, wantProbs) {
		t.Errorf("problems = %q, want %q", probs, wantProbs)
	}
	if len(r.Secrets) != 1 || r.Secrets[0].Path != dir+"leak.md" || r.Secrets[0].Rule != "aws-access-key-id" {
		t.Fatalf("secrets = %+v, want one aws-access-key-id in leak.md", r.Secrets)
	}
	if strings.Contains(r.Markdown(), key) {
		t.Error("the Markdown report discloses the secret")
	}
	if kinds := kindsOf(r); !reflect.DeepEqual(kinds, []string{"added ", "added same000001", "added leak000001", "added bad0000001"}) {
		// The duplicate and the unparseable file are matched by path.
		t.Errorf("changes = %q", kinds)
	}
}

func kindsOf(r Report) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, c.Kind+" "+c.ID)
	}
	return out
}

func TestMarkdownRendersSectionsByTypeWithFieldsAndSummary(t *testing.T) {
	base, head := fixture()
	r := Compare(base, head, nil)
	r.Base, r.Head = "main", "feature"
	md := r.Markdown()
	wantInOrder := []string{
		Marker,
		"Memories changed from `main` to `feature`.",
		"**1 added, 2 changed, 1 superseded, 1 deleted; 0 problems, 0 secrets**",
		"#### Added (1)",
		"**decision**",
		"- **Write SQL by hand** `sql0000001` · `.contextfs/memories/sql.md`",
		"#### Changed (2)",
		"**decision**",
		"- **Pool connections** `pool000001` · `.contextfs/memories/pool.md`",
		"  - **tags**: added `postgres`; removed `perf`",
		"  - **data.status**: `proposed` → `accepted`",
		"  - **body**: +2 −1 lines",
		"  <details><summary>body diff (+2 −1 lines)</summary>",
		"  ```diff",
		"  -Twenty per instance.",
		"  +Thirty per instance.",
		"  </details>",
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
			t.Fatalf("Markdown lacks %q after the previous line; report:\n%s", w, md)
		}
		rest = rest[i+len(w):]
	}
	if strings.Contains(md, "Problems") || strings.Contains(md, "secrets (") {
		t.Errorf("empty problem sections rendered:\n%s", md)
	}
}

func TestCompareReportsABrokenEditAsAChangeOfTheSameMemory(t *testing.T) {
	good := mem("pool000001", "decision", "Pool connections", "", "We pool.\n")
	broken := []byte("---\nid: pool000001\ntype: decision\ntitle: [unclosed\n---\nWe pool.\n")
	r := Compare([]gitstore.RefFile{file(dir+"pool.md", good)}, []gitstore.RefFile{file(dir+"pool.md", broken)}, nil)
	if len(r.Changes) != 1 {
		t.Fatalf("changes = %+v, want one", r.Changes)
	}
	c := r.Changes[0]
	if c.Kind != Changed || c.ID != "pool000001" || c.Title != "Pool connections" || len(c.Fields) != 1 || c.Fields[0].Field != "content" {
		t.Errorf("change = %+v, want the memory changed, with a content diff", c)
	}
	if len(r.Problems) != 1 || r.Problems[0].Rule != "syntax" {
		t.Errorf("problems = %+v, want one syntax problem", r.Problems)
	}
}

func TestMarkdownEscapesTitlesAndShowsFindings(t *testing.T) {
	key := "AKIA" + "Z7QWERTYUIOPASDF"
	head := []gitstore.RefFile{
		file(dir+"x.md", mem("xss0000001", "fact", "'<img src=x> *bold* [link](y)'", "", "key "+key+"\n")),
		file(dir+"bad.md", mem("bad0000001", "nonsense", "Bad", "", "x\n")),
	}
	md := Compare(nil, head, nil).Markdown()
	for _, w := range []string{
		`- **\<img src=x\> \*bold\* \[link\](y)** `,
		"#### Problems (1)",
		"- `.contextfs/memories/bad.md:3` **type**:",
		"#### Possible secrets (1)",
		"- `.contextfs/memories/x.md:8:5` AWS access key ID `AKIA",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md)
		}
	}
}

func TestMarkdownSaysWhenNothingChanged(t *testing.T) {
	base, _ := fixture()
	md := Compare(base, base, nil).Markdown()
	if !strings.Contains(md, "**0 added, 0 changed, 0 superseded, 0 deleted; 0 problems, 0 secrets**") || !strings.Contains(md, "No memory changes.") {
		t.Errorf("report:\n%s", md)
	}
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name, a, b     string
		added, removed int
		text           string
	}{
		{"identical", "a\nb\n", "a\nb\n", 0, 0, ""},
		{"appended line", "a\n", "a\nb\n", 1, 0, "@@ -1 +1,2 @@\n a\n+b\n"},
		{"from nothing", "", "a\nb\n", 2, 0, "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to nothing", "a\n", "", 0, 1, "@@ -1 +0,0 @@\n-a\n"},
		{"far apart edits make two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ny\n", 2, 2,
			"@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+y\n"},
		{"middle replacement keeps order", "a\nb\nc\n", "a\nB\nc\n", 1, 1, "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := lineDiff(tt.a, tt.b)
			if d.added != tt.added || d.removed != tt.removed || d.text != tt.text {
				t.Errorf("lineDiff = +%d -%d\n%s\nwant +%d -%d\n%s", d.added, d.removed, d.text, tt.added, tt.removed, tt.text)
			}
		})
	}
}

// A secret in a title or a changed line is masked wherever the report
// shows it, as in its secrets section: the report is posted as a pull
// request comment.
func TestTheReportNeverShowsASecretInFull(t *testing.T) {
	key := "AKIA" + "Z7QWERTYUIOPASDF" // built at run time so no scanner flags this file
	before := mem("keys000001", "fact", "Deploy key", "", "The deploy key is kept in the vault.\n")
	after := mem("keys000001", "fact", "Deploy key "+key, "", "The deploy key is "+key+" now.\n")
	added := mem("leak000001", "fact", "Leaked "+key, "", "x\n")
	base := []gitstore.RefFile{file(dir+"keys.md", before)}
	head := []gitstore.RefFile{file(dir+"keys.md", after), file(dir+"leak.md", added)}
	r := Compare(base, head, nil)
	if len(r.Secrets) == 0 {
		t.Fatal("no secret found: the test shows nothing")
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": r.Markdown(), "json": string(js), "diagram": r.Diagram} {
		if strings.Contains(out, key) {
			t.Errorf("the %s output shows the secret in full", name)
		}
	}
	if !strings.Contains(r.Markdown(), "AKIA****") {
		t.Error("the masked form is not shown either")
	}
}

// Captured memories are added ones a person did not ask for: a report
// lists them in a group of their own, first, and the others as before.
func TestCapturedMemoriesHaveTheirOwnGroup(t *testing.T) {
	asked := mem("askd000001", "decision", "Use pgx", "source:\n  tool: claude-code\n", "pgx.\n")
	got := mem("capt000001", "error", "Flaky test from a shared temp dir", "source:\n  tool: claude-code\n  session: s123\n  captured: true\n", "t.TempDir.\n")
	r := Compare(nil, []gitstore.RefFile{file(dir+"a.md", asked), file(dir+"c.md", got)}, nil)
	var captured []string
	for _, c := range r.Changes {
		if c.Captured {
			captured = append(captured, c.ID)
		}
	}
	if !slices.Equal(captured, []string{"capt000001"}) {
		t.Errorf("captured = %v", captured)
	}
	md := r.Markdown()
	ci, ai := strings.Index(md, "#### Captured (1)"), strings.Index(md, "#### Added (1)")
	if ci < 0 || ai < 0 || ci > ai || strings.Index(md, "capt000001") > ai || strings.Index(md, "askd000001") < ai {
		t.Errorf("want Captured (1) with capt000001, then Added (1) with askd000001:\n%s", md)
	}
}

// TestTheDiagramMasksATitleBeforeCuttingIt: the diagram cuts a title to 47
// characters. Cut first, a token at the end of a long title lost its tail,
// no longer matched the secret found in the file, and its first characters
// reached the pull request comment.
func TestTheDiagramMasksATitleBeforeCuttingIt(t *testing.T) {
	tok := "ghp_" + "Q7wErT9yUiOp3AsDfGhJkL2zXcVbNm4P5o6I" // built at run time
	title := "Rotate the release bot credential now " + tok
	leaky := mem("leak000001", "fact", title, "links:\n  - {id: pool000001, rel: depends_on}\n", "x\n")
	// The linked memory's own title holds a token too, and it is not
	// touched by the change, so only the title scan finds it.
	tok2 := "glpat-" + "Vq3xT9mK2pLw8RzN4bYc"
	other := mem("pool000001", "fact", "Pool connections via "+tok2, "", "We pool.\n")
	base := []gitstore.RefFile{file(dir+"pool.md", other)}
	head := []gitstore.RefFile{file(dir+"leak.md", leaky), file(dir+"pool.md", other)}
	r := Compare(base, head, nil)
	if r.Diagram == "" {
		t.Fatal("no diagram: the test shows nothing")
	}
	for _, secret := range []string{tok[:8], tok2[:10]} {
		if strings.Contains(r.Diagram, secret) {
			t.Errorf("the diagram shows %q of a token:\n%s", secret, r.Diagram)
		}
	}
	if !strings.Contains(r.Diagram, "ghp_****") {
		t.Errorf("the diagram does not show the masked token:\n%s", r.Diagram)
	}
}
