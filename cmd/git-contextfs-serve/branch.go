package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/branchdiff"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/review"
)

// branchData is the branch page: what `git contextfs review` reports for
// its default range, the merge base of HEAD with the default branch to
// HEAD.
type branchData struct {
	Report  review.Report
	Groups  []changeGroup
	Note    string
	HasDiff bool
}

// PageTitle names the page.
func (branchData) PageTitle() string { return "Branch" }

// changeGroup is the changes of one kind (added, changed, ...).
type changeGroup struct {
	Kind    string
	Changes []changeView
}

// changeView is a change with the page of its memory.
type changeView struct {
	review.Change
	Href string
}

func (v *viewer) branch(ctx context.Context, _ *http.Request) (any, error) {
	repo := v.set.Repo
	if repo == nil {
		return nil, errNoRepository
	}
	rep, err := reviewDefault(ctx, repo)
	var re *rangeError
	if errors.As(err, &re) {
		return branchData{Note: re.Error()}, nil // no default branch, no commits: said, not failed
	}
	if err != nil {
		return nil, err
	}
	d := branchData{Report: rep, HasDiff: true}
	for _, kind := range []string{review.Added, review.Changed, review.Superseded, review.Deleted} {
		g := changeGroup{Kind: kind}
		for _, c := range rep.Changes {
			if c.Kind == kind {
				cv := changeView{Change: c}
				if kind != review.Deleted {
					cv.Href = memoryURL(c.ID)
				}
				g.Changes = append(g.Changes, cv)
			}
		}
		if len(g.Changes) > 0 {
			d.Groups = append(d.Groups, g)
		}
	}
	return d, nil
}

// rangeError is a branch whose default range cannot be taken: no default
// branch, or no commit yet.
type rangeError struct{ msg string }

func (e *rangeError) Error() string { return e.msg }

// reviewDefault reports what review reports without a range: the memory
// files from the merge base of HEAD and the default branch (origin/HEAD,
// else main, else master) to HEAD, validated and scanned for secrets,
// with the memories attached to the code the range changes.
//
// It is the CLI's range resolution (cmd_review.go) for its default case
// only; the viewer takes no range from a request.
func reviewDefault(ctx context.Context, s *contextfs.Store) (review.Report, error) {
	root := s.Repo.Root
	base := ""
	if ref, err := git.Output(ctx, root, "symbolic-ref", "-q", "refs/remotes/origin/HEAD"); err == nil && ref != "" {
		base = strings.TrimPrefix(ref, "refs/remotes/")
	} else {
		for _, b := range []string{"main", "master"} {
			if _, err := git.Output(ctx, root, "rev-parse", "-q", "--verify", "refs/heads/"+b+"^{commit}"); err == nil {
				base = b
				break
			}
		}
	}
	if base == "" {
		return review.Report{}, &rangeError{"cannot tell the default branch (no origin/HEAD, main or master): run git contextfs review BASE to compare with another"}
	}
	head, err := git.Output(ctx, root, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil || head == "" {
		return review.Report{}, &rangeError{"the branch has no commit yet"}
	}
	baseSHA, err := git.Output(ctx, root, "rev-parse", "-q", "--verify", base+"^{commit}")
	if err != nil {
		return review.Report{}, fmt.Errorf("resolve %s: %w", base, err)
	}
	mb, err := git.Output(ctx, root, "merge-base", baseSHA, head)
	if err != nil {
		return review.Report{}, &rangeError{fmt.Sprintf("%s and HEAD have no common history", base)}
	}
	sc, err := s.SecretScanner()
	if err != nil {
		return review.Report{}, err
	}
	bf, err := s.Repo.ReadRef(mb)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at %s: %w", base, err)
	}
	hf, err := s.Repo.ReadRef(head)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at HEAD: %w", err)
	}
	rep := review.Compare(bf, hf, sc)
	rep.Base, rep.Head, rep.BaseCommit, rep.HeadCommit = base, "HEAD", mb, head
	files, err := branchdiff.Between(ctx, root, mb, head)
	if err != nil {
		return review.Report{}, err
	}
	files = slices.DeleteFunc(files, gitstore.IsMemoryPath)
	if len(files) > 0 {
		es, err := s.List(ctx, contextfs.ListOptions{Attached: files})
		if err != nil {
			return review.Report{}, err
		}
		for _, e := range es {
			rep.Relevant = append(rep.Relevant, review.Relevant{ID: e.ID, Type: e.Type, Title: e.Title, Path: e.Path})
		}
	}
	return rep, nil
}
