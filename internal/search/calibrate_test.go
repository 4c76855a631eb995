package search

import (
	"math"
	"testing"

	"github.com/contextfs/contextfs/cache"
)

func TestFuseCodeScalesCosinesByTheQuerysBest(t *testing.T) {
	tests := []struct {
		name      string
		kw, sem   []Hit
		semMax    float64
		wantTop   int64
		wantScore map[int64]float64
	}{
		// Raw cosines at w = 0.5 would rank row 1 first (0.55 against
		// 0.53); on the query's scale the chunk closest in meaning wins.
		{"the closest chunk in meaning counts fully", []Hit{{1, 10}, {2, 6}}, []Hit{{2, 0.4}, {1, 0.1}}, 0.4, 2,
			map[int64]float64{1: 0.5*0.25 + 0.5*1, 2: 0.5*1 + 0.5*0.6}},
		{"a cosine below the noise floor still counts as none", []Hit{{1, 10}}, []Hit{{1, 0.05}, {2, 0.3}}, 0.3, 1,
			map[int64]float64{1: 0.5, 2: 0.5}},
		{"no semantic match leaves the keyword score", []Hit{{1, 4}, {2, 2}}, nil, 0, 1,
			map[int64]float64{1: 0.5, 2: 0.25}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FuseCode(tt.kw, tt.sem, nil, 0.5, 0, tt.semMax)
			if got[0].Row != tt.wantTop {
				t.Errorf("top row %d, want %d: %+v", got[0].Row, tt.wantTop, got)
			}
			for _, s := range got {
				if want := tt.wantScore[s.Row]; math.Abs(s.Score-want) > 1e-9 {
					t.Errorf("row %d scores %v, want %v", s.Row, s.Score, want)
				}
				if s.Semantic > 0 && s.Semantic < MinSemantic {
					t.Errorf("row %d keeps a cosine under the floor: %v", s.Row, s.Semantic)
				}
			}
		})
	}
}

func TestFileEvidenceRaisesFilesWithSeveralMatchingChunks(t *testing.T) {
	rows := map[int64]cache.Row{
		1: {Kind: cache.KindCode, Path: "one.go"},
		2: {Kind: cache.KindCode, Path: "many.go"},
		3: {Kind: cache.KindCode, Path: "many.go"},
		4: {Kind: cache.KindCode, Path: "many.go"},
		5: {Kind: cache.KindCode, Path: "many.go"},
		6: {Kind: cache.KindMemory, Path: ".contextfs/m.md"},
		7: {Kind: cache.KindMemory, Path: ".contextfs/m.md"},
	}
	all := []scoredKind{
		{Scored: Scored{Row: 1, Score: 0.6}, kind: cache.KindCode},
		{Scored: Scored{Row: 2, Score: 0.5}, kind: cache.KindCode},
		{Scored: Scored{Row: 3, Score: 0.3}, kind: cache.KindCode},
		{Scored: Scored{Row: 4, Score: 0.2}, kind: cache.KindCode},
		{Scored: Scored{Row: 5, Score: 0.1}, kind: cache.KindCode},
		{Scored: Scored{Row: 6, Score: 0.4}, kind: cache.KindMemory},
		{Scored: Scored{Row: 7, Score: 0.4}, kind: cache.KindMemory},
	}
	addFileEvidence(all, rows)
	// many.go: its next best chunks after the first are 0.3 and 0.2 (the
	// fourth does not count); every chunk of it gains 0.2 × 0.5.
	want := map[int64]float64{1: 0.6, 2: 0.6, 3: 0.4, 4: 0.3, 5: 0.2, 6: 0.4, 7: 0.4}
	for _, a := range all {
		if math.Abs(a.Score-want[a.Row]) > 1e-9 {
			t.Errorf("row %d scores %v, want %v", a.Row, a.Score, want[a.Row])
		}
		if wantFile := want[a.Row] - map[int64]float64{1: 0.6, 2: 0.5, 3: 0.3, 4: 0.2, 5: 0.1, 6: 0.4, 7: 0.4}[a.Row]; math.Abs(a.File-wantFile) > 1e-9 {
			t.Errorf("row %d: file part %v, want %v", a.Row, a.File, wantFile)
		}
	}
}
