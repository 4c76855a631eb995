package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

func (a *app) initCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create .contextfs/config.yaml and register the merge driver",
		Long: `Creates .contextfs/ with a commented config.yaml holding every default, and
registers the memory merge driver in this clone's git config and in
.gitattributes. Running it again changes nothing.`,
		Example: "  git contextfs init",
		Args:    argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			created, err := s.Init(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]any{"root": s.Repo.Root, "created": created})
			}
			if len(created) == 0 {
				fmt.Fprintln(a.stdout, "contextfs is already set up in "+s.Repo.Root)
				return nil
			}
			for _, c := range created {
				fmt.Fprintln(a.stdout, "created "+c)
			}
			fmt.Fprintln(a.stdout, "Next: git contextfs save \"what the team should remember\"")
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was created as JSON")
	return cmd
}

func (a *app) saveCmd() *cobra.Command {
	var (
		typ, title, summary, data string
		tags, links, supersedes   []string
		asJSON                    bool
	)
	cmd := &cobra.Command{
		Use:   "save [flags] [CONTENT|-]",
		Short: "Save a new memory and print its ID",
		Long: `Saves a new memory as .contextfs/memories/<slug>-<id>.md and prints its ID.
The content is the Markdown body: the arguments, or standard input with "-"
(or when nothing is given and stdin is not a terminal). Without --title the
first heading or sentence becomes the title. --data gives the type's
structured fields as JSON; "git contextfs schema TYPE" shows them.

The memory is validated before anything is written, and scanned for
secrets: findings are printed as warnings (the pre-commit hook blocks them).`,
		Example: `  git contextfs save --type decision --tag db \
      --data '{"decision":"pgx pool of 20","status":"accepted"}' \
      "We pool Postgres connections with pgxpool, 20 per instance."
  echo "Run make bench before tagging" | git contextfs save --type procedural -
  git contextfs save --type error --title "EADDRINUSE in tests" --json "Tests must use port 0"`,
		Args: argsRange(0, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, err := a.readContent(args)
			if err != nil {
				return err
			}
			var d map[string]any
			if data != "" {
				if err := json.Unmarshal([]byte(data), &d); err != nil {
					return &usageError{fmt.Errorf("--data must be a JSON object: %v", err)}
				}
			}
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			res, err := s.Save(cmd.Context(), contextfs.SaveRequest{Type: typ, Title: title, Summary: summary, Tags: tags,
				Links: links, Supersedes: supersedes, Data: d, Body: body})
			if err != nil {
				return err
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(a.stderr, "warning: possible secret: %s\n  The pre-commit hook will refuse this file. Remove it, or allow it (see docs/SECRETS.md).\n", w)
			}
			if asJSON {
				return a.printJSON(res.Memory)
			}
			fmt.Fprintln(a.stdout, res.Memory.ID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&typ, "type", "t", "fact", "memory `TYPE` (see: git contextfs schema)")
	f.StringVar(&title, "title", "", "title (default: the body's first heading or sentence)")
	f.StringVar(&summary, "summary", "", "one-paragraph summary (default: derived from the body)")
	f.StringArrayVar(&tags, "tag", nil, "tag (repeatable, or comma-separated)")
	f.StringArrayVar(&links, "link", nil, "link to another memory ID or a URL (repeatable)")
	f.StringArrayVar(&supersedes, "supersedes", nil, "ID of a memory this one replaces (repeatable); it is then hidden from search")
	f.StringVar(&data, "data", "", "structured fields of the type, as a JSON object")
	f.BoolVar(&asJSON, "json", false, "print the saved memory as JSON")
	return cmd
}

func (a *app) searchCmd() *cobra.Command {
	var (
		types, tags  []string
		limit        int
		mode, since  string
		tests, group string
		all, asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search memories (and indexed code and commits) by keyword and meaning",
		Long: `Ranks memories by a fusion of BM25 keyword scores and embedding similarity
(--mode hybrid, the default), or by either alone. Superseded memories are
hidden unless --all. With code indexed ("git contextfs index"), results mix
memories, code chunks, documentation and commits: --type code selects source
code (tests included, ranked below other code of equal relevance; --tests
exclude or only), --type doc documentation files (Markdown,
reStructuredText, text, changelogs, chunked by headings) and doc memories,
--type commit history. A file's path is searchable too. --group file gives
one result per file, its best chunks under it.

Query syntax on top of plain words (which match any word, by keyword and
by meaning): "exact phrase" is required; prefix* matches every word it
begins; -word or -"phrase" excludes; a OR b makes alternatives of which one
is required.

Hybrid results below a tenth of the best one are not shown.

JSON output is an array of objects with id, kind (memory, code, doc or
commit), type, title, path, score, snippet, and why the result is there:
keyword_score (BM25 scaled so the query's best match is 1) and
semantic_score (cosine); score is their mix. Code adds symbol, lines and
test; a grouped file adds chunks.`,
		Example: `  git contextfs search "how do we pool db connections"
  git contextfs search --type decision --tag db --limit 5 postgres
  git contextfs search --mode keyword --json EADDRINUSE
  git contextfs search --since 2024-01-01 "release checklist"
  git contextfs search --type code --tests exclude "retry failed uploads"
  git contextfs search --type doc "how to configure the cache"
  git contextfs search --type code --group file "where are webhooks verified"
  git contextfs search '"connection pool" postgres OR mysql -redis conn*'`,
		Args: argsRange(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := contextfs.Query{Text: strings.Join(args, " "), Types: types, Tags: tags, Limit: limit, Mode: mode, All: all, Tests: tests, Group: group}
			if tests != "" && tests != contextfs.TestsInclude && tests != contextfs.TestsExclude && tests != contextfs.TestsOnly {
				return &usageError{fmt.Errorf("--tests must be include, exclude or only, not %q", tests)}
			}
			if group != "" && group != contextfs.GroupFile {
				return &usageError{fmt.Errorf("--group must be file, not %q", group)}
			}
			if since != "" {
				t, err := parseSince(since)
				if err != nil {
					return &usageError{err}
				}
				q.Since = t
			}
			if mode != "" && mode != "hybrid" && mode != "keyword" && mode != "semantic" {
				return &usageError{fmt.Errorf("--mode must be hybrid, keyword or semantic, not %q", mode)}
			}
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			if err := a.beforeSearch(cmd, s, q); err != nil {
				return err
			}
			res, err := s.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			if asJSON {
				if res == nil {
					res = []contextfs.Result{}
				}
				return a.printJSON(res)
			}
			if len(res) == 0 {
				fmt.Fprintln(a.stderr, "no matches")
				return nil
			}
			for i, r := range res {
				loc := r.Path
				if r.StartLine > 0 {
					loc = fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine)
				}
				name := r.Title
				if r.Symbol != "" {
					name = r.Symbol
				}
				fmt.Fprintf(a.stdout, "%2d. %.3f  %-10s %s  [%s]\n    %s\n", i+1, r.Score, r.Type, name, shortID(r), loc)
				if r.Snippet != "" {
					fmt.Fprintf(a.stdout, "    %s\n", r.Snippet)
				}
				for _, c := range r.Chunks {
					fmt.Fprintf(a.stdout, "      %.3f  %s %s\n", c.Score, c.ID, c.Symbol)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&types, "type", "t", nil, "only this memory `TYPE`, or code / doc / commit (repeatable)")
	f.StringVar(&tests, "tests", "", "test code: include (default, ranked below other code), exclude or only")
	f.StringVar(&group, "group", "", "file: one result per file, its best chunks under it")
	f.StringArrayVar(&tags, "tag", nil, "only memories with this tag (repeatable: all must match)")
	f.IntVarP(&limit, "limit", "n", 0, "at most N results (default from config, 10)")
	f.StringVar(&mode, "mode", "", "hybrid, keyword or semantic (default from config, hybrid)")
	f.StringVar(&since, "since", "", "only memories updated since `WHEN` (2024-05-01, or 7d, 2w, 3m ago)")
	f.BoolVar(&all, "all", false, "include superseded memories")
	f.BoolVar(&asJSON, "json", false, "print results as a JSON array")
	return cmd
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

// parseSince accepts a date, an RFC 3339 time, or an age like 7d, 2w, 3m,
// 1y, 12h.
func parseSince(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if len(s) >= 2 {
		var n int
		if _, err := fmt.Sscanf(s[:len(s)-1], "%d", &n); err == nil && n >= 0 {
			now := time.Now()
			switch s[len(s)-1] {
			case 'h':
				return now.Add(-time.Duration(n) * time.Hour), nil
			case 'd':
				return now.AddDate(0, 0, -n), nil
			case 'w':
				return now.AddDate(0, 0, -7*n), nil
			case 'm':
				return now.AddDate(0, -n, 0), nil
			case 'y':
				return now.AddDate(-n, 0, 0), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2024-05-01), a time (RFC 3339) or an age (12h, 7d, 2w, 3m, 1y)", s)
}

func (a *app) recallCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "recall ID|PREFIX",
		Short: "Print a memory (or an indexed code chunk or commit)",
		Long: `Prints the memory whose ID is, or starts with, the argument (like git's
abbreviated hashes), read from its file. A code result's ID (path:start-end)
or a commit SHA prints the chunk or commit.`,
		Example: `  git contextfs recall k3x9
  git contextfs recall --json k3x9m2abcd`,
		Args: argsRange(1, 1),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			if handled, err := a.recallIndexed(cmd, s, args[0], asJSON); handled || err != nil {
				return err
			}
			m, err := s.Resolve(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(m)
			}
			raw, err := s.Repo.ReadFile(m.Path)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "# %s\n", m.Path)
			a.stdout.Write(raw)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the memory as JSON")
	return cmd
}

func (a *app) listCmd() *cobra.Command {
	var (
		types, tags []string
		limit       int
		since       string
		all, asJSON bool
	)
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List memories, newest first",
		Example: "  git contextfs list --type decision\n  git contextfs list --tag db --json",
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := contextfs.ListOptions{Types: types, Tags: tags, Limit: limit, All: all}
			if since != "" {
				t, err := parseSince(since)
				if err != nil {
					return &usageError{err}
				}
				o.Since = t
			}
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			es, err := s.List(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				if es == nil {
					es = []contextfs.Entry{}
				}
				return a.printJSON(es)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, e := range es {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, e.Type, e.Updated.Format("2006-01-02"), e.Title)
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&types, "type", "t", nil, "only this `TYPE` (repeatable)")
	f.StringArrayVar(&tags, "tag", nil, "only memories with this tag (repeatable: all must match)")
	f.IntVarP(&limit, "limit", "n", 0, "at most N memories (default: all)")
	f.StringVar(&since, "since", "", "only memories updated since `WHEN`")
	f.BoolVar(&all, "all", false, "include superseded memories")
	f.BoolVar(&asJSON, "json", false, "print as a JSON array")
	return cmd
}

func (a *app) updateCmd() *cobra.Command {
	var (
		typ, title, summary, data   string
		tags, addTags, rmTags       []string
		links, supersedes           []string
		setBody, asJSON, replaceDat bool
	)
	cmd := &cobra.Command{
		Use:   "update ID [flags] [CONTENT|-]",
		Short: "Change a memory in place",
		Long: `Edits the memory's fields; only the lines of changed fields change in the
file, and updated is set to now. Give CONTENT (or "-" for stdin) to replace
the body. --data merges JSON fields into data (null deletes a field;
--replace-data replaces it whole).`,
		Example: `  git contextfs update k3x9 --add-tag postgres
  git contextfs update k3x9 --data '{"status":"deprecated"}'
  git contextfs update k3x9 - < new-body.md`,
		Args: argsRange(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var body string
			setBody = len(args) > 1
			if setBody {
				b, err := a.readContent(args[1:])
				if err != nil {
					return err
				}
				body = b
			}
			var d map[string]any
			if data != "" {
				if err := json.Unmarshal([]byte(data), &d); err != nil {
					return &usageError{fmt.Errorf("--data must be a JSON object: %v", err)}
				}
			}
			fl := cmd.Flags()
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			m, err := s.Update(cmd.Context(), args[0], func(m *memory.Memory) error {
				if fl.Changed("type") {
					m.Type = typ
				}
				if fl.Changed("title") {
					m.Title = title
				}
				if fl.Changed("summary") {
					m.Summary = summary
				}
				if fl.Changed("tag") {
					m.Tags = tags
				}
				m.Tags = append(m.Tags, addTags...)
				for _, t := range rmTags {
					m.Tags = slices.DeleteFunc(m.Tags, func(x string) bool { return strings.EqualFold(x, t) })
				}
				if fl.Changed("link") {
					m.Links = links
				}
				if fl.Changed("supersedes") {
					m.Supersedes = supersedes
				}
				if data != "" {
					if replaceDat || m.Data == nil {
						m.Data = map[string]any{}
					}
					for k, v := range d {
						if v == nil {
							delete(m.Data, k)
						} else {
							m.Data[k] = v
						}
					}
				}
				if setBody {
					m.Body = strings.TrimRight(body, "\n") + "\n"
				}
				return nil
			})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(m)
			}
			fmt.Fprintf(a.stdout, "updated %s %s\n", m.ID, m.Path)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&typ, "type", "t", "", "new type")
	f.StringVar(&title, "title", "", "new title")
	f.StringVar(&summary, "summary", "", "new summary")
	f.StringArrayVar(&tags, "tag", nil, "replace all tags (repeatable)")
	f.StringArrayVar(&addTags, "add-tag", nil, "add a tag (repeatable)")
	f.StringArrayVar(&rmTags, "remove-tag", nil, "remove a tag (repeatable)")
	f.StringArrayVar(&links, "link", nil, "replace links (repeatable)")
	f.StringArrayVar(&supersedes, "supersedes", nil, "replace the IDs this memory supersedes (repeatable)")
	f.StringVar(&data, "data", "", "JSON object merged into data")
	f.BoolVar(&replaceDat, "replace-data", false, "with --data: replace data instead of merging")
	f.BoolVar(&asJSON, "json", false, "print the updated memory as JSON")
	return cmd
}

func (a *app) deleteCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a memory's file",
		Long: `Deletes the memory's file from the work tree. Until the deletion is
committed, "git checkout -- PATH" brings it back; after, git history keeps it.
To retire a memory but keep it visible in history, save its replacement with
--supersedes instead.`,
		Example: "  git contextfs delete k3x9",
		Args:    argsRange(1, 1),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			m, err := s.Delete(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]string{"id": m.ID, "path": m.Path})
			}
			fmt.Fprintf(a.stdout, "deleted %s %s\n", m.ID, m.Path)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the deleted ID and path as JSON")
	return cmd
}

func (a *app) statusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "status",
		Short:   "Show memory counts by type, invalid files and the cache state",
		Example: "  git contextfs status\n  git contextfs status --json",
		Args:    argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			st, err := s.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(st)
			}
			fmt.Fprintf(a.stdout, "repository  %s\n", st.Root)
			if !st.Initiated {
				fmt.Fprintln(a.stdout, "            (not initialised: run git contextfs init)")
			}
			fmt.Fprintf(a.stdout, "memories    %d in %d files\n", st.Memories, st.Files)
			types := make([]string, 0, len(st.ByType))
			for t := range st.ByType {
				types = append(types, t)
			}
			slices.Sort(types)
			for _, t := range types {
				fmt.Fprintf(a.stdout, "  %-18s %d\n", t, st.ByType[t])
			}
			if len(st.Code) > 0 {
				n := 0
				for _, c := range st.Code {
					n += c
				}
				fmt.Fprintf(a.stdout, "code        %d chunks\n", n)
			}
			if st.Commits > 0 {
				fmt.Fprintf(a.stdout, "commits     %d\n", st.Commits)
			}
			fmt.Fprintf(a.stdout, "embedder    %s\n", st.Embedder)
			fmt.Fprintf(a.stdout, "cache       %s (%.1f MB, schema %s, fresh)\n", st.Cache.Path, float64(st.Cache.Bytes)/1e6, st.Cache.Schema)
			fmt.Fprintf(a.stdout, "watcher     %s\n", describeWatcher(st.Watcher))
			if len(st.Invalid) > 0 {
				fmt.Fprintf(a.stdout, "problems    %d file(s); run git contextfs validate\n", len(st.Invalid))
				for _, p := range st.Invalid {
					fmt.Fprintf(a.stdout, "  %s\n", p)
				}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *app) reindexCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Delete the cache and rebuild it from the files",
		Long: `Deletes the cache (it holds nothing that is not derived from the files and
git) and rebuilds the memory index. Commands rebuild a missing, corrupt or
old-schema cache on their own; this is for doing it on demand.`,
		Example: "  git contextfs reindex",
		Args:    argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			start := time.Now()
			st, err := s.Reindex(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]any{"files": st.Files, "analyzed": st.Analyzed, "embedded": st.Embedded, "seconds": time.Since(start).Seconds()})
			}
			fmt.Fprintf(a.stdout, "reindexed %d memory files in %s\n", st.Files, time.Since(start).Round(time.Millisecond))
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON summary")
	return cmd
}

func (a *app) schemaCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "schema [TYPE]",
		Short: "List memory types, or print one type's JSON Schema",
		Example: `  git contextfs schema
  git contextfs schema decision`,
		Args: argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				t, ok := memory.LookupType(args[0])
				if !ok {
					_, err := memory.CanonicalType(args[0])
					return err
				}
				if asJSON {
					return a.printJSON(t)
				}
				var v any
				if err := json.Unmarshal(t.Schema, &v); err != nil {
					return err
				}
				return a.printJSON(v)
			}
			ts := memory.Types()
			if asJSON {
				return a.printJSON(ts)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, t := range ts {
				al := ""
				if len(t.Aliases) > 0 {
					al = " (alias: " + strings.Join(t.Aliases, ", ") + ")"
				}
				fmt.Fprintf(tw, "%s\t%s%s\n", t.Name, t.Description, al)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *app) validateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Check memory files; exit 1 if any is invalid",
		Long: `Checks every memory file (or the ones named): YAML syntax, known type,
required fields, the type's data schema, unique IDs and leftover merge
conflict markers. Problems are printed as FILE:LINE: RULE: MESSAGE.
Exit status: 0 all valid, 1 something is invalid.`,
		Example: "  git contextfs validate\n  git contextfs validate .contextfs/memories/use-pgx-k3x9m2abcd.md --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, p := range args {
				if _, err := os.Stat(p); err != nil {
					return fmt.Errorf("validate %s: %w", p, errors.Unwrap(err))
				}
			}
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			probs, n, err := s.Validate(cmd.Context(), absAll(args))
			if err != nil {
				return err
			}
			if asJSON {
				if probs == nil {
					probs = []contextfs.Problem{}
				}
				if err := a.printJSON(map[string]any{"files": n, "problems": probs}); err != nil {
					return err
				}
			} else {
				for _, p := range probs {
					fmt.Fprintln(a.stdout, p)
				}
				if len(probs) == 0 {
					fmt.Fprintf(a.stderr, "%d memory file(s) valid\n", n)
				}
			}
			if len(probs) > 0 {
				return &exitError{exitFail}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {files, problems} as JSON")
	return cmd
}

func absAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		a, err := filepath.Abs(p)
		if err != nil {
			a = p
		}
		out[i] = a
	}
	return out
}

var _ = gitstore.Dir
