package contextfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/printable"
)

// DoctorCheck is one thing Doctor looked at; see check.Diagnosis.
type DoctorCheck = check.Diagnosis

// DoctorOptions configure Doctor.
type DoctorOptions struct {
	// Version is the running program's version, compared with the
	// git-contextfs on PATH, which is the one the hooks run.
	Version string
	// Fix repairs what can be repaired (hooks, merge driver, a missing
	// config, a broken cache), then checks again.
	Fix bool
}

// DoctorReport is what Doctor found, and fixed.
type DoctorReport struct {
	Checks []DoctorCheck `json:"checks"`
	Fixed  []string      `json:"fixed"`
	OK     bool          `json:"ok"`
}

// Doctor checks that contextfs is set up and healthy in repo: the binary
// the hooks run, the hooks, the merge driver, the config, the cache and
// the memories; with o.Fix it repairs what it can first. The report is
// complete even when a repair failed; the error says which.
func Doctor(ctx context.Context, repo *gitstore.Repo, o DoctorOptions) (*DoctorReport, error) {
	r := &DoctorReport{Checks: doctorChecks(ctx, repo, o.Version), Fixed: []string{}}
	var err error
	if o.Fix {
		var fixed []string
		fixed, err = doctorFix(ctx, repo, r.Checks)
		r.Fixed = append(r.Fixed, fixed...)
		r.Checks = doctorChecks(ctx, repo, o.Version)
	}
	r.OK = true
	for _, c := range r.Checks {
		r.OK = r.OK && c.OK
	}
	return r, err
}

// doctorChecks runs every check.
func doctorChecks(ctx context.Context, repo *gitstore.Repo, version string) []DoctorCheck {
	hookStates, hookErr := hooks.Status(ctx, repo.Root)
	installed := false
	for _, s := range hookStates {
		installed = installed || s.Installed
	}
	checks := []DoctorCheck{
		check.Binary(ctx, version, installed),
		check.Hooks(hookStates, hookErr),
		check.MergeDriver(ctx, repo.Root),
	}
	if c, shown := check.ExportOnCommit(ctx, repo.Root, hookStates); shown {
		checks = append(checks, c)
	}
	cfg, cfgOK := check.Config(repo)
	checks = append(checks, cfg)
	if !cfgOK {
		skipped := "not checked: the config must be valid first"
		return append(checks, DoctorCheck{Name: "cache", OK: false, Message: skipped},
			DoctorCheck{Name: "memories", OK: false, Message: skipped})
	}
	s, notice, err := openQuiet(ctx, repo.Root)
	if err != nil {
		msg := err.Error()
		return append(checks, DoctorCheck{Name: "cache", Message: "cannot open: " + msg},
			DoctorCheck{Name: "memories", Message: "not checked: " + msg})
	}
	defer s.Close()
	checks = append(checks, checkCache(ctx, s, notice), check.Memories(s.Repo), check.Embedder(ctx, s.Embedder()))
	return checks
}

// openQuiet opens the store, returning any notice (such as a cache rebuilt
// on open) instead of printing it. The notices about the repository's
// config file (unknown keys, settings ignored for trust) are left out: the
// config check reports them, and they say nothing about the cache.
func openQuiet(ctx context.Context, dir string) (*Store, string, error) {
	var notes bytes.Buffer
	s, err := Open(ctx, Options{Dir: dir, Notices: &notes})
	if err != nil {
		return s, strings.TrimSpace(notes.String()), err
	}
	file := s.Config
	file.UserError = "" // no check reports the user's file: keep its notice
	cfgNotes := file.Notices()
	var keep []string
	for line := range strings.SplitSeq(strings.TrimSpace(notes.String()), "\n") {
		if line != "" && !slices.Contains(cfgNotes, line) {
			keep = append(keep, line)
		}
	}
	return s, strings.Join(keep, "\n"), nil
}

// checkCache reports whether the cache opens and answers.
//
// Damage fails the check, though it is rebuilt on the spot as every
// command does: damage found when the cache was opened (the notice) or by
// the full check (Store.VerifyCache), which runs here and only where its
// cost is paid rarely (docs/RELIABILITY.md). A cache rebuilt for a new
// schema version is no damage.
func checkCache(ctx context.Context, s *Store, notice string) DoctorCheck {
	c := DoctorCheck{Name: "cache", OK: true, Fixable: true}
	if damage := openDamage(notice); damage != "" {
		c.OK, c.Message = false, "damaged, rebuilt: "+damage
		return c
	}
	if err := s.VerifyCache(ctx); err != nil {
		c.OK, c.Message = false, err.Error()
		if cache.IsCorrupt(err) {
			c.Message = "damaged, rebuilt: " + err.Error()
		}
		return c
	}
	st, err := s.Status(ctx)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c
	}
	c.Message = fmt.Sprintf("%s (%.1f MB, %d memories, schema %s)", printable.Path(st.Cache.Path), float64(st.Cache.Bytes)/1e6, st.Memories, st.Cache.Schema)
	if notice != "" {
		c.Message += "; " + strings.TrimPrefix(notice, "contextfs: ")
	}
	return c
}

// doctorFix repairs what the checks found fixable and returns what it did.
func doctorFix(ctx context.Context, repo *gitstore.Repo, checks []DoctorCheck) ([]string, error) {
	var fixed []string
	var errs []error
	need := func(name string) bool {
		for _, c := range checks {
			if c.Name == name {
				return c.Fixable && (!c.OK || c.Warning)
			}
		}
		return false
	}
	if need("config") {
		s, _, err := openQuiet(ctx, repo.Root)
		if err == nil {
			var created []string
			created, err = s.Init(ctx)
			s.Close()
			for _, c := range created {
				fixed = append(fixed, "created "+c)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write the default config: %w", err))
		}
	}
	if need("merge-driver") {
		// Init, just above, may have registered it already.
		md, err := hooks.CheckMergeDriver(ctx, repo.Root)
		if err != nil || !md.Configured || !md.Attributes {
			if err := hooks.RegisterMergeDriver(ctx, repo.Root); err != nil {
				errs = append(errs, fmt.Errorf("register merge driver: %w", err))
			} else {
				fixed = append(fixed, "registered the merge driver")
			}
		}
	}
	if need("hooks") {
		states, err := hooks.Install(ctx, repo.Root, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("install hooks: %w", err))
		}
		for _, s := range states {
			if s.Installed && !s.Executable {
				// Install leaves an up-to-date block alone, mode included.
				if fi, err := os.Stat(s.Path); err == nil {
					perm := fi.Mode().Perm()
					if err := os.Chmod(s.Path, perm|(perm&0o444)>>2|0o100); err != nil {
						errs = append(errs, err)
					}
				}
			}
		}
		if err == nil && len(states) > 0 {
			fixed = append(fixed, "installed the hooks in "+filepath.Dir(states[0].Path))
		}
	}
	if need("cache") {
		s, _, err := openQuiet(ctx, repo.Root)
		if err == nil {
			_, err = s.Reindex(ctx)
			s.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("rebuild cache: %w", err))
		} else {
			fixed = append(fixed, "rebuilt the cache")
		}
	}
	return fixed, errors.Join(errs...)
}

// openDamage returns the reason of a rebuild on open that notice reports
// when it was damage, "" when there was none or the cache was of another
// schema version (an upgrade or a downgrade of contextfs).
func openDamage(notice string) string {
	for line := range strings.SplitSeq(notice, "\n") {
		why, ok := strings.CutPrefix(strings.TrimSpace(line), "contextfs: cache rebuilt (")
		if !ok {
			continue
		}
		why = strings.TrimSuffix(why, ")")
		var have, want int
		if n, _ := fmt.Sscanf(why, "schema %d, want %d", &have, &want); n == 2 && fmt.Sprintf("schema %d, want %d", have, want) == why {
			continue
		}
		return why
	}
	return ""
}
