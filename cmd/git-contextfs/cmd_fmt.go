package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/check"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/printable"
)

// ---------------------------------------------------------------------------
// git contextfs fmt

// fmtCmd is `fmt`: memory files rewritten in canonical form.
// fmtOptions are the flags and arguments of fmt.
type fmtOptions struct {
	check, json bool
	paths       []string
}

func (a *app) fmtCmd() *cobra.Command {
	o := &fmtOptions{}
	cmd := &cobra.Command{
		Use:   "fmt [--check] [PATH...]",
		Short: "Rewrite memory files in canonical form",
		Long: `Rewrites memory files (all of them, or the files and folders named) in
canonical form: known frontmatter keys in the standard order (id, type,
title, summary, tags, links, supersedes, reason, paths, author, source,
session, created, updated, data),
block-style lists, times in UTC, the canonical type name. Unknown keys
are kept, after the known ones. The Markdown body is never changed, not
even by a byte.

A file is written only when its bytes change, atomically. A file that
does not parse is reported and left alone. The paths of rewritten files
are printed.

With --check nothing is written: the files that would change are listed,
for CI. Exit status: 0 nothing to do; 1 a file would change (--check) or
does not parse.

The pre-commit hook never refuses a commit for formatting.`,
		Example: `  git contextfs fmt
  git contextfs fmt --check
  git contextfs fmt .contextfs/memories/use-pgx-k3x9m2abcd.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return a.runFmt(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.check, "check", false, "write nothing; list the files that would change and exit 1 if any")
	cmd.Flags().BoolVar(&o.json, "json", false, "print {files, changed, problems, check} as JSON")
	return cmd
}

// runFmt runs fmt with o.
func (a *app) runFmt(ctx context.Context, o *fmtOptions) error {
	// The repository's limits apply: a file over limits.max_file_bytes
	// is reported, not read.
	repo, _, err := a.openFiles()
	if err != nil {
		return err
	}
	paths, err := a.fmtTargets(repo, o.paths)
	if err != nil {
		return err
	}
	res := check.Format(repo, paths, !o.check)
	changed, problems := res.Changed, res.Problems
	if o.json {
		if err := a.printJSON(res); err != nil {
			return err
		}
	} else {
		for _, c := range changed {
			fmt.Fprintln(a.io.Out, printable.Path(c))
		}
		for _, p := range problems {
			fmt.Fprintln(a.io.ErrOut, p)
		}
		if o.check && len(changed) > 0 {
			fmt.Fprintf(a.io.ErrOut, "%d memory file(s) not in canonical form; run git contextfs fmt\n", len(changed))
		}
	}
	if len(problems) > 0 || o.check && len(changed) > 0 {
		return &exitError{exitFail}
	}
	return nil
}

// fmtTargets returns the memory files to format, work-tree relative: every
// memory, or those named and those under the folders named. Relative
// paths are taken from --repo when it is given, as if started there
// (app.userPath).
func (a *app) fmtTargets(repo *gitstore.Repo, args []string) ([]string, error) {
	if len(args) == 0 {
		entries, err := repo.List()
		if err != nil {
			return nil, err
		}
		out := make([]string, len(entries))
		for i, e := range entries {
			out[i] = e.Path
		}
		return out, nil
	}
	var out []string
	for _, arg := range args {
		abs := a.userAbs(arg)
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil, fmt.Errorf("fmt %s: %w", arg, errors.Unwrap(err))
		}
		rel := repo.Rel(abs)
		if strings.HasPrefix(rel, "../") || rel == ".." || filepath.IsAbs(rel) {
			return nil, &usageError{fmt.Errorf("fmt %s: outside the repository %s", arg, repo.Root)}
		}
		if !fi.IsDir() {
			// A symbolic link is never a memory, and rewriting one would
			// replace the link with a file.
			if !fi.Mode().IsRegular() || !gitstore.IsMemoryPath(rel) {
				return nil, &usageError{fmt.Errorf("fmt %s: not a memory file (memories are .md files under %s/)", arg, gitstore.Dir)}
			}
			out = append(out, rel)
			continue
		}
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != abs && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if r := repo.Rel(p); d.Type().IsRegular() && gitstore.IsMemoryPath(r) {
				out = append(out, r)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("fmt %s: %w", arg, err)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
