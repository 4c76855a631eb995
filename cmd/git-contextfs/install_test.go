package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// userEnv is testgit's environment with a global git config of its own:
// HOME is a temporary directory, as a new user's would be.
func userEnv(t *testing.T, path string) []string {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range testgit.Env() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "GIT_CONFIG_GLOBAL" && k != "HOME" && k != "XDG_CONFIG_HOME" && k != "PATH" {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "PATH="+path)
}

// gitAs runs git in dir with env and returns its combined output and
// whether it succeeded.
func gitAs(t *testing.T, dir string, env []string, args ...string) (string, bool) {
	t.Helper()
	return runIn(t, dir, env, "git", args...)
}

// clonedBranches clones a repository holding driverMemory and a
// .gitattributes that routes memories to contextfs, into a clone whose
// own config has no merge driver, and commits edits a on branch a and b
// on branch b there, with a checked out.
func clonedBranches(t *testing.T, env []string, a, b []string) string {
	t.Helper()
	origin := testgit.Init(t)
	writeFile(t, origin, ".gitattributes", ".contextfs/**/*.md merge=contextfs\n")
	writeFile(t, origin, driverPath, driverMemory)
	testgit.Run(t, origin, "add", "-A")
	testgit.Run(t, origin, "commit", "-qm", "base")
	clone := filepath.Join(t.TempDir(), "clone")
	if out, ok := gitAs(t, origin, env, "clone", "-q", origin, clone); !ok {
		t.Fatalf("clone: %s", out)
	}
	for _, br := range []struct {
		name  string
		edits []string
	}{{"a", a}, {"b", b}} {
		gitAs(t, clone, env, "checkout", "-q", "-b", br.name, "main")
		writeFile(t, clone, driverPath, replace(t, driverMemory, br.edits...))
		if out, ok := gitAs(t, clone, env, "commit", "-qam", "edit on "+br.name); !ok {
			t.Fatalf("commit: %s", out)
		}
	}
	gitAs(t, clone, env, "checkout", "-q", "a")
	return clone
}

func TestInstallMakesEveryFreshCloneMergeMemories(t *testing.T) {
	env := userEnv(t, os.Getenv("PATH"))
	bin := filepath.Join(binDir, "git-contextfs")
	if out, ok := runIn(t, t.TempDir(), env, bin, "install"); !ok || !strings.Contains(out, "merge driver registered in") {
		t.Fatalf("install: %s", out)
	}
	tagA := []string{"  - postgres\n", "  - postgres\n  - x\n"}
	tagB := []string{"  - postgres\n", "  - postgres\n  - y\n"}

	clone := clonedBranches(t, env, tagA, tagB)
	if out, ok := gitAs(t, clone, env, "merge", "--no-edit", "b"); !ok {
		t.Fatalf("a fresh clone did not merge two tag additions after install:\n%s\n%s", out, readMemory(t, clone))
	}
	if got := readMemory(t, clone); !strings.Contains(got, "  - postgres\n  - x\n  - y\n") {
		t.Errorf("merged tags lack x or y:\n%s", got)
	}

	if out, ok := runIn(t, t.TempDir(), env, bin, "uninstall"); !ok {
		t.Fatalf("uninstall: %s", out)
	}
	clone = clonedBranches(t, env, tagA, tagB)
	if _, ok := gitAs(t, clone, env, "merge", "--no-edit", "b"); ok {
		t.Errorf("after uninstall the clone still merged with the driver: uninstall left it configured")
	}
	r := cli(t, clone, "", "doctor")
	if !strings.Contains(r.stdout, "memories merge as plain text") {
		t.Errorf("doctor does not report the plain-text merge:\n%s", r.stdout)
	}
}

func TestMergeDriverConflictMarkersNameTheBranches(t *testing.T) {
	env := userEnv(t, os.Getenv("PATH"))
	if out, ok := runIn(t, t.TempDir(), env, filepath.Join(binDir, "git-contextfs"), "install"); !ok {
		t.Fatalf("install: %s", out)
	}
	clone := clonedBranches(t, env, titleA, titleB)
	if _, ok := gitAs(t, clone, env, "merge", "--no-edit", "b"); ok {
		t.Fatal("two different titles merged without a conflict")
	}
	got := readMemory(t, clone)
	for _, want := range []string{"<<<<<<< a\n", ">>>>>>> b\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("conflict markers do not name the branches (want %q):\n%s", want, got)
		}
	}
}

func TestMergeDriverWithoutTheBinarySaysWhatToDo(t *testing.T) {
	gitDir, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// PATH with git but without git-contextfs.
	env := userEnv(t, filepath.Dir(gitDir)+string(os.PathListSeparator)+"/bin")
	if out, ok := runIn(t, t.TempDir(), env, filepath.Join(binDir, "git-contextfs"), "install"); !ok {
		t.Fatalf("install: %s", out)
	}
	clone := clonedBranches(t, env, []string{"  - postgres\n", "  - postgres\n  - x\n"}, []string{"title: Pool DB connections with pgxpool", "title: Use pgxpool"})
	out, ok := gitAs(t, clone, env, "merge", "--no-edit", "b")
	if !strings.Contains(out, "git-contextfs is not on PATH") || !strings.Contains(out, "put it on PATH (make install)") {
		t.Errorf("merge output does not say what to do:\n%s", out)
	}
	// Lines far apart merge as text, so nothing of either side is lost.
	if got := readMemory(t, clone); !ok || !strings.Contains(got, "  - x\n") || !strings.Contains(got, "title: Use pgxpool") {
		t.Errorf("the text fallback lost a side (merge ok=%v):\n%s", ok, got)
	}
}
