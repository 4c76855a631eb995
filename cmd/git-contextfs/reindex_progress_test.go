package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestReindexShowsProgressOnlyOnATerminal: reindex draws its progress
// line on stderr when stderr is a terminal, ending at every file, and
// says nothing there in a pipe or with --json.
func TestReindexShowsProgressOnlyOnATerminal(t *testing.T) {
	dir := testgit.Init(t)
	for i := range 12 {
		id := fmt.Sprintf("%08x", 0xa0000000+i)
		testgit.WriteFile(t, dir, ".contextfs/memories/"+id+".md", testgit.Memory(id, "", "Body of memory number "+fmt.Sprint(i)+".\n"))
	}
	for _, tc := range []struct {
		name string
		tty  bool
		args []string
		want bool
	}{
		{"a terminal", true, []string{"reindex"}, true},
		{"a pipe", false, []string{"reindex"}, false},
		{"a terminal with --json", true, []string{"reindex", "--json"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, kv := range testgit.Env() {
				if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
					t.Setenv(k, v)
				}
			}
			t.Setenv("CONTEXTFS_WATCH", "off")
			ios, _, out, errOut := iostreams.Test()
			ios.SetStderrTerminal(tc.tty)
			if code := (&app{io: ios}).run(context.Background(), append([]string{"-C", dir}, tc.args...)); code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			drew := strings.Contains(errOut.String(), "reindexing [")
			if drew != tc.want {
				t.Fatalf("progress drawn %v, want %v; stderr %q", drew, tc.want, errOut.String())
			}
			if tc.want && !strings.Contains(errOut.String(), "12/12 files") {
				t.Fatalf("the progress line never reached 12/12: %q", errOut.String())
			}
			// The steps after the analysis, which have no count, are named
			// in turn on the same line.
			for _, st := range []string{contextfs.ReindexStageReplace, contextfs.ReindexStageSync, contextfs.ReindexStagePrepare} {
				if shown := strings.Contains(errOut.String(), "reindexing: "+st+"…"); shown != tc.want {
					t.Fatalf("stage %q shown %v, want %v; stderr %q", st, shown, tc.want, errOut.String())
				}
			}
		})
	}
}
