package search

import "testing"

func TestFuse(t *testing.T) {
	tests := []struct {
		name     string
		kw, sem  []Hit
		extra    map[int64]float64
		w        float64
		wantTop  int64
		wantRows int
	}{
		{"keyword only ranks by bm25", []Hit{{1, 2}, {2, 8}}, nil, nil, 0, 2, 2},
		{"semantic only ranks by cosine", nil, []Hit{{1, 0.9}, {2, 0.3}}, nil, 1, 1, 2},
		{"a document in both lists beats one in either", []Hit{{1, 5}, {2, 5}}, []Hit{{2, 0.8}, {3, 0.9}}, nil, 0.5, 2, 3},
		{"extra cosines fill in keyword hits missing from the semantic list", []Hit{{1, 5}, {2, 5}}, []Hit{{3, 0.5}}, map[int64]float64{1: 0.4}, 0.5, 1, 3},
		{"cosines below the noise floor count as zero", nil, []Hit{{1, -0.5}, {2, 0.01}, {3, 0.2}}, nil, 1, 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Fuse(tt.kw, tt.sem, tt.extra, tt.w)
			if len(got) != tt.wantRows {
				t.Fatalf("got %d rows, want %d: %+v", len(got), tt.wantRows, got)
			}
			if got[0].Row != tt.wantTop {
				t.Errorf("top row = %d, want %d: %+v", got[0].Row, tt.wantTop, got)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score > got[i-1].Score {
					t.Errorf("not sorted at %d: %+v", i, got)
				}
			}
			for _, s := range got {
				if s.Score < 0 || s.Score > 1 {
					t.Errorf("score %v out of [0,1]", s.Score)
				}
			}
		})
	}
}
