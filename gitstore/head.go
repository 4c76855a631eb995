package gitstore

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Head returns the commit SHA that HEAD points to, read from the ref files
// (HEAD, loose refs, packed-refs) without starting git: auto-indexing asks
// on every search. An unborn branch (no commits yet) is sha "" with ok
// true. ok is false when HEAD cannot be resolved this way (a ref backend
// other than files, say); callers then ask git.
func (r *Repo) Head() (sha string, ok bool) {
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	line := strings.TrimSpace(string(b))
	for depth := 0; depth < 5; depth++ {
		ref, symbolic := strings.CutPrefix(line, "ref: ")
		if !symbolic {
			return line, isSHA(line)
		}
		ref = strings.TrimSpace(ref)
		// Per-worktree refs (HEAD, refs/bisect, …) live in GitDir; branches
		// in the common directory.
		next, found := "", false
		for _, dir := range []string{r.GitDir, r.CommonDir} {
			if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
				next, found = strings.TrimSpace(string(b)), true
				break
			}
		}
		if !found {
			if sha, ok := r.packedRef(ref); ok {
				return sha, true
			}
			return "", strings.HasPrefix(ref, "refs/heads/") // an unborn branch
		}
		line = next
	}
	return "", false
}

func (r *Repo) packedRef(ref string) (string, bool) {
	f, err := os.Open(filepath.Join(r.CommonDir, "packed-refs"))
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	suffix := []byte(" " + ref)
	for sc.Scan() {
		l := sc.Bytes()
		if bytes.HasSuffix(l, suffix) {
			sha := string(l[:len(l)-len(suffix)])
			return sha, isSHA(sha)
		}
	}
	return "", false
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
