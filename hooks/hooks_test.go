package hooks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInstallInFreshRepoCreatesExecutableShims(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	states := mustInstall(t, r.dir)
	if got, want := len(states), len(Names()); got != want {
		t.Fatalf("Install returned %d states, want %d", got, want)
	}
	for _, name := range Names() {
		st := stateOf(t, states, name)
		want := State{Name: name, Path: filepath.Join(r.dir, ".git", "hooks", name), Installed: true, Executable: true}
		if st != want {
			t.Errorf("state = %+v, want %+v", st, want)
		}
		s := snap(t, st.Path)
		if s.perm != 0o755 {
			t.Errorf("%s: mode %04o, want 0755", name, s.perm)
		}
		if !strings.HasPrefix(s.data, "#!/bin/sh\n"+beginMarker) {
			t.Errorf("%s does not start with a shebang and our block:\n%s", name, s.data)
		}
	}
}

func TestCommitRunsShims(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fail       string // hooks the fake fails
		wantCommit bool
	}{
		{name: "pre-commit and post-commit both run", wantCommit: true},
		{name: "failing pre-commit blocks the commit", fail: "pre-commit"},
		{name: "failing post-commit does not undo the commit", fail: "post-commit", wantCommit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			mustInstall(t, r.dir)
			before := r.git("rev-parse", "HEAD")
			_, err := r.commit(r.dir, "CONTEXTFS_TEST_FAIL="+tt.fail)
			if committed := r.git("rev-parse", "HEAD") != before; committed != tt.wantCommit || (err == nil) != tt.wantCommit {
				t.Fatalf("commit err = %v, committed = %v; want committed = %v", err, committed, tt.wantCommit)
			}
			if n := r.calls("hook pre-commit"); n != 1 {
				t.Errorf("pre-commit ran %d times, want 1; log %q", n, r.logLines())
			}
			want := 0
			if tt.wantCommit {
				want = 1
			}
			if n := r.calls("hook post-commit"); n != want {
				t.Errorf("post-commit ran %d times, want %d; log %q", n, want, r.logLines())
			}
		})
	}
}

func TestFailingPostHooksNeverBlock(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	mustInstall(t, r.dir)
	main := r.git("symbolic-ref", "--short", "HEAD")
	r.git("checkout", "-q", "-b", "side")
	r.git("commit", "-q", "--allow-empty", "-m", "side")
	if _, errOut, err := r.runIn(r.dir, []string{"CONTEXTFS_TEST_FAIL=post-checkout"}, "checkout", "-q", main); err != nil {
		t.Fatalf("checkout blocked by a failing post-checkout: %v\n%s", err, errOut)
	}
	r.git("commit", "-q", "--allow-empty", "-m", "main")
	if _, errOut, err := r.runIn(r.dir, []string{"CONTEXTFS_TEST_FAIL=post-merge"}, "merge", "-q", "--no-edit", "side"); err != nil {
		t.Fatalf("merge blocked by a failing post-merge: %v\n%s", err, errOut)
	}
	if _, errOut, err := r.runIn(r.dir, []string{"CONTEXTFS_TEST_FAIL=post-rewrite"}, "commit", "-q", "--amend", "-m", "amended"); err != nil {
		t.Fatalf("amend blocked by a failing post-rewrite: %v\n%s", err, errOut)
	}
	for _, want := range []string{"hook post-merge 0", "hook post-rewrite amend"} {
		if r.calls(want) != 1 {
			t.Errorf("log lacks %q: %q", want, r.logLines())
		}
	}
	if !slices.ContainsFunc(r.logLines(), func(l string) bool {
		return strings.HasPrefix(l, "hook post-checkout ") && strings.HasSuffix(l, " 1")
	}) {
		t.Errorf("log lacks a branch post-checkout: %q", r.logLines())
	}
}

func TestCommitWithoutBinaryOnPathSucceedsAndWarns(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	mustInstall(t, r.dir)
	stderr, err := r.commit(r.dir, "PATH="+r.bare)
	if err != nil {
		t.Fatalf("commit failed without git-contextfs on PATH: %v\n%s", err, stderr)
	}
	for _, want := range []string{
		"contextfs: git-contextfs not found on PATH; skipping the pre-commit check",
		"contextfs: git-contextfs not found on PATH; skipping post-commit",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "\x1b[") {
		t.Errorf("stderr has colour codes: %q", stderr)
	}
}

// Stand-ins for hook files other tools write. @DIR@ is the directory of
// the test's helper scripts. Each user part writes to $MARKER and ends
// with a command that fails when USER_FAIL is set, to check that the
// user's exit status still decides.
const (
	plainHook = "#!/bin/sh\necho plain >> \"$MARKER\"\ntest -z \"${USER_FAIL-}\"\n"

	huskyV8Hook = "#!/usr/bin/env sh\n. \"$(dirname -- \"$0\")/_/husky.sh\"\n\necho husky >> \"$MARKER\"\ntest -z \"$USER_FAIL\"\n"
	// husky.sh from husky 5–8: it re-runs the hook file with sh -e.
	huskyV8Script = `#!/usr/bin/env sh
if [ -z "$husky_skip_init" ]; then
  readonly hook_name="$(basename -- "$0")"
  readonly husky_skip_init=1
  export husky_skip_init
  sh -e "$0" "$@"
  exitCode="$?"
  if [ $exitCode != 0 ]; then
    echo "husky - $hook_name hook exited with code $exitCode (error)"
  fi
  exit $exitCode
fi
`
	// husky 9: core.hooksPath is .husky/_, whose files source h, which runs
	// .husky/<hook> and exits.
	huskyV9Hook   = "#!/usr/bin/env sh\n. \"${0%/*}/h\"\n"
	huskyV9Script = `#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
sh -e "$s" "$@"
c=$?
[ $c != 0 ] && echo "husky - $n script failed (code $c)"
exit $c
`
	huskyV9User = "echo husky9 >> \"$MARKER\"\ntest -z \"$USER_FAIL\"\n"

	// The pre-commit framework's template before 2.x ended in exec.
	preCommitLegacyHook = `#!/usr/bin/env bash
# File generated by pre-commit: https://pre-commit.com
# ID: 138fd403232d2ddd5efb44317e38bf03
INSTALL_PYTHON=@DIR@/python
ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)
HERE="$(cd "$(dirname "$0")" && pwd)"
ARGS+=(--hook-dir "$HERE" -- "$@")
exec "$INSTALL_PYTHON" -mpre_commit "${ARGS[@]}"
`
	// Its current template execs from inside an if.
	preCommitHook = `#!/usr/bin/env bash
# File generated by pre-commit: https://pre-commit.com
# ID: 138fd403232d2ddd5efb44317e38bf03

# start templated
INSTALL_PYTHON=@DIR@/python
ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)
# end templated

HERE="$(cd "$(dirname "$0")" && pwd)"
ARGS+=(--hook-dir "$HERE" -- "$@")

if [ -x "$INSTALL_PYTHON" ]; then
    exec "$INSTALL_PYTHON" -mpre_commit "${ARGS[@]}"
elif command -v pre-commit > /dev/null; then
    exec pre-commit "${ARGS[@]}"
else
    echo '` + "`pre-commit`" + ` not found.  Did you forget to activate your virtualenv?' 1>&2
    exit 1
fi
`
	// fakePython does what the framework's hook-impl does first: run
	// <hook-dir>/pre-commit.legacy, the hook that was there before the
	// framework, and fail when it fails.
	fakePython = `#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in --hook-dir) dir=$2; shift ;; --) shift; break ;; esac
  shift
done
if [ -x "$dir/pre-commit.legacy" ]; then "$dir/pre-commit.legacy" "$@" || exit 1; fi
sh -c 'echo framework >> "$MARKER"'
test -z "$USER_FAIL"
`

	lefthookHook = `#!/bin/sh

if [ "$LEFTHOOK_VERBOSE" = "1" -o "$LEFTHOOK_VERBOSE" = "true" ]; then
  set -x
fi

if [ "$LEFTHOOK" = "0" ]; then
  exit 0
fi

call_lefthook()
{
  if test -n "$LEFTHOOK_BIN"
  then
    "$LEFTHOOK_BIN" "$@"
  elif lefthook -h >/dev/null 2>&1
  then
    lefthook "$@"
  else
    echo "Can't find lefthook in PATH"
  fi
}

LEFTHOOK_BIN=@DIR@/lefthook call_lefthook run "pre-commit" "$@"
`
	fakeLefthook = "#!/bin/sh\necho lefthook \"$*\" >> \"$MARKER\"\ntest -z \"$USER_FAIL\"\n"
)

func TestInstallChainsExistingHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		hooksPath string            // core.hooksPath, if any
		hook      string            // the hook file, relative to the work tree
		content   string            // its content
		perm      os.FileMode       // its permissions; 0755 if zero
		files     map[string]string // other files, relative to the work tree
		want      string            // what the user's part writes to $MARKER
	}{
		{name: "plain script", hook: ".git/hooks/pre-commit", content: plainHook, want: "plain\n"},
		{name: "script without trailing newline", hook: ".git/hooks/pre-commit",
			content: strings.TrimSuffix(plainHook, "\n"), want: "plain\n"},
		{name: "script without shebang", hook: ".git/hooks/pre-commit",
			content: strings.TrimPrefix(plainHook, "#!/bin/sh\n"), want: "plain\n"},
		{name: "bash script run through env", hook: ".git/hooks/pre-commit",
			content: strings.Replace(plainHook, "#!/bin/sh", "#!/usr/bin/env bash", 1), want: "plain\n"},
		{name: "script with -eu on the shebang", hook: ".git/hooks/pre-commit",
			content: strings.Replace(plainHook, "#!/bin/sh", "#!/bin/sh -eu", 1), want: "plain\n"},
		{name: "lone shebang without newline", hook: ".git/hooks/pre-commit", content: "#!/bin/sh"},
		{name: "empty file", hook: ".git/hooks/pre-commit", content: ""},
		{name: "husky 5-8 re-running the file from husky.sh", hooksPath: ".husky",
			hook: ".husky/pre-commit", content: huskyV8Hook,
			files: map[string]string{".husky/_/husky.sh": huskyV8Script}, want: "husky\n"},
		{name: "husky 9 running .husky/<hook> and exiting", hooksPath: ".husky/_",
			hook: ".husky/_/pre-commit", content: huskyV9Hook,
			files: map[string]string{".husky/_/h": huskyV9Script, ".husky/pre-commit": huskyV9User}, want: "husky9\n"},
		{name: "pre-commit framework ending in exec", hook: ".git/hooks/pre-commit",
			content: preCommitLegacyHook, files: map[string]string{"helpers/python": fakePython}, want: "framework\n"},
		{name: "pre-commit framework exec inside if", hook: ".git/hooks/pre-commit",
			content: preCommitHook, files: map[string]string{"helpers/python": fakePython}, want: "framework\n"},
		{name: "lefthook", hook: ".git/hooks/pre-commit",
			content: lefthookHook, files: map[string]string{"helpers/lefthook": fakeLefthook}, want: "lefthook run pre-commit\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			helpers := filepath.Join(r.dir, "helpers")
			for name, content := range tt.files {
				writeTestFile(t, filepath.Join(r.dir, name), content, 0o755)
			}
			perm := tt.perm
			if perm == 0 {
				perm = 0o755
			}
			hook := filepath.Join(r.dir, tt.hook)
			writeTestFile(t, hook, strings.ReplaceAll(tt.content, "@DIR@", helpers), perm)
			if tt.hooksPath != "" {
				r.git("config", "core.hooksPath", tt.hooksPath)
			}
			before := snap(t, hook)

			st := stateOf(t, mustInstall(t, r.dir), "pre-commit")
			want := State{Name: "pre-commit", Path: hook, Installed: true, Chained: tt.content != "", Executable: true}
			if isFrameworkHook([]byte(tt.content)) {
				// The framework overwrites its own file: our block goes
				// into the .legacy file, which it runs and keeps.
				want.Path, want.Framework = hook+legacySuffix, true
			}
			if st != want {
				t.Errorf("state after Install = %+v, want %+v", st, want)
			}
			after := snap(t, hook)
			if !strings.HasPrefix(after.data, "#!") && before.data != "" && strings.HasPrefix(before.data, "#!") {
				t.Errorf("the shebang is no longer first:\n%s", after.data)
			}

			if stderr, err := r.commit(r.dir); err != nil {
				t.Fatalf("commit: %v\n%s", err, stderr)
			}
			if n := r.calls("hook pre-commit"); n != 1 {
				t.Errorf("our pre-commit ran %d times, want once; log %q", n, r.logLines())
			}
			if got := r.readMarker(); got != tt.want {
				t.Errorf("the user's hook wrote %q, want %q", got, tt.want)
			}
			if tt.want != "" {
				// Their failure must still stop the commit.
				if _, err := r.commit(r.dir, "USER_FAIL=1"); err == nil {
					t.Errorf("commit succeeded although the user's hook failed")
				}
				if n := r.calls("hook pre-commit"); n != 2 {
					t.Errorf("our pre-commit ran %d times in two commits, want 2", n)
				}
			}

			mustUninstall(t, r.dir)
			if got := snap(t, hook); got != before {
				t.Errorf("after Uninstall the hook is\n%q (mode %04o), want\n%q (mode %04o)", got.data, got.perm, before.data, before.perm)
			}
		})
	}
}

func TestUninstallAfterFreshInstallRemovesEveryFile(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	mustInstall(t, r.dir)
	states := mustUninstall(t, r.dir)
	for _, st := range states {
		if st.Installed || st.Chained {
			t.Errorf("state after Uninstall = %+v", st)
		}
		if _, err := os.Lstat(st.Path); !os.IsNotExist(err) {
			t.Errorf("%s still exists (err %v)", st.Path, err)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(r.hooksDir(), ".*contextfs*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestUninstallKeepsLinesAddedToCreatedHook(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	st := stateOf(t, mustInstall(t, r.dir, "post-merge"), "post-merge")
	f, err := os.OpenFile(st.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "echo mine")
	f.Close()
	if st := stateOf(t, mustUninstall(t, r.dir, "post-merge"), "post-merge"); st.Installed || !st.Chained {
		t.Errorf("state after Uninstall = %+v, want a chained hook without our block", st)
	}
	if got, want := snap(t, st.Path), (snapshot{true, "#!/bin/sh\necho mine\n", 0o755}); got != want {
		t.Errorf("hook after Uninstall = %+v, want %+v", got, want)
	}
}

func TestUninstallKeepsUserEditsMadeAfterInstall(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	hook := filepath.Join(r.hooksDir(), "pre-commit")
	writeTestFile(t, hook, plainHook, 0o755)
	mustInstall(t, r.dir)
	b, _ := os.ReadFile(hook)
	writeTestFile(t, hook, string(b)+"echo later >> \"$MARKER\"\n", 0o755)
	mustUninstall(t, r.dir)
	if got, want := snap(t, hook).data, plainHook+"echo later >> \"$MARKER\"\n"; got != want {
		t.Errorf("hook after Uninstall = %q, want %q", got, want)
	}
}

func TestInstallTwiceChangesNothing(t *testing.T) {
	t.Parallel()
	for _, existing := range []string{"", plainHook, "#!/bin/sh", "echo no shebang\n"} {
		t.Run(fmt.Sprintf("%q", existing), func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			if existing != "" {
				writeTestFile(t, filepath.Join(r.hooksDir(), "pre-commit"), existing, 0o755)
			}
			first := mustInstall(t, r.dir)
			type file struct {
				snap snapshot
				info os.FileInfo
			}
			files := map[string]file{}
			for _, st := range first {
				fi, err := os.Stat(st.Path)
				if err != nil {
					t.Fatal(err)
				}
				files[st.Name] = file{snap(t, st.Path), fi}
			}
			second := mustInstall(t, r.dir)
			if !slices.Equal(first, second) {
				t.Errorf("states differ:\n%+v\n%+v", first, second)
			}
			for _, st := range second {
				fi, err := os.Stat(st.Path)
				if err != nil {
					t.Fatal(err)
				}
				if got := snap(t, st.Path); got != files[st.Name].snap {
					t.Errorf("%s changed:\n%q\n%q", st.Name, files[st.Name].snap.data, got.data)
				}
				if !os.SameFile(fi, files[st.Name].info) || !fi.ModTime().Equal(files[st.Name].info.ModTime()) {
					t.Errorf("%s was rewritten", st.Name)
				}
			}
		})
	}
}

func TestInstallReplacesOutdatedBlockInPlace(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	hook := filepath.Join(r.hooksDir(), "post-checkout")
	old := "#!/bin/sh\n" +
		"echo before\n" +
		"# BEGIN contextfs (v0.1; generated)\n" +
		"# contextfs-undo: mode=0644\n" +
		"git-contextfs hook post-checkout \"$@\"\n" +
		"# END contextfs\n" +
		"echo after\n"
	writeTestFile(t, hook, old, 0o755)
	ctx := context.Background()
	states, err := Status(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := stateOf(t, states, "post-checkout"); !st.Installed || !st.Outdated || !st.Chained {
		t.Errorf("Status of an old block = %+v, want installed, outdated and chained", st)
	}
	if st := stateOf(t, mustInstall(t, r.dir), "post-checkout"); !st.Installed || st.Outdated {
		t.Errorf("state after Install = %+v, want installed and current", st)
	}
	want := "#!/bin/sh\necho before\n" + renderBlock("post-checkout", undo{setMode: true, mode: 0o644}) + "echo after\n"
	if got := snap(t, hook).data; got != want {
		t.Errorf("hook after Install =\n%s\nwant\n%s", got, want)
	}
	// The undo record survived the replacement.
	mustUninstall(t, r.dir)
	if got, want := snap(t, hook), (snapshot{true, "#!/bin/sh\necho before\necho after\n", 0o644}); got != want {
		t.Errorf("hook after Uninstall = %+v, want %+v", got, want)
	}
}

func TestInstallLeavesNonShellHooksAlone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, hook string)
		want  string // in the error
	}{
		{"python script", func(t *testing.T, hook string) {
			writeTestFile(t, hook, "#!/usr/bin/env python3\nprint('hi')\n", 0o755)
		}, "is a python3 script"},
		{"binary", func(t *testing.T, hook string) {
			writeTestFile(t, hook, "\x7fELF\x02\x01\x01\x00\x00\x00", 0o755)
		}, "is a binary"},
		{"symbolic link", func(t *testing.T, hook string) {
			target := filepath.Join(filepath.Dir(hook), "tracked-script")
			writeTestFile(t, target, plainHook, 0o755)
			if err := os.Symlink(target, hook); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"half a block", func(t *testing.T, hook string) {
			writeTestFile(t, hook, "#!/bin/sh\n# BEGIN contextfs\necho\n", 0o755)
		}, "without a matching"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			hook := filepath.Join(r.hooksDir(), "pre-commit")
			tt.setup(t, hook)
			before := snap(t, hook)
			states, err := Install(context.Background(), r.dir, nil)
			if err == nil || !strings.Contains(err.Error(), hook) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Install error = %v, want one naming %s and saying %q", err, hook, tt.want)
			}
			if got := snap(t, hook); got != before {
				t.Errorf("Install changed the hook to %q", got.data)
			}
			for _, st := range states {
				if st.Name != "pre-commit" && !st.Installed {
					t.Errorf("%s was not installed although only pre-commit was refused", st.Name)
				}
			}
		})
	}
}

func TestInstallRejectsUnknownHookNames(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	if _, err := Install(context.Background(), r.dir, []string{"pre-push"}); err == nil {
		t.Fatal("Install(pre-push) succeeded")
	}
	if entries, _ := os.ReadDir(r.hooksDir()); slices.ContainsFunc(entries, func(e os.DirEntry) bool {
		return !strings.HasSuffix(e.Name(), ".sample")
	}) {
		t.Errorf("Install wrote hooks despite the error: %v", entries)
	}
}

func TestCRLFHookKeepsItsLinesAndRuns(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	hook := filepath.Join(r.hooksDir(), "pre-commit")
	// The trailing "#" keeps the CR out of the command for sh. (A CR on
	// the "#!" line stops the kernel from running the file at all, which
	// is why this test runs it with sh.)
	content := "#!/bin/sh\r\necho crlf >> \"$MARKER\" #\r\n"
	writeTestFile(t, hook, content, 0o755)
	mustInstall(t, r.dir, "pre-commit")
	got := snap(t, hook).data
	if want := "#!/bin/sh\r\n" + renderBlock("pre-commit", undo{}) + "echo crlf >> \"$MARKER\" #\r\n"; got != want {
		t.Errorf("hook after Install = %q, want %q", got, want)
	}
	cmd := execIn(r, hook)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh %s: %v\n%s", hook, err, out)
	}
	if r.calls("hook pre-commit") != 1 || r.readMarker() != "crlf\n" {
		t.Errorf("log %q, marker %q: want both parts to run", r.logLines(), r.readMarker())
	}
	mustUninstall(t, r.dir)
	if got := snap(t, hook); got != (snapshot{true, content, 0o755}) {
		t.Errorf("hook after Uninstall = %q", got.data)
	}
}

func TestPostRewritePassesStdinThrough(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rewrite func(r *repo) []string // returns "old new" pairs
	}{
		{"amend", func(r *repo) []string {
			old := r.git("rev-parse", "HEAD")
			r.git("commit", "-q", "--amend", "--allow-empty", "-m", "amended")
			return []string{old + " " + r.git("rev-parse", "HEAD")}
		}},
		{"rebase of two commits", func(r *repo) []string {
			r.git("commit", "-q", "--allow-empty", "-m", "one")
			r.git("commit", "-q", "--allow-empty", "-m", "two")
			old := strings.Fields(r.git("rev-list", "--reverse", "HEAD~2..HEAD"))
			r.git("rebase", "-q", "--force-rebase", "--keep-empty", "HEAD~2")
			now := strings.Fields(r.git("rev-list", "--reverse", "HEAD~2..HEAD"))
			return []string{old[0] + " " + now[0], old[1] + " " + now[1]}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			writeTestFile(t, filepath.Join(r.hooksDir(), "post-rewrite"), "#!/bin/sh\ncat >> \"$MARKER\"\n", 0o755)
			mustInstall(t, r.dir)
			pairs := tt.rewrite(r)
			want := strings.Join(pairs, "\n") + "\n"
			ours, err := os.ReadFile(r.log + ".stdin")
			if err != nil {
				t.Fatal(err)
			}
			if string(ours) != want {
				t.Errorf("git-contextfs read %q on stdin, want %q", ours, want)
			}
			if got := r.readMarker(); got != want {
				t.Errorf("the user's post-rewrite read %q on stdin, want %q", got, want)
			}
		})
	}
}

func TestShimsRunInNestedGitCommands(t *testing.T) {
	t.Parallel()
	outer, inner := newRepo(t), newRepo(t)
	// A hook that commits elsewhere: the inner commit's hooks must run
	// although the outer hook's guard is in the environment.
	writeTestFile(t, filepath.Join(outer.hooksDir(), "pre-commit"),
		"#!/bin/sh\nenv -u GIT_INDEX_FILE -u GIT_DIR -u GIT_WORK_TREE git -C \""+inner.dir+"\" commit -q --allow-empty -m nested\n", 0o755)
	mustInstall(t, outer.dir)
	mustInstall(t, inner.dir)
	if stderr, err := outer.commit(outer.dir); err != nil {
		t.Fatalf("commit: %v\n%s", err, stderr)
	}
	if n := outer.calls("hook pre-commit"); n != 2 {
		t.Errorf("pre-commit ran %d times for two commits; log %q", n, outer.logLines())
	}
	if got := inner.git("log", "-1", "--format=%s"); got != "nested" {
		t.Errorf("inner commit missing: last subject %q", got)
	}
}

func TestHooksLandWhereGitRunsThem(t *testing.T) {
	t.Parallel()
	abs := t.TempDir()
	if d, err := filepath.EvalSymlinks(abs); err == nil {
		abs = d
	}
	tests := []struct {
		name  string
		setup func(r *repo) (installFrom, wantDir string, commitIn []string)
	}{
		{"default", func(r *repo) (string, string, []string) {
			return r.dir, filepath.Join(r.dir, ".git", "hooks"), []string{r.dir}
		}},
		{"relative core.hooksPath from a subdirectory", func(r *repo) (string, string, []string) {
			r.git("config", "core.hooksPath", "tools/githooks")
			sub := filepath.Join(r.dir, "deep", "er")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				r.t.Fatal(err)
			}
			return sub, filepath.Join(r.dir, "tools", "githooks"), []string{r.dir, sub}
		}},
		{"absolute core.hooksPath", func(r *repo) (string, string, []string) {
			r.git("config", "core.hooksPath", abs)
			return r.dir, abs, []string{r.dir}
		}},
		{"linked worktree", func(r *repo) (string, string, []string) {
			wt := filepath.Join(filepath.Dir(r.dir), "wt")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			return wt, filepath.Join(r.dir, ".git", "hooks"), []string{wt, r.dir}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			from, wantDir, commitIn := tt.setup(r)
			got, err := HooksDir(context.Background(), from)
			if err != nil || got != wantDir {
				t.Fatalf("HooksDir = %q, %v; want %q", got, err, wantDir)
			}
			for _, st := range mustInstall(t, from) {
				if filepath.Dir(st.Path) != wantDir || !st.Installed {
					t.Errorf("state %+v, want installed in %s", st, wantDir)
				}
			}
			for i, dir := range commitIn {
				if stderr, err := r.commit(dir); err != nil {
					t.Fatalf("commit in %s: %v\n%s", dir, err, stderr)
				}
				if n := r.calls("hook pre-commit"); n != i+1 {
					t.Errorf("after committing in %s, pre-commit ran %d times, want %d", dir, n, i+1)
				}
			}
		})
	}
}

func TestStatusReportsForeignHookAsChained(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeTestFile(t, filepath.Join(r.hooksDir(), "post-commit"), plainHook, 0o644)
	states, err := Status(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := stateOf(t, states, "post-commit"); got.Installed || !got.Chained || got.Executable {
		t.Errorf("state = %+v, want a foreign, non-executable hook", got)
	}
	if got := stateOf(t, states, "pre-commit"); got != (State{Name: "pre-commit", Path: filepath.Join(r.hooksDir(), "pre-commit")}) {
		t.Errorf("state = %+v, want an absent hook", got)
	}
}

func TestShimsRunUnderStrictShellOptions(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	for _, st := range mustInstall(t, r.dir) {
		for _, shell := range []string{"sh", "bash"} {
			if _, err := exec.LookPath(shell); err != nil {
				continue
			}
			cmd := exec.Command(shell, "-eu", st.Path, "arg1")
			cmd.Dir, cmd.Env = r.dir, r.env()
			cmd.Stdin = strings.NewReader("old new\n")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s -eu %s: %v\n%s", shell, st.Name, err, out)
			}
			if n := r.calls("hook " + st.Name + " arg1"); n == 0 {
				t.Errorf("%s -eu %s did not run git-contextfs; log %q", shell, st.Name, r.logLines())
			}
		}
	}
}
