package gitstore

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/contextfs/contextfs/internal/printable"
)

// TempPrefix starts the name of every temporary file the atomic writes
// create. It holds no ".md", so no tool that lists memories by suffix
// takes a half-written or abandoned file for one, and the .gitignore that
// init writes keeps such files out of commits.
const TempPrefix = ".contextfs-tmp-"

// TempMaxAge is the age past which a temporary file is abandoned (its
// writer was killed): the next write in its folder removes it. A live
// write takes milliseconds.
const TempMaxAge = time.Hour

// GitignoreFile is the name, in .contextfs/, of the ignore rules init writes.
const GitignoreFile = ".gitignore"

// GitignoreRules is the content init writes to .contextfs/.gitignore.
const GitignoreRules = "# Temporary files of interrupted writes (see gitstore.TempPrefix).\n" +
	TempPrefix + "*\n.*.tmp-*\n"

// IsTempName reports whether a base name is a temporary file of an atomic
// write: this version's, or the ".<name>.tmp-N" of earlier versions.
func IsTempName(base string) bool {
	return strings.HasPrefix(base, TempPrefix) ||
		strings.HasPrefix(base, ".") && strings.Contains(base, ".tmp-")
}

// createTemp creates a temporary file in dir for an atomic write, first
// removing temporary files there older than TempMaxAge when sweep says
// it is time (nil: every time).
func createTemp(dir string, sweep func(dir string) bool) (*os.File, error) {
	if sweep == nil || sweep(dir) {
		CleanTemps(dir, TempMaxAge)
	}
	return os.CreateTemp(dir, TempPrefix+"*")
}

// SweepEvery is how often the writes of a repository's memory files look
// for abandoned temporary files in their folder (Repo.sweepDue). Listing
// a folder costs in proportion to its size: a flat folder of 10,000
// memories took 9 ms to list and sort on every save, one of 100,000 over
// 100 ms, for files that exist only when a writer was killed.
const SweepEvery = TempMaxAge / 4

// sweepDue reports whether the memory folder dir is due for a sweep of
// abandoned temporary files, and if so marks it swept now. The time of a
// folder's last sweep is the modification time of a stamp in the cache
// folder of the git directory, shared by every process that writes there;
// a stamp that cannot be read or written means a sweep, as before stamps.
func (r *Repo) sweepDue(dir string) bool {
	if r.GitDir == "" {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(dir))
	stamp := filepath.Join(r.GitDir, "contextfs", fmt.Sprintf("swept-%016x", h.Sum64()))
	now := time.Now()
	if fi, err := os.Stat(stamp); err == nil {
		if age := now.Sub(fi.ModTime()); age >= 0 && age < SweepEvery {
			return false
		}
	}
	if err := os.Chtimes(stamp, now, now); errors.Is(err, fs.ErrNotExist) {
		if os.MkdirAll(filepath.Dir(stamp), 0o700) == nil {
			os.WriteFile(stamp, nil, 0o600)
		}
	}
	return true
}

// CleanTemps removes the temporary files in dir older than age and
// returns how many it removed. Errors are ignored: cleaning is best
// effort and must never fail the write that triggers it.
func CleanTemps(dir string, age time.Duration) int {
	removed := sweep(dir, time.Now().Add(-age), IsTempName, func(path string) bool { return os.Remove(path) == nil })
	return len(removed)
}

// OddityKind names what is odd about a file under .contextfs/.
type OddityKind string

// The kinds of Oddity.
const (
	// OddTemp is a temporary file left by an interrupted write.
	OddTemp OddityKind = "temp-file"
	// OddSymlink is a symbolic link where a memory would be: it is never
	// followed (it could point out of the repository) and never read.
	OddSymlink OddityKind = "symlink"
	// OddName is a memory file whose name holds a control character (a
	// newline, a tab) that breaks line-based tools and git output.
	OddName OddityKind = "odd-name"
)

// Oddity is a file under .contextfs/ that is not a memory but looks like
// one, or a memory whose name tools mishandle. Memories skip such files
// silently; status, doctor and validate report them.
type Oddity struct {
	Path string     `json:"path"` // work-tree relative
	Kind OddityKind `json:"kind"`
}

// String is "path: kind: what to do", the path escaped as
// printable.Path does.
func (o Oddity) String() string {
	return fmt.Sprintf("%s: %s: %s", printable.Path(o.Path), o.Kind, o.Advice())
}

// Advice says what the oddity is and what to do about it, without the
// path (a Problem carries that).
func (o Oddity) Advice() string {
	switch o.Kind {
	case OddTemp:
		return fmt.Sprintf("left by an interrupted write; it is removed on a write after %v, or delete it", TempMaxAge)
	case OddSymlink:
		return "symbolic links are never read as memories; replace it with the file"
	default:
		return "rename it without control characters"
	}
}

// Oddities walks .contextfs/ and returns its temporary files, symbolic
// links and memory files with control characters in their names, sorted
// by path. A missing folder has none.
func (r *Repo) Oddities() ([]Oddity, error) {
	var out []Oddity
	root := r.MemoryDir()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel := r.Rel(p)
		name := d.Name()
		switch {
		case IsTempName(name):
			out = append(out, Oddity{Path: rel, Kind: OddTemp})
		case d.Type()&fs.ModeSymlink != 0:
			out = append(out, Oddity{Path: rel, Kind: OddSymlink})
		case strings.IndexFunc(name, unicode.IsControl) >= 0:
			out = append(out, Oddity{Path: rel, Kind: OddName})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	return out, nil
}

// ValidFileName reports whether base can name a memory file: no control
// characters (a newline would split it in every line-based listing) and
// no path separators.
func ValidFileName(base string) bool {
	return base != "" && strings.IndexFunc(base, unicode.IsControl) < 0 && !strings.ContainsAny(base, `/\`)
}
