package hooks

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// go test may itself run from a git hook, where GIT_DIR, GIT_INDEX_FILE
	// and friends point at the outer repository; drop every GIT_ variable
	// so that git sees only the temporary repositories, and keep the
	// user's and the system's config out of them.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			os.Unsetenv(k)
		}
	}
	os.Unsetenv("CONTEXTFS_HOOK_RUN")
	home, err := os.MkdirTemp("", "contextfs-hooks-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", home)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// fakeBinary stands in for git-contextfs: it logs its arguments, copies
// post-rewrite's stdin, resolves merges, and fails for the hooks named in
// CONTEXTFS_TEST_FAIL.
const fakeBinary = `#!/bin/sh
printf '%s\n' "$*" >> "$CONTEXTFS_TEST_LOG"
if [ "$2" = post-rewrite ]; then
  cat >> "$CONTEXTFS_TEST_LOG.stdin"
fi
if [ "$1" = merge-driver ]; then
  printf 'merged %s\n' "$5" > "$3"
  exit 0
fi
case " ${CONTEXTFS_TEST_FAIL-} " in
*" $2 "*) exit 1 ;;
esac
exit 0
`

// repo is a temporary git repository with a fake git-contextfs on PATH.
type repo struct {
	t      *testing.T
	dir    string // top of the work tree
	log    string // what the fake binary logs
	marker string // where the user's hook stand-ins write
	path   string // PATH with the fake first
	bare   string // PATH without any git-contextfs
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the shims are POSIX sh; exercised on Unix")
	}
	base := t.TempDir()
	if d, err := filepath.EvalSymlinks(base); err == nil {
		base = d
	}
	bin := filepath.Join(base, "bin")
	writeTestFile(t, filepath.Join(bin, "git-contextfs"), fakeBinary, 0o755)
	bare := pathWithout("git-contextfs")
	r := &repo{
		t:      t,
		dir:    filepath.Join(base, "repo"),
		log:    filepath.Join(base, "log"),
		marker: filepath.Join(base, "marker"),
		path:   bin + string(os.PathListSeparator) + bare,
		bare:   bare,
	}
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "-q")
	r.git("config", "user.name", "Contextfs Test")
	r.git("config", "user.email", "test@contextfs.invalid")
	r.git("config", "commit.gpgsign", "false")
	r.git("commit", "-q", "--allow-empty", "-m", "initial")
	return r
}

// pathWithout returns $PATH minus the directories holding an executable
// named name, so that a real installation cannot stand in for the fake.
func pathWithout(name string) string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode()&0o111 != 0 {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// env returns the environment for a git command: the fake first on PATH
// unless extra sets PATH itself.
func (r *repo) env(extra ...string) []string {
	env := append(os.Environ(),
		"PATH="+r.path,
		"CONTEXTFS_TEST_LOG="+r.log,
		"MARKER="+r.marker,
	)
	return append(env, extra...)
}

// run runs git in dir with extra environment and returns its output.
func (r *repo) runIn(dir string, extra []string, args ...string) (stdout, stderr string, err error) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = r.env(extra...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// git runs git in the repository and fails the test if git fails.
func (r *repo) git(args ...string) string {
	r.t.Helper()
	out, errOut, err := r.runIn(r.dir, nil, args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return strings.TrimSpace(out)
}

// commit makes an empty commit in dir with extra environment.
func (r *repo) commit(dir string, extra ...string) (stderr string, err error) {
	r.t.Helper()
	_, stderr, err = r.runIn(dir, extra, "commit", "-q", "--allow-empty", "-m", "change")
	return stderr, err
}

// logLines returns the fake binary's log, one call per line.
func (r *repo) logLines() []string {
	r.t.Helper()
	b, err := os.ReadFile(r.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// calls counts the log lines equal to line.
func (r *repo) calls(line string) int {
	n := 0
	for _, l := range r.logLines() {
		if l == line {
			n++
		}
	}
	return n
}

// readMarker returns what the user's hook stand-ins wrote.
func (r *repo) readMarker() string {
	r.t.Helper()
	b, err := os.ReadFile(r.marker)
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *repo) hooksDir() string {
	r.t.Helper()
	d, err := HooksDir(context.Background(), r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

func writeTestFile(t *testing.T, p, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	// WriteFile leaves an existing file's mode, and umask trims new ones.
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
}

// snapshot is a file's bytes and permissions, or absence.
type snapshot struct {
	exists bool
	data   string
	perm   fs.FileMode
}

func snap(t *testing.T, p string) snapshot {
	t.Helper()
	fi, err := os.Lstat(p)
	if os.IsNotExist(err) {
		return snapshot{}
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{exists: true, data: string(b), perm: fi.Mode().Perm()}
}

func stateOf(t *testing.T, states []State, name string) State {
	t.Helper()
	for _, s := range states {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no state for %s in %+v", name, states)
	return State{}
}

func mustInstall(t *testing.T, dir string, names ...string) []State {
	t.Helper()
	states, err := Install(context.Background(), dir, names)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	return states
}

func mustUninstall(t *testing.T, dir string, names ...string) []State {
	t.Helper()
	states, err := Uninstall(context.Background(), dir, names)
	if err != nil {
		t.Fatalf("Uninstall: %v", err)
	}
	return states
}

// execIn returns a command running the hook file with sh in the
// repository, with the test environment.
func execIn(r *repo, hook string) *exec.Cmd {
	cmd := exec.Command("sh", hook)
	cmd.Dir = r.dir
	cmd.Env = r.env()
	return cmd
}
