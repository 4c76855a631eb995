package dedup_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/memory"
)

// A save that the update policy turns into an edit of the memory it
// repeats brings everything it was given: its links, what it supersedes
// and its data, not only its body and tags. Dropped, they were lost
// without a word.
func TestUpdateTakesTheSavesLinksSupersedesAndData(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	old, err := s.Save(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The database allows 200 connections."})
	if err != nil {
		t.Fatal(err)
	}
	retired, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: "Open a connection per request",
		Body: "Each request opens its own Postgres connection.", Data: map[string]any{"decision": "per request", "status": "accepted"}})
	if err != nil {
		t.Fatal(err)
	}
	req := contextfs.SaveRequest{Type: "decision", Title: "Use pgxpool for Postgres",
		Body:       "Postgres connections are pooled with pgxpool: 20 per instance.",
		Tags:       []string{"db"},
		Links:      []string{"depends_on:" + ref.Memory.ID},
		Supersedes: []string{retired.Memory.ID},
		Data:       map[string]any{"status": "proposed"},
	}
	out, err := dedup.Save(ctx, s, req, dedup.Update, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != dedup.Updated || out.Memory.ID != old.Memory.ID {
		t.Fatalf("action %s on %s, want %s on %s", out.Action, out.Memory.ID, dedup.Updated, old.Memory.ID)
	}
	m, err := s.Resolve(ctx, old.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != pool.Title {
		t.Errorf("title %q: a title written by hand is kept", m.Title)
	}
	if m.Body != req.Body+"\n" || !slices.Contains(m.Tags, "db") {
		t.Errorf("body %q, tags %v: the update's own part is missing", m.Body, m.Tags)
	}
	if !slices.Contains(m.Links, memory.Link{ID: ref.Memory.ID, Rel: "depends_on"}) {
		t.Errorf("links %+v: the save's depends_on link is missing", m.Links)
	}
	if ids := m.SupersededIDs(); !slices.Equal(ids, []string{retired.Memory.ID}) {
		t.Errorf("supersedes %v, want %s", ids, retired.Memory.ID)
	}
	if m.Data["status"] != "proposed" || m.Data["decision"] != pool.Data["decision"] {
		t.Errorf("data %v: want the save's status over the kept decision", m.Data)
	}
	if e, err := s.Superseded(ctx, retired.Memory.ID); err != nil || e == nil {
		t.Errorf("%s is not superseded after the update (%v)", retired.Memory.ID, err)
	}
}

// A title the old text gave is given again by the new text, as evolve
// does: it would contradict the body. One written by hand is kept (above).
func TestUpdateDerivesTheTitleItDerivedBefore(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	old, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Body: "We pool Postgres connections with pgxpool, 20 per instance."})
	if err != nil {
		t.Fatal(err)
	}
	body := "Postgres connections are pooled with pgxpool: 20 per instance."
	out, err := dedup.Save(ctx, s, contextfs.SaveRequest{Type: "decision", Body: body}, dedup.Update, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != dedup.Updated || out.Memory.ID != old.Memory.ID {
		t.Fatalf("action %s on %s, want %s on %s", out.Action, out.Memory.ID, dedup.Updated, old.Memory.ID)
	}
	if want := contextfs.DerivedTitle(body); out.Memory.Title != want {
		t.Errorf("title %q, want %q from the new text", out.Memory.Title, want)
	}
}

// A link of rel supersedes says what a supersedes entry says: the memory
// it names is the old version, not a duplicate to skip the save for.
func TestSaveThatSupersedesByALinkIsNotADuplicateOfWhatItReplaces(t *testing.T) {
	ctx := context.Background()
	for _, policy := range []dedup.Policy{dedup.Skip, dedup.Update, dedup.Error} {
		t.Run(string(policy), func(t *testing.T) {
			s := open(t)
			old, err := s.Save(ctx, pool)
			if err != nil {
				t.Fatal(err)
			}
			req := contextfs.SaveRequest{Type: "decision", Title: "Use pgxpool for Postgres",
				Body: "Postgres connections are pooled with pgxpool: 20 per instance.", Links: []string{"supersedes:" + old.Memory.ID}}
			out, err := dedup.Save(ctx, s, req, policy, dedup.DefaultThresholds)
			if err != nil {
				t.Fatal(err)
			}
			if out.Action != dedup.Saved || out.Memory.ID == old.Memory.ID || len(out.Similar) != 0 {
				t.Fatalf("action %s on %s, similar %+v: want a new memory superseding %s", out.Action, out.Memory.ID, out.Similar, old.Memory.ID)
			}
			if e, err := s.Superseded(ctx, old.Memory.ID); err != nil || e == nil {
				t.Errorf("%s is not superseded (%v)", old.Memory.ID, err)
			}
		})
	}
}

// What a save supersedes must exist, whatever the policy does with the
// save: an update or a skip never reaches Store.Save, which refused it
// there, so a mistyped ID was dropped without a word. Nothing is written.
func TestSaveRefusesToSupersedeWhatDoesNotExist(t *testing.T) {
	ctx := context.Background()
	for _, policy := range []dedup.Policy{dedup.Skip, dedup.Update, dedup.Allow} {
		for how, req := range map[string]contextfs.SaveRequest{
			"entry": {Supersedes: []string{"zzzzzzzzzz"}},
			"link":  {Links: []string{"supersedes:zzzzzzzzzz"}},
			"list":  {Supersedes: []string{" , zzzzzzzzzz"}},
		} {
			t.Run(string(policy)+" by "+how, func(t *testing.T) {
				s := open(t)
				old, err := s.Save(ctx, pool)
				if err != nil {
					t.Fatal(err)
				}
				req.Type, req.Title, req.Body = pool.Type, pool.Title, pool.Body+" Still."
				if out, err := dedup.Save(ctx, s, req, policy, dedup.DefaultThresholds); err == nil || !strings.Contains(err.Error(), "zzzzzzzzzz") {
					t.Fatalf("saved (%+v, %v): want an error naming zzzzzzzzzz", out, err)
				}
				m, err := s.Resolve(ctx, old.Memory.ID)
				if err != nil {
					t.Fatal(err)
				}
				if m.Body != old.Memory.Body || !m.Updated.Equal(old.Memory.Updated) {
					t.Errorf("%s was changed: %q", m.ID, m.Body)
				}
				if ms, err := s.List(ctx, contextfs.ListOptions{}); err != nil || len(ms) != 1 {
					t.Errorf("%d memories (%v), want the one saved first", len(ms), err)
				}
			})
		}
	}
}
