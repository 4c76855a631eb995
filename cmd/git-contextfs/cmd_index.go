package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

// indexOptions are the flags and arguments of index.
type indexOptions struct {
	full, json bool
	paths      []string
}

// indexCmd is index: its help and flags; runIndex does the work.
func (a *app) indexCmd() *cobra.Command {
	o := &indexOptions{}
	cmd := &cobra.Command{
		Use:   "index [PATH...]",
		Short: "Index tracked code and git history for search",
		Long: `Chunks the files git tracks with tree-sitter (functions, methods, types,
classes with their doc comments; Markdown by section; other text by line
windows) and indexes the current branch's commits, into the cache only.
Chunks are keyed by the file's blob OID: unchanged files are never parsed
again, renamed files reuse their chunks, and switching back to an indexed
branch costs a stat of each file. Files matched by index.exclude in
.contextfs/config.yaml are skipped; index.include adds untracked files.

With auto_index: true (the default) searches keep the index fresh; the
first index of a large repository is left to this command, which shows
progress on a terminal.`,
		Example: `  git contextfs index
  git contextfs index --json
  git contextfs index internal/server
  git contextfs index --full
  git contextfs index status`,
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			o.paths = args
			return a.runIndex(cmd.Context(), s, o)
		}),
	}
	cmd.Flags().BoolVar(&o.full, "full", false, "forget the code and commit index and rebuild it")
	cmd.Flags().BoolVar(&o.json, "json", false, "print a JSON summary")
	cmd.AddCommand(a.indexStatusCmd())
	return cmd
}

// runIndex runs index with o.
func (a *app) runIndex(ctx context.Context, s *contextfs.Store, o *indexOptions) error {
	// PATHs are the user's: relative to the current folder, or to DIR
	// with -C DIR (app.userPath).
	var rels []string
	for _, arg := range o.paths {
		abs := a.userAbs(arg)
		rel, ok := repoRel(s.Repo.Root, abs)
		if !ok {
			return &usageError{fmt.Errorf("index %s: outside the repository %s", arg, s.Repo.Root)}
		}
		if _, err := os.Lstat(abs); err != nil {
			return &usageError{fmt.Errorf("index %s: no such file or folder (a file deleted since the last index leaves it with git contextfs index, without paths)", arg)}
		}
		rels = append(rels, rel)
	}
	var p *progressBar
	if !o.json {
		p = a.progress("indexing")
	} else {
		p = &progressBar{}
	}
	res, err := s.Index(ctx, contextfs.IndexOptions{Full: o.full, Paths: rels, Progress: p.update, Touch: true, Summary: true})
	p.done()
	if err != nil {
		return err
	}
	if o.json {
		return a.printJSON(res)
	}
	mb := float64(res.Bytes) / 1e6
	fmt.Fprintf(a.io.Out, "indexed %d files (%.1f MB): %d parsed, %d removed, %d chunks, %d commits in %s",
		res.Files, mb, res.Parsed, res.Removed, res.Chunks, res.Commits, res.Duration.Round(time.Millisecond))
	if res.Parsed > 0 && res.Duration > 0 {
		fmt.Fprintf(a.io.Out, " (%.1f MB/s)", mb/res.Duration.Seconds())
	}
	fmt.Fprintln(a.io.Out)
	if res.Skipped > 0 {
		fmt.Fprintf(a.io.Out, "%d files skipped; see git contextfs index status\n", res.Skipped)
	}
	return nil
}

// indexStatusOptions are the flags of indexStatus.
type indexStatusOptions struct {
	json bool
}

// indexStatusCmd is indexStatus: its help and flags; runIndexStatus does the work.
func (a *app) indexStatusCmd() *cobra.Command {
	o := &indexStatusOptions{}
	cmd := &cobra.Command{
		Use:     "status",
		Short:   "Show indexed files and chunks by language, commits, last run and what is stale",
		Example: "  git contextfs index status\n  git contextfs index status --json",
		Args:    argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			return a.runIndexStatus(cmd.Context(), s, o)
		}),
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return cmd
}

// runIndexStatus runs indexStatus with o.
func (a *app) runIndexStatus(ctx context.Context, s *contextfs.Store, o *indexStatusOptions) error {
	st, err := s.IndexStatus(ctx)
	if err != nil {
		return err
	}
	if o.json {
		return a.printJSON(st)
	}
	last := st.LastRun
	if last == "" {
		last = "never (run git contextfs index)"
	}
	fmt.Fprintf(a.io.Out, "last run    %s\nauto index  %v\nfiles       %d\nchunks      %d\ncommits     %d\n", last, st.AutoIndex, st.Files, st.Chunks, st.Commits)
	langs := make([]string, 0, len(st.Languages))
	for l := range st.Languages {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		fmt.Fprintf(a.io.Out, "  %-12s %5d files %7d chunks\n", l, st.Languages[l].Files, st.Languages[l].Chunks)
	}
	fmt.Fprintf(a.io.Out, "stale       %d changed, %d removed since the last run\n", len(st.Stale), len(st.Removed))
	for i, p := range st.Stale {
		if i == 20 {
			fmt.Fprintf(a.io.Out, "  … and %d more\n", len(st.Stale)-20)
			break
		}
		fmt.Fprintf(a.io.Out, "  %s\n", p)
	}
	if len(st.Skipped) > 0 {
		fmt.Fprintf(a.io.Out, "skipped     %d files\n", len(st.Skipped))
		for i, sk := range st.Skipped {
			if i == 20 {
				fmt.Fprintf(a.io.Out, "  … and %d more (--json lists all)\n", len(st.Skipped)-20)
				break
			}
			fmt.Fprintf(a.io.Out, "  %s: %s\n", sk.Path, sk.Reason)
		}
	}
	return nil
}

// progressBar draws "label 123/456" on stderr when stderr is a terminal,
// at most ten times a second; in pipes and hooks it stays silent.
type progressBar struct {
	mu    sync.Mutex
	label string
	tty   bool
	last  time.Time
	drawn bool
	out   io.Writer
}

func (a *app) progress(label string) *progressBar {
	return &progressBar{label: label, tty: a.io.StderrIsTerminal(), out: a.io.ErrOut}
}

func (p *progressBar) update(done, total int) {
	if p == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if done != total && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	width := 30
	fill := 0
	if total > 0 {
		fill = done * width / total
	}
	fmt.Fprintf(p.out, "\r%s [%s%s] %d/%d files", p.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total)
	p.drawn = true
}

// stage replaces the line with the label and the step now running, for
// the steps that have no count to show.
func (p *progressBar) stage(name string) {
	if p == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "\r\033[K%s: %s…", p.label, name)
	p.drawn = true
}

func (p *progressBar) done() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.out, "\r\033[K")
}
