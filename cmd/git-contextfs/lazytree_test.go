package main

import (
	"context"
	"testing"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
)

// TestCommandsBuiltAloneMatchTheWholeTree checks that a command built
// alone for its run (commandsFor) is the one the whole tree has: the same
// name, and the same output and exit code for its help and for a
// command-line mistake; and that --version alone prints what it prints
// with the whole tree.
func TestCommandsBuiltAloneMatchTheWholeTree(t *testing.T) {
	runArgs := func(whole bool, args ...string) (string, int) {
		ios, _, out, errOut := iostreams.Test()
		a := &app{io: ios}
		cmds := a.commandsFor(args)
		if whole {
			cmds = a.commands()
		}
		code := a.execute(context.Background(), a.root(cmds), args)
		return out.String() + errOut.String(), code
	}
	a := &app{}
	hot := 0
	for _, c := range a.commands() {
		alone := a.hotCommand(c.Name())
		if alone == nil {
			continue
		}
		hot++
		t.Run(c.Name(), func(t *testing.T) {
			if alone.Name() != c.Name() {
				t.Fatalf("hotCommand(%q) builds %q", c.Name(), alone.Name())
			}
			if got := a.commandsFor([]string{"-C", "/x", c.Name(), "-h"}); len(got) != 1 {
				t.Errorf("commandsFor builds %d commands for %s, want 1", len(got), c.Name())
			}
			for _, args := range [][]string{{"-h"}, {"--no-such-flag"}, {"-C", t.TempDir(), "--json", "x", "y", "z"}} {
				args = append([]string{c.Name()}, args...)
				lazy, lc := runArgs(false, args...)
				whole, wc := runArgs(true, args...)
				if lazy != whole || lc != wc {
					t.Errorf("%q built alone (exit %d):\n%s\nwhole tree (exit %d):\n%s", args, lc, lazy, wc, whole)
				}
			}
		})
	}
	if hot == 0 {
		t.Fatal("no command is built alone")
	}
	if got := a.commandsFor([]string{"--version"}); len(got) != 0 {
		t.Errorf("--version builds %d commands", len(got))
	}
	lazy, lc := runArgs(false, "--version")
	whole, wc := runArgs(true, "--version")
	if lazy != whole || lc != wc || lc != exitOK {
		t.Errorf("--version alone %q (exit %d), with the whole tree %q (exit %d)", lazy, lc, whole, wc)
	}
}

// TestCommandName finds the command in a command line as cobra would for
// the global flags, and gives up on any other flag before it.
func TestCommandName(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"search", "x"}, "search"},
		{[]string{"-C", "dir", "save", "-t", "fact"}, "save"},
		{[]string{"--repo", "dir", "list"}, "list"},
		{[]string{"--repo=dir", "status"}, "status"},
		{[]string{"-Cdir", "recall", "k3x9"}, "recall"},
		{[]string{"-h", "search"}, ""},
		{[]string{"--version"}, ""},
		{[]string{"-C"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := commandName(tt.args); got != tt.want {
			t.Errorf("commandName(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
