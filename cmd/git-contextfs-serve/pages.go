package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/lineage"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/memory"
)

// recentCount is how many memories the home page lists.
const recentCount = 15

// typeCount is one row of the home page's counts.
type typeCount struct {
	Type       string
	Repo, User int
}

// entryView is a listed memory with its page.
type entryView struct {
	scope.Entry
	Href string
}

// homeData is the home page: counts by type, the context block an agent
// gets at session start, and the latest memories.
type homeData struct {
	Counts            []typeCount
	RepoTotal         int
	UserTotal         int
	HasRepo, HasUser  bool
	Block             *contextblock.Block
	BlockText         string
	BlockNote         string
	Recent            []entryView
	RepoRoot, UserDir string
}

// PageTitle names the page.
func (homeData) PageTitle() string { return "Overview" }

func (v *viewer) home(ctx context.Context, _ *http.Request) (any, error) {
	d := homeData{}
	counts := map[string]*typeCount{}
	count := func(st *contextfs.Store, user bool) (int, error) {
		if _, err := st.Sync(ctx); err != nil {
			return 0, err
		}
		by, err := st.CountByType(ctx)
		if err != nil {
			return 0, err
		}
		total := 0
		for t, n := range by {
			c := counts[t]
			if c == nil {
				c = &typeCount{Type: t}
				counts[t] = c
			}
			if user {
				c.User += n
			} else {
				c.Repo += n
			}
			total += n
		}
		return total, nil
	}
	var err error
	if repo := v.set.Repo; repo != nil {
		d.HasRepo, d.RepoRoot = true, repo.Repo.Root
		if d.RepoTotal, err = count(repo, false); err != nil {
			return nil, err
		}
	}
	user, uerr := v.set.ExistingUser(ctx)
	if uerr != nil {
		d.BlockNote = "the user store is left out: " + uerr.Error()
	}
	if user != nil {
		d.HasUser, d.UserDir = true, user.Repo.Root
		if d.UserTotal, err = count(user, true); err != nil {
			return nil, err
		}
	}
	for _, c := range counts {
		d.Counts = append(d.Counts, *c)
	}
	slices.SortFunc(d.Counts, func(a, b typeCount) int { return cmp.Compare(a.Type, b.Type) })
	if repo := v.set.Repo; repo != nil {
		changed := func(ctx context.Context, within []string) ([]string, error) {
			ch, err := v.diff.FilesUnder(ctx, within)
			return ch.Files, err
		}
		b, err := v.blocks.Build(ctx, repo, contextblock.Options{ChangedUnder: changed, User: user})
		if err != nil {
			d.BlockNote = "the context block could not be built: " + err.Error()
		} else {
			d.Block, d.BlockText = b, b.Markdown()
		}
	}
	if d.HasRepo || d.HasUser {
		es, err := v.set.List(ctx, scope.All, contextfs.ListOptions{Limit: recentCount})
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			d.Recent = append(d.Recent, entryView{Entry: e, Href: memoryURL(e.ID, whereScope(e.Scope))})
		}
	}
	return d, nil
}

// whereScope is the query of a memory page that says the memory is in
// the user store; "" for the repository's.
func whereScope(sc scope.Scope) string {
	if sc == scope.User {
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
	scope.Result
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
	for _, e := range v.opts.Repos {
		d.Repos = append(d.Repos, e.Name)
	}
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
	sc, err := scope.Parse(d.Scope)
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
	var res []scope.Result
	if len(v.opts.Repos) > 0 {
		res, err = v.set.SearchRepos(ctx, v.opts.Repos, sc, q)
	} else {
		res, err = v.set.Search(ctx, sc, q)
	}
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
		case r.Scope == scope.User:
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

// found is a memory and the store that holds it, as a page names it.
type found struct {
	m  *memory.Memory
	st *contextfs.Store
	// store names the store for people; where is the query of its pages
	// ("", "scope=user", "repo=NAME").
	store, where string
}

// resolve finds the memory a page's path names, in the store its query
// names: ?repo=NAME (a registered repository of --repos), ?scope=user or
// repo, or by default either of the set's stores.
func (v *viewer) resolve(ctx context.Context, r *http.Request) (found, error) {
	id := r.PathValue("id")
	if name := r.URL.Query().Get("repo"); name != "" {
		st, err := v.other(ctx, name)
		if err != nil {
			return found{}, err
		}
		m, err := st.Resolve(ctx, id)
		if err != nil {
			return found{}, err
		}
		return found{m: m, st: st, store: "repository " + name, where: "repo=" + url.QueryEscape(name)}, nil
	}
	sc, err := scope.Parse(r.URL.Query().Get("scope"))
	if err != nil {
		return found{}, badRequest{fmt.Errorf("scope: %w", err)}
	}
	m, where, st, err := v.set.Resolve(ctx, sc, id)
	if err != nil {
		return found{}, err
	}
	f := found{m: m, st: st, store: "repository", where: whereScope(where)}
	if where == scope.User {
		f.store = "user store"
	}
	return f, nil
}

// other returns the store of the registered repository name, which must
// be one of --repos, opening it on first use.
func (v *viewer) other(ctx context.Context, name string) (*contextfs.Store, error) {
	if st := v.others[name]; st != nil {
		return st, nil
	}
	i := slices.IndexFunc(v.opts.Repos, func(e scope.RepoEntry) bool { return e.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("%w: %q is not a repository this viewer serves (see --repos)", contextfs.ErrNotFound, name)
	}
	e := v.opts.Repos[i]
	if _, err := os.Stat(e.Path); err != nil {
		return nil, fmt.Errorf("repository %s: %w", name, err)
	}
	st, err := contextfs.Open(ctx, contextfs.Options{Dir: e.Path})
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", name, err)
	}
	v.others[name] = st
	return st, nil
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
	Commits      []lineage.Commit
	HistoryHref  string
	GraphHref    string
	Superseded   bool
}

// PageTitle names the page after the memory.
func (d memoryData) PageTitle() string { return d.M.Title }

// maxChain is how far the memory page follows a supersedes chain.
const maxChain = 64

func (v *viewer) memoryPage(ctx context.Context, r *http.Request) (any, error) {
	f, err := v.resolve(ctx, r)
	if err != nil {
		return nil, err
	}
	m := f.m
	d := memoryData{M: m, Store: f.store, Where: f.where, Body: v.renderMarkdown(m.Body), Fields: fields(m, f.store)}
	d.HistoryHref = "/memory/" + url.PathEscape(m.ID) + "/history"
	if f.where != "" {
		d.HistoryHref += "?" + f.where
	}
	if f.where == "" {
		d.GraphHref = "/graph?id=" + url.QueryEscape(m.ID)
	} else if f.where == "scope=user" {
		d.GraphHref = "/graph?scope=user&id=" + url.QueryEscape(m.ID)
	}
	link := func(id, rel, typ, title string, missing bool) linkView {
		return linkView{ID: id, Rel: rel, Type: typ, Title: title, Missing: missing, Href: memoryURL(id, f.where)}
	}
	// Links both ways, from the cache's edges (Store.Resolve synced it).
	ns, err := links.WalkIndexed(ctx, f.st, m.ID, 1, "")
	if err != nil {
		return nil, err
	}
	for _, n := range ns {
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
	chain, err := links.WalkIndexed(ctx, f.st, m.ID, maxChain, memory.RelSupersedes)
	if err != nil {
		return nil, err
	}
	known := map[string]linkView{m.ID: link(m.ID, "", m.Type, m.Title, false)}
	for _, n := range chain {
		known[n.ID] = link(n.ID, "", n.Type, n.Title, n.Missing)
	}
	for _, n := range chain {
		d.Chain = append(d.Chain, chainStep{From: known[n.Via.From], To: known[n.Via.To]})
		if n.Via.To == m.ID {
			d.Superseded = true
		}
	}
	if d.Commits, err = lineage.History(ctx, f.st.Repo.Root, m.Path); err != nil {
		return nil, err
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
	lineage.Version
	Href string
	This bool
}

func (v *viewer) history(ctx context.Context, r *http.Request) (any, error) {
	f, err := v.resolve(ctx, r)
	if err != nil {
		return nil, err
	}
	vs, err := lineage.Lineage(ctx, f.st, f.m.ID)
	if err != nil {
		return nil, err
	}
	d := historyData{M: f.m, Store: f.store, Href: memoryURL(f.m.ID, f.where)}
	for _, ver := range vs {
		d.Versions = append(d.Versions, versionView{Version: ver, Href: memoryURL(ver.ID, f.where), This: ver.ID == f.m.ID})
	}
	return d, nil
}

// sessionsData is the sessions page: the open session and the ended ones,
// latest first, each with its summary and the memories saved in it.
type sessionsData struct {
	Open  *session.Session
	Ended []sessionView
	Note  string
}

// PageTitle names the page.
func (sessionsData) PageTitle() string { return "Sessions" }

// sessionView is an ended session with its summary rendered and its
// memories.
type sessionView struct {
	session.Summary
	Href     string
	Rendered template.HTML
	Memories []linkView
}

// maxSessions is how many ended sessions the sessions page shows.
const maxSessions = 50

func (v *viewer) sessions(ctx context.Context, _ *http.Request) (any, error) {
	repo := v.set.Repo
	if repo == nil {
		return nil, errNoRepository
	}
	d := sessionsData{}
	cur, err := session.Current(repo.Repo)
	if err != nil {
		d.Note = err.Error()
	}
	d.Open = cur
	list, err := session.List(ctx, repo, maxSessions)
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		sv := sessionView{Summary: s, Href: memoryURL(s.Memory), Rendered: v.renderMarkdown(s.Body)}
		es, err := repo.ListIndexed(ctx, contextfs.ListOptions{Session: s.ID, All: true})
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{s.Memory: true}
		for _, e := range es {
			if !seen[e.ID] {
				seen[e.ID] = true
				sv.Memories = append(sv.Memories, linkView{ID: e.ID, Type: e.Type, Title: e.Title, Href: memoryURL(e.ID)})
			}
		}
		// Saved in the user store, or no longer in the cache's listing.
		for _, id := range s.Saved {
			if !seen[id] {
				seen[id] = true
				sv.Memories = append(sv.Memories, linkView{ID: id, Href: memoryURL(id)})
			}
		}
		d.Ended = append(d.Ended, sv)
	}
	return d, nil
}
