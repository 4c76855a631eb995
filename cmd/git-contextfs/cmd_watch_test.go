//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

func watcherRunning(t *testing.T, dir string) bool {
	t.Helper()
	var st struct {
		Running bool   `json:"running"`
		Mode    string `json:"mode"`
	}
	decodeJSON(t, ok(t, dir, "watch", "status", "--json"), &st)
	return st.Running
}

func TestCLIWatcherStartsStopsAndServesSearches(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "fact", "The deploy bot posts to the releases channel."))
	t.Cleanup(func() { cli(t, dir, "", "watch", "stop") })

	ok(t, dir, "search", "deploy bot")
	if watcherRunning(t, dir) {
		t.Fatal("a search in a small repository started a watcher (mode auto)")
	}
	if out := ok(t, dir, "watch", "start"); !strings.Contains(out, "watcher started") {
		t.Fatalf("watch start: %q", out)
	}
	if !watcherRunning(t, dir) {
		t.Fatal("watch start, then status says not running")
	}
	if out := ok(t, dir, "watch", "start"); !strings.Contains(out, "already running") {
		t.Fatalf("second watch start: %q", out)
	}
	if out := ok(t, dir, "status"); !strings.Contains(out, "watcher     running") {
		t.Fatalf("status does not show the watcher: %s", out)
	}
	// Two searches: the first stores the watcher's token, the second
	// relies on it; an edit in between must be seen.
	ok(t, dir, "search", "deploy bot")
	matches, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*"+id+".md"))
	if len(matches) != 1 {
		t.Fatalf("memory file of %s: %v", id, matches)
	}
	f, err := os.OpenFile(matches[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nIt also pings the okapi rota.\n")
	f.Close()
	if out := ok(t, dir, "search", "--json", "okapi rota"); !strings.Contains(out, id) {
		t.Fatalf("an edit made while the watcher ran was not found: %s", out)
	}
	if out := ok(t, dir, "watch", "stop"); !strings.Contains(out, "watcher stopped") {
		t.Fatalf("watch stop: %q", out)
	}
	if watcherRunning(t, dir) {
		t.Fatal("still running after watch stop")
	}
	if out := ok(t, dir, "watch", "stop"); !strings.Contains(out, "no watcher") {
		t.Fatalf("watch stop with none running: %q", out)
	}
}

func TestCLIWatchModeOnStartsAWatcher(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	cfg := filepath.Join(dir, ".contextfs", "config.yaml")
	raw, _ := os.ReadFile(cfg)
	t.Cleanup(func() {
		// The test leaves a bad watch.mode behind, which would make the
		// stop fail and leave the watcher running: restore the config first.
		os.WriteFile(cfg, raw, 0o644)
		if r := cli(t, dir, "", "watch", "stop"); r.code != 0 {
			t.Errorf("watch stop: exit %d, %s", r.code, r.stderr)
		}
	})
	os.WriteFile(cfg, []byte(strings.Replace(string(raw), "mode: auto", "mode: on", 1)), 0o644)
	ok(t, dir, "list")
	for i := 0; i < 200 && !watcherRunning(t, dir); i++ {
	}
	if !watcherRunning(t, dir) {
		t.Fatal("watch.mode: on did not start a watcher")
	}
	os.WriteFile(cfg, []byte(strings.Replace(string(raw), "mode: auto", "mode: sometimes", 1)), 0o644)
	if r := cli(t, dir, "", "list"); r.code == 0 || !strings.Contains(r.stderr, "watch.mode must be auto, on or off") {
		t.Fatalf("a bad watch.mode: exit %d, %s", r.code, r.stderr)
	}
}

// The same edit is seen without a watcher (below watch.mode auto's 10,000
// files, the default): the cache compares the file's status-change time,
// which no tool can put back, and not only its modification time.
func TestCLISeesAnEditThatKeepsSizeAndTimeWithoutAWatcher(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "fact", "The deploy bot posts to the releases channel."))
	matches, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*"+id+".md"))
	if len(matches) != 1 {
		t.Fatalf("memory file of %s: %v", id, matches)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(matches[0], old, old); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "search", "deploy bot") // records the stat
	raw, _ := os.ReadFile(matches[0])
	edited := strings.Replace(string(raw), "releases", "okapiyak", 1)
	if len(edited) != len(raw) {
		t.Fatal("the edit changes the size: the test shows nothing")
	}
	if err := os.WriteFile(matches[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(matches[0], old, old); err != nil {
		t.Fatal(err)
	}
	if out := ok(t, dir, "search", "--json", "okapiyak"); !strings.Contains(out, id) {
		t.Fatalf("an edit keeping size and time was not found: %s", out)
	}
	if out := ok(t, dir, "status"); !strings.Contains(out, "not running") {
		t.Fatalf("a watcher ran; the test is about running without one:\n%s", out)
	}
}

// An edit that keeps the file's size and modification time (rsync -t,
// cp -p, tar) is seen when the watcher saw the write: a stat comparison
// alone took the file for unchanged, and search stayed stale for good.
func TestCLIWatcherSeesAnEditThatKeepsSizeAndTime(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "fact", "The deploy bot posts to the releases channel."))
	t.Cleanup(func() { cli(t, dir, "", "watch", "stop") })
	matches, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*"+id+".md"))
	if len(matches) != 1 {
		t.Fatalf("memory file of %s: %v", id, matches)
	}
	// An hour old, so the cache trusts its recorded stat (a file written
	// within the last seconds is read again anyway: racily clean).
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(matches[0], old, old); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "watch", "start")
	ok(t, dir, "search", "deploy bot") // records the stat, and stores the watcher's token
	fi, err := os.Stat(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(matches[0])
	edited := strings.Replace(string(raw), "releases", "okapiyak", 1)
	if len(edited) != len(raw) {
		t.Fatal("the edit changes the size: the test shows nothing")
	}
	if err := os.WriteFile(matches[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(matches[0], fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if out := ok(t, dir, "search", "--json", "okapiyak"); !strings.Contains(out, id) {
		t.Fatalf("an edit keeping size and time was not found: %s", out)
	}
}
