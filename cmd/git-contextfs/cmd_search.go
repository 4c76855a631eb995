package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/workflow"
)

// searchOptions are the flags and arguments of search.
type searchOptions struct {
	text        string
	types, tags []string
	kinds       []string
	limit       int
	mode, since string
	tests       string
	group       string
	all, json   bool
	attach      filterAttach
	scope       string
	repos       []string
}

// query checks the options and returns the query they ask for; a bad
// value is a usageError.
func (o *searchOptions) query() (contextfs.Query, error) {
	q := contextfs.Query{Text: o.text, Types: o.types, Kinds: o.kinds, Tags: o.tags, Limit: o.limit, Mode: o.mode, All: o.all,
		Attached: o.attach.files, Source: o.attach.source, Tests: o.tests, Group: o.group}
	if o.tests != "" && o.tests != contextfs.TestsInclude && o.tests != contextfs.TestsExclude && o.tests != contextfs.TestsOnly {
		return q, &usageError{fmt.Errorf("--tests must be include, exclude or only, not %q", o.tests)}
	}
	for _, list := range o.kinds {
		for _, k := range strings.Split(list, ",") {
			if k = strings.TrimSpace(strings.ToLower(k)); k != "" && k != "memory" && k != "code" && k != "doc" && k != "commit" {
				return q, &usageError{fmt.Errorf("--kind must be memory, code, doc or commit, not %q", k)}
			}
		}
	}
	if o.group != "" && o.group != contextfs.GroupFile {
		return q, &usageError{fmt.Errorf("--group must be file, not %q", o.group)}
	}
	if err := checkTypes(o.types, true); err != nil {
		return q, err
	}
	if err := checkSearchLimit(o.limit); err != nil {
		return q, err
	}
	if o.since != "" {
		t, err := parseSince(o.since)
		if err != nil {
			return q, &usageError{err}
		}
		q.Since = t
	}
	if o.mode != "" && o.mode != "hybrid" && o.mode != "keyword" && o.mode != "semantic" {
		return q, &usageError{fmt.Errorf("--mode must be hybrid, keyword or semantic, not %q", o.mode)}
	}
	return q, nil
}

// searchCmd is search: its help and flags; runSearch does the work.
func (a *app) searchCmd() *cobra.Command {
	o := &searchOptions{}
	cmd := &cobra.Command{
		Use:   "search QUERY | --path FILE",
		Short: "Search memories (and indexed code and commits) by keyword and meaning",
		Long: `Ranks memories by a fusion of BM25 keyword scores and embedding similarity
(--mode hybrid, the default), or by either alone. Superseded memories are
hidden unless --all. With code indexed ("git contextfs index"), results mix
memories, code chunks, documentation and commits, every memory first: what
the team wrote down comes before the code and history that mention the
same words. --kind memory, code, doc or commit keeps one kind (or
several). --type code selects source
code (tests included, ranked below other code of equal relevance; --tests
exclude or only), --type doc documentation files (Markdown,
reStructuredText, text, changelogs, chunked by headings) and doc memories,
--type commit history. A file's path is searchable too. --group file gives
one result per file, its best chunks under it.

Query syntax on top of plain words (which match any word, by keyword and
by meaning): "exact phrase" is required; prefix* matches every word it
begins; -word or -"phrase" excludes; a OR b makes alternatives of which one
is required. When these leave nothing, the words alone are searched, and
each result says so ("relaxed": true in JSON; a note on stderr).
Contractions are spelled out first ("can't" is "cannot", "didn't" is "did
not") and a possessive "'s" dropped.

Hybrid results below a tenth of the best one are not shown.

--path FILE, named from the current folder or absolute, lists the memories
attached to the file (their paths globs cover it); with a QUERY it narrows
the search to them.

JSON output is an array of objects with id, kind (memory, code, doc or
commit), type, title, path, score, snippet, scope, and why the result is
there: keyword_score (BM25 scaled so the query's best match is 1) and
semantic_score (cosine); score is their mix. Code adds symbol, lines and
test; a grouped file adds chunks; --repos adds repo; relaxed is true when
the query's operators matched nothing and the result matches its words.

By default the repository's memories and your own (the user store, see
git contextfs user path) are searched together; --scope repo or --scope
user searches one. --repos all (or NAME,...) searches the repositories
registered with "git contextfs repos add" as well, in parallel; one that is
missing or broken is reported and skipped.`,
		Example: `  git contextfs search "how do we pool db connections"
  git contextfs search --type decision --tag db --limit 5 postgres
  git contextfs search --mode keyword --json EADDRINUSE
  git contextfs search --kind code,doc "where do we retry failed uploads"
  git contextfs search --since 2024-01-01 "release checklist"
  git contextfs search --path auth/token.go
  git contextfs search --scope user "how I like answers"
  git contextfs search --repos all "retry policy"
  git contextfs search --type code --tests exclude "retry failed uploads"
  git contextfs search --type doc "how to configure the cache"
  git contextfs search --type code --group file "where are webhooks verified"
  git contextfs search '"connection pool" postgres OR mysql -redis conn*'`,
		Args: argsRange(0, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := a.repoPaths(o.attach.files)
			if err != nil {
				return err
			}
			o.attach.files = files
			if len(args) == 0 {
				return a.listAttached(cmd, o.attach, o.json)
			}
			o.text = strings.Join(args, " ")
			if err := workflow.CheckQuery(o.text); err != nil {
				return &usageError{fmt.Errorf("search: %w; or --path FILE alone lists the memories attached to a file", err)}
			}
			return a.runSearch(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	stringArrayVar(f, &o.types, "type", "t", "only this memory `TYPE`, or code / doc / commit (repeatable)")
	stringArrayVar(f, &o.kinds, "kind", "k", "only results of this `KIND`: memory, code, doc or commit (repeatable or comma-separated; default all, memories first)")
	f.StringVar(&o.tests, "tests", "", "test code: include (default, ranked below other code), exclude or only")
	f.StringVar(&o.group, "group", "", "file: one result per file, its best chunks under it")
	stringArrayVar(f, &o.tags, "tag", "", "only memories with this tag (repeatable: all must match)")
	f.IntVarP(&o.limit, "limit", "n", 0, "at most N results (default from config, 10; at most 1000)")
	f.StringVar(&o.mode, "mode", "", "hybrid, keyword or semantic (default from config, hybrid)")
	f.StringVar(&o.since, "since", "", "only memories updated since `WHEN` (2024-05-01, or 7d, 2w, 3m ago)")
	f.BoolVar(&o.all, "all", false, "include superseded memories")
	f.BoolVar(&o.json, "json", false, "print results as a JSON array")
	o.attach.flags(f)
	f.StringVar(&o.scope, "scope", "", scopeUsage+" (default all)")
	stringArrayVar(f, &o.repos, "repos", "", "also search registered repositories: all, or `NAME,...`")
	return cmd
}

// runSearch runs search with o.
func (a *app) runSearch(ctx context.Context, o *searchOptions) error {
	q, err := o.query()
	if err != nil {
		return err
	}
	sc, err := parseScope(o.scope, false)
	if err != nil {
		return err
	}
	s, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	prepare := func() error {
		if s.Repo() != nil && sc != workflow.User {
			return a.beforeSearch(ctx, s.Repo(), q)
		}
		return nil
	}
	// With --repos, the other repositories are searched while this
	// one's code index is refreshed.
	res, err := s.Search(ctx, workflow.SearchRequest{Query: q, Scope: sc, Repos: o.repos, Prepare: prepare})
	if ie := (*workflow.InputError)(nil); errors.As(err, &ie) && ie.Field == "repos" {
		return fmt.Errorf("--repos: %w", ie.Err) // a name not registered: not found, exit 1
	}
	if err != nil {
		return err
	}
	if s.Repo() != nil && sc != workflow.User {
		a.noteSkipped(ctx, s.Repo()) // the user store's are warned about by the scope set
	}
	if o.json {
		return a.printJSON(res)
	}
	if len(res) == 0 {
		fmt.Fprintln(a.io.ErrOut, "no matches")
		return nil
	}
	if slices.ContainsFunc(res, func(r workflow.Result) bool { return r.Relaxed }) {
		fmt.Fprintln(a.io.ErrOut, "note: nothing matches the quoted phrases, OR and -word parts as written; these results match the words")
	}
	cs, width := a.io.ColorScheme(), a.io.TerminalWidth()
	for i, r := range res {
		loc := r.Path
		if r.StartLine > 0 {
			loc = fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine)
		}
		name := r.Title
		if r.Symbol != "" {
			name = r.Symbol
		}
		switch {
		case r.Repo != "":
			loc = r.Repo + ": " + loc
		case r.Scope == workflow.User:
			loc = "user: " + loc
		}
		id := shortID(r.Result)
		if width > 0 {
			// "NN. S.SSS  TYPE______ " before the name, "  [ID]" after.
			lead := 4 + 5 + 2 + max(10, utf8.RuneCountInString(r.Type)) + 1
			name = iostreams.Truncate(name, max(8, width-lead-len(id)-4))
		}
		fmt.Fprintf(a.io.Out, "%2d. %s  %s %s  [%s]\n    %s\n", i+1, cs.Green(fmt.Sprintf("%.3f", r.Score)),
			typeColor(cs, fmt.Sprintf("%-10s", r.Type)), cs.Bold(name), cs.Yellow(id), cs.Gray(loc))
		if r.Snippet != "" {
			fmt.Fprintf(a.io.Out, "    %s\n", iostreams.Truncate(r.Snippet, width-4))
		}
		for _, c := range r.Chunks {
			fmt.Fprintf(a.io.Out, "      %s  %s %s\n", cs.Green(fmt.Sprintf("%.3f", c.Score)), cs.Yellow(c.ID), c.Symbol)
		}
	}
	return nil
}

func shortID(r contextfs.Result) string {
	if r.Kind == "memory" && len(r.ID) > 10 {
		return r.ID[:10]
	}
	if r.Kind == "commit" && len(r.ID) > 12 {
		return r.ID[:12]
	}
	return r.ID
}

// beforeSearch keeps the code index fresh when auto-indexing is on and the
// search may return code or commits.
func (a *app) beforeSearch(ctx context.Context, s *contextfs.Store, q contextfs.Query) error {
	wantsIndex := len(q.Types) == 0
	for _, t := range q.Types {
		if t == "code" || t == "commit" {
			wantsIndex = true
		}
	}
	if !wantsIndex {
		return nil
	}
	p := a.progress("indexing")
	hint, err := s.AutoIndex(ctx, p.update)
	p.done()
	if err != nil {
		// The memories are still searchable; the code index is a bonus.
		fmt.Fprintf(a.io.ErrOut, "contextfs: code index not refreshed: %v\n", err)
		return nil
	}
	if hint != "" {
		fmt.Fprintln(a.io.ErrOut, hint)
	}
	return nil
}

// repoPaths resolves the files of --path (search, list) as the user
// means them, as index and validate resolve theirs (app.userPath):
// relative to the current folder (to DIR with -C DIR), or absolute. They
// become relative to the repository root, as memories' paths globs are; a
// file outside the repository is a usage error. Outside any repository
// (the user store alone) they are left as given: there is no root to
// resolve them by.
func (a *app) repoPaths(files []string) ([]string, error) {
	if len(files) == 0 {
		return files, nil
	}
	root, err := workflow.WorkTree(a.workDir())
	if err != nil {
		return files, nil // opening the stores says why, or searches the user store
	}
	out := make([]string, len(files))
	for i, f := range files {
		rel, ok := repoRel(root, a.userAbs(f))
		if !ok {
			return nil, &usageError{fmt.Errorf("--path %s: outside the repository %s", f, root)}
		}
		out[i] = rel
	}
	return out, nil
}
