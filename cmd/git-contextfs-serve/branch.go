package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/contextfs/contextfs/internal/workflow"
)

// branchData is the branch page: what `git contextfs review` reports for
// its default range, the merge base of HEAD with the default branch to
// HEAD.
type branchData struct {
	Report  workflow.ReviewReport
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
	workflow.ReviewChange
	Href string
}

func (v *viewer) branch(ctx context.Context, _ *http.Request) (any, error) {
	r, err := v.browse.Branch(ctx)
	if errors.Is(err, workflow.ErrNoRepo) {
		return nil, errNoRepository
	}
	var re *workflow.RangeError
	if errors.As(err, &re) {
		return branchData{Note: re.Error()}, nil // no default branch, no commits: said, not failed
	}
	if err != nil {
		return nil, err
	}
	rep := r.Report
	d := branchData{Report: rep, HasDiff: true}
	for _, kind := range workflow.ReviewKinds() {
		g := changeGroup{Kind: kind}
		for _, c := range rep.Changes {
			if c.Kind == kind {
				cv := changeView{ReviewChange: c}
				if kind != workflow.ReviewDeleted {
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
