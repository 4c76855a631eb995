package workflow_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/workflow"
)

// TestBrowseNamesAnUnregisteredRepository: the viewer's --repos with a
// name not registered is an *InputError of repos (the viewer's exit 2).
func TestBrowseNamesAnUnregisteredRepository(t *testing.T) {
	isolateUser(t)
	svc, _ := service(t)
	var ie *workflow.InputError
	if _, err := svc.Browse([]string{"nosuch"}); !errors.As(err, &ie) || ie.Field != "repos" {
		t.Errorf("browse nosuch: %v, want an *InputError of repos", err)
	}
}

// TestLinkMapKeepsTheHubsAndTheFocusWithinItsCap links four memories to
// one hub and two others to each other: a map capped at three keeps the
// hub first, and one around a leaf keeps the leaf; Total counts what the
// cap cut.
func TestLinkMapKeepsTheHubsAndTheFocusWithinItsCap(t *testing.T) {
	isolateUser(t)
	svc, hub := service(t)
	ctx := context.Background()
	save := func(body string) string {
		t.Helper()
		res, err := svc.Save(ctx, workflow.SaveRequest{Dedup: "allow", SaveRequest: contextfs.SaveRequest{Type: "fact", Body: body}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	link := func(from, to string) {
		t.Helper()
		if _, err := svc.Link(ctx, workflow.LinkRequest{From: from, To: to, Rel: "depends_on"}); err != nil {
			t.Fatal(err)
		}
	}
	var leaves []string
	for _, body := range []string{"The pool holds 20 connections.\n", "Timeouts are 5 seconds.\n", "Retries back off.\n", "Idle connections close.\n"} {
		id := save(body)
		link(id, hub)
		leaves = append(leaves, id)
	}
	a, b := save("Logs go to stderr.\n"), save("The log level is info.\n")
	link(a, b)
	b2, err := svc.Browse(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()

	m, err := b2.LinkMap(ctx, workflow.LinkMapRequest{Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Graph.Nodes) != 3 || m.Graph.Nodes[0].ID != hub || m.Total != 7 || m.Scope != workflow.Repo {
		t.Errorf("capped map: %d nodes (first %s), total %d, scope %s; want 3 with the hub %s first, total 7, repo",
			len(m.Graph.Nodes), m.Graph.Nodes[0].ID, m.Total, m.Scope, hub)
	}

	leaf := leaves[3]
	m, err = b2.LinkMap(ctx, workflow.LinkMapRequest{ID: leaf[:8], Depth: 2, Max: 2})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, n := range m.Graph.Nodes {
		ids = append(ids, n.ID)
	}
	if m.Focus != leaf || !slices.Contains(ids, leaf) || len(ids) != 2 || m.Total != 5 {
		t.Errorf("map around %s: focus %s, nodes %v, total %d; want the leaf kept among 2 of 5", leaf, m.Focus, ids, m.Total)
	}
}

// TestBranchComparesWithTheDefaultBranchReviewUses: in a clone that has
// only origin/main (no origin/HEAD, no local main), the viewer's branch
// page compares with origin/main, as review and the context block do,
// and lists the memory the branch adds.
func TestBranchComparesWithTheDefaultBranchReviewUses(t *testing.T) {
	isolateUser(t)
	upstream := testgit.Init(t)
	testgit.WriteFile(t, upstream, "a.go", "package a\n")
	testgit.Run(t, upstream, "add", ".")
	testgit.Run(t, upstream, "commit", "-qm", "a")
	clone := filepath.Join(t.TempDir(), "clone")
	testgit.Run(t, upstream, "clone", "-q", upstream, clone)
	testgit.Run(t, clone, "checkout", "-qb", "feature")
	testgit.Run(t, clone, "branch", "-qD", "main")
	testgit.Run(t, clone, "remote", "set-head", "origin", "-d")

	ctx := context.Background()
	svc, err := workflow.Open(ctx, contextfs.Options{Dir: clone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	res, err := svc.Save(ctx, workflow.SaveRequest{Dedup: "allow", SaveRequest: contextfs.SaveRequest{Type: "fact", Body: "The feature flag is on.\n"}})
	if err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, clone, "add", "-A")
	testgit.Run(t, clone, "commit", "-qm", "memory")
	br, err := svc.Browse(nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := br.Branch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Report.Base != "origin/main" || len(r.Report.Changes) != 1 || r.Report.Changes[0].ID != res.Memory.ID || r.Report.Changes[0].Kind != workflow.ReviewAdded {
		t.Errorf("branch: base %q, changes %+v; want origin/main and %s added", r.Report.Base, r.Report.Changes, res.Memory.ID)
	}
}

// An orphan branch shares no history with the default branch: the
// viewer's branch page says so (a *RangeError, shown as a note) rather
// than failing, while review itself still reports the error.
func TestBranchOfAnOrphanBranchIsANoteNotAFailure(t *testing.T) {
	isolateUser(t)
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "a.go", "package a\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "a")
	testgit.Run(t, dir, "checkout", "-q", "--orphan", "docs")
	testgit.Run(t, dir, "commit", "-qm", "docs")

	ctx := context.Background()
	svc, err := workflow.Open(ctx, contextfs.Options{Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	br, err := svc.Browse(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = br.Branch(ctx)
	var re *workflow.RangeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "no common history") {
		t.Fatalf("Branch on an orphan branch: %v, want a *RangeError saying there is no common history", err)
	}
}
