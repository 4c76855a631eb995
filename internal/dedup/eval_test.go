package dedup

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/sick"
	"github.com/contextfs/contextfs/internal/worldset"
)

// labelled is a pair of memory texts and whether a reviewer would call the
// second a repeat of the first.
type labelled struct {
	a, b string
	dup  bool
}

// memoryPairs is a small labelled set of memory-like texts: paraphrases of
// the same decision or fact (dup), and texts on the same subject that say
// something else or on another subject (not dup).
var memoryPairs = []labelled{
	{"Use pgx pool\nWe pool Postgres connections with pgxpool, 20 per instance.", "Use pgxpool for Postgres\nPostgres connections are pooled with pgxpool: 20 per instance.", true},
	{"Staging runs Kubernetes 1.29\nThe staging cluster runs Kubernetes 1.29 on three nodes.", "Staging is on Kubernetes 1.29\nKubernetes 1.29 runs the staging cluster, three nodes.", true},
	{"Tests listen on port 0\nIntegration tests must listen on port 0 and read the chosen port back.", "Integration tests use port 0\nListen on port 0 in integration tests and read back the port that was chosen.", true},
	{"Release checklist\nRun make bench, update the README figures, tag the release and push the tag.", "How to release\nTo release: run make bench, update the figures in the README, tag and push the tag.", true},
	{"Table-driven tests\nThe team prefers table-driven Go tests with names that state the behaviour.", "Prefer table-driven tests\nWe prefer table-driven tests in Go, named for the behaviour they check.", true},
	{"Errors are wrapped\nErrors are wrapped with context using fmt.Errorf and %w.", "Wrap errors with context\nWrap every error with context with fmt.Errorf and %w.", true},
	{"Logs go to stderr\nThe CLI writes logs to stderr and results to stdout.", "Results on stdout, logs on stderr\nThe command line prints results to stdout and logs to stderr.", true},
	{"Cache lives in the git directory\nThe SQLite cache lives in the git directory, not in the work tree.", "SQLite cache location\nThe cache (SQLite) is kept in the git directory rather than the work tree.", true},
	{"Deploy on Fridays is banned\nWe never deploy to production on Fridays.", "No Friday deploys\nProduction deploys never happen on a Friday.", true},
	{"API uses JSON\nThe public API speaks JSON over HTTPS.", "JSON over HTTPS for the API\nOur public API uses JSON over HTTPS.", true},

	{"Use pgx pool\nWe pool Postgres connections with pgxpool, 20 per instance.", "Use database/sql\nWe access Postgres through database/sql with lib/pq.", false},
	{"Staging runs Kubernetes 1.29\nThe staging cluster runs Kubernetes 1.29 on three nodes.", "Production runs on VMs\nProduction runs on plain virtual machines managed by Ansible.", false},
	{"Tests listen on port 0\nIntegration tests must listen on port 0 and read the chosen port back.", "Unit tests run in parallel\nUnit tests call t.Parallel and share no global state.", false},
	{"Release checklist\nRun make bench, update the README figures, tag the release and push the tag.", "Code review rules\nEvery change needs one approving review and green CI.", false},
	{"Table-driven tests\nThe team prefers table-driven Go tests with names that state the behaviour.", "Tabs for indentation\nGo code is indented with tabs, as gofmt writes it.", false},
	{"Errors are wrapped\nErrors are wrapped with context using fmt.Errorf and %w.", "Panics are bugs\nA panic is a bug; library code never panics on bad input.", false},
	{"Logs go to stderr\nThe CLI writes logs to stderr and results to stdout.", "Exit codes\nThe CLI exits 1 for a found problem and 2 for a usage mistake.", false},
	{"Cache lives in the git directory\nThe SQLite cache lives in the git directory, not in the work tree.", "Memories are files\nMemories are Markdown files with YAML frontmatter under .contextfs.", false},
	{"Deploy on Fridays is banned\nWe never deploy to production on Fridays.", "Deploys need a changelog\nEvery production deploy needs a changelog entry.", false},
	{"API uses JSON\nThe public API speaks JSON over HTTPS.", "API rate limits\nThe public API allows 100 requests a minute per key.", false},
}

// prAt returns precision and recall of "similarity >= th" against labels.
func prAt(sims []float64, labels []bool, th float64) (p, r float64, tp, fp, fn int) {
	for i, s := range sims {
		switch {
		case s >= th && labels[i]:
			tp++
		case s >= th:
			fp++
		case labels[i]:
			fn++
		}
	}
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	return p, r, tp, fp, fn
}

func similarities(t *testing.T, pairs []labelled) ([]float64, []bool) {
	t.Helper()
	emb := embed.NewBuiltin()
	var sims []float64
	var labels []bool
	for _, p := range pairs {
		s, err := Similarity(context.Background(), emb, p.a, p.b)
		if err != nil {
			t.Fatal(err)
		}
		sims, labels = append(sims, s), append(labels, p.dup)
	}
	return sims, labels
}

var sweep = []float64{0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.95}

func table(b *strings.Builder, title string, sims []float64, labels []bool) {
	fmt.Fprintf(b, "\n%s\n\n| similarity ≥ | cosine distance ≤ | precision | recall | TP | FP | FN |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", title)
	for _, th := range sweep {
		p, r, tp, fp, fn := prAt(sims, labels, th)
		fmt.Fprintf(b, "| %.2f | %.2f | %.3f | %.3f | %d | %d | %d |\n", th, 1-th, p, r, tp, fp, fn)
	}
}

// TestThresholdsOnLabelledSets measures the duplicate thresholds on the
// memory-like set above and on SICK, prints the tables docs/HYGIENE.md
// publishes (go test -tags sqlite_fts5 -run TestThresholdsOnLabelledSets -v ./dedup),
// and holds the default to the precision and recall it was chosen for.
func TestThresholdsOnLabelledSets(t *testing.T) {
	var b strings.Builder
	sims, labels := similarities(t, memoryPairs)
	table(&b, fmt.Sprintf("Memory-like paraphrases (%d pairs, %d duplicates)", len(labels), count(labels)), sims, labels)
	p, r, _, _, _ := prAt(sims, labels, DefaultThresholds.General)
	if p < 0.9 || r < 0.7 {
		t.Errorf("memory-like set at the general threshold %.2f: precision %.3f, recall %.3f; want at least 0.9 and 0.7", DefaultThresholds.General, p, r)
	}

	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	var wp []labelled
	for _, p := range set.Pairs {
		wp = append(wp, labelled{p.A, p.B, p.Dup})
	}
	wsims, wlabels := similarities(t, wp)
	table(&b, fmt.Sprintf("Team-memory paraphrases of the world-knowledge set (%d pairs, %d duplicates)", len(wlabels), count(wlabels)), wsims, wlabels)
	p, r, _, _, _ = prAt(wsims, wlabels, DefaultThresholds.General)
	if p < 0.9 || r < 0.7 {
		t.Errorf("world-knowledge pairs at the general threshold %.2f: precision %.3f, recall %.3f; want at least 0.9 and 0.7", DefaultThresholds.General, p, r)
	}
	for i, s := range wsims {
		t.Logf("%.3f %v %q / %q", s, wlabels[i], wp[i].a, wp[i].b)
	}

	path, err := sick.Locate()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := sick.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var ls []labelled
	for _, p := range pairs {
		ls = append(ls, labelled{p.A, p.B, p.Score >= 4.5 && p.Entailment == "ENTAILMENT"})
	}
	sims, labels = similarities(t, ls)
	table(&b, fmt.Sprintf("SICK (%d pairs; duplicate = relatedness ≥ 4.5 and ENTAILMENT: %d)", len(labels), count(labels)), sims, labels)
	t.Log(b.String())
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
