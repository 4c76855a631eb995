package hooks

import (
	"os/exec"
	"strings"
	"testing"
)

func TestBlockRoundTripsEveryShapeOfFile(t *testing.T) {
	t.Parallel()
	contents := []string{
		"",
		"#!/bin/sh",
		"#!/bin/sh\n",
		"#!/bin/sh\necho a",
		"#!/bin/sh\necho a\n",
		"echo no shebang\n",
		"\n\n",
		"#!/bin/sh\r\necho crlf\r\n",
		"#!/bin/sh\r",
		"#!/usr/bin/env bash\nset -e\nexec foo \"$@\"\n",
	}
	for _, name := range Names() {
		for _, c := range contents {
			for _, u := range []undo{{}, {setMode: true, mode: 0o644}} {
				got := insertBlock([]byte(c), name, u)
				blocks, err := findBlocks(got)
				if err != nil || len(blocks) != 1 {
					t.Fatalf("%s %q: found %d blocks, %v", name, c, len(blocks), err)
				}
				if blocks[0].undo.setMode != u.setMode || blocks[0].undo.mode != u.mode {
					t.Errorf("%s %q: undo record %+v, want %+v", name, c, blocks[0].undo, u)
				}
				back, remove := removeBlocks(got, blocks)
				if remove || string(back) != c {
					t.Errorf("%s %q: round trip gave %q (remove %v)", name, c, back, remove)
				}
				if strings.HasPrefix(c, "#!") && !strings.HasPrefix(string(got), c[:strings.IndexAny(c+"\n", "\r\n")]) {
					t.Errorf("%s %q: shebang no longer first in %q", name, c, got)
				}
			}
		}
	}
}

func TestCreatedFileIsRemovedOnlyWhileUntouched(t *testing.T) {
	t.Parallel()
	created := createdShebang + renderBlock("post-merge", undo{created: true})
	tests := []struct {
		name       string
		content    string
		wantRemove bool
		want       string
	}{
		{"untouched", created, true, ""},
		{"lines added below", created + "echo mine\n", false, "#!/bin/sh\necho mine\n"},
		{"shebang changed", strings.Replace(created, "#!/bin/sh", "#!/bin/bash", 1), false, "#!/bin/bash\n"},
	}
	for _, tt := range tests {
		blocks, err := findBlocks([]byte(tt.content))
		if err != nil {
			t.Fatal(err)
		}
		got, remove := removeBlocks([]byte(tt.content), blocks)
		if remove != tt.wantRemove || string(got) != tt.want {
			t.Errorf("%s: got %q, remove %v; want %q, %v", tt.name, got, remove, tt.want, tt.wantRemove)
		}
	}
}

func TestAddedNewlineStaysOnceSomethingFollowsTheBlock(t *testing.T) {
	t.Parallel()
	got := insertBlock([]byte("#!/bin/sh"), "pre-commit", undo{})
	blocks, _ := findBlocks(got)
	if !blocks[0].undo.newline {
		t.Fatalf("no newline record in %q", got)
	}
	edited := append(got, "echo later\n"...)
	blocks, _ = findBlocks(edited)
	back, _ := removeBlocks(edited, blocks)
	if want := "#!/bin/sh\necho later\n"; string(back) != want {
		t.Errorf("got %q, want %q", back, want)
	}
}

func TestBlocksAreValidShell(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"sh", "bash", "dash", "zsh", "ksh"} {
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		for _, name := range Names() {
			script := createdShebang + renderBlock(name, undo{created: true, newline: true, setMode: true, mode: 0o600})
			if out, err := exec.Command(shell, "-n", "-c", script).CombinedOutput(); err != nil {
				t.Errorf("%s -n rejects the %s block: %v\n%s", shell, name, err, out)
			}
		}
	}
}

func TestMarkersMatchOnlyOurs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want bool
	}{
		{"# BEGIN contextfs", true},
		{"# BEGIN contextfs (managed by `git contextfs hooks`; do not edit inside this block)", true},
		{"# BEGIN contextfs(v2)", true},
		{"# BEGIN contextfs-tools", false},
		{" # BEGIN contextfs", false},
		{"# BEGIN other", false},
	}
	for _, tt := range tests {
		if got := isMarker(tt.line, beginMarker); got != tt.want {
			t.Errorf("isMarker(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestInterpreterLooksThroughEnv(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"/bin/sh":                 "sh",
		"/bin/sh -e":              "sh",
		" /usr/bin/env bash":      "bash",
		"/usr/bin/env -S bash -e": "bash",
		"/usr/bin/env VAR=1 zsh":  "zsh",
		"/usr/bin/env python3":    "python3",
		"":                        "",
	}
	for in, want := range tests {
		if got := interpreter(in); got != want {
			t.Errorf("interpreter(%q) = %q, want %q", in, got, want)
		}
	}
}
