//go:build !linux

package autoindex

import "errors"

// dirWatch is Linux's; elsewhere every run stats every tracked file.
type dirWatch struct{}

var errAll = errors.New("no inotify")

func newDirWatch(root string, paths []string) (*dirWatch, error) { return nil, errAll }

func (d *dirWatch) close() {}

func (d *dirWatch) changes() (map[string]bool, error) { return nil, errAll }
