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
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// saveFile saves req and returns the memory's ID and file.
func saveFile(t *testing.T, s *contextfs.Store, req contextfs.SaveRequest) (string, string) {
	t.Helper()
	res, err := s.Save(context.Background(), req)
	if err != nil {
		t.Fatalf("save %q: %v", req.Title, err)
	}
	return res.Memory.ID, filepath.Join(s.Repo.Root, res.Memory.Path)
}

// setExpires adds expires: value to the frontmatter of the memory file p,
// as a person does by hand.
func setExpires(t *testing.T, p, value string) {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(raw), "\ncreated:", "\nexpires: "+value+"\ncreated:", 1)
	if out == string(raw) {
		t.Fatalf("%s has no created: line", p)
	}
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sectionOf(b *contextblock.Block, key string) contextblock.Section {
	for _, sec := range b.Sections {
		if sec.Key == key {
			return sec
		}
	}
	return contextblock.Section{}
}

// TestBlockMasksSuspectedSecrets: save warns of a secret but keeps it; the
// block, which every agent session reads, shows it masked as review does,
// in titles, summaries and bodies, in Markdown and JSON alike.
func TestBlockMasksSuspectedSecrets(t *testing.T) {
	const (
		github = "ghp_R4nd0mT0k3nV4lu3Xq9Zk2Lm8Np5Qr7St1Uv3W"
		stripe = "sk_live_51HxQ2bK9vLmN3pQ7rS8tU2wX"
	)
	s := openAt(t, testgit.Init(t))
	save(t, s, contextfs.SaveRequest{Type: "architecture", Title: "Staging deploy token is " + github,
		Body: "Staging deploy token is " + github + " and the stripe key " + stripe})
	save(t, s, contextfs.SaveRequest{Type: "episodic", Title: "Session: rotate " + github, Body: "Rotated it."})
	save(t, s, contextfs.SaveRequest{Type: "user", Title: "Use the test key", Summary: "The key is " + stripe})
	// A private key: its finding names the BEGIN line, the key is below it.
	const keyLine = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
	save(t, s, contextfs.SaveRequest{Type: "config", Title: "Staging SSH key",
		Body: "-----BEGIN RSA " + "PRIVATE KEY-----\n" + keyLine + "\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA " + "PRIVATE KEY-----"})
	allowed := "ghp_Ex4mpl3T0k3nF0rTh3D0cs9Zk2Lm8Np5Qr7St"
	save(t, s, contextfs.SaveRequest{Type: "tech-context", Title: "Docs example token",
		Body: "The docs show " + allowed + " <!-- " + "contextfs:allow-secret -->"})
	b, err := contextblock.Build(context.Background(), s, contextblock.Options{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for form, text := range map[string]string{"markdown": b.Markdown(), "json": string(raw)} {
		for _, secret := range []string{github, stripe, keyLine, "VTLw7onLRnrq0/IzW7yWR7Qk"} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s block shows %s:\n%s", form, secret, text)
			}
		}
		for _, masked := range []string{"ghp_*****", "sk_l*****"} {
			if !strings.Contains(text, masked) {
				t.Errorf("the %s block lacks the masked form %s:\n%s", form, masked, text)
			}
		}
		if !strings.Contains(text, allowed) {
			t.Errorf("the %s block masks a secret its line allows:\n%s", form, text)
		}
	}
	if got := sectionOf(b, contextblock.LastSession).Items; len(got) != 1 || got[0].Title != "Session: rotate ghp_"+strings.Repeat("*", len(github)-4) {
		t.Errorf("last session %+v", got)
	}
}

// TestExpiredMemoriesAreLeftOut: a memory whose expires: has passed is no
// longer true; the block shows what it will once prune removes it.
func TestExpiredMemoriesAreLeftOut(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, typ, expires string
		shown              bool
	}{
		{"a date long past is left out", "tech-context", "2020-01-01", false},
		{"yesterday is left out", "architecture", "2026-05-31", false},
		{"a time past is left out", "tech-context", "2026-06-01T11:59:59Z", false},
		{"today lasts to the end of the day", "tech-context", "2026-06-01", true},
		{"a time to come is shown", "architecture", "2026-06-01T12:00:01Z", true},
		{"a value that is no date never expires, as for prune", "tech-context", "soon", true},
		{"an expired preference, shown without its body, is left out", "user", "2020-01-01", false},
		{"expired open work is left out", "todo", "2020-01-01", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openAt(t, testgit.Init(t))
			save(t, s, contextfs.SaveRequest{Type: "project-brief", Title: "Billing", Body: "Billing service."})
			id, p := saveFile(t, s, contextfs.SaveRequest{Type: tt.typ, Title: "Uses Redis 6", Body: "Redis 6 for queues."})
			setExpires(t, p, tt.expires)
			b, err := contextblock.Build(context.Background(), s, contextblock.Options{Budget: 100000, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.Markdown(), "["+id+"]"); got != tt.shown {
				t.Errorf("expires %s at %s: shown=%v, want %v\n%s", tt.expires, now, got, tt.shown, b.Markdown())
			}
		})
	}
}

func TestAnExpiredLatestProgressGivesWayToTheOneBefore(t *testing.T) {
	s := openAt(t, testgit.Init(t))
	older := save(t, s, contextfs.SaveRequest{Type: "progress", Title: "Invoices render", Body: "Invoices render as PDF."})
	_, p := saveFile(t, s, contextfs.SaveRequest{Type: "progress", Title: "Demo week", Body: "Demo until Friday."})
	setExpires(t, p, "2020-01-01")
	b, err := contextblock.Build(context.Background(), s, contextblock.Options{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(sectionOf(b, contextblock.Progress)); !slices.Equal(got, []string{older}) {
		t.Errorf("progress %v, want [%s]:\n%s", got, older, b.Markdown())
	}
}

// TestBuilderKeepsNoBlockPastAnItemsExpiry: the memory files are the same,
// but the time has moved past an item's expires:.
func TestBuilderKeepsNoBlockPastAnItemsExpiry(t *testing.T) {
	s := openAt(t, testgit.Init(t))
	id, p := saveFile(t, s, contextfs.SaveRequest{Type: "tech-context", Title: "Uses Redis 6", Body: "Redis 6 for queues."})
	setExpires(t, p, "2026-06-01T12:00:00Z")
	var bd contextblock.Builder
	for _, step := range []struct {
		now   time.Time
		shown bool
	}{
		{time.Date(2026, 6, 1, 11, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 6, 1, 11, 59, 0, 0, time.UTC), true},
		{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), false},
	} {
		b, err := bd.Build(context.Background(), s, contextblock.Options{Budget: 100000, Now: step.now})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.Markdown(), "["+id+"]"); got != step.shown {
			t.Errorf("at %s: shown=%v, want %v", step.now, got, step.shown)
		}
	}
}

// TestLastSessionIsTheLatestEndedNotTheLatestUpdated: the last session is
// the one that ended last, whatever order the summaries were written in,
// and tagging an old summary moves its updated, not the session's end.
func TestLastSessionIsTheLatestEndedNotTheLatestUpdated(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, testgit.Init(t))
	// Saved in the other order, as summaries merged from two branches may be.
	latest := save(t, s, contextfs.SaveRequest{Type: "episodic", Title: "Session: latest", Body: "Latest work.",
		Data: map[string]any{"session_id": "newsession", "started": "2026-02-01T09:00:00Z", "ended": "2026-02-01T10:00:00Z"}})
	old := save(t, s, contextfs.SaveRequest{Type: "episodic", Title: "Session: old", Body: "Old work.",
		Data: map[string]any{"session_id": "oldsession", "started": "2026-01-01T09:00:00Z", "ended": "2026-01-01T10:00:00Z"}})
	if _, err := s.Update(ctx, old, func(m *memory.Memory) error { m.Tags = append(m.Tags, "reviewed"); return nil }); err != nil {
		t.Fatal(err)
	}
	b, err := contextblock.Build(ctx, s, contextblock.Options{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(sectionOf(b, contextblock.LastSession)); !slices.Equal(got, []string{latest}) {
		t.Errorf("last session %v, want [%s] (the latest ended)", got, latest)
	}
}

// The latest ended session is found past the first page of the listing
// (newest updated first), when many summaries of older sessions were
// written after its own (merged from a branch, say). Each summary is
// written after its session ended, as session end writes it (the store's
// clock starts at 2026-01-01 00:01).
func TestLastSessionIsFoundPastAPageOfLaterWrittenSummaries(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, testgit.Init(t))
	latest := save(t, s, contextfs.SaveRequest{Type: "episodic", Title: "Session: latest", Body: "Latest work.",
		Data: map[string]any{"session_id": "newsession", "started": "2025-12-31T23:00:00Z", "ended": "2025-12-31T23:30:00Z"}})
	for i := range 12 {
		save(t, s, contextfs.SaveRequest{Type: "episodic", Title: fmt.Sprintf("Session: old %d", i), Body: fmt.Sprintf("Old work %d.", i),
			Data: map[string]any{"session_id": fmt.Sprintf("old%07d", i), "started": "2025-12-30T09:00:00Z", "ended": fmt.Sprintf("2025-12-30T10:%02d:00Z", i)}})
	}
	b, err := contextblock.Build(ctx, s, contextblock.Options{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(sectionOf(b, contextblock.LastSession)); !slices.Equal(got, []string{latest}) {
		t.Errorf("last session %v, want [%s] (the latest ended)", got, latest)
	}
}

func TestASummaryIsNotSaidTwice(t *testing.T) {
	tests := []struct {
		name, title, summary, want string
	}{
		{"a summary that starts with a sentence title says only the rest",
			"Widget service: sells widgets online.", "Widget service: sells widgets online. Not a marketplace.",
			"- [w1] Widget service: sells widgets online. (project-brief): Not a marketplace.\n"},
		{"a summary equal to the title is left out", "Sells widgets.", "Sells widgets.", "- [w1] Sells widgets. (project-brief)\n"},
		{"a title that is no sentence keeps the whole summary", "Tokens", "Tokens expire after an hour.",
			"- [w1] Tokens (project-brief): Tokens expire after an hour.\n"},
		{"another summary is shown whole", "Widgets.", "Sold online.", "- [w1] Widgets. (project-brief): Sold online.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := contextblock.Block{Sections: []contextblock.Section{{Key: contextblock.ProjectBrief, Title: "Project brief",
				Items: []contextblock.Item{{ID: "w1", Type: "project-brief", Title: tt.title, Summary: tt.summary}}}}}
			if md := b.Markdown(); !strings.HasSuffix(md, "\n\n"+tt.want) {
				t.Errorf("got\n%s\nwant it to end with\n%s", md, tt.want)
			}
		})
	}
}
