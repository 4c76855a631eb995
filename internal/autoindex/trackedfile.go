package autoindex

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
)

// trackedMagic starts a saved tracked-file list; a new layout takes a new
// version.
const trackedMagic = "contextfs tracked v1\n"

// trackedTempPrefix starts the name of save's temporary file.
const trackedTempPrefix = ".tracked-"

// save writes l, filtered with opts from the index file id, to path,
// atomically (a temporary file renamed into place).
func save(path string, id fileID, opts string, l *trackedList) error {
	var b bytes.Buffer
	b.WriteString(trackedMagic)
	fmt.Fprintf(&b, "%d %d %d %d %d %d\n", id.dev, id.ino, id.size, id.mtime, id.ctim, len(opts))
	b.WriteString(opts)
	for _, p := range l.paths {
		b.WriteString("p" + p + "\x00")
	}
	for _, s := range l.skipped {
		b.WriteString("s" + s.Path + "\x00" + s.Reason + "\x00")
	}
	// A killed save leaves its temporary file: the next save removes it.
	gitstore.RemoveStaleScratch(filepath.Dir(path), func(name string) bool { return strings.HasPrefix(name, trackedTempPrefix) })
	tmp, err := os.CreateTemp(filepath.Dir(path), trackedTempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := gitstore.HoldScratch(tmp); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// load reads the list saved at path when it was made from the index file
// id with opts; nil otherwise, or when the file is not one save wrote
// (anything unexpected: the index is read instead).
func load(path string, id fileID, opts string) *trackedList {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(trackedMagic)) {
		return nil
	}
	data = data[len(trackedMagic):]
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil
	}
	var got fileID
	var n int
	if _, err := fmt.Sscanf(string(data[:nl]), "%d %d %d %d %d %d", &got.dev, &got.ino, &got.size, &got.mtime, &got.ctim, &n); err != nil || got != id {
		return nil
	}
	data = data[nl+1:]
	if n < 0 || n > len(data) || string(data[:n]) != opts {
		return nil
	}
	data = data[n:]
	l := new(trackedList)
	for len(data) > 0 {
		kind := data[0]
		end := bytes.IndexByte(data, 0)
		if end < 1 {
			return nil
		}
		p := string(data[1:end])
		data = data[end+1:]
		if !safeRel(p) {
			return nil
		}
		switch kind {
		case 'p':
			l.paths = append(l.paths, p)
		case 's':
			end := bytes.IndexByte(data, 0)
			if end < 0 {
				return nil
			}
			l.skipped = append(l.skipped, Skipped{p, string(data[:end])})
			data = data[end+1:]
		default:
			return nil
		}
	}
	return l
}

// safeRel reports whether p is a path git could have in its index:
// relative, slash-separated, with no empty, "." or ".." part.
func safeRel(p string) bool {
	if p == "" {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}
