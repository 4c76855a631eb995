package contextblock_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestTaskSectionShowsWhatTheFilesSay: the task section builds its items
// from the index's title and summary (what search returns), not from the
// memory files. They must be what the files say now: each item equals the
// file decoded, for memories with and without a title and summary of their
// own, and a file edited by hand shows its new title and summary, never
// the old, in a one-off block and in a long-lived server's Builder alike.
func TestTaskSectionShowsWhatTheFilesSay(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	s := openAt(t, dir)
	reqs := []contextfs.SaveRequest{
		{Type: "decision", Title: "Invoices are rendered as PDF", Summary: "PDF invoices, rendered by the worker.", Body: "Invoices go out as PDF files."},
		{Type: "fact", Title: "Invoice numbers never repeat", Body: "Invoice numbers come from one sequence. They never repeat, even across years."},
		{Type: "fact", Body: "Invoice totals are rounded once. Rounding each line drifted by a cent on long invoices."},
		{Type: "procedure", Title: "Resend an invoice", Summary: "Run the resend job\nwith the invoice number.", Body: "1. Find the number.\n2. Run the job."},
	}
	files := map[string]string{}
	for _, r := range reqs {
		id, p := saveFile(t, s, r)
		files[id] = p
	}
	var bd contextblock.Builder
	o := contextblock.Options{Budget: 100000, Task: "invoice invoices"}
	check := func(step string) contextblock.Section {
		t.Helper()
		var last contextblock.Section
		for name, build := range map[string]func() (*contextblock.Block, error){
			"Build":   func() (*contextblock.Block, error) { return contextblock.Build(ctx, s, o) },
			"Builder": func() (*contextblock.Block, error) { return bd.Build(ctx, s, o) },
		} {
			b, err := build()
			if err != nil {
				t.Fatalf("%s, %s: %v", step, name, err)
			}
			sec := sectionOf(b, contextblock.RelevantTask)
			if len(sec.Items) != len(files) {
				t.Fatalf("%s, %s: %d items in the task section, want %d:\n%s", step, name, len(sec.Items), len(files), b.Markdown())
			}
			for _, it := range sec.Items {
				raw, err := os.ReadFile(files[it.ID])
				if err != nil {
					t.Fatal(err)
				}
				m, err := contextfs.DecodeMemory(filepath.Base(files[it.ID]), raw)
				if err != nil {
					t.Fatal(err)
				}
				want := contextblock.Item{ID: m.ID, Type: m.Type, Title: strings.Join(strings.Fields(m.Title), " "),
					Summary: strings.Join(strings.Fields(m.Summary), " ")}
				if it != want {
					t.Errorf("%s, %s: item %+v, the file says %+v", step, name, it, want)
				}
			}
			last = sec
		}
		return last
	}
	check("as saved")
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.NewReplacer("Invoices are rendered as PDF", "Invoices are rendered as HTML",
			"PDF invoices, rendered by the worker.", "HTML invoices, rendered by the web server.",
			"Invoice totals are rounded once.", "Invoice totals are rounded per line again.",
			"title: Resend an invoice", "title: Resend an invoice by mail").Replace(string(raw))
		if edited == string(raw) {
			continue
		}
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sec := check("edited on disk")
	var titles strings.Builder
	for _, it := range sec.Items {
		titles.WriteString(it.Title + ": " + it.Summary + "\n")
	}
	for _, old := range []string{"rendered as PDF", "rendered by the worker", "rounded once", "Resend an invoice:"} {
		if strings.Contains(titles.String(), old) {
			t.Errorf("the task section still says %q after the file changed:\n%s", old, titles.String())
		}
	}
}
