package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// recentCount is how many memories the home page lists.
const recentCount = 15

// entryView is a listed memory with its page.
type entryView struct {
	workflow.Entry
	Href string
}

// homeData is the home page: counts by type, the context block an agent
// gets at session start, and the latest memories.
type homeData struct {
	Counts            []workflow.TypeCount
	RepoTotal         int
	UserTotal         int
	HasRepo, HasUser  bool
	Block             *workflow.Block
	BlockText         string
	BlockNote         string
	Recent            []entryView
	RepoRoot, UserDir string
}

// PageTitle names the page.
func (homeData) PageTitle() string { return "Overview" }

func (v *viewer) home(ctx context.Context, _ *http.Request) (any, error) {
	o, err := v.browse.Overview(ctx, recentCount)
	if err != nil {
		return nil, err
	}
	d := homeData{Counts: o.Counts, RepoTotal: o.RepoTotal, UserTotal: o.UserTotal, HasRepo: o.HasRepo, HasUser: o.HasUser,
		Block: o.Block, BlockNote: o.Note, RepoRoot: o.RepoRoot, UserDir: o.UserDir}
	if o.Block != nil {
		d.BlockText = o.Block.Markdown()
	}
	for _, e := range o.Recent {
		d.Recent = append(d.Recent, entryView{Entry: e, Href: memoryURL(e.ID, whereScope(e.Scope))})
	}
	return d, nil
}

// whereScope is the query of a memory page that says the memory is in
// the user store; "" for the repository's.
func whereScope(sc workflow.Scope) string {
	if sc == workflow.User {
		return "scope=user"
	}
	return ""
}

// searchData is the search page: the form as filled, and the results in
// the order the CLI gives them.
type searchData struct {
	Q, Tag, Kind, Scope, Type string
	All                       bool
	TypeOptions, KindOptions  []string
	ScopeOptions              []string
	Searched, Relaxed         bool
	Results                   []resultView
	Repos                     []string
}

// PageTitle names the page after the query.
func (d searchData) PageTitle() string {
	if d.Q != "" {
		return "Search: " + d.Q
	}
	return "Search"
}

// resultView is a search result with its page and where it is.
type resultView struct {
	workflow.Result
	N     int
	Href  string
	Where string
}

// kinds are the kinds of search results.
var kinds = []string{"memory", "code", "doc", "commit"}

func (v *viewer) search(ctx context.Context, r *http.Request) (any, error) {
	p := r.URL.Query()
	d := searchData{Q: strings.TrimSpace(p.Get("q")), Tag: strings.TrimSpace(p.Get("tag")), Kind: p.Get("kind"), Scope: p.Get("scope"), Type: p.Get("type"),
		All: p.Get("all") != "", KindOptions: kinds, ScopeOptions: []string{"all", "repo", "user"}}
	for _, t := range memory.Types() {
		d.TypeOptions = append(d.TypeOptions, t.Name)
	}
	d.TypeOptions = append(d.TypeOptions, "code", "doc", "commit")
	d.Repos = v.browse.RepoNames()
	q := contextfs.Query{Text: d.Q, All: d.All}
	if d.Type != "" {
		if !slices.Contains(d.TypeOptions, d.Type) {
			return nil, badRequest{fmt.Errorf("type %q: use one of %s", d.Type, strings.Join(d.TypeOptions, ", "))}
		}
		q.Types = []string{d.Type}
	}
	if d.Tag != "" {
		q.Tags = strings.Fields(strings.ReplaceAll(d.Tag, ",", " "))
	}
	for k := range strings.SplitSeq(d.Kind, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		if !slices.Contains(kinds, k) {
			return nil, badRequest{fmt.Errorf("kind %q: use one of %s", k, strings.Join(kinds, ", "))}
		}
		q.Kinds = append(q.Kinds, k)
	}
	sc, err := workflow.ParseScope(d.Scope)
	if err != nil {
		return nil, badRequest{fmt.Errorf("scope: %w", err)}
	}
	if n := p.Get("limit"); n != "" {
		if q.Limit, err = strconv.Atoi(n); err != nil || q.Limit < 1 || q.Limit > contextfs.MaxSearchLimit {
			return nil, badRequest{fmt.Errorf("limit %q: a number from 1 to %d", n, contextfs.MaxSearchLimit)}
		}
	}
	if d.Q == "" {
		return d, nil
	}
	d.Searched = true
	res, err := v.browse.Search(ctx, sc, q)
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		rv := resultView{Result: r, N: i + 1, Where: r.Path}
		if r.StartLine > 0 {
			rv.Where = fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine)
		}
		where := whereScope(r.Scope)
		switch {
		case r.Repo != "":
			rv.Where = r.Repo + ": " + rv.Where
			where = "repo=" + url.QueryEscape(r.Repo)
		case r.Scope == workflow.User:
			rv.Where = "user: " + rv.Where
		}
		if r.Kind == "memory" {
			rv.Href = memoryURL(r.ID, where)
		}
		d.Relaxed = d.Relaxed || r.Relaxed
		d.Results = append(d.Results, rv)
	}
	return d, nil
}

// place is the store a memory page's query names: ?repo=NAME (a
// registered repository of --repos), ?scope=user or repo, or by default
// either of the set's stores.
func place(r *http.Request) (workflow.Place, error) {
	q := r.URL.Query()
	if name := q.Get("repo"); name != "" {
		return workflow.Place{Repo: name}, nil
	}
	sc, err := workflow.ParseScope(q.Get("scope"))
	if err != nil {
		return workflow.Place{}, badRequest{fmt.Errorf("scope: %w", err)}
	}
	return workflow.Place{Scope: sc}, nil
}

// storeNames are how a page names where a located memory is, for people
// (store) and as the query of its pages (where: "", "scope=user",
// "repo=NAME").
func storeNames(l *workflow.Located) (store, where string) {
	switch {
	case l.Repo != "":
		return "repository " + l.Repo, "repo=" + url.QueryEscape(l.Repo)
	case l.Scope == workflow.User:
		return "user store", whereScope(l.Scope)
	}
	return "repository", ""
}

// field is one frontmatter field as the memory page shows it.
type field struct{ Name, Value string }

// linkView is a memory a link names, with its page.
type linkView struct {
	ID, Rel, Type, Title, Href string
	Missing                    bool
}

// chainStep is one supersedes edge of a memory's chain.
type chainStep struct{ From, To linkView }

// memoryData is the memory page.
type memoryData struct {
	M            *memory.Memory
	Store, Where string
	Body         template.HTML
	Fields       []field
	Out, In      []linkView
	URLs         []string
	Chain        []chainStep
	Commits      []workflow.Commit
	HistoryHref  string
	GraphHref    string
	Superseded   bool
}

// PageTitle names the page after the memory.
func (d memoryData) PageTitle() string { return d.M.Title }

// maxChain is how far the memory page follows a supersedes chain.
const maxChain = 64

func (v *viewer) memoryPage(ctx context.Context, r *http.Request) (any, error) {
	p, err := place(r)
	if err != nil {
		return nil, err
	}
	mv, err := v.browse.Memory(ctx, p, r.PathValue("id"), maxChain)
	if err != nil {
		return nil, err
	}
	m := mv.Memory
	store, where := storeNames(mv.Located)
	d := memoryData{M: m, Store: store, Where: where, Body: v.renderMarkdown(m.Body), Fields: fields(m, store), Commits: mv.Commits}
	d.HistoryHref = "/memory/" + url.PathEscape(m.ID) + "/history"
	if where != "" {
		d.HistoryHref += "?" + where
	}
	if where == "" {
		d.GraphHref = "/graph?id=" + url.QueryEscape(m.ID)
	} else if where == "scope=user" {
		d.GraphHref = "/graph?scope=user&id=" + url.QueryEscape(m.ID)
	}
	link := func(id, rel, typ, title string, missing bool) linkView {
		return linkView{ID: id, Rel: rel, Type: typ, Title: title, Missing: missing, Href: memoryURL(id, where)}
	}
	for _, n := range mv.Links {
		if n.Via.Rel == memory.RelSupersedes {
			continue // in the chain below
		}
		lv := link(n.ID, n.Via.Rel, n.Type, n.Title, n.Missing)
		if n.Via.From == m.ID {
			d.Out = append(d.Out, lv)
		} else {
			d.In = append(d.In, lv)
		}
	}
	for _, l := range m.Links {
		if !l.IsMemory() {
			d.URLs = append(d.URLs, l.ID)
		}
	}
	known := map[string]linkView{m.ID: link(m.ID, "", m.Type, m.Title, false)}
	for _, n := range mv.Chain {
		known[n.ID] = link(n.ID, "", n.Type, n.Title, n.Missing)
	}
	for _, n := range mv.Chain {
		d.Chain = append(d.Chain, chainStep{From: known[n.Via.From], To: known[n.Via.To]})
		if n.Via.To == m.ID {
			d.Superseded = true
		}
	}
	return d, nil
}

// fields are the frontmatter fields of m as the memory page lists them,
// every value as text (the template escapes it).
func fields(m *memory.Memory, store string) []field {
	fs := []field{{"id", m.ID}, {"type", m.Type}, {"title", m.Title}, {"store", store}, {"file", m.Path}}
	add := func(name, value string) {
		if value != "" {
			fs = append(fs, field{name, value})
		}
	}
	add("tags", strings.Join(m.Tags, ", "))
	add("created", when(m.Created))
	add("updated", when(m.Updated))
	add("author", m.Author)
	if m.Source != nil {
		add("source.tool", m.Source.Tool)
		add("source.model", m.Source.Model)
		add("source.session", m.Source.Session)
	}
	add("session", m.Session)
	add("supersedes", strings.Join(m.Supersedes, ", "))
	add("reason", m.Reason)
	add("paths", strings.Join(m.Paths, ", "))
	keys := make([]string, 0, len(m.Data))
	for k := range m.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		val := m.Data[k]
		s, ok := val.(string)
		if !ok {
			b, err := json.Marshal(val)
			if err != nil {
				s = fmt.Sprint(val)
			} else {
				s = string(b)
			}
		}
		add("data."+k, s)
	}
	return fs
}

// historyData is the history page: the memory's supersedes chain, oldest
// first, each version with the commits that touched its file.
type historyData struct {
	M        *memory.Memory
	Store    string
	Href     string
	Versions []versionView
}

// PageTitle names the page after the memory.
func (d historyData) PageTitle() string { return "History: " + d.M.Title }

// versionView is a version in a chain, with its page.
type versionView struct {
	workflow.Version
	Href string
	This bool
}

func (v *viewer) history(ctx context.Context, r *http.Request) (any, error) {
	p, err := place(r)
	if err != nil {
		return nil, err
	}
	l, vs, err := v.browse.History(ctx, p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	store, where := storeNames(l)
	d := historyData{M: l.Memory, Store: store, Href: memoryURL(l.Memory.ID, where)}
	for _, ver := range vs {
		d.Versions = append(d.Versions, versionView{Version: ver, Href: memoryURL(ver.ID, where), This: ver.ID == l.Memory.ID})
	}
	return d, nil
}

// sessionsData is the sessions page: the open session and the ended ones,
// latest first, each with its summary and the memories saved in it.
type sessionsData struct {
	Open  *workflow.Session
	Ended []sessionView
	Note  string
}

// PageTitle names the page.
func (sessionsData) PageTitle() string { return "Sessions" }

// sessionView is an ended session with its summary rendered and its
// memories.
type sessionView struct {
	workflow.SessionSummary
	Href     string
	Rendered template.HTML
	Memories []linkView
}

// maxSessions is how many ended sessions the sessions page shows.
const maxSessions = 50

func (v *viewer) sessions(ctx context.Context, _ *http.Request) (any, error) {
	sv, err := v.browse.Sessions(ctx, maxSessions)
	if errors.Is(err, workflow.ErrNoRepo) {
		return nil, errNoRepository
	}
	if err != nil {
		return nil, err
	}
	d := sessionsData{Open: sv.Open, Note: sv.Note}
	for _, s := range sv.Ended {
		view := sessionView{SessionSummary: s.SessionSummary, Href: memoryURL(s.Memory), Rendered: v.renderMarkdown(s.Body)}
		for _, m := range s.Memories {
			view.Memories = append(view.Memories, linkView{ID: m.ID, Type: m.Type, Title: m.Title, Href: memoryURL(m.ID)})
		}
		d.Ended = append(d.Ended, view)
	}
	return d, nil
}
