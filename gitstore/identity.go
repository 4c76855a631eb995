package gitstore

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs/internal/git"
)

// errNeedGit says the configuration uses something identity does not
// read itself (includes, configuration from the environment), so git must
// answer.
var errNeedGit = errors.New("configuration needs git to read")

// identity reads user.name and user.email the way `git config --get`
// does, from the files git reads in its order (system, global, the
// repository's; the last value wins), without starting
// git: a save otherwise spends two process starts, more than the rest of
// its work. Where the files use include or includeIf, or the environment
// adds configuration (git -c, GIT_CONFIG_COUNT), it asks git instead.
func (r *Repo) identity() (name, email string) {
	name, email, err := r.readIdentity()
	if err != nil {
		return r.config("user.name"), r.config("user.email")
	}
	return name, email
}

func (r *Repo) readIdentity() (name, email string, err error) {
	vs, err := r.readConfig("user", "", "name", "email")
	if err != nil {
		return "", "", err
	}
	return vs[0], vs[1], nil
}

// RemoteURL is the URL of the remote named name (remote.NAME.url), ""
// when it has none, read like the identity: from the configuration files
// themselves, or by git where they include others.
func (r *Repo) RemoteURL(ctx context.Context, name string) string {
	vs, err := r.readConfig("remote", name, "url")
	if err != nil {
		out, _ := git.Output(ctx, r.Root, "config", "--get", "remote."+name+".url")
		return out
	}
	return vs[0]
}

// readConfig returns the values of keys in section (and subsection, ""
// for none) as `git config --get` would, one per key ("" when unset),
// from the files git reads in its order (system, global, the
// repository's; the last value wins). errNeedGit says git must answer
// instead.
func (r *Repo) readConfig(section, subsection string, keys ...string) ([]string, error) {
	for _, v := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"} {
		if os.Getenv(v) != "" {
			return nil, errNeedGit
		}
	}
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, cmp.Or(os.Getenv("GIT_CONFIG_SYSTEM"), "/etc/gitconfig"))
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		home, _ := os.UserHomeDir()
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	// A worktree's own configuration counts only under an extension the
	// repository's configuration turns on: git decides.
	if _, err := os.Stat(filepath.Join(r.GitDir, "config.worktree")); err == nil {
		return nil, errNeedGit
	}
	files = append(files, filepath.Join(r.CommonDir, "config"))
	vals := make([]string, len(keys))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) || f == "/dev/null" {
			continue
		}
		if err != nil {
			return nil, err
		}
		entries, err := parseConfig(raw)
		if err != nil {
			return nil, err // git is the judge of what it accepts
		}
		for _, e := range entries {
			if e.section == "include" || e.section == "includeif" {
				return nil, errNeedGit
			}
			// Subsection names are case-sensitive, as git has them.
			if e.section != section || e.subsection != subsection {
				continue
			}
			for i, k := range keys {
				if e.key == k {
					if !e.hasValue {
						return nil, errNeedGit // a bare key: git says what it means here
					}
					vals[i] = e.value
				}
			}
		}
	}
	for i := range vals {
		vals[i] = strings.TrimSpace(vals[i])
	}
	return vals, nil
}

func (r *Repo) config(key string) string {
	out, err := git.Output(context.Background(), r.Root, "config", "--get", key)
	if err != nil {
		return ""
	}
	return out
}
