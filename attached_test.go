package contextfs_test

import (
	"context"
	"slices"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
	"github.com/contextfs/contextfs/memory"
)

func TestListAndSearchFilterOnPathsSourceAndSession(t *testing.T) {
	ctx := context.Background()
	s := open(t, testgit.Init(t))
	save := func(req contextfs.SaveRequest) string { t.Helper(); return teststore.SaveID(t, s, req) }
	auth := save(contextfs.SaveRequest{Type: "decision", Title: "Tokens expire after an hour", Body: "token expiry", Paths: []string{"auth/**"},
		Source: &memory.Source{Tool: "claude-code", Model: "opus"}, Session: "sess0001"})
	docs := save(contextfs.SaveRequest{Type: "fact", Title: "Docs are in Markdown", Body: "token docs", Paths: []string{"docs/*.md"},
		Source: &memory.Source{Tool: "cursor/1.7"}})
	plain := save(contextfs.SaveRequest{Type: "fact", Title: "No paths here", Body: "token plain"})

	tests := []struct {
		name string
		opts contextfs.ListOptions
		want []string
	}{
		{"a file under auth/ finds the auth decision", contextfs.ListOptions{Attached: []string{"auth/token.go"}}, []string{auth}},
		{"a doc file finds the docs fact", contextfs.ListOptions{Attached: []string{"docs/a.md"}}, []string{docs}},
		{"a file nothing covers finds nothing", contextfs.ListOptions{Attached: []string{"main.go"}}, nil},
		{"source filters on the tool's name", contextfs.ListOptions{Source: "cursor"}, []string{docs}},
		{"source filters on the tool's name and version", contextfs.ListOptions{Source: "cursor/1.7"}, []string{docs}},
		{"session filters on the session", contextfs.ListOptions{Session: "sess0001"}, []string{auth}},
		{"no filter lists all", contextfs.ListOptions{}, []string{auth, docs, plain}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.List(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			slices.Sort(ids)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(ids, want) {
				t.Errorf("List = %v, want %v", ids, want)
			}
		})
	}
	res, err := s.Search(ctx, contextfs.Query{Text: "token", Attached: []string{"auth/token.go"}, Mode: contextfs.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].ID != auth {
		t.Errorf("Search(token, attached auth/token.go) = %v, want only %s", res, auth)
	}
	m, err := s.Resolve(ctx, auth)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source == nil || m.Source.Tool != "claude-code" || m.Session != "sess0001" || !slices.Equal(m.Paths, []string{"auth/**"}) {
		t.Errorf("read back %+v", m)
	}
}
