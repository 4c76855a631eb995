//go:build !linux

package gitstore

func (r *Repo) list() ([]Entry, error) { return r.listPortable(r.MemoryDir()) }

func (r *Repo) listFrom(abs, rel string) ([]Entry, error) { return r.listPortable(abs) }
