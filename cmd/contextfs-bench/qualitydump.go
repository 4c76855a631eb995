package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/contextfs/contextfs"
)

// dumpRow is one candidate of a query for offline analysis of fusion rules.
type dumpRow struct {
	ID   string  `json:"id"`
	Path string  `json:"path"`
	Test bool    `json:"test,omitempty"`
	KW   float64 `json:"kw"`
	Sem  float64 `json:"sem"`
}

type dumpQuery struct {
	Query  string    `json:"query"`
	Target string    `json:"target"`
	Skip   string    `json:"skip,omitempty"`
	Base   []string  `json:"base,omitempty"`
	Rows   []dumpRow `json:"rows"`
}

// dumpCandidates writes, when CONTEXTFS_QUALITY_DUMP names a folder, a deep
// hybrid candidate list per query to NAME.jsonl there.
func dumpCandidates(ctx context.Context, s *contextfs.Store, name string, types []string, qs []dumpQuery) error {
	dir := os.Getenv("CONTEXTFS_QUALITY_DUMP")
	if dir == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, q := range qs {
		res, err := s.SearchIndexed(ctx, contextfs.Query{Text: q.Query, Types: types, Mode: contextfs.ModeHybrid, Limit: 400})
		if err != nil {
			return err
		}
		for _, r := range res {
			q.Rows = append(q.Rows, dumpRow{ID: r.ID, Path: r.Path, Test: r.Test, KW: r.Keyword, Sem: r.Semantic})
		}
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	return nil
}
