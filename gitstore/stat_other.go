//go:build !linux

package gitstore

func (r *Repo) list() ([]Entry, error) { return r.listPortable() }
