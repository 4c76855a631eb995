package dedup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/sick"
	"github.com/contextfs/contextfs/internal/worldset"
)

// changePairs are memories and a later save that changes what they say
// in an otherwise unchanged sentence: the cases a bag of words scores as
// high as a paraphrase (the first is the report that found it). slot says
// whether the change is one swap, which newest wins settles.
var changePairs = []struct {
	old, new string
	slot     bool
}{
	{"Use tabs for indentation in YAML files", "Use spaces for indentation in YAML files", true},
	{"Keep 20 connections per instance in the pgx pool", "Keep 40 connections per instance in the pgx pool", true},
	{"Indent with tabs\nIndent code with tabs.", "Indent with spaces\nIndent code with spaces.", true},
	{"Deploy with Argo CD\nProduction deploys go through Argo CD.", "Deploy with Flux\nProduction deploys go through Flux.", true},
	{"Use MySQL for the orders database\nThe orders service stores its data in MySQL 8.", "Use PostgreSQL for the orders database\nThe orders service stores its data in PostgreSQL 16.", false},
	{"Cache sessions in Redis\nSessions are cached in Redis for one day.", "Cache sessions in Memcached\nSessions are cached in Memcached for one day.", true},
	{"Staging deploys from the main branch through Argo CD every night", "Production deploys from the main branch through Flux every night", false},
	{"The API gateway times out requests after 30 seconds.", "The API gateway times out requests after 60 seconds.", true},
	{"Run the linter before every commit", "Run the linter before every push", true},
	{"Services log JSON lines to stdout", "Services log plain text lines to stdout", true},
}

// changesSet names changePairs in the table.
const changesSet = "changes (written for this rule)"

// TestRepeatOrChangeOnLabelledSets measures the repeat rule (at or above
// the threshold and no change) against the threshold alone on the sets of
// docs/HYGIENE.md, "Repeat or change" (go test -tags sqlite_fts5 -run
// TestRepeatOrChangeOnLabelledSets -v ./dedup): no duplicate of the
// memory-like sets may become a change, and every change of changePairs
// that the threshold alone would skip must be found.
func TestRepeatOrChangeOnLabelledSets(t *testing.T) {
	th := DefaultThresholds.General
	var b strings.Builder
	b.WriteString("\n| set | pairs | duplicates | threshold alone: P / R (skipped) | repeat rule: P / R (skipped) |\n| --- | ---: | ---: | ---: | ---: |\n")
	row := func(name string, pairs []labelled, strict bool) {
		sims, labels := similarities(t, pairs)
		var tp, fp, fn, rtp, rfp, rfn int
		for i, p := range pairs {
			near := sims[i] >= th
			why, _ := change(p.b, p.a)
			repeat := near && why == ""
			if near && why != "" {
				if strict && labels[i] {
					t.Errorf("%s: a duplicate is called a change (%s): %q / %q", name, why, p.a, p.b)
				}
			}
			switch {
			case near && labels[i]:
				tp++
			case near:
				fp++
			case labels[i]:
				fn++
			}
			switch {
			case repeat && labels[i]:
				rtp++
			case repeat:
				rfp++
			case labels[i]:
				rfn++
			}
		}
		pr := func(tp, fp, fn int) string {
			return fmt.Sprintf("%.3f / %.3f (%d)", float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1)), tp+fp)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", name, len(pairs), count(labels), pr(tp, fp, fn), pr(rtp, rfp, rfn))
		if name == changesSet && rtp+rfp > 0 {
			t.Errorf("%s: %d changes skipped as repeats", name, rtp+rfp)
		}
	}
	row("memory-like paraphrases", memoryPairs, true)
	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	var wp []labelled
	for _, p := range set.Pairs {
		wp = append(wp, labelled{p.A, p.B, p.Dup})
	}
	row("team-memory paraphrases", wp, true)
	var cp []labelled
	for _, p := range changePairs {
		cp = append(cp, labelled{p.old, p.new, false})
	}
	row(changesSet, cp, true)
	sims, _ := similarities(t, cp)
	for i, p := range changePairs {
		why, slot := change(p.new, p.old)
		if why == "" {
			t.Errorf("%q after %q (similarity %.2f): no change found", p.new, p.old, sims[i])
		}
		if slot != p.slot {
			t.Errorf("%q after %q: one swap %v, want %v (%s)", p.new, p.old, slot, p.slot, why)
		}
		t.Logf("%.3f %s", sims[i], why)
	}
	if path, err := sick.Locate(); err == nil {
		pairs, err := sick.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var ls []labelled
		for _, p := range pairs {
			ls = append(ls, labelled{p.A, p.B, p.Score >= 4.5 && p.Entailment == "ENTAILMENT"})
		}
		row("SICK", ls, false)
	} else {
		t.Logf("SICK left out: %v", err)
	}
	t.Log(b.String())
}

// TestChangeTellsARepeatFromAChange: the words that differ decide, not
// how many there are: a swap of a content word in the same place is a
// change; an inflection, a spelling, a function word, a word only one
// side has or words in another order are not.
func TestChangeTellsARepeatFromAChange(t *testing.T) {
	tests := []struct {
		name, older, newer string
		change, slot       bool
	}{
		{"a swapped word is a change of one slot", "Use tabs for indentation in YAML files", "Use spaces for indentation in YAML files", true, true},
		{"the same swap in title and body is one slot", "Indent with tabs\nIndent code with tabs.", "Indent with spaces\nIndent code with spaces.", true, true},
		{"two different swaps are a change, not one slot", "Staging deploys from the main branch through Argo CD every night", "Production deploys from the main branch through Flux every night", true, false},
		{"a negation added is a change", "Vendor dependencies", "Do not vendor dependencies", true, false},
		{"a negation beside a word that ends like one is a change", "Release notes are kept", "Release notes are not kept", true, false},
		{"an inflection is no change", "Errors are wrapped with context", "Wrap errors with context", false, false},
		{"another spelling is no change", "We use PostgreSQL with connection pooling", "We use Postgres with a connection pool", false, false},
		{"function words are no change", "Use tabs for indentation in YAML files", "Use tabs for the indentation of YAML files.", false, false},
		{"a word only one side has is no change", "Use tabs for indentation in YAML files", "Always use tabs for indentation in YAML files", false, false},
		{"words in another order are no change", "Logs go to stderr and results to stdout", "Results go to stdout and logs to stderr", false, false},
		{"a different sentence is no change of this one", "Use tabs for indentation", "Release notes are written from the main branch before each tag", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why, slot := change(tt.newer, tt.older)
			if (why != "") != tt.change || slot != tt.slot {
				t.Errorf("change(%q, %q) = %q, one slot %v; want change %v, one slot %v", tt.newer, tt.older, why, slot, tt.change, tt.slot)
			}
		})
	}
}
