//go:build linux

package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testproc"
)

// TestCLIStatusNamesAHungWatcher: with the watcher stopped (SIGSTOP),
// watch status said "running (pid N) but not answering", and status said
// "not running", in words and in JSON. Both now say what watch status
// says, as fast as it does.
func TestCLIStatusNamesAHungWatcher(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := memRepo(t, bin)
	t.Cleanup(func() { runBin(t, bin, dir, nil, "watch", "stop") })
	pid := startWatcher(t, bin, dir)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testproc.WaitStopped(t, pid)

	// run runs args and returns its output, failing on an exit other
	// than 0 or on a run slower than a hung watcher should make it: 10
	// times the longest a command waits for one.
	run := func(args ...string) string {
		t.Helper()
		start := time.Now()
		r := runBin(t, bin, dir, nil, args...)
		if r.code != 0 {
			t.Fatalf("%v with a hung watcher: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		if took := time.Since(start); took > 10*hungWatcherDeadline {
			t.Errorf("%v with a hung watcher took %v, want at most %v", args, took, 10*hungWatcherDeadline)
		}
		return r.stdout
	}
	watcherLine := func(out string) string {
		for line := range strings.Lines(out) {
			if rest, ok := strings.CutPrefix(line, "watcher "); ok {
				return strings.TrimSpace(rest)
			}
		}
		t.Fatalf("status names no watcher:\n%s", out)
		return ""
	}
	decode := func(out string) map[string]any {
		t.Helper()
		var m map[string]any
		decodeJSON(t, out, &m)
		return m
	}

	watchText := strings.TrimSpace(run("watch", "status"))
	watchJSON := decode(run("watch", "status", "--json"))
	statusJSON := decode(run("status", "--json"))
	for _, c := range []struct {
		name string
		text string
		json any
	}{
		{"watch status", watchText, watchJSON},
		{"status", watcherLine(run("status")), statusJSON["watcher"]},
	} {
		for _, want := range []string{"running (pid " + strconv.Itoa(pid) + ")", "not answering", "watch stop"} {
			if !strings.Contains(c.text, want) {
				t.Errorf("%s with a hung watcher says %q, without %q", c.name, c.text, want)
			}
		}
		if c.text != watchText {
			t.Errorf("%s says %q, watch status %q", c.name, c.text, watchText)
		}
		b, _ := json.Marshal(c.json)
		var w struct {
			Running      bool `json:"running"`
			PID          int  `json:"pid"`
			NotAnswering bool `json:"not_answering"`
		}
		if err := json.Unmarshal(b, &w); err != nil || !w.Running || w.PID != pid || !w.NotAnswering {
			t.Errorf("%s --json with a hung watcher: %s", c.name, b)
		}
		if !reflect.DeepEqual(c.json, watchJSON) {
			t.Errorf("%s --json says %s, watch status --json %v", c.name, b, watchJSON)
		}
	}

	// Awake again, it answers for itself, and not_answering is left out.
	// The status request's deadline is 0.2 s, which a watcher just woken
	// (a race-detector build, the requests that queued up while it was
	// stopped) may miss on a loaded machine: each check asks again for up
	// to 30 s, and fails only if the watcher never answers.
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		st = decode(run("status", "--json"))["watcher"].(map[string]any)
		if _, ok := st["not_answering"]; !ok && st["running"] == true && st["started"] != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, ok := st["not_answering"]; ok || st["running"] != true || st["started"] == nil {
		t.Errorf("status --json with the watcher awake: %v", st)
	}
	var out string
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		if out = watcherLine(run("status")); !strings.Contains(out, "not answering") && strings.Contains(out, "since") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(out, "not answering") || !strings.Contains(out, "since") {
		t.Errorf("status with the watcher awake: %q", out)
	}
}
