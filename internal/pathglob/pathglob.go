// Package pathglob matches the `paths:` globs of memories against files of
// the repository. A glob is relative to the repository root and matched
// segment by segment with path.Match; a "**" segment stands for any number
// of folders, and a glob that matches a folder covers every file below it
// ("auth" and "auth/**" both cover auth/token.go).
package pathglob

import (
	"path"
	"slices"
	"strings"
)

// Match reports whether glob covers file (both slash-separated and relative
// to the repository root). A malformed glob matches nothing.
func Match(glob, file string) bool {
	g := strings.Split(strings.TrimSuffix(glob, "/"), "/")
	f := strings.Split(strings.TrimPrefix(file, "./"), "/")
	return match(g, f)
}

// match reports whether the glob segments g cover a prefix of f (a glob
// that names a folder covers what is inside it).
func match(g, f []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			// Collapse runs of ** and try every number of folders.
			for len(g) > 0 && g[0] == "**" {
				g = g[1:]
			}
			if len(g) == 0 {
				return true
			}
			for i := range f {
				if match(g, f[i:]) {
					return true
				}
			}
			return false
		}
		if len(f) == 0 {
			return false
		}
		if ok, err := path.Match(g[0], f[0]); err != nil || !ok {
			return false
		}
		g, f = g[1:], f[1:]
	}
	return true
}

// Any reports whether any of globs covers any of files.
func Any(globs, files []string) bool {
	for _, g := range globs {
		for _, f := range files {
			if Match(g, f) {
				return true
			}
		}
	}
	return false
}

// Prefix is the literal folder path glob starts with: every file the glob
// matches is that path or lies below it. It is "" when the glob's first
// segment is a pattern, which may match anywhere.
func Prefix(glob string) string {
	var lit []string
	for _, seg := range strings.Split(strings.TrimSuffix(glob, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, `*?[\`) {
			break
		}
		lit = append(lit, seg)
	}
	return strings.Join(lit, "/")
}

// Roots are the fewest folders (or files) below which lies every file
// that one of globs matches, sorted: a diff limited to them misses no file
// the globs cover. It is nil when some glob may match anywhere, and then
// nothing narrows the search.
func Roots(globs []string) []string {
	var roots []string
	for _, g := range globs {
		p := Prefix(g)
		if p == "" {
			return nil
		}
		roots = append(roots, p)
	}
	slices.Sort(roots)
	out := roots[:0]
	for _, r := range roots {
		// Sorted, a root's descendants follow it: "a", "a/b", "a/c", "ab".
		if n := len(out); n > 0 && (r == out[n-1] || strings.HasPrefix(r, out[n-1]+"/")) {
			continue
		}
		out = append(out, r)
	}
	return out
}
