package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestContextAddsRegisteredRepositoriesOnlyWhenAsked: context --task
// leaves registered repositories out by default; with --repos it adds the
// memories the task finds there, in a section of their own, each naming
// its repository; --repos without --task is a usage error.
func TestContextAddsRegisteredRepositoriesOnlyWhenAsked(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := hookedRepo(t)
	other := hookedRepo(t)
	theirs := save(t, other, "--type", "decision", "--title", "Retry with exponential backoff",
		"Outgoing HTTP calls retry three times with exponential backoff and jitter.")
	save(t, dir, "--type", "fact", "The billing service sends invoices by email.")
	ok(t, dir, "repos", "add", "--name", "payments", other)
	task := "retry policy with backoff"
	if ids := blockIDs(t, dir, task); slices.Contains(ids, theirs) {
		t.Errorf("the block holds another repository's memory without --repos: %v", ids)
	}
	md := ok(t, dir, "context", "--task", task, "--repos", "all")
	if !strings.Contains(md, "## From registered repositories") || !strings.Contains(md, "["+theirs+"]") || !strings.Contains(md, "repository payments") {
		t.Errorf("context --repos all:\n%s", md)
	}
	if r := cli(t, dir, "", "context", "--repos", "all"); r.code != 2 || !strings.Contains(r.stderr, "--task") {
		t.Errorf("--repos without --task: exit %d, %q; want 2 naming --task", r.code, r.stderr)
	}
	if r := cli(t, dir, "", "context", "--task", task, "--repos", "nosuch"); r.code == 0 {
		t.Errorf("an unknown repository: exit 0")
	}
}
