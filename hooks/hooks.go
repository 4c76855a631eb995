package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/internal/printable"
)

// Names returns the hooks contextfs installs, in the order Status reports
// them. It returns a new slice each time, so callers may keep or change it.
func Names() []string {
	return []string{"pre-commit", "post-merge", "post-checkout", "post-rewrite", "post-commit"}
}

// State describes one hook file as contextfs sees it.
type State struct {
	// Name is the hook's name, such as "pre-commit".
	Name string
	// Path is the absolute path of the hook file, whether or not it exists.
	Path string
	// Installed reports that the file holds a contextfs block.
	Installed bool
	// Outdated reports that the block differs from the one this version
	// writes (an older version's, or edited by hand); Install replaces it.
	Outdated bool
	// Chained reports that the file holds a hook besides ours: someone
	// else's script, which runs after our block and which Uninstall keeps.
	Chained bool
	// Executable reports that git will run the file: git silently skips a
	// hook file without the executable bit.
	Executable bool
	// Framework reports that the pre-commit framework owns the hook file
	// git runs; our block then lives in Path, the "<hook>.legacy" file the
	// framework's hook runs first and keeps across `pre-commit install`.
	Framework bool
	// ViaFramework reports that the framework's hook file is in place and
	// .pre-commit-config.yaml lists contextfs' hook for this stage, so the
	// framework runs contextfs' check even without a block of ours.
	ViaFramework bool
	// Tracked reports that the file is tracked in the repository:
	// core.hooksPath names a folder of the work tree that the team
	// shares (.githooks). An edit to it shows in git status and reaches
	// everyone once committed, so `hooks install` says what it changed.
	Tracked bool
}

// Runs reports whether contextfs' handler runs when git runs the hook.
func (s State) Runs() bool {
	return s.ViaFramework || s.Installed && s.Executable && !s.Outdated
}

// HooksDir returns the absolute path of the directory git runs hooks from
// for the work tree holding workTree. It asks `git rev-parse --git-path
// hooks`, which honours core.hooksPath (relative values are relative to the
// top of the work tree) and resolves a linked worktree's hooks to the
// common git directory. The directory may not exist yet.
func HooksDir(ctx context.Context, workTree string) (string, error) {
	top, err := topLevel(ctx, workTree)
	if err != nil {
		return "", err
	}
	dir, err := git(ctx, top, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	dir = filepath.FromSlash(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(top, dir)
	}
	return filepath.Clean(dir), nil
}

// Install adds the contextfs block to each named hook (all of Names when
// names is empty), creating hook files that do not exist and chaining into
// those that do. Installing again changes nothing; an outdated block is
// replaced where it stands. A hook that cannot be edited safely (not a shell
// script, a symbolic link) does not stop the others: Install returns the
// state of every named hook along with an error naming each file it left
// alone.
func Install(ctx context.Context, workTree string, names []string) ([]State, error) {
	return apply(ctx, workTree, names, install)
}

// Uninstall removes the contextfs block from each named hook (all of Names
// when names is empty) and undoes what Install changed around it, so that a
// file nobody edited since is byte for byte what it was before Install;
// a file Install created is deleted. Like Install, it carries on past a
// hook it cannot edit and returns every named hook's state with the error.
func Uninstall(ctx context.Context, workTree string, names []string) ([]State, error) {
	return apply(ctx, workTree, names, uninstall)
}

// Status reports the state of every hook in Names without changing
// anything. It reads through symbolic links, since that is what git runs.
func Status(ctx context.Context, workTree string) ([]State, error) {
	return apply(ctx, workTree, nil, nil)
}

// apply runs fn on the hook file of each name, then inspects it.
func apply(ctx context.Context, workTree string, names []string, fn func(path, name string) error) ([]State, error) {
	if len(names) == 0 {
		names = Names()
	}
	known := Names()
	var seen []string
	for _, n := range names {
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("unknown hook %q: contextfs manages %v", n, known)
		}
		if !slices.Contains(seen, n) {
			seen = append(seen, n)
		}
	}
	dir, err := HooksDir(ctx, workTree)
	if err != nil {
		return nil, err
	}
	top, _ := topLevel(ctx, workTree) // "" in a bare repository: no framework config
	tracked := trackedIn(ctx, top, dir)
	states := make([]State, 0, len(seen))
	var errs []error
	for _, name := range seen {
		if err := ctx.Err(); err != nil {
			return states, errors.Join(append(errs, err)...)
		}
		p := filepath.Join(dir, name)
		var ferr error
		if fn != nil {
			ferr = fn(p, name)
		}
		st, err := inspect(p, name)
		st.ViaFramework = st.Framework && frameworkRunsUs(top, name)
		st.Tracked = tracked[st.Path]
		if ferr != nil {
			err = ferr // it explains the state better
		}
		if err != nil {
			errs = append(errs, err)
		}
		states = append(states, st)
	}
	return states, errors.Join(errs...)
}

// trackedIn returns the files under dir that are tracked in the
// repository whose work tree is top, by absolute path: none when dir is
// outside the work tree (the usual .git/hooks) or git cannot say.
func trackedIn(ctx context.Context, top, dir string) map[string]bool {
	out := map[string]bool{}
	if top == "" {
		return out
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return out
	}
	list, err := git(ctx, top, "ls-files", "-z", "--full-name", "--", filepath.ToSlash(rel))
	if err != nil {
		return out
	}
	for _, p := range strings.Split(list, "\x00") {
		if p != "" {
			out[filepath.Join(top, filepath.FromSlash(p))] = true
		}
	}
	return out
}

// DisabledError is a hook file without the executable bit and without
// contextfs' block: git skips it, most likely because its owner turned it
// off, so Install leaves it as it is rather than make it executable, which
// would turn the owner's script back on too.
type DisabledError struct {
	Path string // the hook file
	Name string // the hook, such as "pre-commit"
}

// Error names the file and says how to have contextfs run from it.
func (e *DisabledError) Error() string {
	return fmt.Sprintf("%s is not executable, so git skips it (turned off?): contextfs left it as it is and did not install there; "+
		"to have contextfs run from it, make it executable (chmod +x) and run git contextfs hooks install again", printable.Path(e.Path))
}

// install puts the block for hook name into the file at p, or into its
// .legacy file when the pre-commit framework owns p.
func install(p, name string) error {
	if frameworkOwns(p) {
		if err := moveOutOfFramework(p); err != nil {
			return err
		}
		return installFile(p+legacySuffix, name)
	}
	return installFile(p, name)
}

// installFile puts the block for hook name into the file at p.
func installFile(p, name string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return createFile(p, []byte(createdShebang+renderBlock(name, undo{created: true})), 0o755)
	}
	if err != nil {
		return err
	}
	if err := editable(p, fi, name); err != nil {
		return err
	}
	content, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	blocks, err := findBlocks(content)
	if err != nil {
		return fmt.Errorf("%s %w", p, err)
	}
	perm := fi.Mode().Perm()
	switch len(blocks) {
	case 0:
	case 1:
		b := blocks[0]
		want := renderBlock(name, b.undo)
		if string(content[b.start:b.end]) == want {
			return nil // up to date: leave even the mtime alone
		}
		out := slices.Concat(content[:b.start], []byte(want), content[b.end:])
		return writeFile(p, out, perm)
	default:
		return fmt.Errorf("%s has %d contextfs blocks; run uninstall to remove them all, then install", p, len(blocks))
	}
	if err := checkShell(content); err != nil {
		return fmt.Errorf("%s %w, so contextfs leaves it alone; call `git-contextfs hook %s` from it yourself", p, err, name)
	}
	if !isExecutable(perm) {
		// git skips the file as it stands. Making it executable for our
		// block would run the owner's script again, which they turned
		// off; an older version did so, and recorded "mode=" in its undo
		// line for Uninstall.
		return &DisabledError{Path: p, Name: name}
	}
	return writeFile(p, insertBlock(content, name, undo{}), perm)
}

// uninstall takes the block for hook name out of the file at p and out of
// its .legacy file, where it went while the pre-commit framework owned p.
func uninstall(p, name string) error {
	if err := uninstallFile(p, name); err != nil {
		return err
	}
	if _, err := os.Lstat(p + legacySuffix); err != nil {
		return nil
	}
	return uninstallFile(p+legacySuffix, name)
}

// uninstallFile takes the block for hook name out of the file at p.
func uninstallFile(p, name string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := editable(p, fi, name); err != nil {
		// Install never edits such a file, so it has no block of ours
		// unless someone put one there by hand.
		if content, rerr := os.ReadFile(p); rerr == nil {
			if blocks, _ := findBlocks(content); len(blocks) > 0 {
				return err
			}
		}
		return nil
	}
	content, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	blocks, err := findBlocks(content)
	if err != nil {
		return fmt.Errorf("%s %w", p, err)
	}
	if len(blocks) == 0 {
		return nil
	}
	restored, remove := removeBlocks(content, blocks)
	if remove {
		return os.Remove(p)
	}
	perm := fi.Mode().Perm()
	if u := blocks[0].undo; u.setMode && perm == withExec(u.mode) {
		perm = u.mode
	}
	return writeFile(p, restored, perm)
}

// editable returns an error unless the hook file at p is one contextfs may
// rewrite: a regular file, not a symbolic link, whose target is often a
// script tracked in the repository.
func editable(p string, fi fs.FileInfo, name string) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		return fmt.Errorf("%s is a symbolic link to %s, so contextfs leaves it alone; call `git-contextfs hook %s` from it yourself", p, target, name)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", p)
	}
	return nil
}

// inspect returns the state of the hook file at p. When the pre-commit
// framework owns p, the state is that of its .legacy file, which the
// framework runs: a block left in p itself is outdated, since the next
// `pre-commit install` drops it.
func inspect(p, name string) (State, error) {
	if !frameworkOwns(p) {
		return inspectFile(p, name)
	}
	inner, _ := os.ReadFile(p)
	blocks, _ := findBlocks(inner)
	st, err := inspectFile(p+legacySuffix, name)
	st.Framework, st.Chained = true, true
	if len(blocks) > 0 {
		st.Installed, st.Outdated = true, true
	}
	return st, err
}

// inspectFile returns the state of the hook file at p.
func inspectFile(p, name string) (State, error) {
	st := State{Name: name, Path: p}
	content, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if fi, err := os.Stat(p); err == nil {
		st.Executable = isExecutable(fi.Mode().Perm())
	}
	blocks, err := findBlocks(content)
	if err != nil {
		st.Installed, st.Outdated = true, true
		return st, fmt.Errorf("%s %w", p, err)
	}
	if len(blocks) == 0 {
		st.Chained = len(content) > 0
		return st, nil
	}
	st.Installed = true
	st.Outdated = len(blocks) > 1
	for _, b := range blocks {
		if string(content[b.start:b.end]) != renderBlock(name, b.undo) {
			st.Outdated = true
		}
	}
	restored, remove := removeBlocks(content, blocks)
	st.Chained = !remove && len(restored) > 0
	return st, nil
}

// isExecutable reports whether git would run a file with permissions perm.
// Git for Windows runs hooks regardless, and the bits mean nothing there.
func isExecutable(perm fs.FileMode) bool {
	return runtime.GOOS == "windows" || perm&0o111 != 0
}

// withExec adds execute permission wherever perm grants read permission,
// as chmod +x does under the usual umask.
func withExec(perm fs.FileMode) fs.FileMode {
	perm |= (perm & 0o444) >> 2
	if perm&0o111 == 0 {
		perm |= 0o100
	}
	return perm
}

// writeFile replaces the file at p with data and permissions perm so that
// git sees the old hook or the new one, never half of one: the data goes to
// a temporary file in the same directory, is synced, and renamed over p.
func writeFile(p string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(p, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// createFile is writeFile for a file that must not exist yet: a hook some
// other program creates meanwhile is theirs, and is not replaced.
func createFile(p string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(p, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	// link(2) fails when p exists: create-if-absent in one step.
	err = os.Link(tmp, p)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s appeared while contextfs was installing it; run install again to chain into it", p)
	}
	if err != nil {
		// Some file systems cannot link; fall back to a rename, which
		// only loses the race against another installer.
		return os.Rename(tmp, p)
	}
	return nil
}

// writeTemp writes data to a new synced temporary file beside p and
// returns its name.
func writeTemp(p string, data []byte, perm fs.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".contextfs-*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	return f.Name(), nil
}
