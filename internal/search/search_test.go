package search

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/embed"
)

func TestSettingsApplyTheQueryThenTheConfigThenTheDefaults(t *testing.T) {
	w := 0.3
	qw := 0.9
	tests := []struct {
		name     string
		defaults config.SearchConfig
		q        Query
		want     settings
		wantErr  bool
	}{
		{"built-in defaults", config.SearchConfig{}, Query{}, settings{ModeHybrid, 10, DefaultSemanticWeight, codeSemanticWeight, false}, false},
		{"the config's defaults", config.SearchConfig{Mode: ModeKeyword, Limit: 5, SemanticWeight: &w}, Query{}, settings{ModeKeyword, 5, 0.3, 0.3, false}, false},
		{"the query wins", config.SearchConfig{Mode: ModeKeyword, Limit: 5, SemanticWeight: &w},
			Query{Mode: ModeSemantic, Limit: 2, SemanticWeight: &qw}, settings{ModeSemantic, 2, 0.9, 0.9, false}, false},
		{"a zero or negative limit falls back", config.SearchConfig{}, Query{Limit: -1}, settings{ModeHybrid, 10, DefaultSemanticWeight, codeSemanticWeight, false}, false},
		{"an unknown mode is an error", config.SearchConfig{}, Query{Mode: "fuzzy"}, settings{}, true},
		{"the largest limit is taken", config.SearchConfig{}, Query{Limit: MaxLimit}, settings{ModeHybrid, MaxLimit, DefaultSemanticWeight, codeSemanticWeight, false}, false},
		{"a limit above the largest is an error, not an allocation", config.SearchConfig{}, Query{Limit: 1_000_000_000}, settings{}, true},
		{"a config limit above the largest is capped", config.SearchConfig{Limit: 1 << 40}, Query{}, settings{ModeHybrid, MaxLimit, DefaultSemanticWeight, codeSemanticWeight, false}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Engine{Defaults: tt.defaults}
			got, err := e.settings(tt.q)
			if (err != nil) != tt.wantErr {
				t.Fatalf("settings error %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("settings = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSplitKinds(t *testing.T) {
	all := []cache.Kind{cache.KindMemory, cache.KindCode, cache.KindCommit}
	tests := []struct {
		name      string
		types     []string
		tests     string
		wantKinds []cache.Kind
		wantMem   []string
		wantCode  []string
	}{
		{"no type searches every kind", nil, "", all, nil, nil},
		{"a memory type searches memories", []string{"decision"}, "", []cache.Kind{cache.KindMemory}, []string{"decision"}, nil},
		{"code is source and tests", []string{"Code,commit"}, "", []cache.Kind{cache.KindCode, cache.KindCommit}, nil, []string{"code", "test"}},
		{"code and a memory type", []string{"code", "fact"}, "", []cache.Kind{cache.KindCode, cache.KindMemory}, []string{"fact"}, []string{"code", "test"}},
		{"doc is doc chunks and doc memories", []string{"doc"}, "", []cache.Kind{cache.KindCode, cache.KindMemory}, []string{"doc"}, []string{"doc"}},
		{"tests exclude drops test chunks", []string{"code"}, TestsExclude, []cache.Kind{cache.KindCode}, nil, []string{"code"}},
		{"tests exclude without types keeps code and docs", nil, TestsExclude, all, nil, []string{"code", "doc"}},
		{"tests only is test code alone", []string{"decision"}, TestsOnly, []cache.Kind{cache.KindCode}, nil, []string{"test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kinds, mem, code := splitKinds(tt.types, tt.tests)
			if !slices.Equal(kinds, tt.wantKinds) || !slices.Equal(mem, tt.wantMem) || !slices.Equal(code, tt.wantCode) {
				t.Errorf("splitKinds(%q, %q) = %v, %q, %q; want %v, %q, %q", tt.types, tt.tests, kinds, mem, code, tt.wantKinds, tt.wantMem, tt.wantCode)
			}
		})
	}
}

func TestFilterRejectsAnUnknownType(t *testing.T) {
	f, err := Filter([]string{"decision, fact"}, []string{"db,db"}, time.Time{}, false)
	if err != nil || !slices.Equal(f.Types, []string{"decision", "fact"}) || !slices.Equal(f.Tags, []string{"db"}) {
		t.Errorf("Filter = %+v, %v", f, err)
	}
	if _, err := Filter([]string{"decison"}, nil, time.Time{}, false); err == nil {
		t.Error("Filter accepted an unknown type")
	}
}

func TestEngineSearchRanksFusesAndCuts(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewBuiltin()
	c, err := cache.Open(ctx, t.TempDir(), emb)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	docs := []cache.Doc{
		{MID: "1111111111111111111111111111111111111111", Title: "Pool database connections", Body: "Pool database connections with pgxpool."},
		{MID: "2222222222222222222222222222222222222222", Title: "Fix the release script", Body: "The release script tags and pushes."},
		{MID: "3333333333333333333333333333333333333333", Title: "Tune the connection pool size", Body: "Twenty database connections per instance."},
	}
	if _, err := c.SetCommits(ctx, docs); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Cache: c, Embedder: emb}
	for _, mode := range []string{ModeKeyword, ModeSemantic, ModeHybrid} {
		t.Run(mode, func(t *testing.T) {
			res, err := e.Search(ctx, Query{Text: "database connections", Types: []string{"commit"}, Mode: mode, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 || len(res) > 2 {
				t.Fatalf("%d results, want 1 or 2 (limit 2)", len(res))
			}
			for _, r := range res {
				if r.ID == docs[1].MID {
					t.Errorf("the release commit matched %q", "database connections")
				}
				if r.Kind != "commit" || r.Score <= 0 {
					t.Errorf("result %+v, want a commit with a positive score", r)
				}
			}
		})
	}
}
