// Package gitindex reads git's index file (.git/index): the path, mode and
// stage of each entry, which is what the code indexer needs to know which
// files are tracked without starting a git process.
//
// It reads versions 2, 3 and 4 of the format (gitformat-index(5)), with
// SHA-1 or SHA-256 object names, a sparse index's directory entries, and a
// trailing checksum that is verified unless git skipped it
// (index.skipHash). A split index (core.splitIndex) keeps most entries in
// a second file; it is refused with an error that says how to undo it,
// rather than read in part.
//
// It is kept instead of go-git's index decoder (plumbing/format/index,
// v5.19.3), which fails a SHA-256 repository, a sparse index and
// index.skipHash (which feature.manyFiles turns on), and parses 13 times
// slower (docs/DESIGN.md, "Hand-written pieces and why").
package gitindex

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Modes of an entry, as git writes them, beside regular files (0100644 and
// 0100755).
const (
	ModeSymlink = 0o120000 // a symbolic link: the blob is its target
	ModeGitlink = 0o160000 // a submodule: the object is a commit
	ModeDir     = 0o040000 // a sparse index's directory outside the cone
)

// Entry is one entry of the index.
type Entry struct {
	// Path is relative to the work tree's root, with forward slashes; a
	// sparse directory's ends in a slash.
	Path string
	// Mode is git's file mode (0100644, ModeSymlink, ...).
	Mode uint32
	// Stage is 0 for a merged entry, 1 to 3 for the base, ours and theirs
	// of a conflict.
	Stage int
}

// Read returns the entries of the index in gitDir. A repository with no
// index (nothing ever added) has none.
func Read(gitDir string) ([]Entry, error) {
	path := filepath.Join(gitDir, "index")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	entries, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read git index %s: %w", path, err)
	}
	return entries, nil
}

// Hash sizes: SHA-1 and SHA-256 object names and checksums.
const (
	sha1Size   = 20
	sha256Size = 32
)

// Parse reads an index file's contents.
func Parse(data []byte) ([]Entry, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("not a git index (no DIRC signature)")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d; contextfs reads versions 2 to 4", version)
	}
	// Nothing in the file says which hash the repository uses: the
	// checksum that matches does. With index.skipHash git writes zeros
	// instead, and then only one size makes the entries and extensions
	// end exactly at the checksum; SHA-1, by far the commoner, is tried
	// first.
	sizes := []int{sha1Size, sha256Size}
	for _, size := range sizes {
		if len(data) >= 12+size {
			body, sum := data[:len(data)-size], data[len(data)-size:]
			if !allZero(sum) && bytes.Equal(sum, checksum(body, size)) {
				return parse(data, version, size)
			}
		}
	}
	if !allZero(data[len(data)-min(len(data)-12, sha1Size):]) {
		return nil, errors.New("checksum mismatch: the file is damaged")
	}
	var firstErr error
	for _, size := range sizes {
		entries, err := parse(data, version, size)
		if err == nil {
			return entries, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// parse reads data as an index whose object names and checksum are
// hashSize bytes long.
func parse(data []byte, version uint32, hashSize int) ([]Entry, error) {
	if len(data) < 12+hashSize {
		return nil, errors.New("truncated")
	}
	body := data[:len(data)-hashSize]
	n := binary.BigEndian.Uint32(data[8:])
	// An entry takes at least 40 bytes of stat data, the name and the
	// flags, so a count the file cannot hold is refused before allocating.
	fixed := 40 + hashSize + 2
	if uint64(n) > uint64(len(body))/uint64(fixed) {
		return nil, fmt.Errorf("%d entries do not fit in %d bytes", n, len(data))
	}
	entries := make([]Entry, 0, n)
	off := 12
	var prev []byte // version 4: the previous entry's path
	empty := -1     // the first entry without a path
	for i := range n {
		if off+fixed > len(body) {
			return nil, fmt.Errorf("entry %d: truncated", i)
		}
		start := off
		mode := binary.BigEndian.Uint32(body[off+24:])
		flags := binary.BigEndian.Uint16(body[off+40+hashSize:])
		off += fixed
		if flags&0x4000 != 0 { // extended: a second flags word
			if version < 3 {
				return nil, fmt.Errorf("entry %d: extended flags in a version %d index", i, version)
			}
			if off += 2; off > len(body) {
				return nil, fmt.Errorf("entry %d: truncated", i)
			}
		}
		var name []byte
		if version == 4 {
			strip, w := varint(body[off:])
			if w == 0 || strip > uint64(len(prev)) {
				return nil, fmt.Errorf("entry %d: bad path prefix length", i)
			}
			off += w
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, fmt.Errorf("entry %d: path not terminated", i)
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], body[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, fmt.Errorf("entry %d: path not terminated", i)
			}
			name = body[off : off+end]
			// 1 to 8 NULs pad the entry to a multiple of 8 bytes.
			off = start + (off-start+end+8)&^7
			if off > len(body) {
				return nil, fmt.Errorf("entry %d: truncated", i)
			}
		}
		if l := int(flags & 0xfff); l < 0xfff && l != len(name) {
			return nil, fmt.Errorf("entry %d: path length %d, flags say %d", i, len(name), l)
		}
		if len(name) == 0 && empty < 0 {
			// Only a split index's entries may lack a path (they replace
			// entries of the shared index); its extension says so below.
			empty = int(i)
		}
		prev = name
		entries = append(entries, Entry{Path: string(name), Mode: mode, Stage: int(flags>>12) & 3})
	}
	if err := extensions(body[off:]); err != nil {
		return nil, err
	}
	if empty >= 0 {
		return nil, fmt.Errorf("entry %d: empty path", empty)
	}
	return entries, nil
}

// extensions checks the extensions after the entries: each a four-byte
// signature and a length. Those whose signature starts with a capital
// letter are optional, caches contextfs need not read; the others change
// what the entries mean.
func extensions(b []byte) error {
	for len(b) > 0 {
		if len(b) < 8 {
			return errors.New("truncated extension")
		}
		sig, size := string(b[:4]), binary.BigEndian.Uint32(b[4:])
		if uint64(size) > uint64(len(b)-8) {
			return fmt.Errorf("extension %q: truncated", sig)
		}
		switch {
		case sig[0] >= 'A' && sig[0] <= 'Z':
		case sig == "sdir":
			// A sparse index: directories outside the cone are entries of
			// mode ModeDir, which callers skip.
		case sig == "link":
			return errors.New("the index is split (core.splitIndex), and contextfs reads only whole indexes; " +
				"run git update-index --no-split-index, or git config core.splitIndex false")
		default:
			return fmt.Errorf("the index has extension %q, which contextfs does not know", sig)
		}
		b = b[8+size:]
	}
	return nil
}

// varint decodes git's offset varint (varint.c): the value and the bytes
// it took, or 0 bytes when it is malformed.
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || i >= 10 {
			return 0, 0
		}
		v++
		c = b[i]
		i++
		v = v<<7 + uint64(c&127)
	}
	return v, i
}

func checksum(b []byte, size int) []byte {
	if size == sha256Size {
		s := sha256.Sum256(b)
		return s[:]
	}
	s := sha1.Sum(b)
	return s[:]
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
