package gitstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/contextfs/contextfs/git"
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
	for _, v := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"} {
		if os.Getenv(v) != "" {
			return "", "", errNeedGit
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
		return "", "", errNeedGit
	}
	files = append(files, filepath.Join(r.CommonDir, "config"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) || f == "/dev/null" {
			continue
		}
		if err != nil {
			return "", "", err
		}
		cfg := config.New()
		if err := config.NewDecoder(bytes.NewReader(raw)).Decode(cfg); err != nil {
			return "", "", errNeedGit // git is the judge of what it accepts
		}
		for _, s := range cfg.Sections {
			if s.IsName("include") || s.IsName("includeIf") {
				return "", "", errNeedGit
			}
		}
		if !cfg.HasSection("user") {
			continue
		}
		u := cfg.Section("user")
		if u.HasOption("name") {
			name = last(u.Options, "name")
		}
		if u.HasOption("email") {
			email = last(u.Options, "email")
		}
	}
	return strings.TrimSpace(name), strings.TrimSpace(email), nil
}

// last is the last value of key among opts, as `git config --get` gives
// for a key set more than once.
func last(opts config.Options, key string) string {
	var v string
	for _, o := range opts {
		if o.IsKey(key) {
			v = o.Value
		}
	}
	return v
}

func (r *Repo) config(key string) string {
	out, err := git.Output(context.Background(), r.Root, "config", "--get", key)
	if err != nil {
		return ""
	}
	return out
}
