package dedup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/memory"
)

// contradiction is one may_supersede report on a labelled set: the
// subject similarity the newest-wins rule is on, and whether the pair is
// a real change of position.
type contradiction struct {
	set, from, to string
	text          float64
	settle        bool
	truth         bool
}

// labelledContradictions checks every candidate of the two labelled sets
// of docs/HYGIENE.md (the labelled decisions and this project's own) and
// returns each may_supersede it reports, and how many true pairs there are.
func labelledContradictions(t *testing.T) ([]contradiction, map[string]int) {
	t.Helper()
	ctx := context.Background()
	var out []contradiction
	truths := map[string]int{}

	s := open(t)
	ids := make([]string, len(labelledExisting))
	for i, r := range labelledExisting {
		r.Type = "decision"
		res, err := s.Save(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = res.Memory.ID
	}
	for _, tc := range labelledCandidates {
		tc.c.Type = "decision"
		if tc.want >= 0 {
			truths["labelled"]++
		}
		rep, err := dedup.Check(ctx, s, tc.c, dedup.DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.MaySupersede {
			out = append(out, contradiction{"labelled", tc.c.Title, m.Title, m.Similarity, m.Settle, tc.want >= 0 && m.ID == ids[tc.want]})
		}
	}

	n := open(t)
	nids := make([]string, len(newestExisting))
	for i, r := range newestExisting {
		res, err := n.Save(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		nids[i] = res.Memory.ID
	}
	for _, tc := range newestCandidates {
		if tc.want >= 0 {
			truths["changes"]++
		}
		rep, err := dedup.Check(ctx, n, tc.c, dedup.DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.MaySupersede {
			out = append(out, contradiction{"changes", tc.c.Title, m.Title, m.Similarity, m.Settle, tc.want >= 0 && m.ID == nids[tc.want]})
		}
	}

	raw, err := os.ReadFile("testdata/project-decisions.json")
	if err != nil {
		t.Fatal(err)
	}
	var decisions []projectDecision
	if err := json.Unmarshal(raw, &decisions); err != nil {
		t.Fatal(err)
	}
	p := open(t)
	saved := map[string]string{}
	for _, d := range decisions {
		res, err := p.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: d.Title, Body: d.Body, Data: map[string]any{"decision": d.Decision}})
		if err != nil {
			t.Fatal(err)
		}
		saved[d.ID] = res.Memory.ID
	}
	pairs := map[string]map[string]bool{}
	for _, d := range decisions {
		for _, old := range d.Supersedes {
			for _, x := range [][2]string{{d.ID, old}, {old, d.ID}} {
				if pairs[x[0]] == nil {
					pairs[x[0]] = map[string]bool{}
				}
				pairs[x[0]][saved[x[1]]] = true
				truths["project"]++
			}
		}
	}
	for _, d := range decisions {
		rep, err := dedup.Check(ctx, p, dedup.Candidate{Type: "decision", Title: d.Title, Body: d.Body, Data: map[string]any{"decision": d.Decision}}, dedup.DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.MaySupersede {
			if m.ID != saved[d.ID] {
				out = append(out, contradiction{"project", d.Title, m.Title, m.Similarity, m.Settle, pairs[d.ID][m.ID]})
			}
		}
	}
	return out, truths
}

// TestNewestWinsOnLabelledSets measures the newest-wins rule (a
// contradiction whose titles' subjects are at least Thresholds.Replace
// similar is superseded at save, not proposed) on the two labelled sets of
// may_supersede, prints the table docs/HYGIENE.md publishes (-v), and
// fails on any false supersede at the default: a false one hides a
// current memory from the block and search until someone notices.
func TestNewestWinsOnLabelledSets(t *testing.T) {
	found, truths := labelledContradictions(t)
	for _, c := range found {
		t.Logf("%-8s truth %-5v settled %-5v text %.3f  %q -> %q", c.set, c.truth, c.settle, c.text, c.from, c.to)
	}
	var b strings.Builder
	b.WriteString("\n| set | pairs to find | proposed (may_supersede) | of them false | settled (newest wins) | of them false |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, set := range []string{"labelled", "changes", "project"} {
		prop, propF, settled, settledF := 0, 0, 0, 0
		for _, c := range found {
			if c.set != set {
				continue
			}
			prop++
			if !c.truth {
				propF++
			}
			if c.settle {
				settled++
				if !c.truth {
					settledF++
					t.Errorf("false supersede at save: %q -> %q", c.from, c.to)
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", set, truths[set], prop, propF, settled, settledF)
	}
	t.Log(b.String())
}

// newestExisting and newestCandidates are a third labelled set, written
// for the newest-wins rule: the changes of position the issue that asked
// for it names (a preference tabs → spaces, MySQL → PostgreSQL, Argo CD →
// Flux), and hard negatives: a position on another aspect of the same
// subject (when to deploy, not with what), which the subject test alone
// takes for a contradiction.
var newestExisting = []contextfs.SaveRequest{
	{Type: "user", Title: "Indent with tabs", Body: "Indent code with tabs.", Data: map[string]any{"preference_key": "indent", "preference_value": "tabs"}},
	{Type: "decision", Title: "Use MySQL for the orders database", Body: "The orders service stores its data in MySQL 8.", Data: map[string]any{"decision": "MySQL"}},
	{Type: "decision", Title: "Deploy with Argo CD", Body: "Production deploys go through Argo CD.", Data: map[string]any{"decision": "Argo CD"}},
	{Type: "decision", Title: "Cache sessions in Redis", Body: "Sessions are cached in Redis.", Data: map[string]any{"decision": "Redis"}},
}

var newestCandidates = []struct {
	c    dedup.Candidate
	want int // index in newestExisting of the memory it replaces, or -1
}{
	{dedup.Candidate{Type: "user", Title: "Indent with spaces", Body: "Indent code with four spaces.", Data: map[string]any{"preference_key": "indent", "preference_value": "spaces"}}, 0},
	{dedup.Candidate{Type: "decision", Title: "Use PostgreSQL for the orders database", Body: "The orders service moves to PostgreSQL 16.", Data: map[string]any{"decision": "PostgreSQL"}}, 1},
	{dedup.Candidate{Type: "decision", Title: "Deploy with Flux", Body: "Production deploys go through Flux.", Data: map[string]any{"decision": "Flux"}}, 2},
	{dedup.Candidate{Type: "decision", Title: "Cache sessions in Memcached", Body: "Sessions move from Redis to Memcached.", Data: map[string]any{"decision": "Memcached"}}, 3},
	{dedup.Candidate{Type: "decision", Title: "Deploy on weekdays only", Body: "Production deploys happen Monday to Thursday, never on Fridays.", Data: map[string]any{"decision": "weekdays only"}}, -1},
	{dedup.Candidate{Type: "decision", Title: "Cache sessions for one hour", Body: "Session entries expire from the cache after one hour.", Data: map[string]any{"decision": "one hour TTL"}}, -1},
	{dedup.Candidate{Type: "user", Title: "Indent YAML with two spaces", Body: "YAML files are indented with two spaces.", Data: map[string]any{"preference_key": "yaml-indent", "preference_value": "two spaces"}}, -1},
	{dedup.Candidate{Type: "decision", Title: "Use MySQL for analytics", Body: "The analytics jobs read a MySQL replica.", Data: map[string]any{"decision": "MySQL replica"}}, -1},
	{dedup.Candidate{Type: "decision", Title: "Deploy previews for every pull request", Body: "Each pull request gets a preview environment.", Data: map[string]any{"decision": "preview per pull request"}}, -1},
}

// TestNewestWinsAtSave: a save that plainly changes a memory's position
// supersedes it (the older leaves search and the block); one on another
// aspect of the subject is only proposed; hygiene.newest_wins: false
// proposes every one; the supersede policy makes a repeat the new version
// of what it repeats, and still never writes identical content twice.
func TestNewestWinsAtSave(t *testing.T) {
	ctx := context.Background()
	tabs := contextfs.SaveRequest{Type: "user", Title: "Indent with tabs", Body: "Indent code with tabs.",
		Data: map[string]any{"preference_key": "indent", "preference_value": "tabs"}}
	spaces := contextfs.SaveRequest{Type: "user", Title: "Indent with spaces", Body: "Indent code with four spaces.",
		Data: map[string]any{"preference_key": "indent", "preference_value": "spaces"}}
	argo := contextfs.SaveRequest{Type: "decision", Title: "Deploy with Argo CD", Body: "Production deploys go through Argo CD.",
		Data: map[string]any{"decision": "Argo CD"}}
	flux := contextfs.SaveRequest{Type: "decision", Title: "Deploy with Flux", Body: "Production deploys go through Flux.",
		Data: map[string]any{"decision": "Flux"}}
	weekdays := contextfs.SaveRequest{Type: "decision", Title: "Deploy on weekdays only", Body: "Production deploys happen Monday to Thursday, never on Fridays.",
		Data: map[string]any{"decision": "weekdays only"}}
	para := contextfs.SaveRequest{Type: "decision", Title: "Use pgxpool for Postgres", Body: "Postgres connections are pooled with pgxpool: 20 per instance."}
	off := false
	tests := []struct {
		name        string
		old, new    contextfs.SaveRequest
		policy      dedup.Policy
		newestWins  *bool
		action      dedup.Action
		supersedes  bool // the new memory supersedes the old
		proposed    bool // the old is in may_supersede
		currentOlds int  // how many current memories search finds of the old's text
	}{
		{"a preference changed supersedes the old one", tabs, spaces, dedup.Skip, nil, dedup.Saved, true, false, 0},
		{"a decision changed supersedes the old one", argo, flux, dedup.Skip, nil, dedup.Saved, true, false, 0},
		{"another aspect of the subject is only proposed", argo, weekdays, dedup.Skip, nil, dedup.Saved, false, true, 1},
		{"newest_wins off only proposes", argo, flux, dedup.Skip, &off, dedup.Saved, false, true, 1},
		{"the supersede policy makes a repeat the new version", pool, para, dedup.Supersede, nil, dedup.Saved, true, false, 0},
		{"the skip policy keeps the older of a repeat", pool, para, dedup.Skip, nil, dedup.Skipped, false, false, 1},
		{"identical content is not written again under supersede", pool, pool, dedup.Supersede, nil, dedup.Skipped, false, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			s.Config.Hygiene.NewestWins = tt.newestWins
			old, err := s.Save(ctx, tt.old)
			if err != nil {
				t.Fatal(err)
			}
			out, err := dedup.Save(ctx, s, tt.new, tt.policy, dedup.DefaultThresholds)
			if err != nil {
				t.Fatal(err)
			}
			if out.Action != tt.action {
				t.Fatalf("action %s, want %s", out.Action, tt.action)
			}
			has := func(ms []dedup.Match) bool {
				return slices.ContainsFunc(ms, func(m dedup.Match) bool { return m.ID == old.Memory.ID })
			}
			if got := slices.Contains(out.Memory.Supersedes, old.Memory.ID); got != tt.supersedes || has(out.Superseded) != tt.supersedes {
				t.Errorf("supersedes %v, superseded %+v; want the old one superseded: %v", out.Memory.Supersedes, out.Superseded, tt.supersedes)
			}
			if has(out.MaySupersede) != tt.proposed {
				t.Errorf("may_supersede %+v; want the old one proposed: %v", out.MaySupersede, tt.proposed)
			}
			es, err := s.List(ctx, contextfs.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range es {
				if e.ID == old.Memory.ID {
					n++
				}
			}
			if n != tt.currentOlds {
				t.Errorf("the old memory is listed %d times, want %d", n, tt.currentOlds)
			}
		})
	}
}

// A save that writes nothing (it repeats a memory) supersedes nothing:
// the contradiction it would have settled stays a proposal.
func TestNewestWinsOnlyWhenANewFileIsWritten(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	argo, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: "Deploy with Argo CD", Body: "Production deploys go through Argo CD.",
		Data: map[string]any{"decision": "Argo CD"}})
	if err != nil {
		t.Fatal(err)
	}
	flux := contextfs.SaveRequest{Type: "decision", Title: "Deploy with Flux", Body: "Production deploys go through Flux.",
		Data: map[string]any{"decision": "Flux"}}
	first, err := dedup.Save(ctx, s, flux, dedup.Skip, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	// Argo CD is superseded now; unlink it to make it current again, as
	// a person undoing the rule would.
	if _, err := s.Update(ctx, first.Memory.ID, func(m *memory.Memory) error { m.Supersedes = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	again, err := dedup.Save(ctx, s, flux, dedup.Skip, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	if again.Action != dedup.Skipped || len(again.Superseded) != 0 {
		t.Fatalf("action %s, superseded %+v; want skipped, nothing superseded", again.Action, again.Superseded)
	}
	if len(again.MaySupersede) != 1 || again.MaySupersede[0].ID != argo.Memory.ID {
		t.Errorf("may_supersede %+v; want %s proposed", again.MaySupersede, argo.Memory.ID)
	}
}
