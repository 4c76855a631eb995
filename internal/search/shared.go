package search

import (
	"context"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/query"
)

// Attainable is what one store's keyword ranking of a query can attain:
// for each kind the query searches, each of the query's words and phrases
// with its statistics in the store and the best score one document gets
// from it (cache.KeywordTerms). A search across stores computes one per
// store and ranks every store with what Share makes of them.
type Attainable map[cache.Kind]cache.Terms

// Shared is the keyword statistics a search across stores ranks every
// store with (Query.Shared), so that their keyword scores are on one
// scale: BM25 as if their documents were one collection.
type Shared struct {
	// IDF is, per kind, the inverse document frequency of each word and
	// phrase over the documents of every store searched.
	IDF map[cache.Kind]map[string]float64
	// Scale is the keyword score that counts as a full match: per kind,
	// the sum over the query's words and phrases of the best score any
	// store's documents get from each (at the shared frequency), the
	// largest over the kinds.
	Scale float64
}

// Attainable ranks q by keyword in this store, as Search would, and
// returns what each word attains. A semantic search, a search of code
// alone (which keeps its own scale) and a query with no words to rank by
// attain nothing: nil.
func (e *Engine) Attainable(ctx context.Context, q Query) (Attainable, error) {
	if !q.Literal {
		q.Text = query.Normalize(q.Text)
	}
	p, err := e.plan(ctx, &q)
	if err != nil || p.st.mode == ModeSemantic || p.st.codeRules {
		return nil, err
	}
	out := Attainable{}
	for _, k := range p.kinds {
		kf := p.f
		if k != cache.KindMemory {
			kf.Types = nil // as Search ranks them (its chunk types are filtered on the hits)
		}
		// What each word attains does not depend on how many hits are
		// kept: one will do.
		_, terms, err := e.Cache.KeywordTerms(ctx, k, p.text, p.phrases, kf, 1)
		if err != nil {
			return nil, err
		}
		if len(terms) > 0 {
			out[k] = terms
		}
	}
	return out, nil
}

// Share is the keyword statistics of several stores together, from what
// each attains. Each word's frequency is taken over the stores that rank
// by it (one that drops it as too common has no count of it), and a
// document's score from it is that frequency times the rest of its BM25
// in its own store. Of one store alone, the frequencies and the scale are
// that store's own. nil when no store attains anything.
func Share(stores ...Attainable) *Shared {
	type term struct {
		matches, docs int64
		part          float64
		times         int // a word the query repeats is ranked once per time
	}
	byKind := map[cache.Kind]map[string]*term{}
	order := map[cache.Kind][]string{}
	for _, a := range stores {
		for k, terms := range a {
			m := byKind[k]
			if m == nil {
				m = map[string]*term{}
				byKind[k] = m
			}
			times := map[string]int{}
			for _, t := range terms {
				times[t.Term]++
				if times[t.Term] > 1 {
					m[t.Term].times = max(m[t.Term].times, times[t.Term])
					continue
				}
				x := m[t.Term]
				if x == nil {
					x = &term{times: 1}
					m[t.Term] = x
					order[k] = append(order[k], t.Term)
				}
				x.matches += t.Matches
				x.docs += t.Docs
				x.part = max(x.part, t.Part)
			}
		}
	}
	if len(byKind) == 0 {
		return nil
	}
	sh := &Shared{IDF: map[cache.Kind]map[string]float64{}}
	for k, m := range byKind {
		idf := map[string]float64{}
		var ts cache.Terms // the words as one store's ranker lists them
		for _, w := range order[k] {
			t := m[w]
			idf[w] = cache.IDF(t.matches, t.docs)
			for range t.times {
				ts = append(ts, cache.TermBest{Term: w, IDF: idf[w], Part: t.part, Matches: t.matches, Docs: t.docs})
			}
		}
		sum := ts.Sum()
		sh.IDF[k] = idf
		sh.Scale = max(sh.Scale, sum)
	}
	return sh
}
