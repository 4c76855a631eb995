package dedup_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

func open(t *testing.T) *contextfs.Store {
	t.Helper()
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var pool = contextfs.SaveRequest{Type: "decision", Title: "Pool Postgres connections with pgxpool",
	Body: "We pool Postgres connections with pgxpool, 20 per instance.",
	Data: map[string]any{"decision": "pgxpool, 20 per instance", "status": "accepted"}}

func TestCheckAtSave(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	old, err := s.Save(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Title: "Pool Postgres connections with pgxpool", Body: pool.Body}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		c                 dedup.Candidate
		similar, supplant bool
	}{
		{"a paraphrase of the decision is similar",
			dedup.Candidate{Type: "decision", Title: "Use pgxpool for Postgres",
				Body: "Postgres connections are pooled with pgxpool: 20 per instance."}, true, false},
		{"identical content is similar",
			dedup.Candidate{Type: "decision", Title: pool.Title, Body: pool.Body}, true, false},
		{"an unrelated decision is neither",
			dedup.Candidate{Type: "decision", Title: "Deploy with Argo CD", Body: "Deployments to production go through Argo CD, never by hand."}, false, false},
		{"the same subject with another decision may supersede it",
			dedup.Candidate{Type: "decision", Title: "Pool Postgres connections with pgxpool", Body: "We pool 40 connections per instance now.",
				Data: map[string]any{"decision": "pgxpool, 40 per instance"}}, false, true},
		{"another type is never compared",
			dedup.Candidate{Type: "procedural", Title: pool.Title, Body: pool.Body}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := dedup.Check(ctx, s, tt.c, dedup.DefaultThresholds)
			if err != nil {
				t.Fatal(err)
			}
			has := func(ms []dedup.Match) bool { return len(ms) == 1 && ms[0].ID == old.Memory.ID }
			if has(rep.Similar) != tt.similar || has(rep.MaySupersede) != tt.supplant {
				t.Errorf("similar %+v, may_supersede %+v; want similar %v, may_supersede %v", rep.Similar, rep.MaySupersede, tt.similar, tt.supplant)
			}
		})
	}
}

func TestSavePolicies(t *testing.T) {
	ctx := context.Background()
	para := contextfs.SaveRequest{Type: "decision", Title: "Use pgxpool for Postgres", Body: "Postgres connections are pooled with pgxpool: 20 per instance."}
	tests := []struct {
		name   string
		req    contextfs.SaveRequest
		policy dedup.Policy
		action dedup.Action
		files  int
		err    bool
	}{
		{"skip writes nothing and names the existing memory", para, dedup.Skip, dedup.Skipped, 1, false},
		{"update puts the new text into the existing memory", para, dedup.Update, dedup.Updated, 1, false},
		{"error refuses", para, dedup.Error, "", 1, true},
		{"allow writes a second memory", para, dedup.Allow, dedup.Saved, 2, false},
		{"identical content is never written twice, even with allow", pool, dedup.Allow, dedup.Skipped, 1, false},
		{"off does no check: identical content is written again", pool, dedup.Off, dedup.Saved, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			first, err := s.Save(ctx, pool)
			if err != nil {
				t.Fatal(err)
			}
			out, err := dedup.Save(ctx, s, tt.req, tt.policy, dedup.DefaultThresholds)
			var de *dedup.DuplicateError
			if tt.err != errors.As(err, &de) {
				t.Fatalf("err = %v, want a DuplicateError: %v", err, tt.err)
			}
			if !tt.err && out.Action != tt.action {
				t.Errorf("action %q, want %q", out.Action, tt.action)
			}
			if !tt.err && tt.action != dedup.Saved && out.Memory.ID != first.Memory.ID {
				t.Errorf("memory %s, want the existing %s", out.Memory.ID, first.Memory.ID)
			}
			es, _ := s.Repo.List()
			if len(es) != tt.files {
				t.Errorf("%d files, want %d", len(es), tt.files)
			}
			if tt.action == dedup.Updated {
				m, _ := s.Resolve(ctx, first.Memory.ID)
				if m.Body != para.Body+"\n" {
					t.Errorf("updated body %q", m.Body)
				}
			}
		})
	}
}

// A save that supersedes a memory a newer version already replaces, and
// not that version too, would fork its chain into two current versions:
// it is refused, naming the current version to supersede instead,
// whatever the duplicate policy (except off, which checks nothing).
func TestSaveRefusesToSupersedeASupersededMemory(t *testing.T) {
	ctx := context.Background()
	// Each case gets the chain v[0] <- v[1] <- v[2] in a store of its own.
	tests := []struct {
		name       string
		supersedes func(v []string) []string
		policy     dedup.Policy
		want       func(v []string) string // in the refusal; nil when it saves
	}{
		{"a superseded memory", func(v []string) []string { return v[1:2] }, dedup.Skip,
			func(v []string) string {
				return v[1] + " is superseded by " + v[2] + "; supersede " + v[2] + " instead"
			}},
		{"a superseded memory, by prefix", func(v []string) []string { return []string{v[0][:6]} }, dedup.Skip,
			func(v []string) string {
				return v[0] + " is superseded by " + v[1] + ", whose current version is " + v[2] + "; supersede " + v[2] + " instead"
			}},
		{"a superseded memory, with allow", func(v []string) []string { return v[1:2] }, dedup.Allow,
			func(v []string) string { return "supersede " + v[2] + " instead" }},
		{"a superseded memory with its current version", func(v []string) []string { return []string{v[0], v[2]} }, dedup.Skip, nil},
		{"the current version", func(v []string) []string { return v[2:] }, dedup.Skip, nil},
		{"a superseded memory with off, which checks nothing", func(v []string) []string { return v[:1] }, dedup.Off, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			var v []string
			for i, ttl := range []int{60, 120, 300} {
				res, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: fmt.Sprintf("Cache TTL is %d seconds.", ttl), Supersedes: v[max(i-1, 0):]})
				if err != nil {
					t.Fatal(err)
				}
				v = append(v, res.Memory.ID)
			}
			req := contextfs.SaveRequest{Type: "fact", Body: "Sessions expire after a day.", Supersedes: tt.supersedes(v)}
			out, err := dedup.Save(ctx, s, req, tt.policy, dedup.DefaultThresholds)
			files, _ := s.Repo.List()
			if tt.want == nil {
				if err != nil || out.Action != dedup.Saved || len(files) != 4 {
					t.Fatalf("save: %v, %+v; %d files, want 4", err, out, len(files))
				}
				return
			}
			var se *contextfs.SupersededError
			if want := tt.want(v); !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want a *SupersededError saying %q", err, want)
			}
			if len(files) != 3 {
				t.Errorf("%d files after a refused save, want 3", len(files))
			}
		})
	}
}

// TestMaySupersedeOnLabelledSet measures the contradiction heuristic on a
// labelled set of decisions: each candidate either changes an existing
// decision (and should be offered for superseding it) or does not (a
// paraphrase, a decision on another subject). Run it with -v for the
// figures docs/HYGIENE.md publishes.
func TestMaySupersedeOnLabelledSet(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	existing := labelledExisting
	ids := make([]string, len(existing))
	for i, r := range existing {
		r.Type = "decision"
		res, err := s.Save(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = res.Memory.ID
	}
	cases := labelledCandidates
	var tp, fp, fn int
	for _, tc := range cases {
		tc.c.Type = "decision"
		rep, err := dedup.Check(ctx, s, tc.c, dedup.DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		hit := false
		for _, m := range rep.MaySupersede {
			if tc.want >= 0 && m.ID == ids[tc.want] {
				hit = true
			} else {
				fp++
				t.Logf("false may_supersede: %q -> %s", tc.c.Title, m.Title)
			}
		}
		switch {
		case hit:
			tp++
		case tc.want >= 0:
			fn++
			t.Logf("missed: %q should supersede %q", tc.c.Title, existing[tc.want].Title)
		}
	}
	p, r := float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1))
	t.Logf("may_supersede on %d labelled decisions: precision %.2f (%d/%d), recall %.2f (%d/%d)", len(cases), p, tp, tp+fp, r, tp, tp+fn)
	if p < 0.8 || r < 0.6 {
		t.Errorf("precision %.2f, recall %.2f; want at least 0.8 and 0.6", p, r)
	}
}

// TestCheckTakesTextAsPlainWords saves memories whose text looks like the
// search syntax (a "quoted phrase", a -word, OR, a prefix*) and checks
// that the duplicate check reads them as the plain words they are: each
// is found as the duplicate of itself and of a near copy, never excluded
// by its own -word, never missed because a near copy lacks its phrase.
func TestCheckTakesTextAsPlainWords(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		old, cand contextfs.SaveRequest
		identical bool
	}{
		{"a -word in the body does not exclude the memory itself",
			contextfs.SaveRequest{Title: "Run the linter with -fix", Body: "Run golangci-lint with -fix before every commit; -fix rewrites the files in place."},
			contextfs.SaveRequest{Title: "Run the linter with -fix", Body: "Run golangci-lint with -fix before every commit; -fix rewrites the files in place."}, true},
		{"a quoted phrase is not required of a near copy",
			contextfs.SaveRequest{Title: "Commit messages", Body: `Commit subjects start with a verb, as in "add retry to the uploader", and stay under 72 characters.`},
			contextfs.SaveRequest{Title: "Commit messages", Body: `Commit subjects start with a verb, as in "add retries to uploader", and stay under 72 characters.`}, false},
		{"OR between words is a word, not alternatives",
			contextfs.SaveRequest{Title: "Retry OR fail fast", Body: "Clients retry idempotent calls OR fail fast on the rest; never retry a POST."},
			contextfs.SaveRequest{Title: "Retry OR fail fast", Body: "Clients retry idempotent calls OR fail fast on the rest; never retry a POST."}, true},
		{"a prefix* is a word, and operators together change nothing",
			contextfs.SaveRequest{Title: "Glob test files", Body: `Match test files with foo* and "_test.go", never -run OR -bench flags in CI.`},
			contextfs.SaveRequest{Title: "Glob test files", Body: `Match test files with foo* and "_test.go", never -run OR -bench flags in CI.`}, true},
		{"a text of operators only is still checked",
			contextfs.SaveRequest{Title: "-v", Body: `-q -x "" OR * -`},
			contextfs.SaveRequest{Title: "-v", Body: `-q -x "" OR * -`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			tt.old.Type = "decision"
			old, err := s.Save(ctx, tt.old)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := dedup.Check(ctx, s, dedup.Candidate{Type: "decision", Title: tt.cand.Title, Body: tt.cand.Body}, dedup.DefaultThresholds)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Similar) != 1 || rep.Similar[0].ID != old.Memory.ID || rep.Similar[0].Identical != tt.identical {
				t.Errorf("similar %+v; want %s (identical %v)", rep.Similar, old.Memory.ID, tt.identical)
			}
		})
	}
}

// TestSaveWithoutTitleIsIdenticalToItsFirstCopy saves the same body twice
// without a title, as `save "text"` does: the title each gets from its
// body is the same, so the second save is identical and never written,
// even with the allow policy.
func TestSaveWithoutTitleIsIdenticalToItsFirstCopy(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	req := contextfs.SaveRequest{Type: "decision", Body: "Route tenant traffic through the gateway pool.\n\nThe pool has four replicas."}
	first, err := dedup.Save(ctx, s, req, dedup.Allow, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	again, err := dedup.Save(ctx, s, req, dedup.Allow, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	if again.Action != dedup.Skipped || again.Memory.ID != first.Memory.ID || len(again.Similar) == 0 || !again.Similar[0].Identical {
		t.Errorf("second save: action %q, memory %s, similar %+v; want skipped as identical to %s", again.Action, again.Memory.ID, again.Similar, first.Memory.ID)
	}
	if es, _ := s.Repo.List(); len(es) != 1 {
		t.Errorf("%d files, want 1", len(es))
	}
}

// TestCheckFindsTheSameSubjectBeyondTheNearest: a decision on the same
// subject as the candidate whose text is far from it, behind more than
// the compared candidates of closer decisions on other subjects, is still
// offered for superseding: the candidate's title is looked up by its words.
func TestCheckFindsTheSameSubjectBeyondTheNearest(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	target, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: "Deploy with Argo CD",
		Body: "Clusters sync from the gitops repository.", Data: map[string]any{"decision": "Argo CD"}})
	if err != nil {
		t.Fatal(err)
	}
	body := "Every service ships from the main branch after review, with rollbacks by revert, canaries first and alerts on error budgets."
	for i := range 12 {
		if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: fmt.Sprintf("Release train %d", i),
			Body: fmt.Sprintf("%s Train %d.", body, i)}); err != nil {
			t.Fatal(err)
		}
	}
	c := dedup.Candidate{Type: "decision", Title: "Deploy with Flux", Body: body, Data: map[string]any{"decision": "Flux"}}
	rep, err := dedup.Check(ctx, s, c, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	// The release trains share the body but not the title: changes of
	// text, proposed too (change.go); the one decision it contradicts is
	// the memory beyond the nearest.
	var contradicts []dedup.Match
	for _, m := range rep.MaySupersede {
		if strings.HasPrefix(m.Why, "decision differs") {
			contradicts = append(contradicts, m)
		}
	}
	if len(contradicts) != 1 || contradicts[0].ID != target.Memory.ID {
		t.Errorf("may_supersede %+v; want %s", rep.MaySupersede, target.Memory.ID)
	}
}

// labelledExisting are the decisions of the labelled set of may_supersede.
var labelledExisting = []contextfs.SaveRequest{
	{Title: "Pool Postgres connections with pgxpool", Body: "We pool Postgres connections with pgxpool, 20 per instance.", Data: map[string]any{"decision": "pgxpool, 20 per instance"}},
	{Title: "Deploy with Argo CD", Body: "Production deploys go through Argo CD.", Data: map[string]any{"decision": "Argo CD"}},
	{Title: "Log in JSON", Body: "Services log JSON lines to stdout.", Data: map[string]any{"decision": "JSON lines on stdout"}},
	{Title: "Store sessions in Redis", Body: "HTTP sessions are kept in Redis with a one-day TTL.", Data: map[string]any{"decision": "Redis, 1 day TTL"}},
	{Title: "Use GitHub Actions for CI", Body: "CI runs on GitHub Actions.", Data: map[string]any{"decision": "GitHub Actions"}},
	{Title: "Do not vendor dependencies", Body: "Modules are not vendored; builds fetch them through the module proxy.", Data: map[string]any{"decision": "no vendoring"}},
}

// labelledCandidates change one of labelledExisting (want: its index) or
// none (-1).
var labelledCandidates = []struct {
	c    dedup.Candidate
	want int // index of the decision it changes, or -1
}{
	{dedup.Candidate{Title: "Pool Postgres connections with pgxpool", Body: "We now pool 40 connections.", Data: map[string]any{"decision": "pgxpool, 40 per instance"}}, 0},
	{dedup.Candidate{Title: "Deploy with Flux", Body: "Production deploys go through Flux from now on.", Data: map[string]any{"decision": "Flux"}}, 1},
	{dedup.Candidate{Title: "Log in plain text", Body: "Services log plain text lines.", Data: map[string]any{"decision": "plain text"}}, 2},
	{dedup.Candidate{Title: "Store sessions in Postgres", Body: "HTTP sessions move to Postgres.", Data: map[string]any{"decision": "Postgres sessions table"}}, 3},
	{dedup.Candidate{Title: "Use Buildkite for CI", Body: "CI moves to Buildkite.", Data: map[string]any{"decision": "Buildkite"}}, 4},
	{dedup.Candidate{Title: "Vendor dependencies", Body: "Dependencies are vendored into the repository from now on.", Data: map[string]any{"decision": "vendor"}}, 5},
	// Negated like decision 5, on another subject: a negation says
	// nothing about what a title is about.
	{dedup.Candidate{Title: "Never log request bodies", Body: "Request bodies are not logged, not even at debug level.", Data: map[string]any{"decision": "no request bodies in logs"}}, -1},
	{dedup.Candidate{Title: "Pool Postgres connections with pgxpool", Body: "We pool Postgres connections with pgxpool, 20 per instance.", Data: map[string]any{"decision": "pgxpool, 20 per instance"}}, -1},
	{dedup.Candidate{Title: "Cache HTTP responses in Varnish", Body: "Public pages are cached by Varnish.", Data: map[string]any{"decision": "Varnish"}}, -1},
	{dedup.Candidate{Title: "Write migrations with goose", Body: "Schema migrations are written for goose.", Data: map[string]any{"decision": "goose"}}, -1},
	{dedup.Candidate{Title: "Use Go 1.27", Body: "Services build with Go 1.27.", Data: map[string]any{"decision": "Go 1.27"}}, -1},
	{dedup.Candidate{Title: "Trace with OpenTelemetry", Body: "Services export OpenTelemetry traces.", Data: map[string]any{"decision": "OpenTelemetry"}}, -1},
}
