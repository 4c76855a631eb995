// Ranking rules of code chunks, measured on the code sets of `make
// bench-quality` (go-git, requests, ky) at once; docs/DESIGN.md has the
// figures.
//
// When code is searched alone (--type code, --tests only), it is ranked
// by two rules that memories are not; mixed with memories and commits it
// keeps the plain fusion, which their balance (kindWeight) was measured
// with:
//
//   - Cosines on the query's scale. The cosine of a sentence with a chunk
//     of code is small whatever the chunk (the best of a query is 0.2–0.6
//     under the built-in embedder), so beside BM25 scaled to the best
//     match the raw cosine barely moved a code ranking. A code chunk's
//     semantic part is its cosine divided by the query's best cosine, at
//     weight codeSemanticWeight.
//   - File evidence. A file several of whose chunks match is likelier the
//     answer than a file with one chunk that matches as well: each code
//     chunk gains fileEvidence times the scores of its file's next best
//     chunks (at most fileEvidenceChunks - 1 of them).

package search

import (
	"slices"

	"github.com/contextfs/contextfs/cache"
)

// codeSemanticWeight is w for code chunks, on cosines scaled by the
// query's best cosine: chosen with fileEvidence on the three code sets
// (w 0.25–0.3 at 0.2 is where all three gain).
const codeSemanticWeight = 0.25

// fileEvidence and fileEvidenceChunks: a code chunk gains fileEvidence ×
// the sum of the scores of its file's next best fileEvidenceChunks-1
// chunks.
const (
	fileEvidence       = 0.2
	fileEvidenceChunks = 3
)

// FuseCode is FuseScaled for code chunks: the semantic side is the cosine
// (below MinSemantic, none) divided by semMax, the query's best cosine.
// Scored.Semantic keeps the cosine itself, so a result still shows how
// close it is in absolute terms.
func FuseCode(kw, sem []Hit, extraSem map[int64]float64, w, kwMax, semMax float64) []Scored {
	out := FuseScaled(kw, sem, extraSem, 0, kwMax)
	if semMax <= 0 {
		semMax = 1
	}
	for i := range out {
		s := &out[i]
		s.Score = w*min(s.Semantic/semMax, 1) + (1-w)*s.Keyword
	}
	Sort(out)
	return out
}

// bestCosine is the best semantic score of a query over every kind
// ranked: code cosines are scaled by it.
func bestCosine(byKind []rankings) float64 {
	var best float64
	for _, r := range byKind {
		for _, h := range r.sem {
			best = max(best, h.Score)
		}
	}
	return best
}

// addFileEvidence raises each code chunk's score by fileEvidence × the
// scores of its file's next best chunks among all (see the file comment);
// other kinds are left alone. Scores are read before any is raised.
func addFileEvidence(all []scoredKind, rows map[int64]cache.Row) {
	byPath := map[string][]float64{}
	for _, a := range all {
		if r, ok := rows[a.Row]; ok && a.kind == cache.KindCode {
			byPath[r.Path] = append(byPath[r.Path], a.Score)
		}
	}
	bonus := make(map[string]float64, len(byPath))
	for p, s := range byPath {
		if len(s) < 2 {
			continue
		}
		slices.SortFunc(s, func(a, b float64) int { return cmpDesc(a, b) })
		var sum float64
		for _, x := range s[1:min(len(s), fileEvidenceChunks)] {
			sum += x
		}
		bonus[p] = fileEvidence * sum
	}
	for i := range all {
		if r, ok := rows[all[i].Row]; ok && all[i].kind == cache.KindCode {
			all[i].File = bonus[r.Path]
			all[i].Score += all[i].File
		}
	}
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
