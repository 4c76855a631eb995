package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// The block's first and last lines. Matching goes by prefix so that blocks
// written by other versions, whose BEGIN line may say something else after
// the marker, are still found and replaced.
const (
	beginMarker = "# BEGIN contextfs"
	endMarker   = "# END contextfs"
	beginLine   = beginMarker + " (managed by `git contextfs hooks`; do not edit inside this block)\n"
	endLine     = endMarker + "\n"
	undoPrefix  = "# contextfs-undo:"
)

// createdShebang is what Install writes above the block in a hook file it
// creates; Uninstall deletes the file when nothing else is left.
const createdShebang = "#!/bin/sh\n"

// undo records what Install changed outside its block, so that Uninstall
// can restore the file byte for byte.
type undo struct {
	created bool        // Install created the file
	newline bool        // Install ended the file's last line so the block could follow
	setMode bool        // Install made the file executable
	mode    fs.FileMode // with setMode, the permission bits the file had before
}

func (u undo) String() string {
	var f []string
	if u.created {
		f = append(f, "created")
	}
	if u.newline {
		f = append(f, "newline")
	}
	if u.setMode {
		f = append(f, fmt.Sprintf("mode=%04o", uint32(u.mode.Perm())))
	}
	return strings.Join(f, " ")
}

// parseUndo reads the fields of a "# contextfs-undo:" line. Fields it does
// not know are skipped: they come from a newer version, and undoing less
// beats refusing to uninstall.
func parseUndo(s string) undo {
	var u undo
	for _, f := range strings.Fields(s) {
		switch k, v, _ := strings.Cut(f, "="); k {
		case "created":
			u.created = true
		case "newline":
			u.newline = true
		case "mode":
			if m, err := strconv.ParseUint(v, 8, 32); err == nil {
				u.setMode, u.mode = true, fs.FileMode(m).Perm()
			}
		}
	}
	return u
}

// Each shim runs the binary once per hook invocation even when a hook
// manager re-runs the file from inside itself (husky 5–8 source husky.sh,
// which runs `sh -e "$0"`): the re-run shell's parent is the shell that
// already ran the block. A nested git command run by the hook starts its
// hooks from git, not from this shell, so they still run.
const guardOpen = `# Once per hook run, even if a hook manager runs this file again.
if [ "${CONTEXTFS_HOOK_RUN-}" != "{{hook}}:$PPID" ]; then
  CONTEXTFS_HOOK_RUN="{{hook}}:$$"
  export CONTEXTFS_HOOK_RUN
`

const guardClose = "fi\n"

// blockingBody lets a failing check stop the commit.
const blockingBody = `  if command -v git-contextfs >/dev/null 2>&1; then
    git-contextfs hook {{hook}} "$@" </dev/null || exit $?
  else
    echo "contextfs: git-contextfs not found on PATH; skipping the {{hook}} check" >&2
  fi
`

// advisoryBody never fails the hook: git has already done its work.
const advisoryBody = `  if command -v git-contextfs >/dev/null 2>&1; then
    git-contextfs hook {{hook}} "$@" </dev/null || true
  else
    echo "contextfs: git-contextfs not found on PATH; skipping {{hook}}" >&2
  fi
`

// stdinBody is advisoryBody for a hook that reads stdin: the list is read
// once, given to the binary, and given back to the rest of the file. git
// sends whole lines, so $(...) dropping the final newline and printf or the
// here-document adding it back reproduces the input exactly.
const stdinBody = `  # git sends the rewritten commits on stdin: read them once, pass them
  # on, then hand them to the rest of this hook as its stdin.
  contextfs_stdin=$(cat)
  if ! command -v git-contextfs >/dev/null 2>&1; then
    echo "contextfs: git-contextfs not found on PATH; skipping {{hook}}" >&2
  elif [ -n "$contextfs_stdin" ]; then
    printf '%s\n' "$contextfs_stdin" | git-contextfs hook {{hook}} "$@" || true
  else
    git-contextfs hook {{hook}} "$@" </dev/null || true
  fi
  if [ -n "$contextfs_stdin" ]; then
    exec <<CONTEXTFS_STDIN
$contextfs_stdin
CONTEXTFS_STDIN
  else
    exec </dev/null
  fi
  unset contextfs_stdin
`

// renderBlock returns the block for hook name, recording u.
func renderBlock(name string, u undo) string {
	body := advisoryBody
	switch name {
	case "pre-commit":
		body = blockingBody
	case "post-rewrite":
		body = stdinBody
	}
	var b strings.Builder
	b.WriteString(beginLine)
	if s := u.String(); s != "" {
		b.WriteString(undoPrefix + " " + s + "\n")
	}
	b.WriteString(strings.ReplaceAll(guardOpen+body+guardClose, "{{hook}}", name))
	b.WriteString(endLine)
	return b.String()
}

// block is one contextfs block found in a hook file: content[start:end],
// from the start of its BEGIN line to the end of its END line.
type block struct {
	start, end int
	undo       undo
}

// errUnterminated means a BEGIN line has no END line after it. Guessing
// where the block ends could delete the user's lines, so callers refuse.
var errUnterminated = errors.New("has a `# BEGIN contextfs` line without a matching `# END contextfs` line; fix the block by hand")

// findBlocks returns the contextfs blocks in content, in order.
func findBlocks(content []byte) ([]block, error) {
	var (
		blocks []block
		cur    *block
		first  bool // the line after BEGIN, where the undo record sits
	)
	for off := 0; off < len(content); {
		n := bytes.IndexByte(content[off:], '\n') + 1
		if n == 0 {
			n = len(content) - off
		}
		line := strings.TrimRight(string(content[off:off+n]), "\r\n")
		switch {
		case cur == nil && isMarker(line, beginMarker):
			cur = &block{start: off}
			first = true
		case cur != nil && isMarker(line, endMarker):
			cur.end = off + n
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil && first:
			if s, ok := strings.CutPrefix(line, undoPrefix); ok {
				cur.undo = parseUndo(s)
			}
			first = false
		default:
			first = false
		}
		off += n
	}
	if cur != nil {
		return blocks, errUnterminated
	}
	return blocks, nil
}

// isMarker reports whether line is marker, alone or followed by a space or
// a parenthesis, so that "# BEGIN contextfs-foo" is not ours.
func isMarker(line, marker string) bool {
	rest, ok := strings.CutPrefix(line, marker)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '(')
}

// insertBlock adds the block for hook name to content, a hook file that has
// none, recording u and anything it changes outside the block itself. The
// block goes right after the "#!" line, or first when there is none: see
// the package documentation for why not at the end.
func insertBlock(content []byte, name string, u undo) []byte {
	at := 0
	if bytes.HasPrefix(content, []byte("#!")) {
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			at = i + 1
		} else {
			at = len(content)
		}
	}
	var out bytes.Buffer
	out.Write(content[:at])
	if at > 0 && content[at-1] != '\n' {
		out.WriteByte('\n')
		u.newline = true
	}
	out.WriteString(renderBlock(name, u))
	out.Write(content[at:])
	return out.Bytes()
}

// removeBlocks deletes every block from content and undoes the text changes
// recorded in the first one. It returns the restored content and whether
// the file should be deleted, which is when Install created it and nobody
// has added to it since.
func removeBlocks(content []byte, blocks []block) (restored []byte, remove bool) {
	if len(blocks) == 0 {
		return content, false
	}
	first := blocks[0]
	var out bytes.Buffer
	prev := 0
	for _, b := range blocks {
		out.Write(content[prev:b.start])
		prev = b.end
	}
	out.Write(content[prev:])
	restored = out.Bytes()
	// The newline Install added ends the line just above the block. It is
	// only ours to take back while nothing follows the block: once
	// something does, that line needs its ending.
	if first.undo.newline && first.end == len(content) && len(blocks) == 1 &&
		first.start > 0 && content[first.start-1] == '\n' {
		restored = restored[:len(restored)-1]
	}
	if first.undo.created && string(restored) == createdShebang {
		return nil, true
	}
	return restored, false
}

// isShell reports whether name is an interpreter whose scripts can take
// our POSIX sh block.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "ash", "ksh", "ksh93", "mksh", "pdksh",
		"oksh", "loksh", "zsh", "yash", "posh", "busybox":
		return true
	}
	return false
}

// checkShell returns an error unless content is a shell script: one whose
// "#!" line names a POSIX-style shell, or one with no "#!" line at all,
// which git runs with sh.
func checkShell(content []byte) error {
	head := content
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return errors.New("is a binary, not a shell script")
	}
	if !bytes.HasPrefix(content, []byte("#!")) {
		return nil
	}
	line, _, _ := bytes.Cut(content[2:], []byte("\n"))
	interp := interpreter(strings.TrimRight(string(line), "\r"))
	if !isShell(interp) {
		if interp == "" {
			interp = "an unknown"
		} else {
			interp = "a " + interp
		}
		return fmt.Errorf("is %s script, not a shell script", interp)
	}
	return nil
}

// interpreter returns the base name of the program a "#!" line runs,
// looking through env ("#!/usr/bin/env -S bash -e" runs bash).
func interpreter(shebang string) string {
	f := strings.Fields(strings.ReplaceAll(shebang, `\`, "/"))
	if len(f) == 0 {
		return ""
	}
	name := func(s string) string { return strings.TrimSuffix(path.Base(s), ".exe") }
	if name(f[0]) != "env" {
		return name(f[0])
	}
	for _, a := range f[1:] {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			return name(a)
		}
	}
	return ""
}
