//go:build !linux

package gitstore

func statAll(r *Repo, paths []string) []Entry { return statPortable(r, paths) }
