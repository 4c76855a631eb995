package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MergeDriverStamp describes every file and environment variable whose
// change could change what CheckMergeDriver answers for the work tree at
// top (git dir gitDir, common dir commonDir), or returns ok false when
// that cannot be told from the files alone. A caller that found the
// driver registered can keep the stamp and skip asking git (three
// processes) while the stamp is the same: opening the user store runs
// Init, on every command that reads user memories.
//
// What git reads to answer: the repository's config (and a worktree's),
// which, last read, decides merge.contextfs.driver once it sets it; the
// attribute files that can decide a memory's merge attribute (the
// repository's info/attributes, .gitattributes at the top, in .contextfs/
// and its probe folder, the user's and the system's files); and the
// variables that point git at other files or add settings. A config file
// that includes others, names another attributes file or attribute
// source, or a file modified within racyWindow of now (two writes in one
// clock tick can leave the same size and times; git's racy case) gives
// ok false.
func MergeDriverStamp(top, gitDir, commonDir string, now time.Time) (stamp string, ok bool) {
	var b strings.Builder
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "GIT_EXEC_PATH", strings.HasPrefix(k, "GIT_AUTHOR_"), strings.HasPrefix(k, "GIT_COMMITTER_"):
			// what git sets running a program, and identities: no setting
		case strings.HasPrefix(k, "GIT_"), k == "HOME", k == "XDG_CONFIG_HOME", k == "PREFIX":
			b.WriteString(kv + "\x00")
		}
	}
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	configs := []string{
		filepath.Join(commonDir, "config"), filepath.Join(gitDir, "config.worktree"),
		"/etc/gitconfig", "/usr/local/etc/gitconfig", filepath.Join(xdg, "git", "config"),
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if p := os.Getenv(v); p != "" {
			configs = append(configs, p)
		}
	}
	files := []string{
		filepath.Join(commonDir, "info", "attributes"), filepath.Join(gitDir, "info", "attributes"),
		filepath.Join(top, attrFile), filepath.Join(top, ".contextfs", attrFile),
		filepath.Join(top, ".contextfs", "probe"), filepath.Join(top, ".contextfs", "probe", attrFile),
		filepath.Join(xdg, "git", "attributes"), "/etc/gitattributes", "/usr/local/etc/gitattributes",
	}
	for _, p := range configs {
		raw, err := os.ReadFile(p)
		if err == nil {
			low := bytes.ToLower(raw)
			// [include], [includeIf], core.attributesFile, attr.tree
			if bytes.Contains(low, []byte("include")) || bytes.Contains(low, []byte("attributesfile")) ||
				bytes.Contains(low, []byte("[attr")) {
				return "", false
			}
		}
	}
	for _, p := range append(configs, files...) {
		fi, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(&b, "%s -\x00", p)
			continue
		}
		mtime := fi.ModTime()
		fmt.Fprintf(&b, "%s %d %d", p, fi.Size(), mtime.UnixNano())
		dev, ino, ctime := fileDevIno(fi)
		fmt.Fprintf(&b, " %d %d %d", dev, ino, ctime)
		b.WriteByte(0)
		if !mtime.Before(now.Add(-racyWindow)) {
			return "", false
		}
	}
	return b.String(), true
}

// racyWindow is how much older than now a file must be for its size and
// times to stand for its content: more than any file system's clock tick.
const racyWindow = 2 * time.Second
