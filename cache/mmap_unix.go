//go:build unix

package cache

import (
	"fmt"
	"os"
	"unsafe"

	sys "golang.org/x/sys/unix"
)

// mapFileID maps a file read-only and also returns its identity. A
// one-shot CLI process then reads the vectors it scans straight from the
// page cache, instead of copying 100 MB into its heap first; unmap
// releases the mapping. The identity is
// device, inode, size, and the modification and status-change times of
// the file mapped (from the open descriptor, so a file renamed over the
// path meanwhile is not mistaken for the one mapped). Any write to the
// file, or a replacement of it, changes the identity: the status-change
// time cannot be set back by a program.
func mapFileID(path string) (data []byte, unmap func(), id string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, "", err
	}
	defer f.Close()
	var st sys.Stat_t
	if err := sys.Fstat(int(f.Fd()), &st); err != nil {
		return nil, nil, "", fmt.Errorf("stat %s: %w", path, err)
	}
	id = statID(&st)
	if st.Size == 0 {
		return nil, func() {}, id, nil
	}
	if int64(int(st.Size)) != st.Size {
		return nil, nil, "", fmt.Errorf("%s: too large to map", path)
	}
	data, err = sys.Mmap(int(f.Fd()), 0, int(st.Size), sys.PROT_READ, sys.MAP_SHARED)
	if err != nil {
		return nil, nil, "", fmt.Errorf("map %s: %w", path, err)
	}
	return data, func() { sys.Munmap(data) }, id, nil
}

// statID is a file's identity as mapFileID gives it.
func statID(st *sys.Stat_t) string {
	return fmt.Sprintf("%d %d %d %d.%d %d.%d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// fileID is the identity of the file at path, as mapFileID would return
// it; "" when it cannot be read.
func fileID(path string) string {
	var st sys.Stat_t
	if err := sys.Stat(path, &st); err != nil {
		return ""
	}
	return statID(&st)
}

// dropPages gives back the resident pages wholly inside b, a part of a
// read-only shared file mapping: the data stays in the page cache, and a
// later read maps it again. For a pass over a large mapping that must not
// keep it all resident.
func dropPages(b []byte) {
	if len(b) == 0 {
		return
	}
	ps := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + ps - 1) &^ (ps - 1)
	hi := (start + uintptr(len(b))) &^ (ps - 1)
	if hi <= lo {
		return
	}
	_ = sys.Madvise(b[lo-start:hi-start], sys.MADV_DONTNEED)
}
