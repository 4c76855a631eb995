package workflow

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
)

// The git hooks and the merge driver: installing, removing and reading
// them in a work tree (hooks install|uninstall|status, export-on-commit)
// and in the user's global git config (install, uninstall). Package hooks
// writes the files; this is the order of the steps and what is reported.

// HookState is one git hook as a work tree has it.
type HookState = hooks.State

// The pre-commit framework's configuration file and contextfs' hook id in
// it, which the notes about a framework-owned hook name.
const (
	HookFrameworkConfig = hooks.FrameworkConfig
	HookFrameworkID     = hooks.FrameworkHookID
)

// ExportOnCommitKey is the git config key that lists the export targets
// the post-commit hook keeps current, in this clone's own config only.
const ExportOnCommitKey = hooks.ExportOnCommitKey

// Hooks is how a work tree's hooks and merge driver stand after
// InstallHooks, UninstallHooks or HookStatus.
type Hooks struct {
	// Top is the top of the work tree: git refuses hook work from inside
	// .git, so the hooks are always handled from there.
	Top string
	// States are the hooks, one each.
	States []HookState
	// Changed are the hook files in the work tree that the install changed
	// (InstallHooks and SetExportOnCommit only).
	Changed []HookFileChange
	// Driver is the merge driver's registration, read last.
	Driver MergeDriver
	// ExportNote, when not empty, says that this clone's git config asks
	// the hooks to export (ExportOnCommitKey) but the post-commit hook
	// among States will not run, and what to do.
	ExportNote string
}

// exportNote is Hooks.ExportNote for the hooks states of the work tree at top.
func exportNote(ctx context.Context, top string, states []HookState) string {
	unhooked, err := hooks.ExportUnhooked(ctx, top, states)
	if err != nil || len(unhooked) == 0 {
		return ""
	}
	return fmt.Sprintf("git config %s is %s, but %s", hooks.ExportOnCommitKey, strings.Join(unhooked, ","), hooks.ExportNeedsHookAdvice)
}

// HookFileChange is a hook file inside the work tree (core.hooksPath
// naming a folder such as .githooks) that an install changed. Such files
// are the team's, shown by git status and shared once committed, so no
// change to them should go unsaid.
type HookFileChange struct {
	// Rel is the file, relative to the top of the work tree, with
	// forward slashes.
	Rel string
	// What is the change: "created", "added contextfs' block to" or
	// "updated contextfs' block in".
	What string
	// Tracked reports that the file is tracked in the repository.
	Tracked bool
}

// InstallHooks adds contextfs' block to every hook of the work tree around
// dir and registers the merge driver in its config and .gitattributes.
// When a hook could be installed and another not, or the driver not
// registered, it returns the report and the errors joined; when no hook
// could be read, no report.
func InstallHooks(ctx context.Context, dir string) (*Hooks, error) {
	repo, err := gitstore.Discover(dir) // contextfs' own "not a git repository"
	if err != nil {
		return nil, err
	}
	top := repo.Root
	before, _ := hooks.Status(ctx, top)
	states, ierr := hooks.Install(ctx, top, nil)
	if states == nil && ierr != nil {
		return nil, fmt.Errorf("install hooks: %w", ierr)
	}
	var derr error
	if err := hooks.RegisterMergeDriver(ctx, top); err != nil {
		derr = fmt.Errorf("register merge driver: %w", err)
	}
	h := &Hooks{Top: top, States: states,
		Changed: hookFileChanges(top, []string{repo.GitDir, repo.CommonDir}, before, states),
		Driver:  MergeDriverStatus(ctx, top), ExportNote: exportNote(ctx, top, states)}
	return h, errors.Join(ierr, derr)
}

// UninstallHooks removes contextfs' block from every hook of the work tree
// around dir, undoing what install changed around it, and with driver the
// merge driver's registration too (its .gitattributes line is shared with
// everyone who clones, so it stays unless asked). Errors are returned as
// InstallHooks returns them.
func UninstallHooks(ctx context.Context, dir string, driver bool) (*Hooks, error) {
	repo, err := gitstore.Discover(dir) // contextfs' own "not a git repository"
	if err != nil {
		return nil, err
	}
	top := repo.Root
	states, uerr := hooks.Uninstall(ctx, top, nil)
	if states == nil && uerr != nil {
		return nil, fmt.Errorf("uninstall hooks: %w", uerr)
	}
	var derr error
	if driver {
		if err := hooks.UnregisterMergeDriver(ctx, top); err != nil {
			derr = fmt.Errorf("unregister merge driver: %w", err)
		}
	}
	return &Hooks{Top: top, States: states, Driver: MergeDriverStatus(ctx, top), ExportNote: exportNote(ctx, top, states)}, errors.Join(uerr, derr)
}

// HookStatus reads the hooks and the merge driver of the work tree around
// dir. A hook that could not be read is an error beside the report.
func HookStatus(ctx context.Context, dir string) (*Hooks, error) {
	repo, err := gitstore.Discover(dir) // contextfs' own "not a git repository"
	if err != nil {
		return nil, err
	}
	top := repo.Root
	states, err := hooks.Status(ctx, top)
	if states == nil && err != nil {
		return nil, fmt.Errorf("hook status: %w", err)
	}
	return &Hooks{Top: top, States: states, Driver: MergeDriverStatus(ctx, top), ExportNote: exportNote(ctx, top, states)}, err
}

// ExportOnCommitSetting is what SetExportOnCommit left: the targets the
// post-commit hook exports, and, when turned on, the post-commit hook as
// installed.
type ExportOnCommitSetting struct {
	Targets []string
	// Hook is the post-commit hook's install (States holds it alone);
	// nil when the export was turned off.
	Hook *Hooks
}

// SetExportOnCommit turns keeping target current from the post-commit hook
// on or off in the git config of st's clone and, when on, makes sure the
// post-commit hook is installed, with post-merge and post-rewrite, which
// export what a pull brings in. Once the config is written the setting is
// returned, also beside an error installing the hook.
func SetExportOnCommit(ctx context.Context, st *contextfs.Store, target string, on bool) (*ExportOnCommitSetting, error) {
	repo := st.Repo
	targets, err := hooks.SetExportOnCommit(ctx, repo.Root, target, on)
	if err != nil {
		return nil, err
	}
	res := &ExportOnCommitSetting{Targets: targets}
	if !on {
		return res, nil
	}
	before, _ := hooks.Status(ctx, repo.Root)
	states, err := hooks.Install(ctx, repo.Root, []string{"post-commit", "post-merge", "post-rewrite"})
	if err != nil {
		return res, fmt.Errorf("install the post-commit, post-merge and post-rewrite hooks: %w", err)
	}
	res.Hook = &Hooks{Top: repo.Root, States: states,
		Changed: hookFileChanges(repo.Root, []string{repo.GitDir, repo.CommonDir}, before, states)}
	return res, nil
}

// hookFileChanges is what an install changed in hook files inside the
// work tree at top. before and after are the states before and after the
// install. gitDirs are the repository's git directories: the default
// .git/hooks lies under the top of the work tree but is nobody's shared
// file, so hooks there are never listed.
func hookFileChanges(top string, gitDirs []string, before, after []HookState) []HookFileChange {
	was := map[string]HookState{}
	for _, s := range before {
		was[s.Path] = s
	}
	var out []HookFileChange
	for _, s := range after {
		rel, err := filepath.Rel(top, s.Path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // a folder outside the work tree: nobody's shared file
		}
		if underAny(s.Path, gitDirs) {
			continue // .git/hooks: git's own folder, never shown by git status
		}
		b, existed := was[s.Path]
		what := ""
		switch {
		case !s.Installed || s.Outdated:
			continue // not changed, or refused (the error says so)
		case existed && b.Installed && !b.Outdated:
			continue // already up to date: left alone
		case existed && b.Installed:
			what = "updated contextfs' block in"
		case existed && (b.Chained || b.Tracked):
			what = "added contextfs' block to"
		default:
			what = "created"
		}
		out = append(out, HookFileChange{Rel: filepath.ToSlash(rel), What: what, Tracked: s.Tracked})
	}
	return out
}

// underAny reports whether path lies inside one of dirs.
func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		rel, err := filepath.Rel(d, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// GlobalMergeDriver is the merge driver as the user's global git config
// has it.
type GlobalMergeDriver = hooks.GlobalMergeDriverState

// GlobalUnregistration is what UninstallGlobalMergeDriver found and did.
type GlobalUnregistration = hooks.GlobalUnregistration

// ForeignDriverError is a merge.contextfs.driver in the global config that
// contextfs did not write: install leaves it unless forced.
type ForeignDriverError = hooks.ForeignDriverError

// InstallGlobalMergeDriver registers the merge driver in the user's
// global git config (replacing a foreign one only with force) and returns
// the driver as registered. A foreign driver is a *ForeignDriverError.
func InstallGlobalMergeDriver(ctx context.Context, dir string, force bool) (GlobalMergeDriver, error) {
	if err := hooks.RegisterGlobalMergeDriver(ctx, dir, force); err != nil {
		return GlobalMergeDriver{}, err
	}
	return hooks.CheckGlobalMergeDriver(ctx, dir)
}

// UninstallGlobalMergeDriver removes the merge driver from the user's
// global git config when contextfs wrote it, and returns what it found
// and did and the driver as it is left.
func UninstallGlobalMergeDriver(ctx context.Context, dir string) (GlobalUnregistration, GlobalMergeDriver, error) {
	u, err := hooks.UnregisterGlobalMergeDriver(ctx, dir)
	if err != nil {
		return u, GlobalMergeDriver{}, err
	}
	st, err := hooks.CheckGlobalMergeDriver(ctx, dir)
	return u, st, err
}
