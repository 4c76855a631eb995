package gitstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/memory"
)

// ConfigFile is the repository's contextfs configuration, beside the
// memories.
const ConfigFile = "config.yaml"

// IsMemoryPath reports whether a work-tree-relative, slash-separated path
// names a memory file: any .md file under .contextfs/, except README.md
// files, which describe the folder to people browsing it.
func IsMemoryPath(rel string) bool {
	if !strings.HasPrefix(rel, Dir+"/") || !strings.HasSuffix(rel, ".md") {
		return false
	}
	if path.Base(rel) == "README.md" || !ValidFileName(path.Base(rel)) {
		return false
	}
	for _, part := range strings.Split(rel[len(Dir)+1:], "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// Entry is one memory file found in the work tree, with what stat says
// about it: enough to tell cheaply whether it changed since last seen.
type Entry struct {
	Path string // work-tree relative, slash-separated
	Size int64
	// Changed is the later of the file's modification and status-change
	// times, in nanoseconds. The modification time alone misses an edit
	// that puts it back (cp -p, rsync -t, tar, touch -r) and keeps the
	// size; the status-change time cannot be set back, and moves with
	// every write (git compares it too, unless core.trustctime is off).
	Changed int64
	Ino     uint64
}

// EntryOf is what fi, the Lstat of the file at work-tree relative path
// rel, says of it.
func EntryOf(rel string, fi fs.FileInfo) Entry {
	return Entry{Path: rel, Size: fi.Size(), Changed: changed(fi), Ino: inode(fi)}
}

// List walks .contextfs/ and returns its memory files sorted by path. A
// missing folder is an empty list. It runs on every command, so the
// per-file stat calls are spread over the CPUs (and, on Linux, made
// relative to each folder's descriptor).
func (r *Repo) List() ([]Entry, error) {
	if err := r.NoSymlink(Dir); err != nil {
		return nil, err
	}
	out, err := r.list()
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", r.MemoryDir(), err)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// listPortable walks root with filepath.WalkDir and stats with lstat.
func (r *Repo) listPortable(root string) ([]Entry, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && IsMemoryPath(r.Rel(p)) { // symlinks and devices are never memories
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return statPortable(r, paths), nil
}

// statPortable stats absolute paths with lstat, spread over the CPUs;
// files that vanished or are no longer regular are left out.
func statPortable(r *Repo, paths []string) []Entry {
	out := make([]Entry, len(paths))
	ok := make([]bool, len(paths))
	workers := min(runtime.NumCPU(), 1+len(paths)/512)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				fi, err := os.Lstat(paths[i])
				if err != nil || !fi.Mode().IsRegular() {
					continue
				}
				out[i] = EntryOf(r.Rel(paths[i]), fi)
				ok[i] = true
			}
		}(w)
	}
	wg.Wait()
	kept := out[:0]
	for i, e := range out {
		if ok[i] {
			kept = append(kept, e)
		}
	}
	return kept
}

// ListUnder returns the memory files under the work-tree-relative folder
// rel (for a change watcher's report of a folder that changed wholesale);
// a folder that does not exist has none.
func (r *Repo) ListUnder(rel string) ([]Entry, error) {
	rel = strings.TrimSuffix(path.Clean(rel), "/")
	if rel != Dir && !strings.HasPrefix(rel, Dir+"/") {
		return nil, fmt.Errorf("list %s: not under %s/", rel, Dir)
	}
	out, err := r.listFrom(r.Abs(rel), rel+"/")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", rel, err)
	}
	kept := out[:0]
	for _, e := range out {
		if IsMemoryPath(e.Path) {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

// StatPaths returns, for the work-tree-relative paths that name memory
// files and exist as regular files, what stat says about them; the others
// are left out (deleted, or never memories).
func (r *Repo) StatPaths(rels []string) []Entry {
	var abs []string
	for _, p := range rels {
		if IsMemoryPath(p) {
			abs = append(abs, r.Abs(p))
		}
	}
	return statPortable(r, abs)
}

// ReadFile reads a work-tree-relative file. A file over r.MaxFileBytes is
// not read: the error is a *memory.TooLargeError, so a huge file costs a
// stat, not its size in memory.
func (r *Repo) ReadFile(rel string) ([]byte, error) {
	if err := r.NoSymlink(rel); err != nil {
		return nil, err
	}
	b, err := ReadFileLimited(r.Abs(rel), r.MaxFileBytes)
	if tl, ok := errors.AsType[*memory.TooLargeError](err); ok {
		tl.Path = rel
	}
	return b, err
}

// ReadFileLimited reads the file at path if it holds at most limit bytes
// (memory.DefaultMaxFileBytes when limit is not positive), and returns a
// *memory.TooLargeError otherwise, reading no more than limit+1 bytes even
// when the file grows meanwhile.
func ReadFileLimited(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = memory.DefaultMaxFileBytes
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, &memory.TooLargeError{Path: path, Size: fi.Size(), Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, &memory.TooLargeError{Path: path, Size: int64(len(b)), Limit: limit}
	}
	return b, nil
}

// BlobOID returns the git blob object ID of content: the same hash git
// gives the file, so it is an exact, free content key.
func BlobOID(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// WriteFileAtomic writes data to path so that readers and crashes see the
// old content or the new, never a mix: a temporary file in the same folder,
// fsynced, renamed over the target, and the folder fsynced.
func WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	return WriteAtomic(name, perm, writeBytes(data))
}

// writeBytes is the write function of an atomic write of data.
func writeBytes(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// WriteAtomic is WriteFileAtomic for content produced by write, for files
// too large to build in memory first (the cache's vector files).
func WriteAtomic(name string, perm os.FileMode, write func(io.Writer) error) error {
	return writeAtomic(name, perm, write, true, nil)
}

// WriteAtomicVolatile is WriteAtomic without the two fsyncs: readers and a
// crash of the process still see the old content or the new, but after a
// power loss the file may be empty or hold the old data. It is for files
// that are verified whenever they are read and rebuilt when they fail (the
// cache's change delta, which carries a checksum), where durability buys
// nothing and the fsyncs are most of a save's cost.
func WriteAtomicVolatile(name string, perm os.FileMode, write func(io.Writer) error) error {
	return writeAtomic(name, perm, write, false, nil)
}

func writeAtomic(name string, perm os.FileMode, write func(io.Writer) error, durable bool, sweep func(string) bool) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, dirPerm(perm)); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if fi, err := os.Stat(name); err == nil {
		perm = fi.Mode().Perm()
	}
	f, err := createTemp(dir, sweep)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := write(f); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	if !durable {
		return nil
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// CreateFileExclusive writes a new file atomically and fails if the name
// is already taken, so two processes saving at once can never overwrite
// each other's memory.
func CreateFileExclusive(name string, data []byte) error {
	return createFileExclusive(name, data, 0o644, nil)
}

// dirPerm is the mode of a folder created for a file of mode perm: read
// and search for whoever may read the file (0644: 0755, 0600: 0700).
func dirPerm(perm os.FileMode) os.FileMode {
	perm &= 0o666
	return perm | (perm&0o444)>>2
}

// CreateMemoryFile is CreateFileExclusive for the file rel of the work
// tree, sweeping its folder for abandoned temporary files at most every
// SweepEvery rather than at every write.
func (r *Repo) CreateMemoryFile(rel string, data []byte) error {
	if err := r.fits(rel, data); err != nil {
		return err
	}
	return createFileExclusive(r.Abs(rel), data, r.filePerm(0o644), r.sweepDue)
}

// RemoveMemoryFile removes the file rel of the work tree, unless a part of
// its path is a symbolic link.
func (r *Repo) RemoveMemoryFile(rel string) error {
	if err := r.NoSymlink(rel); err != nil {
		return err
	}
	return os.Remove(r.Abs(rel))
}

// WriteMemoryFile is WriteFileAtomic for the file rel of the work tree,
// sweeping like CreateMemoryFile.
func (r *Repo) WriteMemoryFile(rel string, data []byte, perm os.FileMode) error {
	if err := r.fits(rel, data); err != nil {
		return err
	}
	return writeAtomic(r.Abs(rel), r.filePerm(perm), writeBytes(data), true, r.sweepDue)
}

// fits refuses a memory file over r.MaxFileBytes before it is written:
// ReadFile would not read it back, so the memory would be saved and then
// be nowhere (not listed, not found, not updatable).
func (r *Repo) fits(rel string, data []byte) error {
	if err := r.NoSymlink(rel); err != nil {
		return err
	}
	limit := r.MaxFileBytes
	if limit <= 0 {
		limit = memory.DefaultMaxFileBytes
	}
	if n := int64(len(data)); n > limit {
		return &memory.TooLargeError{Path: rel, Size: n, Limit: limit}
	}
	return nil
}

func createFileExclusive(name string, data []byte, perm os.FileMode, sweep func(string) bool) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, dirPerm(perm)); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	f, err := createTemp(dir, sweep)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("create %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	// link(2) fails when the target exists: an atomic create-if-absent.
	if err := os.Link(tmp, name); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// RefFile is a memory file as stored in a commit.
type RefFile struct {
	Path    string
	OID     string
	Content []byte
}

// ReadRef returns the memory files in the tree of rev (any revision git
// understands: a branch, tag, SHA, HEAD~2), read with one git ls-tree and
// one git cat-file --batch. (Through go-git it linked go-git's transports
// — ssh, http, OpenPGP — whose initialisers ran at every start of the
// binary for this one reader.)
func (r *Repo) ReadRef(rev string) ([]RefFile, error) {
	ctx := context.Background()
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("resolve %s: not a revision", rev)
	}
	c := git.Cmd{Dir: r.Root}
	commit, err := c.Output(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", rev, err)
	}
	ls, err := c.Run(ctx, "ls-tree", "-r", "-z", "--full-tree", commit, "--", Dir+"/")
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", Dir, rev, err)
	}
	var out []RefFile
	var oids []string
	for _, ent := range strings.Split(string(ls), "\x00") {
		// "<mode> SP <type> SP <oid> TAB <path>"
		meta, rel, ok := strings.Cut(ent, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" || !IsMemoryPath(rel) {
			continue // a submodule (commit) is no memory
		}
		out = append(out, RefFile{Path: rel, OID: f[2]})
		oids = append(oids, f[2])
	}
	blobs, err := c.ReadBlobs(ctx, oids)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", Dir, rev, err)
	}
	for i := range out {
		b, ok := blobs[out[i].OID]
		if !ok {
			return nil, fmt.Errorf("read %s at %s: object %s missing", out[i].Path, rev, out[i].OID)
		}
		out[i].Content = b
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
