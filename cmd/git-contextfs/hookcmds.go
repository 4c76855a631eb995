package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
	"github.com/contextfs/contextfs/memory"
)

// workDir is where the repository is looked for: --repo, or the current
// directory.
func (a *app) workDir() string {
	if a.dir != "" {
		return a.dir
	}
	return "."
}

// ---------------------------------------------------------------------------
// git contextfs hooks install|uninstall|status

// hooksCmd is `hooks`, with install, uninstall and status below it.
func (a *app) hooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install, remove or show the git hooks that keep contextfs current",
		Long: `contextfs uses five git hooks. pre-commit refuses a commit whose staged
memories are invalid or hold a secret; post-checkout, post-merge,
post-rewrite and post-commit refresh the search cache after git changed
the files, and never block.

Each hook file gets a small marked block that calls git-contextfs; a hook
that already exists (yours, husky's, lefthook's, pre-commit's) is kept and
runs after the block. Uninstalling removes only the block. Hooks are
installed where git runs them: core.hooksPath if set, and the common git
directory for all worktrees. See docs/HOOKS.md.`,
		Example: `  git contextfs hooks install
  git contextfs hooks status
  git contextfs hooks status --json
  git contextfs hooks uninstall`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(a.hooksInstallCmd(), a.hooksUninstallCmd(), a.hooksStatusCmd())
	return cmd
}

func (a *app) hooksInstallCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the hooks and register the memory merge driver",
		Long: `Adds the contextfs block to the pre-commit, post-merge, post-checkout,
post-rewrite and post-commit hooks, creating the files that do not exist
and chaining into those that do, and registers the memory merge driver
(git config in this clone, a line in .gitattributes). Running it again
changes nothing; a block written by another version is replaced.`,
		Example: `  git contextfs hooks install
  git contextfs hooks install --json`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			states, ierr := hooks.Install(ctx, a.workDir(), nil)
			if states == nil && ierr != nil {
				return fmt.Errorf("install hooks: %w", ierr)
			}
			var derr error
			if err := hooks.RegisterMergeDriver(ctx, a.workDir()); err != nil {
				derr = fmt.Errorf("register merge driver: %w", err)
			}
			if err := a.printHooks(ctx, states, asJSON); err != nil {
				return err
			}
			if _, err := exec.LookPath("git-contextfs"); err != nil && !asJSON {
				fmt.Fprintln(a.stderr, "warning: git-contextfs is not on PATH, so the hooks will skip their work; put it on PATH")
			}
			if err := errors.Join(ierr, derr); err != nil {
				return err
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the hooks' states and the merge driver's as JSON")
	return cmd
}

func (a *app) hooksUninstallCmd() *cobra.Command {
	var asJSON, driver bool
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the contextfs block from the hooks",
		Long: `Removes the contextfs block from each hook and undoes what install changed
around it: a file install created is deleted, and a file that was already
there is restored byte for byte (edits made to it since are kept).

The merge driver stays registered unless --merge-driver is given: its
.gitattributes line is shared with everyone who clones the repository.`,
		Example: `  git contextfs hooks uninstall
  git contextfs hooks uninstall --merge-driver`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			states, uerr := hooks.Uninstall(ctx, a.workDir(), nil)
			if states == nil && uerr != nil {
				return fmt.Errorf("uninstall hooks: %w", uerr)
			}
			var derr error
			if driver {
				if err := hooks.UnregisterMergeDriver(ctx, a.workDir()); err != nil {
					derr = fmt.Errorf("unregister merge driver: %w", err)
				}
			}
			if err := a.printHooks(ctx, states, asJSON); err != nil {
				return err
			}
			return errors.Join(uerr, derr)
		},
	}
	cmd.Flags().BoolVar(&driver, "merge-driver", false, "also unregister the merge driver (git config and the .gitattributes line)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the hooks' states and the merge driver's as JSON")
	return cmd
}

func (a *app) hooksStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether each hook and the merge driver are installed",
		Long: `Prints one line per hook: installed or not, outdated (written by another
version: run install), chained (another hook shares the file) and whether
git will run it at all (a hook file without the executable bit is
skipped silently by git). The last line is the merge driver.`,
		Example: `  git contextfs hooks status
  git contextfs hooks status --json`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			states, err := hooks.Status(cmd.Context(), a.workDir())
			if states == nil && err != nil {
				return fmt.Errorf("hook status: %w", err)
			}
			if perr := a.printHooks(cmd.Context(), states, asJSON); perr != nil {
				return perr
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the hooks' states and the merge driver's as JSON")
	return cmd
}

// hookJSON is hooks.State as the JSON output spells it.
type hookJSON struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Installed  bool   `json:"installed"`
	Outdated   bool   `json:"outdated"`
	Chained    bool   `json:"chained"`
	Executable bool   `json:"executable"`
}

// driverJSON is hooks.MergeDriverState as the JSON output spells it.
type driverJSON struct {
	Configured bool   `json:"configured"`
	Attributes bool   `json:"attributes"`
	Driver     string `json:"driver"`
	Error      string `json:"error,omitempty"`
}

// printHooks prints the hooks' states and the merge driver's.
func (a *app) printHooks(ctx context.Context, states []hooks.State, asJSON bool) error {
	md, mderr := hooks.CheckMergeDriver(ctx, a.workDir())
	if asJSON {
		hs := make([]hookJSON, 0, len(states))
		for _, s := range states {
			hs = append(hs, hookJSON{s.Name, s.Path, s.Installed, s.Outdated, s.Chained, s.Executable})
		}
		d := driverJSON{Configured: md.Configured, Attributes: md.Attributes, Driver: md.Driver}
		if mderr != nil {
			d.Error = mderr.Error()
		}
		return a.printJSON(map[string]any{"hooks": hs, "merge_driver": d})
	}
	top := ""
	if r, err := gitstore.Discover(a.workDir()); err == nil {
		top = r.Root
	}
	for _, s := range states {
		fmt.Fprintf(a.stdout, "%-14s %-44s %s\n", s.Name, hookState(s), displayPath(top, s.Path))
	}
	fmt.Fprintf(a.stdout, "%-14s %s\n", "merge driver", driverState(md, mderr))
	return nil
}

// hookState describes a hook in a few words.
func hookState(s hooks.State) string {
	if !s.Installed {
		if s.Chained {
			return "not installed (another hook is there)"
		}
		return "not installed"
	}
	words := []string{"installed"}
	if s.Outdated {
		words = []string{"outdated: run git contextfs hooks install"}
	}
	if s.Chained {
		words = append(words, "chained")
	}
	if !s.Executable {
		words = append(words, "NOT EXECUTABLE: git skips it")
	}
	return strings.Join(words, ", ")
}

// driverState describes the merge driver's registration in a few words.
func driverState(md hooks.MergeDriverState, err error) string {
	switch {
	case err != nil:
		return "unknown: " + err.Error()
	case md.Configured && md.Attributes:
		return "registered"
	case !md.Configured && !md.Attributes:
		return "not registered"
	case !md.Configured && md.Driver != "":
		return fmt.Sprintf("merge.contextfs.driver is %q, not this version's", md.Driver)
	case !md.Configured:
		return "not configured in this clone (git config merge.contextfs.driver)"
	default:
		return "configured, but .gitattributes does not route memories to it"
	}
}

// displayPath shows p relative to the top of the work tree when it is
// inside it.
func displayPath(top, p string) string {
	if top == "" {
		return p
	}
	if rel, err := filepath.Rel(top, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// ---------------------------------------------------------------------------
// git contextfs hook NAME [ARGS...]

// defaultHookBudget is how long a hook handler may take before it gives
// up and lets git carry on. A checkout or commit that hangs is worse than
// a cache refreshed by the next command instead.
const defaultHookBudget = 10 * time.Second

// hookOutcome is what a hook handler found.
type hookOutcome struct {
	block  bool     // refuse the commit (pre-commit only)
	report []string // lines for stderr
	note   string   // what was done, printed with CONTEXTFS_HOOK_DEBUG
}

// hookFunc is one hook's handler.
type hookFunc func(ctx context.Context, args []string) (hookOutcome, error)

// hookCmd is the hidden `hook NAME`, the handlers the installed hook
// blocks call.
func (a *app) hookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook NAME [ARGS...]",
		Short: "Run the contextfs part of a git hook (called by the installed hooks)",
		Long: `Runs the handler of one git hook; the blocks that "git contextfs hooks
install" writes call it with the hook's arguments. NAME is pre-commit,
post-merge, post-checkout, post-rewrite or post-commit.

Only pre-commit can fail (exit 1), and only for invalid memories or
secrets in the staged content. Anything else that goes wrong (git errors,
a broken cache, the time budget running out) prints a warning and exits 0,
so contextfs can never stop your work.

Environment: CONTEXTFS_HOOK_TIMEOUT sets the time budget (default 10s);
CONTEXTFS_HOOK_DEBUG=1 prints what each handler did and how long it took.`,
		Example: `  git-contextfs hook pre-commit
  CONTEXTFS_HOOK_DEBUG=1 git-contextfs hook post-checkout HEAD@{1} HEAD 1`,
		Hidden: true,
		// Hook arguments are git's, never our flags.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				return cmd.Help()
			}
			return a.runHook(cmd.Context(), args[0], args[1:])
		},
	}
}

// runHook runs the handler of hook name within its time budget. Only a
// refused commit is an error; everything else fails open.
func (a *app) runHook(ctx context.Context, name string, args []string) error {
	var h hookFunc
	switch name {
	case "pre-commit":
		h = a.preCommit
	case "post-merge", "post-checkout", "post-rewrite", "post-commit":
		h = a.refreshHook(name)
	default:
		// A hook block newer than this binary: nothing to do, and no
		// reason to stop git.
		a.hookWarn(name, "unknown hook; update git-contextfs")
		return nil
	}
	budget := hookBudget()
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	start := time.Now()

	type result struct {
		out hookOutcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		out, err := h(ctx, args)
		done <- result{out, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		// Give the handler a moment to see the cancellation and close
		// the cache cleanly; it is abandoned after that.
		select {
		case r = <-done:
		case <-time.After(250 * time.Millisecond):
			r.err = ctx.Err()
		}
	}
	switch {
	case r.err != nil && errors.Is(r.err, context.DeadlineExceeded):
		a.hookWarn(name, fmt.Sprintf("took longer than %s and was skipped (CONTEXTFS_HOOK_TIMEOUT sets the budget)%s", budget, skippedHint(name)))
		return nil
	case r.err != nil && errors.Is(r.err, context.Canceled):
		a.hookWarn(name, "interrupted"+skippedHint(name))
		return nil
	case r.err != nil:
		a.hookWarn(name, r.err.Error()+skippedHint(name))
		return nil
	}
	for _, l := range r.out.report {
		fmt.Fprintln(a.stderr, l)
	}
	if os.Getenv("CONTEXTFS_HOOK_DEBUG") != "" && r.out.note != "" {
		fmt.Fprintf(a.stderr, "contextfs: %s: %s in %s\n", name, r.out.note, time.Since(start).Round(time.Microsecond))
	}
	if r.out.block {
		return &exitError{exitFail}
	}
	return nil
}

// skippedHint tells what a skipped handler leaves undone.
func skippedHint(name string) string {
	if name == "pre-commit" {
		return "; staged memories were not checked: run git contextfs validate"
	}
	return "; the next contextfs command refreshes the cache"
}

// hookWarn prints a one-line warning from a hook handler.
func (a *app) hookWarn(name, msg string) {
	fmt.Fprintf(a.stderr, "contextfs: %s: warning: %s\n", name, msg)
}

// hookBudget is the handlers' time budget: CONTEXTFS_HOOK_TIMEOUT, a Go
// duration such as 30s, or defaultHookBudget.
func hookBudget() time.Duration {
	if v := os.Getenv("CONTEXTFS_HOOK_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return defaultHookBudget
}

// preCommit checks the staged memories. It refuses the commit for invalid
// memories and secrets, never for formatting.
func (a *app) preCommit(ctx context.Context, _ []string) (hookOutcome, error) {
	repo, err := gitstore.Discover(a.workDir())
	if err != nil {
		return hookOutcome{}, err
	}
	res, err := contextfs.CheckStaged(ctx, repo)
	if err != nil {
		return hookOutcome{}, err
	}
	var out hookOutcome
	for _, w := range res.Warnings {
		out.report = append(out.report, "contextfs: pre-commit: warning: "+w)
	}
	out.note = fmt.Sprintf("checked %d staged memory file(s)", res.Files)
	if !res.Blocking() {
		return out, nil
	}
	out.block = true
	all := res.All()
	out.report = append(out.report, fmt.Sprintf("contextfs: commit refused: %d problem(s) in staged memories:", len(all)))
	for _, p := range all {
		out.report = append(out.report, p.String())
	}
	if len(res.Secrets) > 0 {
		out.report = append(out.report,
			"contextfs: memories are pushed with the code: remove the secret (and rotate it if it was real).",
			"contextfs: not a secret? add contextfs:allow-secret to its line, or its fingerprint to",
			"           secrets.fingerprints in .contextfs/config.yaml (see docs/SECRETS.md).")
	}
	out.report = append(out.report, "contextfs: fix the memory, or bypass with git commit --no-verify")
	return out, nil
}

// refreshHook returns the handler of a hook that runs after git changed
// files or history: it refreshes the cache, so the next search is fast,
// and never blocks.
func (a *app) refreshHook(name string) hookFunc {
	return func(ctx context.Context, args []string) (hookOutcome, error) {
		if name == "post-rewrite" {
			// git writes the rewritten commits to our stdin; read them
			// all so it never sees a broken pipe, but not past the
			// budget.
			drained := a.drainStdin()
			defer func() {
				select {
				case <-drained:
				case <-ctx.Done():
				}
			}()
		}
		if name == "post-checkout" && hooks.FileCheckout(args) {
			return hookOutcome{note: "skipped: a checkout of files, HEAD did not move"}, nil
		}
		repo, err := gitstore.Discover(a.workDir())
		if err != nil {
			return hookOutcome{}, err
		}
		// git runs post-checkout and post-commit for every commit a
		// rebase replays; post-rewrite, at its end, refreshes once.
		if name != "post-rewrite" && hooks.RebaseInProgress(repo.GitDir) {
			return hookOutcome{note: "skipped: rebase in progress"}, nil
		}
		s, err := contextfs.Open(ctx, contextfs.Options{Dir: repo.Root})
		if err != nil {
			return hookOutcome{}, fmt.Errorf("cache not refreshed: %w", err)
		}
		defer s.Close()
		r, err := s.Refresh(ctx)
		if err != nil {
			return hookOutcome{}, fmt.Errorf("cache not refreshed: %w", err)
		}
		note := fmt.Sprintf("refreshed %d memory file(s): %d changed, %d removed", r.Memories, r.Changed, r.Removed)
		if r.Code {
			note += "; code index updated"
		}
		return hookOutcome{note: note}, nil
	}
}

// drainStdin reads standard input to its end in the background; the
// channel is closed when it is done. A terminal is not read: there is no
// end to wait for.
func (a *app) drainStdin() <-chan struct{} {
	done := make(chan struct{})
	if f, ok := a.stdin.(*os.File); ok && isTerminal(f) || a.stdin == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		io.Copy(io.Discard, a.stdin)
	}()
	return done
}

// ---------------------------------------------------------------------------
// git contextfs doctor

// doctorCheck is one thing doctor looked at.
type doctorCheck struct {
	Name string `json:"name"`
	// OK is false for a failure, which makes doctor exit 1.
	OK bool `json:"ok"`
	// Warning marks something that works but deserves attention, such as
	// hooks not installed; it does not change the exit status.
	Warning bool   `json:"warning,omitempty"`
	Message string `json:"message"`
	// Fixable reports that doctor --fix can repair it.
	Fixable bool `json:"fixable"`
}

// doctorCmd is `doctor`: checks of the whole setup, and repairs.
func (a *app) doctorCmd() *cobra.Command {
	var fix, asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the hooks, merge driver, config, cache and memories; --fix repairs",
		Long: `Checks that contextfs is set up and healthy in this repository:

  git-contextfs  on PATH (the hooks call it from there), and the same
                 version as this one
  hooks          installed, up to date, executable (not installed: a warning)
  merge-driver   registered in git config and .gitattributes (a warning)
  config         .contextfs/config.yaml present (a warning) and valid
  cache          opens and answers
  memories       every memory file is valid

With --fix it installs or updates the hooks, registers the merge driver,
writes the default config when there is none and rebuilds a broken
cache, then checks again. Invalid memories are left to you: run
git contextfs validate to see them.

Exit status: 0 when nothing failed (warnings allowed), 1 otherwise.`,
		Example: `  git contextfs doctor
  git contextfs doctor --fix
  git contextfs doctor --json`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			repo, err := gitstore.Discover(a.workDir())
			if err != nil {
				return err
			}
			checks := a.doctorChecks(ctx, repo)
			var fixed []string
			if fix {
				fixed, err = a.doctorFix(ctx, repo, checks)
				if err != nil {
					fmt.Fprintf(a.stderr, "contextfs: doctor --fix: %v\n", err)
				}
				checks = a.doctorChecks(ctx, repo)
			}
			healthy := true
			for _, c := range checks {
				healthy = healthy && c.OK
			}
			if asJSON {
				if fixed == nil {
					fixed = []string{}
				}
				if err := a.printJSON(map[string]any{"ok": healthy, "checks": checks, "fixed": fixed}); err != nil {
					return err
				}
			} else {
				for _, f := range fixed {
					fmt.Fprintf(a.stdout, "fixed  %s\n", f)
				}
				for _, c := range checks {
					mark := "ok  "
					switch {
					case !c.OK:
						mark = "FAIL"
					case c.Warning:
						mark = "warn"
					}
					fmt.Fprintf(a.stdout, "%s   %-14s %s\n", mark, c.Name, c.Message)
				}
				canFix := false
				for _, c := range checks {
					canFix = canFix || c.Fixable && (!c.OK || c.Warning)
				}
				if canFix && !fix {
					fmt.Fprintln(a.stdout, "run git contextfs doctor --fix to repair what can be repaired")
				}
			}
			if !healthy {
				return &exitError{exitFail}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "install or update the hooks, register the merge driver, write a missing config, rebuild a broken cache")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {ok, checks, fixed} as JSON")
	return cmd
}

// doctorChecks runs every check.
func (a *app) doctorChecks(ctx context.Context, repo *gitstore.Repo) []doctorCheck {
	hookStates, hookErr := hooks.Status(ctx, repo.Root)
	installed := false
	for _, s := range hookStates {
		installed = installed || s.Installed
	}
	checks := []doctorCheck{
		a.checkBinary(ctx, installed),
		checkHooks(hookStates, hookErr),
		checkMergeDriver(ctx, repo.Root),
	}
	cfg, cfgOK := checkConfig(repo)
	checks = append(checks, cfg)
	if !cfgOK {
		skipped := "not checked: the config must be valid first"
		return append(checks, doctorCheck{Name: "cache", OK: false, Message: skipped},
			doctorCheck{Name: "memories", OK: false, Message: skipped})
	}
	s, notice, err := openQuiet(ctx, repo.Root)
	if err != nil {
		msg := err.Error()
		return append(checks, doctorCheck{Name: "cache", Message: "cannot open: " + msg},
			doctorCheck{Name: "memories", Message: "not checked: " + msg})
	}
	defer s.Close()
	checks = append(checks, checkCache(ctx, s, notice), checkMemories(ctx, s))
	return checks
}

// openQuiet opens the store, returning any notice (such as a cache rebuilt
// on open) instead of printing it.
func openQuiet(ctx context.Context, dir string) (*contextfs.Store, string, error) {
	var notes bytes.Buffer
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Notices: &notes})
	return s, strings.TrimSpace(notes.String()), err
}

// checkBinary looks for git-contextfs where the hooks look for it, and
// compares its version with this one: the hooks run that binary, not
// necessarily this one.
func (a *app) checkBinary(ctx context.Context, hooksInstalled bool) doctorCheck {
	c := doctorCheck{Name: "git-contextfs", OK: true}
	p, err := exec.LookPath("git-contextfs")
	if err != nil {
		c.Message = "not on PATH: the hooks skip their work without it"
		c.OK, c.Warning = !hooksInstalled, true
		return c
	}
	if self, err := os.Executable(); err == nil && sameFile(self, p) {
		c.Message = fmt.Sprintf("%s, version %s", p, version)
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "--version").Output()
	if err != nil {
		c.OK, c.Message = false, fmt.Sprintf("%s does not run: %v", p, err)
		return c
	}
	v := strings.TrimSpace(string(out))
	v = v[strings.LastIndex(v, " ")+1:]
	c.Message = fmt.Sprintf("%s, version %s", p, v)
	if v != version {
		c.Warning = true
		c.Message += fmt.Sprintf(" (this is version %s: the hooks run the one on PATH)", version)
	}
	return c
}

// sameFile reports whether two paths name the same file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// checkHooks judges the hooks' states. Hooks not installed are a warning,
// since contextfs works without them; hooks installed but outdated or
// not executable are a failure, since they do not do what they claim.
func checkHooks(states []hooks.State, err error) doctorCheck {
	c := doctorCheck{Name: "hooks", OK: true, Fixable: true}
	if err != nil {
		c.OK, c.Fixable, c.Message = false, false, err.Error()
		return c
	}
	var missing, outdated, noexec []string
	for _, s := range states {
		switch {
		case !s.Installed:
			missing = append(missing, s.Name)
		case s.Outdated:
			outdated = append(outdated, s.Name)
		case !s.Executable:
			noexec = append(noexec, s.Name)
		}
	}
	var msgs []string
	if len(outdated) > 0 {
		c.OK = false
		msgs = append(msgs, "outdated (written by another version of contextfs): "+strings.Join(outdated, ", "))
	}
	if len(noexec) > 0 {
		c.OK = false
		msgs = append(msgs, "not executable, so git skips them: "+strings.Join(noexec, ", "))
	}
	switch {
	case len(missing) == len(states):
		c.Warning = true
		msgs = append(msgs, "not installed: the cache is refreshed by each command instead, and commits are not checked")
	case len(missing) > 0:
		c.Warning = true
		msgs = append(msgs, "not installed: "+strings.Join(missing, ", "))
	}
	if len(msgs) == 0 {
		dir := ""
		if len(states) > 0 {
			dir = filepath.Dir(states[0].Path)
		}
		msgs = append(msgs, fmt.Sprintf("%d installed in %s", len(states), dir))
	}
	c.Message = strings.Join(msgs, "; ")
	return c
}

// checkMergeDriver reports on the merge driver. Without it memories still
// merge as text, so its absence is a warning.
func checkMergeDriver(ctx context.Context, root string) doctorCheck {
	c := doctorCheck{Name: "merge-driver", OK: true, Fixable: true}
	md, err := hooks.CheckMergeDriver(ctx, root)
	if err != nil {
		c.OK, c.Fixable, c.Message = false, false, err.Error()
		return c
	}
	c.Message = driverState(md, nil)
	c.Warning = !md.Configured || !md.Attributes
	if c.Warning {
		c.Message += "; memories merge as plain text"
	}
	return c
}

// checkConfig reports on .contextfs/config.yaml; ok is false when it is
// invalid, which stops every command.
func checkConfig(repo *gitstore.Repo) (doctorCheck, bool) {
	rel := gitstore.Dir + "/" + gitstore.ConfigFile
	c := doctorCheck{Name: "config", OK: true}
	cfg, err := contextfs.LoadConfig(repo)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c, false
	}
	s := &contextfs.Store{Repo: repo, Config: cfg}
	if _, err := s.SecretScanner(); err != nil {
		c.OK, c.Message = false, err.Error()
		return c, true
	}
	if _, err := os.Stat(filepath.Join(repo.MemoryDir(), gitstore.ConfigFile)); errors.Is(err, fs.ErrNotExist) {
		c.Warning, c.Fixable = true, true
		c.Message = "no " + rel + ": the defaults apply (--fix writes them, commented)"
		return c, true
	}
	c.Message = rel + " is valid"
	return c, true
}

// checkCache reports whether the cache opens and answers.
func checkCache(ctx context.Context, s *contextfs.Store, notice string) doctorCheck {
	c := doctorCheck{Name: "cache", OK: true, Fixable: true}
	st, err := s.Status(ctx)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c
	}
	c.Message = fmt.Sprintf("%s (%.1f MB, %d memories, schema %s)", st.Cache.Path, float64(st.Cache.Bytes)/1e6, st.Memories, st.Cache.Schema)
	if notice != "" {
		c.Message += "; " + strings.TrimPrefix(notice, "contextfs: ")
	}
	return c
}

// checkMemories validates every memory file.
func checkMemories(ctx context.Context, s *contextfs.Store) doctorCheck {
	c := doctorCheck{Name: "memories", OK: true}
	probs, n, err := s.Validate(ctx, nil)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c
	}
	if len(probs) == 0 {
		c.Message = fmt.Sprintf("%d memory file(s), all valid", n)
		return c
	}
	files := map[string]bool{}
	for _, p := range probs {
		files[p.Path] = true
	}
	c.OK = false
	c.Message = fmt.Sprintf("%d of %d memory file(s) invalid (first: %s); run git contextfs validate", len(files), n, probs[0])
	return c
}

// doctorFix repairs what the checks found fixable and returns what it did.
func (a *app) doctorFix(ctx context.Context, repo *gitstore.Repo, checks []doctorCheck) ([]string, error) {
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

// ---------------------------------------------------------------------------
// git contextfs fmt

// fmtCmd is `fmt`: memory files rewritten in canonical form.
func (a *app) fmtCmd() *cobra.Command {
	var check, asJSON bool
	cmd := &cobra.Command{
		Use:   "fmt [--check] [PATH...]",
		Short: "Rewrite memory files in canonical form",
		Long: `Rewrites memory files (all of them, or the files and folders named) in
canonical form: known frontmatter keys in the standard order (id, type,
title, summary, tags, links, supersedes, reason, author, created, updated, data),
block-style lists, times in UTC, the canonical type name. Unknown keys
are kept, after the known ones. The Markdown body is never changed, not
even by a byte.

A file is written only when its bytes change, atomically. A file that
does not parse is reported and left alone. The paths of rewritten files
are printed.

With --check nothing is written: the files that would change are listed,
for CI. Exit status: 0 nothing to do; 1 a file would change (--check) or
does not parse.

The pre-commit hook never refuses a commit for formatting.`,
		Example: `  git contextfs fmt
  git contextfs fmt --check
  git contextfs fmt .contextfs/memories/use-pgx-k3x9m2abcd.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := gitstore.Discover(a.workDir())
			if err != nil {
				return err
			}
			paths, err := a.fmtTargets(repo, args)
			if err != nil {
				return err
			}
			changed := []string{}
			problems := []contextfs.Problem{}
			for _, rel := range paths {
				did, prob, err := formatFile(repo, rel, !check)
				switch {
				case err != nil:
					problems = append(problems, contextfs.Problem{Path: rel, Rule: "fmt", Message: err.Error()})
				case prob != nil:
					problems = append(problems, *prob)
				case did:
					changed = append(changed, rel)
				}
			}
			if asJSON {
				if err := a.printJSON(map[string]any{"files": len(paths), "changed": changed, "problems": problems, "check": check}); err != nil {
					return err
				}
			} else {
				for _, c := range changed {
					fmt.Fprintln(a.stdout, c)
				}
				for _, p := range problems {
					fmt.Fprintln(a.stderr, p)
				}
				if check && len(changed) > 0 {
					fmt.Fprintf(a.stderr, "%d memory file(s) not in canonical form; run git contextfs fmt\n", len(changed))
				}
			}
			if len(problems) > 0 || check && len(changed) > 0 {
				return &exitError{exitFail}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; list the files that would change and exit 1 if any")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {files, changed, problems, check} as JSON")
	return cmd
}

// fmtTargets returns the memory files to format, work-tree relative: every
// memory, or those named and those under the folders named. Relative
// paths are taken from --repo when it is given, as if started there.
func (a *app) fmtTargets(repo *gitstore.Repo, args []string) ([]string, error) {
	if len(args) == 0 {
		entries, err := repo.List()
		if err != nil {
			return nil, err
		}
		out := make([]string, len(entries))
		for i, e := range entries {
			out[i] = e.Path
		}
		return out, nil
	}
	var out []string
	for _, arg := range args {
		p := arg
		if !filepath.IsAbs(p) && a.dir != "" {
			p = filepath.Join(a.dir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil, fmt.Errorf("fmt %s: %w", arg, errors.Unwrap(err))
		}
		rel := repo.Rel(abs)
		if strings.HasPrefix(rel, "../") || rel == ".." || filepath.IsAbs(rel) {
			return nil, &usageError{fmt.Errorf("fmt %s: outside the repository %s", arg, repo.Root)}
		}
		if !fi.IsDir() {
			// A symbolic link is never a memory, and rewriting one would
			// replace the link with a file.
			if !fi.Mode().IsRegular() || !gitstore.IsMemoryPath(rel) {
				return nil, &usageError{fmt.Errorf("fmt %s: not a memory file (memories are .md files under %s/)", arg, gitstore.Dir)}
			}
			out = append(out, rel)
			continue
		}
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != abs && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if r := repo.Rel(p); d.Type().IsRegular() && gitstore.IsMemoryPath(r) {
				out = append(out, r)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("fmt %s: %w", arg, err)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// formatFile formats one memory file. It reports whether the file is (or,
// without write, would be) changed, or the problem that stops it from
// being parsed.
func formatFile(repo *gitstore.Repo, rel string, write bool) (bool, *contextfs.Problem, error) {
	abs := repo.Abs(rel)
	raw, err := os.ReadFile(abs)
	if err != nil {
		return false, nil, err
	}
	out, prob, err := canonicalForm(rel, raw)
	if prob != nil || err != nil {
		return false, prob, err
	}
	if bytes.Equal(out, raw) {
		return false, nil, nil
	}
	if !write {
		return true, nil, nil
	}
	// An agent or an editor may have saved the file since it was read:
	// their content wins, and fmt can run again.
	if now, err := os.ReadFile(abs); err != nil || !bytes.Equal(now, raw) {
		return false, nil, fmt.Errorf("changed while being formatted; left alone")
	}
	if err := gitstore.WriteFileAtomic(abs, out, 0o644); err != nil {
		return false, nil, err
	}
	return true, nil, nil
}

// canonicalForm returns the canonical bytes of a memory file, or the
// problem that stops it from being parsed. It checks its own work: the
// result must read back as the same memory with the same body bytes, or
// the file is left alone, since a formatter that loses data is worse than
// none.
func canonicalForm(rel string, raw []byte) ([]byte, *contextfs.Problem, error) {
	m, doc, err := gitstore.Decode(rel, raw)
	if err != nil {
		p := contextfs.Problem{Path: rel, Rule: "syntax", Message: err.Error()}
		var de *gitstore.DecodeError
		if errors.As(err, &de) {
			p.Line, p.Message = de.Line, de.Msg
		}
		return nil, &p, nil
	}
	body := slices.Clone(doc.Body)
	out, err := gitstore.Encode(m, doc, true)
	if err != nil {
		return nil, nil, fmt.Errorf("encode: %w", err)
	}
	m2, doc2, err := gitstore.Decode(rel, out)
	if err != nil {
		return nil, nil, fmt.Errorf("canonical form does not parse (%v); left alone", err)
	}
	if !bytes.Equal(doc2.Body, body) {
		return nil, nil, errors.New("canonical form would change the body; left alone")
	}
	if f := differentField(m, m2); f != "" {
		return nil, nil, fmt.Errorf("canonical form would change %s; left alone", f)
	}
	return out, nil, nil
}

// differentField names the first field in which a and b differ as far as
// the canonical form may not change them, or returns "". Times are
// compared to the second, the precision the canonical form keeps.
func differentField(a, b *memory.Memory) string {
	switch {
	case a.ID != b.ID:
		return "id"
	case a.Type != b.Type:
		return "type"
	case a.Title != b.Title:
		return "title"
	case a.Summary != b.Summary:
		return "summary"
	case !slices.Equal(a.Tags, b.Tags):
		return "tags"
	case !slices.Equal(a.Links, b.Links):
		return "links"
	case !slices.Equal(a.Supersedes, b.Supersedes):
		return "supersedes"
	case a.Author != b.Author:
		return "author"
	case !a.Created.Truncate(time.Second).Equal(b.Created.Truncate(time.Second)):
		return "created"
	case !a.Updated.Truncate(time.Second).Equal(b.Updated.Truncate(time.Second)):
		return "updated"
	case !reflect.DeepEqual(memory.NormalizeData(a.Data), memory.NormalizeData(b.Data)):
		return "data"
	}
	return ""
}
