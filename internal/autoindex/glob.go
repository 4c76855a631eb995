package autoindex

import (
	"path"
	"strings"
)

// matchAny reports whether p matches any of the globs. A glob without a
// slash matches the base name anywhere ("*.pb.go"); "**" matches any
// number of folders ("testdata/**", "**/fixtures/*.json").
func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if matchGlob(g, p) {
			return true
		}
	}
	return false
}

func matchGlob(g, p string) bool {
	g = strings.TrimPrefix(g, "/")
	if !strings.Contains(g, "/") {
		ok, _ := path.Match(g, path.Base(p))
		return ok
	}
	return matchParts(strings.Split(g, "/"), strings.Split(p, "/"))
}

func matchParts(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchParts(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}
