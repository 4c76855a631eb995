//go:build linux

package contextfs_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/watch"
)

// serveWatcher runs s's change watcher in this process until the test ends.
func serveWatcher(t *testing.T, s *contextfs.Store) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- watch.Serve(ctx, s.WatchOptions()) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := watch.Status(context.Background(), s.WatchSocket()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var once bool
	stop = func() {
		if !once {
			once = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("watcher: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

func titles(t *testing.T, s *contextfs.Store) []string {
	t.Helper()
	es, err := s.List(context.Background(), contextfs.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Title)
	}
	slices.Sort(out)
	return out
}

func TestSyncThroughTheWatcherSeesEveryChange(t *testing.T) {
	t.Setenv("CONTEXTFS_WATCH", "on")
	dir := testgit.Init(t)
	s := open(t, dir)
	saveSeeds(t, s)
	serveWatcher(t, s)
	ctx := context.Background()
	if st, err := s.Sync(ctx); err != nil || st.Files != len(seeds) {
		t.Fatalf("first sync with a watcher must check every file: %+v %v", st, err)
	}
	mem := filepath.Join(dir, ".contextfs", "memories")
	file := func(substr string) string {
		ents, _ := os.ReadDir(mem)
		for _, e := range ents {
			if strings.Contains(e.Name(), substr) {
				return filepath.Join(mem, e.Name())
			}
		}
		t.Fatalf("no file with %q", substr)
		return ""
	}
	steps := []struct {
		name   string
		change func()
		want   []string // titles after the change; nil: unchanged
		find   string   // a query that must now find something
	}{
		{"an edit in place, as an editor that does not rename writes", func() {
			f, err := os.OpenFile(file("release-checklist"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("\nAlso announce it on the zebracast channel.\n")
			f.Close()
		}, nil, "zebracast"},
		{"a new file from outside the tool", func() {
			raw, _ := os.ReadFile(file("release-checklist"))
			s := strings.Replace(string(raw), "title: Release checklist", "title: Copied checklist", 1)
			os.WriteFile(filepath.Join(mem, "copied-checklist.md"), []byte(strings.Replace(s, "id: ", "id: z", 1)), 0o644)
		}, []string{"Copied checklist"}, ""},
		{"a deleted file", func() { os.Remove(file("staging-runs")) }, []string{"-Staging runs on Kubernetes 1.29"}, ""},
		{"a folder moved away", func() {
			os.MkdirAll(filepath.Join(mem, "team"), 0o755)
			os.Rename(file("prefer-table"), filepath.Join(mem, "team", "prefer.md"))
			s.Sync(ctx)
			os.Rename(filepath.Join(mem, "team"), filepath.Join(dir, "team-away"))
		}, []string{"-Prefer table-driven tests"}, ""},
		{"a folder moved back in", func() {
			os.Rename(filepath.Join(dir, "team-away"), filepath.Join(mem, "team"))
		}, []string{"Prefer table-driven tests"}, ""},
	}
	want := titles(t, s)
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change()
			for _, w := range st.want {
				if name, ok := strings.CutPrefix(w, "-"); ok {
					want = slices.DeleteFunc(want, func(x string) bool { return x == name })
				} else {
					want = append(want, w)
				}
			}
			slices.Sort(want)
			sync, err := s.Sync(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if sync.Files >= len(want) {
				t.Errorf("the sync checked %d files: the watcher should have named only what changed", sync.Files)
			}
			if got := titles(t, s); !slices.Equal(got, want) {
				t.Fatalf("memories %v, want %v", got, want)
			}
			if st.find != "" {
				res, err := s.Search(ctx, contextfs.Query{Text: st.find, Mode: contextfs.ModeKeyword})
				if err != nil || len(res) == 0 {
					t.Fatalf("search %q after the change: %v %v", st.find, res, err)
				}
			}
		})
	}
	t.Run("without the watcher, every file is checked again", func(t *testing.T) {
		os.Setenv("CONTEXTFS_WATCH", "on")
		// Stop it, then change a file it can no longer see.
		if err := watch.Stop(ctx, s.WatchSocket()); err != nil {
			t.Fatal(err)
		}
		f, _ := os.OpenFile(file("release-checklist"), os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString("\nquaggafeed\n")
		f.Close()
		st, err := s.Sync(ctx)
		if err != nil || st.Files != len(want) {
			t.Fatalf("sync without a watcher: %+v %v, want %d files checked", st, err, len(want))
		}
		if res, _ := s.Search(ctx, contextfs.Query{Text: "quaggafeed", Mode: contextfs.ModeKeyword}); len(res) == 0 {
			t.Fatal("a change made while no watcher ran was missed")
		}
	})
}

func TestTheAutoModeStartsNoWatcherForASmallRepository(t *testing.T) {
	t.Setenv("CONTEXTFS_WATCH", "")
	dir := testgit.Init(t)
	started := 0
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, StartWatcher: func(string) error { started++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saveSeeds(t, s)
	if _, err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if started != 0 || s.WatchMode() != contextfs.WatchAuto {
		t.Fatalf("mode %s started %d watchers for %d memories", s.WatchMode(), started, len(seeds))
	}
	t.Setenv("CONTEXTFS_WATCH", "on")
	if _, err := s.Sync(context.Background()); err != nil || started != 1 {
		t.Fatalf("mode on started %d watchers (%v)", started, err)
	}
}

func TestABadWatchModeInTheEnvironmentIsAnError(t *testing.T) {
	dir := testgit.Init(t)
	t.Setenv("CONTEXTFS_WATCH", "sometimes")
	_, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), `CONTEXTFS_WATCH must be auto, on or off, not "sometimes"`) {
		t.Fatalf("Open with CONTEXTFS_WATCH=sometimes: %v", err)
	}
}
