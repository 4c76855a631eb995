package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

var (
	components = strings.Fields("auth billing search ingest gateway scheduler notifier exporter importer uploader cache queue ledger metrics tracing webhook session profile inventory checkout payments reporting sync mailer indexer resolver router storage backup migration")
	techs      = strings.Fields("postgres redis kafka grpc kubernetes terraform nginx envoy sqlite s3 lambda docker prometheus grafana opentelemetry rabbitmq elasticsearch clickhouse vault consul etcd graphql protobuf webpack vite react")
	verbs      = strings.Fields("retry batch cache shard throttle paginate validate serialize compress encrypt rotate replicate stream debounce deduplicate reconcile backfill migrate index partition")
	nouns      = strings.Fields("connections requests uploads tokens sessions jobs events messages rows files certificates credentials timeouts deadlines locks transactions queries payloads headers cookies builds releases deployments alerts dashboards")
	fillers    = strings.Fields("because when after before unless while during since until although therefore however instead otherwise")
	adjs       = strings.Fields("slow flaky failed stale expired duplicate missing corrupt large concurrent idle blocked partial noisy cold warm")
	types      = []string{"decision", "fact", "error", "procedural", "episodic", "user", "todo", "architecture", "learned-pattern", "config"}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// vocab is a Zipf-distributed vocabulary of made-up words (pronounceable
// syllable strings) standing in for the names, identifiers and jargon that
// make real notes distinctive: English text follows Zipf's law, so most
// words of a memory are rare across the corpus, and a query's words match
// a few percent of memories, not all of them.
type vocab struct {
	words []string
	zipf  *rand.Zipf
}

func newVocab(r *rand.Rand, n int) *vocab {
	syl := strings.Fields("ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu")
	seen := map[string]bool{}
	v := &vocab{}
	for len(v.words) < n {
		var b strings.Builder
		for k := 0; k < 2+r.IntN(3); k++ {
			b.WriteString(pick(r, syl))
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	v.zipf = rand.NewZipf(r, 1.1, 2, uint64(n-1))
	return v
}

func (v *vocab) word() string { return v.words[v.zipf.Uint64()] }

func sentence(r *rand.Rand, v *vocab) string {
	switch r.IntN(7) {
	case 5:
		return fmt.Sprintf("The %s %s of %s calls %s through the %s %s.", v.word(), pick(r, nouns), pick(r, components), v.word(), v.word(), pick(r, techs))
	case 6:
		return fmt.Sprintf("Ask %s about %s %s before changing %s.", v.word(), v.word(), v.word(), pick(r, components))
	case 0:
		return fmt.Sprintf("The %s service should %s %s %s it talks to %s.", pick(r, components), pick(r, verbs), pick(r, nouns), pick(r, fillers), pick(r, techs))
	case 1:
		return fmt.Sprintf("We saw %s %s in %s %s the %s rollout.", pick(r, adjs), pick(r, nouns), pick(r, components), pick(r, fillers), pick(r, techs))
	case 2:
		return fmt.Sprintf("Use %s to %s %s; the %s path is %s otherwise.", pick(r, techs), pick(r, verbs), pick(r, nouns), pick(r, components), pick(r, adjs))
	case 3:
		return fmt.Sprintf("%s %s are %s, so %s them before calling %s.", upperFirst(pick(r, adjs)), pick(r, nouns), pick(r, adjs), pick(r, verbs), pick(r, components))
	}
	return fmt.Sprintf("Ownership of %s moved to the %s team, who %s %s with %s.", pick(r, components), pick(r, components), pick(r, verbs), pick(r, nouns), pick(r, techs))
}

// writeCorpus writes n memory files and returns nq queries drawn from
// them (a few content words of a random memory).
func writeCorpus(dir string, n, nq int) ([]string, error) {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	v := newVocab(r, 20000)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var queries []string
	for i := 0; i < n; i++ {
		var body strings.Builder
		words := 0
		for words < 80+r.IntN(70) {
			s := sentence(r, v)
			body.WriteString(s)
			body.WriteString(" ")
			words += len(strings.Fields(s))
			if r.IntN(4) == 0 {
				body.WriteString("\n\n")
			}
		}
		title := fmt.Sprintf("%s %s %s in %s %s", upperFirst(pick(r, verbs)), pick(r, adjs), pick(r, nouns), v.word(), pick(r, components))
		ts := base.Add(time.Duration(i) * time.Minute)
		m := &memory.Memory{
			ID: memory.NewID(), Type: pick(r, types), Title: title, Tags: []string{pick(r, components), pick(r, techs)},
			Created: ts, Updated: ts, Author: "Bench <bench@example.com>", Body: strings.TrimSpace(body.String()) + "\n",
		}
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, ".contextfs", "memories", fmt.Sprintf("%03d", i%256), memory.Slug(title)+"-"+m.ID+".md")
		// Plain writes: a corpus is made again rather than recovered, and
		// two fsyncs a file made a 100K corpus take most of an hour.
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			return nil, err
		}
		// The corpus stands for memories written over months, not in the
		// last second: files modified within the cache's racy window are
		// (rightly) hashed again by every command.
		if err := os.Chtimes(p, ts, ts); err != nil {
			return nil, err
		}
		if len(queries) < nq && r.IntN(max(1, n/nq)) == 0 {
			f := strings.Fields(strings.ToLower(strings.Trim(m.Body, ".\n")))
			k := r.IntN(max(1, len(f)-4))
			queries = append(queries, strings.Trim(strings.Join(f[k:k+3], " "), ".,;"))
		}
	}
	for len(queries) < nq {
		queries = append(queries, pick(r, verbs)+" "+pick(r, nouns)+" "+pick(r, components))
	}
	return queries, nil
}

// upperFirst capitalises the first letter of a word of the generated
// corpus (ASCII words only, so strings.Title's Unicode rules do not apply).
func upperFirst(w string) string {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return w
	}
	return string(w[0]-'a'+'A') + w[1:]
}
