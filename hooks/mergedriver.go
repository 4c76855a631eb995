package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The merge driver as git config and .gitattributes name it. The driver
// is configured in the repository's config, which git never shares, while
// the attribute line is committed: a clone without the driver configured
// falls back to git's ordinary text merge for memories.
const (
	mergeDriverName = "contextfs memory merge"
	// mergeDriverCommand is run by sh. Without git-contextfs on PATH it
	// says so and falls back to git's own text merge, so that a missing
	// binary costs the field-by-field merge, never the other side's
	// changes, and the message says what to do. git quotes each %
	// placeholder for the shell itself: %P must stay outside other quotes,
	// or a path holding '"' or "$(...)" would break the command or run.
	mergeDriverCommand = `command -v git-contextfs >/dev/null 2>&1 || { echo "contextfs: git-contextfs is not on PATH, so" %P "was merged as plain text; put it on PATH (make install) to merge memories field by field" >&2; exec git merge-file %A %O %B; }; exec git-contextfs merge-driver %O %A %B %P`
	attrPattern        = ".contextfs/**/*.md"
	attrValue          = "merge=contextfs"
	attrFile           = ".gitattributes"
)

// MergeDriverState reports whether git would use the contextfs merge driver
// for memory files.
type MergeDriverState struct {
	// Configured reports that merge.contextfs.driver, in whichever config
	// file git reads it from, is the command this version registers.
	Configured bool
	// Attributes reports that git resolves the merge attribute of memory
	// files (.contextfs/*.md at any depth) to contextfs, whatever line or
	// file says so, and that no later line overrides it.
	Attributes bool
	// Driver is merge.contextfs.driver as configured, or "" when unset.
	Driver string
}

// RegisterMergeDriver points git at the contextfs merge driver: it sets
// merge.contextfs.name and merge.contextfs.driver in the repository's
// config, and adds the line ".contextfs/**/*.md merge=contextfs" to the
// .gitattributes at the top of the work tree, leaving every other byte of
// that file as it was. Registering again changes nothing.
func RegisterMergeDriver(ctx context.Context, workTree string) error {
	top, err := topLevel(ctx, workTree)
	if err != nil {
		return err
	}
	for _, kv := range [][2]string{
		{"merge.contextfs.name", mergeDriverName},
		{"merge.contextfs.driver", mergeDriverCommand},
	} {
		cur, ok, err := configGet(ctx, top, kv[0])
		if err != nil {
			return err
		}
		if ok && cur == kv[1] {
			continue // git config rewrites the file even for the same value
		}
		if _, err := git(ctx, top, "config", "--local", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return editAttributes(filepath.Join(top, attrFile), addAttrLine)
}

// UnregisterMergeDriver undoes RegisterMergeDriver: it removes the merge
// driver from the repository's config (not from global config, which it
// never wrote) and the attribute line from .gitattributes, deleting the
// file if nothing else is left in it.
func UnregisterMergeDriver(ctx context.Context, workTree string) error {
	top, err := topLevel(ctx, workTree)
	if err != nil {
		return err
	}
	for _, key := range []string{"merge.contextfs.driver", "merge.contextfs.name"} {
		_, err := git(ctx, top, "config", "--local", "--unset-all", key)
		if err != nil && exitCode(err) != 5 { // 5: the key is not set
			return err
		}
	}
	return editAttributes(filepath.Join(top, attrFile), removeAttrLine)
}

// CheckMergeDriver reports whether the merge driver is registered, asking
// git rather than reading files, so that it sees every config scope and
// every attributes file the way a merge would.
func CheckMergeDriver(ctx context.Context, workTree string) (MergeDriverState, error) {
	var st MergeDriverState
	top, err := topLevel(ctx, workTree)
	if err != nil {
		return st, err
	}
	st.Driver, _, err = configGet(ctx, top, "merge.contextfs.driver")
	if err != nil {
		return st, err
	}
	st.Configured = st.Driver == mergeDriverCommand
	// Paths need not exist for check-attr; probe both depths the pattern
	// covers.
	out, err := git(ctx, top, "check-attr", "-z", "merge", "--",
		".contextfs/probe.md", ".contextfs/probe/probe.md")
	if err != nil {
		return st, err
	}
	f := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	st.Attributes = len(f) == 6
	for i := 2; i < len(f); i += 3 {
		if f[i] != "contextfs" {
			st.Attributes = false
		}
	}
	return st, nil
}

// configGet returns the value git config has for key and whether it is set
// at all.
func configGet(ctx context.Context, dir, key string) (string, bool, error) {
	v, err := git(ctx, dir, "config", "--get", key)
	if exitCode(err) == 1 { // 1: the key is not set
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return v, true, nil
}

// editAttributes rewrites the attributes file at p with edit, if that
// changes it. A file emptied by the edit is removed.
func editAttributes(p string, edit func([]byte) []byte) error {
	perm := fs.FileMode(0o644)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file, so contextfs leaves it alone; add the line %q to it yourself", p, attrPattern+" "+attrValue)
	default:
		perm = fi.Mode().Perm()
	}
	var content []byte
	if err == nil {
		if content, err = os.ReadFile(p); err != nil {
			return err
		}
	}
	out := edit(content)
	switch {
	case bytes.Equal(out, content):
		return nil
	case len(out) == 0:
		return os.Remove(p)
	}
	return writeFile(p, out, perm)
}

// addAttrLine appends our attribute line to an attributes file lacking it,
// ending the file's last line first if need be, and using the file's own
// line ending.
func addAttrLine(content []byte) []byte {
	for line := range bytes.Lines(content) {
		f := strings.Fields(string(line))
		if len(f) >= 2 && f[0] == attrPattern && slices.Contains(f[1:], attrValue) {
			return content
		}
	}
	eol := "\n"
	if bytes.Contains(content, []byte("\r\n")) {
		eol = "\r\n"
	}
	out := slices.Clip(content)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, eol...)
	}
	return append(out, attrPattern+" "+attrValue+eol...)
}

// removeAttrLine drops the lines that are exactly ours. A line where
// someone added attributes of their own is theirs now, and stays.
func removeAttrLine(content []byte) []byte {
	var out []byte
	for line := range bytes.Lines(content) {
		if f := strings.Fields(string(line)); len(f) == 2 && f[0] == attrPattern && f[1] == attrValue {
			continue
		}
		out = append(out, line...)
	}
	if out == nil {
		return []byte{}
	}
	return out
}
