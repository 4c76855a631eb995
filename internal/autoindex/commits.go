package autoindex

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/git"
)

// Head returns the SHA HEAD points at, or "" in a repository with no
// commits yet.
func (ix *Indexer) Head(ctx context.Context) string { return ix.repo.HeadCommit(ctx) }

// IndexCommits makes the current branch's last MaxCommits commits
// searchable. It does nothing when HEAD has not moved since last time.
func (ix *Indexer) IndexCommits(ctx context.Context) (cache.SyncStats, error) {
	if ix.opts.MaxCommits < 0 {
		return ix.cache.SetCommits(ctx, nil)
	}
	head := ix.Head(ctx)
	mark := head + ":" + strconv.Itoa(ix.opts.MaxCommits)
	if ix.cache.Meta(ctx, "commits:head") == mark {
		return cache.SyncStats{}, nil
	}
	var docs []cache.Doc
	if head != "" {
		var err error
		if docs, err = ix.branchCommits(ctx); err != nil {
			return cache.SyncStats{}, err
		}
	}
	st, err := ix.cache.SetCommits(ctx, docs)
	if err != nil {
		return st, err
	}
	return st, ix.cache.SetMeta(ctx, "commits:head", mark)
}

// branchCommits lists the branch's last MaxCommits commits, newest first.
// A commit is the same document on every branch, and the cache keeps the
// documents of commits that left the current set: only the commits it has
// never stored are read with their messages and files (git log's
// --name-only diffs each commit's tree, the whole cost of a log), the
// others are named by their SHA alone. A new commit on the branch, or a
// switch back to an indexed branch, then costs a rev-list and a log of
// what is new, not a log of the last thousand commits.
func (ix *Indexer) branchCommits(ctx context.Context) ([]cache.Doc, error) {
	out, err := git.Output(ctx, ix.repo.Root, "rev-list", "-n", strconv.Itoa(ix.opts.MaxCommits), "--no-merges", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("index commits: %w", err)
	}
	shas := strings.Fields(out)
	known, err := ix.cache.KnownBlobs(ctx, shas)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, sha := range shas {
		if !known[sha] {
			missing = append(missing, sha)
		}
	}
	read := map[string]cache.Doc{}
	if len(missing) > 0 {
		logged, err := ix.log(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, d := range logged {
			read[d.MID] = d
		}
	}
	docs := make([]cache.Doc, 0, len(shas))
	for _, sha := range shas {
		if d, ok := read[sha]; ok {
			docs = append(docs, d)
		} else if known[sha] {
			docs = append(docs, cache.Doc{MID: sha}) // stored: SetCommits needs its name only
		}
	}
	return docs, nil
}

// log reads the given commits with the git CLI: one process for all of
// them (on standard input), with separators that cannot occur in commit
// messages.
func (ix *Indexer) log(ctx context.Context, shas []string) ([]cache.Doc, error) {
	out, err := git.Cmd{Dir: ix.repo.Root, Stdin: strings.NewReader(strings.Join(shas, "\n") + "\n")}.Run(ctx,
		"log", "--stdin", "--no-walk=unsorted", "--no-color",
		"--format=%x1e%H%x1f%an <%ae>%x1f%aI%x1f%s%x1f%b%x1f", "--name-only")
	if err != nil {
		return nil, fmt.Errorf("index commits: %w", err)
	}
	var docs []cache.Doc
	for _, rec := range bytes.Split(out, []byte{0x1e}) {
		f := strings.Split(string(rec), "\x1f")
		if len(f) < 6 {
			continue
		}
		sha, author, date, subject, body := f[0], f[1], f[2], f[3], strings.TrimSpace(f[4])
		files := strings.Fields(f[5])
		when, _ := time.Parse(time.RFC3339, date)
		text := subject
		if body != "" {
			text += "\n\n" + body
		}
		if len(files) > 0 {
			shown := files
			if len(shown) > 50 {
				shown = shown[:50]
			}
			text += "\n\nFiles: " + strings.Join(shown, " ")
		}
		docs = append(docs, cache.Doc{MID: sha, Type: "commit", Title: subject, Body: text, Author: author,
			Created: when, Updated: when, Summary: firstLine(body)})
	}
	return docs, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}
