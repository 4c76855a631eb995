//go:build !linux

package gitstore

import "io/fs"

func (r *Repo) list() ([]Entry, error) { return r.listPortable(r.MemoryDir()) }

func (r *Repo) listFrom(abs, rel string) ([]Entry, error) { return r.listPortable(abs) }

// changed is fi's modification time: the status-change time is read on
// Linux only (see Entry.Changed).
func changed(fi fs.FileInfo) int64 { return fi.ModTime().UnixNano() }
