package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// reviewChanges is what the tests compare of a report: kind and ID of each
// change, in the report's order.
func reviewChanges(r wfReport) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, c.Kind+" "+c.ID)
	}
	return out
}

// wantBranchChanges are the changes reviewRepo's branch makes.
var wantBranchChanges = []string{"added sql0000001", "changed pool000001", "changed move000001", "superseded orm0000001", "deleted gone000001"}

// TestReviewReportsOnlyTheBranchOnceMainMovesOn: after main gains a commit
// (a new memory, an edit), every range form reports the branch's own
// changes, not main's later ones reversed, and says it compared with the
// merge base.
func TestReviewReportsOnlyTheBranchOnceMainMovesOn(t *testing.T) {
	dir := reviewRepo(t)
	forkPoint := testgit.Run(t, dir, "rev-parse", "main")
	testgit.Run(t, dir, "checkout", "-q", "main")
	wfWrite(t, dir, wfDir+"later.md", wfMemory("late000001", "fact", "Main learnt this later", "", "Later.\n"))
	wfWrite(t, dir, wfDir+"orm.md", wfMemory("orm0000001", "decision", "Use an ORM, for now", "data:\n  status: accepted\n", "Use GORM.\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "main moves on")
	testgit.Run(t, dir, "checkout", "-q", "feature")

	for _, args := range [][]string{{"main..HEAD"}, {"main...HEAD"}, {"main"}, {}, {"main..feature"}} {
		t.Run(strings.Join(append([]string{"review"}, args...), " "), func(t *testing.T) {
			var r struct {
				wfReport
				MergeBase bool `json:"merge_base"`
			}
			decodeJSON(t, ok(t, dir, append([]string{"review", "--format", "json"}, args...)...), &r)
			if got := reviewChanges(r.wfReport); !reflect.DeepEqual(got, wantBranchChanges) {
				t.Errorf("changes:\n got %v\nwant %v (the branch's own)", got, wantBranchChanges)
			}
			if r.BaseCommit != forkPoint || !r.MergeBase || r.Base != "main" {
				t.Errorf("base %q at %s, merge_base %v; want main's merge base %s with merge_base true", r.Base, r.BaseCommit, r.MergeBase, forkPoint)
			}
		})
	}
	md := ok(t, dir, "review", "main..HEAD")
	if want := "since it left `main` (their merge base `" + forkPoint[:12] + "`)"; !strings.Contains(md, want) {
		t.Errorf("the Markdown report does not say which base it used (%q):\n%s", want, md)
	}
}

// TestReviewOfUnrelatedHistories: A..B with no common history compares
// the two trees and says so; A...B refuses, as git diff A...B does.
func TestReviewOfUnrelatedHistories(t *testing.T) {
	dir := reviewRepo(t)
	testgit.Run(t, dir, "checkout", "-q", "--orphan", "other")
	testgit.Run(t, dir, "rm", "-rq", "--cached", ".")
	for _, f := range []string{"main.go", ".contextfs"} {
		os.RemoveAll(filepath.Join(dir, f))
	}
	wfWrite(t, dir, wfDir+"only.md", wfMemory("only000001", "fact", "Only here", "", "x\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "unrelated")

	r := cli(t, dir, "", "review", "main..other", "--format", "json")
	if r.code != 0 || !strings.Contains(r.stderr, "no common history: comparing their trees") {
		t.Fatalf("review main..other: exit %d, stderr %q", r.code, r.stderr)
	}
	var rep wfReport
	decodeJSON(t, r.stdout, &rep)
	if got := reviewChanges(rep); len(got) == 0 || got[0] != "added only000001" {
		t.Errorf("changes %v, want the orphan's memory added", got)
	}
	if r := cli(t, dir, "", "review", "main...other"); r.code == 0 || !strings.Contains(r.stderr, "no common history") {
		t.Errorf("review main...other: exit %d, stderr %q; want a refusal", r.code, r.stderr)
	}
}

// TestReviewRunsInABareRepository: review needs only objects, so it runs
// in a bare repository, and gates a push there from a pre-receive hook;
// the secret allow lists come from the pushed commit's config.
func TestReviewRunsInABareRepository(t *testing.T) {
	dir := reviewRepo(t)
	bare := filepath.Join(t.TempDir(), "server.git")
	testgit.Run(t, t.TempDir(), "clone", "-q", "--bare", dir, bare)

	var r wfReport
	decodeJSON(t, ok(t, bare, "review", "main..feature", "--format", "json"), &r)
	if got := reviewChanges(r); !reflect.DeepEqual(got, wantBranchChanges) {
		t.Errorf("changes in the bare repository:\n got %v\nwant %v", got, wantBranchChanges)
	}

	// A pre-receive hook refuses a push that adds a memory holding a key.
	hook := "#!/bin/sh\nwhile read old new ref; do\n  git contextfs review \"$old..$new\" --fail-on secrets >/dev/null || exit 1\ndone\n"
	if err := os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "remote", "add", "server", bare)
	key := "AKIA" + "Z7QWERTYUIOPASDF"
	wfWrite(t, dir, wfDir+"key.md", wfMemory("key0000001", "fact", "Deploy key", "", "The deploy key is "+key+".\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "a key")
	out, err := testgit.Try(dir, "push", "server", "feature")
	if err == nil || !strings.Contains(out, "1 suspected secret(s)") {
		t.Fatalf("the push of a memory holding a key went through, or not for it: %v\n%s", err, out)
	}
	// Allowed by fingerprint in the pushed config, the same push passes.
	fp := ""
	var dry struct {
		Secrets []struct {
			Fingerprint string `json:"fingerprint"`
		} `json:"secrets"`
	}
	decodeJSON(t, cli(t, dir, "", "review", "main..HEAD", "--format", "json").stdout, &dry)
	if len(dry.Secrets) == 1 {
		fp = dry.Secrets[0].Fingerprint
	}
	if fp == "" {
		t.Fatalf("no fingerprint for the key: %+v", dry)
	}
	wfWrite(t, dir, ".contextfs/config.yaml", "secrets:\n  fingerprints:\n    - "+fp+"\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "allow it")
	if out, err := testgit.Try(dir, "push", "server", "feature"); err != nil {
		t.Fatalf("the push with the key allowed in its config was refused: %v\n%s", err, out)
	}
}
