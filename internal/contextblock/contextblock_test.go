package contextblock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/branchdiff"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

// openAt opens a store whose clock advances a minute per call, so that
// "latest" is well defined.
func openAt(t *testing.T, dir string) *contextfs.Store {
	t.Helper()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin(),
		Now: func() time.Time { at = at.Add(time.Minute); return at }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func save(t *testing.T, s *contextfs.Store, req contextfs.SaveRequest) string {
	t.Helper()
	res, err := s.Save(context.Background(), req)
	if err != nil {
		t.Fatalf("save %q: %v", req.Title, err)
	}
	return res.Memory.ID
}

type fixture struct {
	s                         *contextfs.Store
	dir                       string
	oldProgress, newProgress  string
	superseded, done, authDec string
	longArch                  string
}

// seed saves 30 memories of mixed types, two of them progress.
func seed(t *testing.T) fixture {
	dir := testgit.Init(t)
	s := openAt(t, dir)
	f := fixture{s: s, dir: dir}
	long := strings.Repeat("The service is a set of small Go packages behind one HTTP front door. ", 60)
	save(t, s, contextfs.SaveRequest{Type: "project-brief", Title: "Billing service", Body: "Billing turns usage events into invoices."})
	save(t, s, contextfs.SaveRequest{Type: "config", Title: "Runs on Postgres 16", Body: "DATABASE_URL selects the database."})
	f.longArch = save(t, s, contextfs.SaveRequest{Type: "architecture", Title: "Layered packages", Body: long})
	save(t, s, contextfs.SaveRequest{Type: "tech-context", Title: "Go 1.27 and pgx", Body: strings.Repeat("We use Go 1.27 with pgx and sqlc. ", 40)})
	save(t, s, contextfs.SaveRequest{Type: "product-context", Title: "Customers are SaaS companies", Body: strings.Repeat("They bill monthly. ", 60)})
	f.oldProgress = save(t, s, contextfs.SaveRequest{Type: "progress", Title: "Invoices render", Body: "Invoices render as PDF."})
	f.newProgress = save(t, s, contextfs.SaveRequest{Type: "progress", Title: "Invoices are emailed", Body: "Invoices are emailed nightly."})
	save(t, s, contextfs.SaveRequest{Type: "episodic", Title: "Session: fixed rounding", Body: "Fixed cent rounding in totals.",
		Data: map[string]any{"outcome": "success"}})
	save(t, s, contextfs.SaveRequest{Type: "user", Title: "Prefer table-driven tests", Body: "Table-driven tests, please."})
	save(t, s, contextfs.SaveRequest{Type: "user", Title: "No ORMs", Body: "Write SQL by hand with sqlc."})
	save(t, s, contextfs.SaveRequest{Type: "todo", Title: "Retry failed emails", Body: "Retry with backoff.", Data: map[string]any{"status": "open"}})
	f.done = save(t, s, contextfs.SaveRequest{Type: "todo", Title: "Add PDF fonts", Body: "Done already.", Data: map[string]any{"status": "done"}})
	save(t, s, contextfs.SaveRequest{Type: "issue", Title: "Totals off by a cent", Body: "Rounding.", Data: map[string]any{"status": "in_progress"}})
	f.authDec = save(t, s, contextfs.SaveRequest{Type: "decision", Title: "Tokens expire after one hour", Body: "Auth tokens expire after an hour.",
		Paths: []string{"auth/**"}, Data: map[string]any{"decision": "1h tokens", "status": "accepted"}})
	f.superseded = save(t, s, contextfs.SaveRequest{Type: "decision", Title: "Tokens never expire", Body: "Old auth decision.",
		Paths: []string{"auth/**"}, Data: map[string]any{"decision": "no expiry", "status": "superseded"}})
	for i := range 15 {
		save(t, s, contextfs.SaveRequest{Type: "fact", Title: fmt.Sprintf("Fact number %d about invoices", i), Body: fmt.Sprintf("Invoice fact %d.", i)})
	}
	return f
}

func sectionKeys(b *contextblock.Block) []string {
	var keys []string
	for _, s := range b.Sections {
		keys = append(keys, s.Key)
	}
	return keys
}

func ids(sec contextblock.Section) []string {
	var out []string
	for _, it := range sec.Items {
		out = append(out, it.ID)
	}
	return out
}

func TestBuildShowsSectionsInOrderWithOnlyTheLatestProgress(t *testing.T) {
	f := seed(t)
	b, err := contextblock.Build(context.Background(), f.s, contextblock.Options{Budget: 100000, Task: "invoice emails", Changed: []string{"auth/token.go"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{contextblock.ProjectBrief, contextblock.Architecture, contextblock.TechContext, contextblock.ProductContext,
		contextblock.Progress, contextblock.LastSession, contextblock.Preferences, contextblock.OpenWork,
		contextblock.RelevantChanges, contextblock.RelevantTask}
	if got := sectionKeys(b); !slices.Equal(got, want) {
		t.Fatalf("sections %v, want %v", got, want)
	}
	md := b.Markdown()
	last := -1
	for _, sec := range b.Sections {
		i := strings.Index(md, "\n## "+sec.Title+"\n")
		if i <= last {
			t.Errorf("header %q out of order in\n%s", sec.Title, md)
		}
		last = i
		for _, it := range sec.Items {
			if !strings.Contains(md, "["+it.ID+"]") {
				t.Errorf("item %s not cited in the markdown", it.ID)
			}
		}
	}
	if got := ids(b.Sections[4]); !slices.Equal(got, []string{f.newProgress}) {
		t.Errorf("progress shows %v, want only the latest %s", got, f.newProgress)
	}
	for _, hidden := range []string{f.oldProgress, f.superseded, f.done} {
		if strings.Contains(md, hidden) {
			t.Errorf("%s (old progress, superseded or done) appears:\n%s", hidden, md)
		}
	}
	if got := ids(b.Sections[8]); !slices.Equal(got, []string{f.authDec}) {
		t.Errorf("relevant to changes = %v, want [%s]", got, f.authDec)
	}
	if got := b.Sections[0].Items[0].Type; got != "project-brief" {
		t.Errorf("the brief section starts with a %s", got)
	}
}

func TestBuildMeetsABudgetAndLeavesOutWholeSections(t *testing.T) {
	f := seed(t)
	full, err := contextblock.Build(context.Background(), f.s, contextblock.Options{Budget: 100000, Task: "invoices"})
	if err != nil {
		t.Fatal(err)
	}
	if full.Tokens <= 1000 {
		t.Fatalf("the untrimmed block is only %d tokens; the test needs more", full.Tokens)
	}
	for _, budget := range []int{1000, 400, 150} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			b, err := contextblock.Build(context.Background(), f.s, contextblock.Options{Budget: budget, Task: "invoices"})
			if err != nil {
				t.Fatal(err)
			}
			md := b.Markdown()
			if got := contextblock.EstimateTokens(md); got > budget || got != b.Tokens {
				t.Errorf("%d tokens (reported %d), budget %d", got, b.Tokens, budget)
			}
			items := 0
			for _, sec := range b.Sections {
				if len(sec.Items) == 0 {
					t.Errorf("section %q shown with no item", sec.Title)
				}
				items += len(sec.Items)
			}
			if items == 0 {
				t.Errorf("no item at all within %d tokens:\n%s", budget, md)
			}
			for _, sec := range full.Sections {
				shown := strings.Contains(md, "\n## "+sec.Title+"\n")
				if dropped := slices.Contains(b.Dropped, sec.Title); shown == dropped {
					t.Errorf("section %q: shown %v, named as left out %v", sec.Title, shown, dropped)
				}
			}
			if len(b.Dropped) > 0 && !strings.Contains(md, "Left out to fit the budget: "+strings.Join(b.Dropped, ", ")) {
				t.Errorf("the sections left out are not named:\n%s", md)
			}
		})
	}
	b, _ := contextblock.Build(context.Background(), f.s, contextblock.Options{Budget: 1000, Task: "invoices"})
	if prod := b.Sections[3]; prod.Key != contextblock.ProductContext || prod.Items[0].Body != "" {
		t.Errorf("the product-context body, first to go, survived a cut budget: %+v", prod)
	}
	if b.Sections[0].Items[0].Body == "" {
		t.Errorf("the project brief lost its body at 1000 tokens, before lower sections")
	}
}

func TestBuildIsDeterministicAndJSONHasTheSameStructure(t *testing.T) {
	f := seed(t)
	o := contextblock.Options{Budget: 1000, Task: "invoices"}
	a, err := contextblock.Build(context.Background(), f.s, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := contextblock.Build(context.Background(), openAt(t, f.dir), o)
	if err != nil {
		t.Fatal(err)
	}
	if a.Markdown() != b.Markdown() {
		t.Errorf("two builds differ:\n%s\n---\n%s", a.Markdown(), b.Markdown())
	}
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back contextblock.Block
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Markdown() != a.Markdown() || back.Estimator != contextblock.Estimator || back.Budget != 1000 {
		t.Errorf("the JSON form does not carry the same block: %s", raw)
	}
}

func TestRelevantToChangesFollowsTheBranch(t *testing.T) {
	dir := testgit.Init(t)
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("auth/token.go", "package auth\n")
	write("docs/guide.md", "guide\n")
	s := openAt(t, dir)
	dec := save(t, s, contextfs.SaveRequest{Type: "decision", Title: "Sign tokens with Ed25519", Body: "Ed25519 keys.",
		Paths: []string{"auth/**"}, Data: map[string]any{"decision": "ed25519", "status": "accepted"}})
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "base")

	tests := []struct {
		name, branch, file string
		want               bool
	}{
		{"a branch changing auth/token.go lists the decision", "auth-work", "auth/token.go", true},
		{"a branch changing only docs/ does not", "docs-work", "docs/guide.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testgit.Run(t, dir, "checkout", "-q", "main")
			testgit.Run(t, dir, "checkout", "-qb", tt.branch)
			write(tt.file, "changed on "+tt.branch+"\n")
			testgit.Run(t, dir, "commit", "-qam", "change")
			ch, err := branchdiff.Files(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			b, err := contextblock.Build(context.Background(), s, contextblock.Options{Changed: ch.Files})
			if err != nil {
				t.Fatal(err)
			}
			var got bool
			for _, sec := range b.Sections {
				if sec.Key == contextblock.RelevantChanges && slices.Contains(ids(sec), dec) {
					got = true
				}
			}
			if got != tt.want {
				t.Errorf("changes %v: decision listed = %v, want %v\n%s", ch.Files, got, tt.want, b.Markdown())
			}
			// The lazy form asks git below the memories' folders only, and
			// gives the same block.
			var asked [][]string
			lazy, err := contextblock.Build(context.Background(), s, contextblock.Options{ChangedUnder: func(ctx context.Context, within []string) ([]string, error) {
				asked = append(asked, within)
				ch, err := branchdiff.FilesUnder(ctx, dir, within)
				return ch.Files, err
			}})
			if err != nil {
				t.Fatal(err)
			}
			if lazy.Markdown() != b.Markdown() {
				t.Errorf("ChangedUnder gives another block:\n%s\nthan Changed:\n%s", lazy.Markdown(), b.Markdown())
			}
			if len(asked) != 1 || !slices.Equal(asked[0], []string{"auth"}) {
				t.Errorf("ChangedUnder asked for %q, want once for [auth]", asked)
			}
		})
	}
}

func TestNoMemoryWithPathsAsksNoChangedFiles(t *testing.T) {
	dir := testgit.Init(t)
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "architecture", Title: "Tokens are signed with ed25519", Body: "ed25519 everywhere"}); err != nil {
		t.Fatal(err)
	}
	b, err := contextblock.Build(context.Background(), s, contextblock.Options{ChangedUnder: func(context.Context, []string) ([]string, error) {
		t.Error("ChangedUnder called though no memory has paths:")
		return nil, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Sections) == 0 {
		t.Error("an empty block")
	}
}

// TestBuilderAnswersAsBuild walks a long-lived Builder through the changes
// a block depends on (a memory file edited by hand, a memory saved by
// another process, a file removed, the branch's changes, the task, the
// budget) and after each compares it with Build: a kept block is never
// stale.
func TestBuilderAnswersAsBuild(t *testing.T) {
	f := seed(t)
	ctx := context.Background()
	other := openAt(t, f.dir) // another process: its saves sync the shared cache
	var bd contextblock.Builder
	o := contextblock.Options{Budget: 1500}
	brief := func() string {
		t.Helper()
		es, err := f.s.List(ctx, contextfs.ListOptions{Types: []string{"project-brief"}})
		if err != nil || len(es) != 1 {
			t.Fatalf("the brief: %v %v", es, err)
		}
		return filepath.Join(f.dir, es[0].Path)
	}
	steps := []struct {
		name, want string
		do         func()
	}{
		{"first", "Billing turns usage events", func() {}},
		{"again", "Billing turns usage events", func() {}},
		{"a memory file edited by hand", "Billing turns metered usage", func() {
			p := brief()
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(raw), "turns usage", "turns metered usage", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a save by another process", "Ship invoices in EUR", func() {
			save(t, other, contextfs.SaveRequest{Type: "todo", Title: "Ship invoices in EUR", Body: "Euro invoices.", Data: map[string]any{"status": "open"}})
		}},
		{"a memory file removed", "Layered packages", func() {
			if err := os.Remove(brief()); err != nil {
				t.Fatal(err)
			}
		}},
		{"the branch changes auth/", "Tokens expire after one hour", func() { o.Changed = []string{"auth/token.go"} }},
		{"a task", "Relevant to the task", func() { o.Task = "invoice facts" }},
		{"a smaller budget", "Left out to fit the budget", func() { o.Budget = 300 }},
		{"back to no task and the first budget", "Tokens expire after one hour", func() { o.Task, o.Budget = "", 1500 }},
		{"a task again", "Relevant to the task", func() { o.Task = "invoice facts" }},
		{"then a memory saved", "Relevant to the task", func() {
			save(t, other, contextfs.SaveRequest{Type: "fact", Title: "Invoice facts are kept for ten years", Body: "Ten years."})
		}},
	}
	for _, st := range steps {
		st.do()
		got, err := bd.Build(ctx, f.s, o)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		want, err := contextblock.Build(ctx, f.s, o)
		if err != nil {
			t.Fatal(err)
		}
		if got.Markdown() != want.Markdown() {
			t.Fatalf("%s: the Builder's block:\n%s\n---\nBuild's:\n%s", st.name, got.Markdown(), want.Markdown())
		}
		if !strings.Contains(got.Markdown(), st.want) {
			t.Errorf("%s: %q missing:\n%s", st.name, st.want, got.Markdown())
		}
		// What a caller does with its block never reaches the kept one.
		got.Sections[0].Items[0].Title = "changed by the caller"
	}
}

// TestTaskSectionIgnoresIndexedDocs is the first call every agent makes:
// once the code index holds the repository's Markdown, a task that matches
// README.md, CHANGELOG.md and a docs/ page must still build the block and
// cite the memories, not open the doc chunks as memory files.
func TestTaskSectionIgnoresIndexedDocs(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	s := openAt(t, dir)
	for name, content := range map[string]string{
		"README.md":           "# Releases\n\nTo cut a release, tag the commit and push the tag.\n",
		"CHANGELOG.md":        "# Changelog\n\n## v1.2.0\n\nRelease notes: the release tag is pushed by CI.\n",
		"docs/release.md":     "# Release process\n\nA release starts from main. Cut the release branch.\n",
		"cmd/release/main.go": "package main\n\n// release cuts a release.\nfunc release() {}\n\nfunc main() { release() }\n",
	} {
		testgit.WriteFile(t, dir, name, content)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "release docs")
	proc := save(t, s, contextfs.SaveRequest{Type: "procedural", Title: "How to cut a release",
		Body: "Run make bench, then tag the release commit vX.Y.Z and push the tag."})
	if _, err := s.Index(ctx, contextfs.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, contextfs.Query{Text: "cut a release", Types: []string{"doc"}})
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for _, r := range res {
		if r.Kind != "memory" {
			docs++
		}
	}
	if docs == 0 {
		t.Fatal("the test is void: no doc chunk matches the task")
	}
	for _, task := range []string{"cut a release", "release notes in the changelog", "release process docs"} {
		b, err := contextblock.Build(ctx, s, contextblock.Options{Task: task})
		if err != nil {
			t.Fatalf("task %q: %v", task, err)
		}
		var ids []string
		for _, sec := range b.Sections {
			if sec.Note != "" {
				t.Errorf("task %q: section %q degraded: %s", task, sec.Title, sec.Note)
			}
			for _, it := range sec.Items {
				ids = append(ids, it.ID)
				if sec.Key == contextblock.RelevantTask && it.Type == "doc" {
					t.Errorf("task %q: doc chunk %q cited as a memory", task, it.ID)
				}
			}
		}
		if task == "cut a release" && !slices.Contains(ids, proc) {
			t.Errorf("task %q: the release procedure %s is not in the block: %v", task, proc, ids)
		}
	}
}
