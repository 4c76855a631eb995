package memmerge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/contextfs/contextfs/internal/git"
)

// Conflict marker lines, the ones git writes. The middle label (base) is
// only shown in diff3 style, which merge3 does not ask for.
const (
	markerOurs   = "<<<<<<< ours"
	markerSep    = "======="
	markerTheirs = ">>>>>>> theirs"
)

// merge3 merges two versions of a text with their common ancestor and
// returns the result and the number of conflicts, each marked in the
// result with standard conflict markers. Trivial cases are decided here;
// the rest goes to git merge-file, so that memories merge line for line
// the way the rest of the repository does. git is always present: git
// runs the merge driver.
func merge3(base, ours, theirs []byte) ([]byte, int, error) {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return ours, 0, nil
	case bytes.Equal(base, ours):
		return theirs, 0, nil
	}
	dir, err := os.MkdirTemp("", "contextfs-merge-")
	if err != nil {
		return nil, 0, fmt.Errorf("text merge: %w", err)
	}
	defer os.RemoveAll(dir)
	files := []struct {
		name string
		data []byte
	}{{"ours", ours}, {"base", base}, {"theirs", theirs}}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f.name)
		if err := os.WriteFile(paths[i], f.data, 0o600); err != nil {
			return nil, 0, fmt.Errorf("text merge: %w", err)
		}
	}
	// The conflict style is fixed so that the result depends only on the
	// three inputs, not on the repository's merge.conflictStyle.
	out, err := git.Run(context.Background(), "", "-c", "merge.conflictStyle=merge", "merge-file", "-p",
		"-L", "ours", "-L", "base", "-L", "theirs", paths[0], paths[1], paths[2])
	switch code := git.ExitCode(err); {
	case err == nil:
		return out, 0, nil
	case code > 0 && code <= 127:
		// git merge-file exits with the number of conflicts (at most 127)
		// and with a negative number, 255 and down, on failure.
		return out, code, nil
	}
	return nil, 0, fmt.Errorf("text merge: %w", err)
}

// conflictRegions returns the 1-based line ranges of the conflict blocks
// in text, whose first line is line first of the file.
func conflictRegions(text []byte, first int) [][2]int {
	var out [][2]int
	start := 0
	line := first
	for len(text) > 0 {
		l, rest, _ := bytes.Cut(text, []byte("\n"))
		l = bytes.TrimRight(l, "\r")
		switch {
		case bytes.HasPrefix(l, []byte("<<<<<<< ")) && start == 0:
			start = line
		case bytes.HasPrefix(l, []byte(">>>>>>> ")) && start > 0:
			out = append(out, [2]int{start, line})
			start = 0
		}
		text = rest
		line++
	}
	return out
}

// describeRegions turns conflict blocks into the Result's descriptions,
// each "what: lines a-b" and the note, or one saying the same lines
// changed when git reported conflicts whose markers cannot be found.
func describeRegions(what, note string, regions [][2]int) []string {
	if note != "" {
		note = " (" + note + ")"
	}
	if len(regions) == 0 {
		return []string{what + ": both sides changed the same lines" + note}
	}
	out := make([]string, len(regions))
	for i, r := range regions {
		out[i] = fmt.Sprintf("%s: lines %d-%d%s", what, r[0], r[1], note)
	}
	return out
}
