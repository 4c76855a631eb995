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

// cliAs runs git-contextfs args in dir with env (userEnv's: the global
// config is the user's own, in a temporary HOME), its streams apart.
func cliAs(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			// git config --global writes by renaming a new file over it:
			// as root, over /dev/null itself.
			t.Fatalf("cliAs with %s: install would write to that file", kv)
		}
	}
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), args...)
	cmd.Dir, cmd.Env = dir, env
	return runProcess(t, cmd)
}

// globalDriver is merge.contextfs.driver in env's global config, "" when
// unset.
func globalDriver(t *testing.T, env []string) string {
	t.Helper()
	out, _ := gitAs(t, t.TempDir(), env, "config", "--global", "--get", "merge.contextfs.driver")
	return strings.TrimSpace(out)
}

// homeOf is HOME in env.
func homeOf(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}

// TestInstallKeepsADriverThatIsNotOurs: install replaces its own driver
// (an earlier version's too) but not one the user wrote, which it names
// with the way to replace it; uninstall removes only its own.
func TestInstallKeepsADriverThatIsNotOurs(t *testing.T) {
	const mine = "my-wrapper %O %A %B"
	const older = "git-contextfs merge-driver %O %A %B %P"
	tests := []struct {
		name          string
		driver        string // in the global config before
		args          []string
		code          int
		stderr        string
		driverAfter   string // "ours": this version's
		uninstallSays string
		afterUninstal string
	}{
		{"the user's own driver is kept", mine, []string{"install"}, 1,
			`merge.contextfs.driver in HOME/.gitconfig is "my-wrapper %O %A %B", which contextfs did not write: left as it is; git contextfs install --force replaces it`,
			mine, `nothing to remove: merge.contextfs.driver in HOME/.gitconfig is "my-wrapper %O %A %B", which contextfs did not write`, mine},
		{"--force replaces the user's own driver", mine, []string{"install", "--force"}, 0, "",
			"ours", "merge driver removed from HOME/.gitconfig", ""},
		{"an earlier version's driver is updated", older, []string{"install"}, 0, "",
			"ours", "merge driver removed from HOME/.gitconfig", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := userEnv(t, os.Getenv("PATH"))
			home := homeOf(env)
			if out, ok := gitAs(t, home, env, "config", "--global", "merge.contextfs.driver", tt.driver); !ok {
				t.Fatal(out)
			}
			r := cliAs(t, home, env, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, strings.ReplaceAll(tt.stderr, "HOME", home)) {
				t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s\nwant exit %d and stderr with %q", tt.args, r.code, r.stdout, r.stderr, tt.code, tt.stderr)
			}
			want := tt.driverAfter
			if want == "ours" {
				var st struct{ Configured bool }
				decodeJSON(t, cliAs(t, home, env, "install", "--json").stdout, &st)
				if !st.Configured {
					t.Errorf("after %v the driver is %q, not this version's", tt.args, globalDriver(t, env))
				}
			} else if got := globalDriver(t, env); got != want {
				t.Errorf("after %v the driver is %q, want %q", tt.args, got, want)
			}
			r = cliAs(t, home, env, "uninstall")
			if r.code != 0 || !strings.Contains(r.stdout, strings.ReplaceAll(tt.uninstallSays, "HOME", home)) {
				t.Errorf("uninstall: exit %d\nstdout: %s\nstderr: %s\nwant %q", r.code, r.stdout, r.stderr, tt.uninstallSays)
			}
			if got := globalDriver(t, env); got != tt.afterUninstal {
				t.Errorf("after uninstall the driver is %q, want %q", got, tt.afterUninstal)
			}
		})
	}
}

// TestUninstallSaysWhenThereIsNothingAndLeavesNoFileInstallCreated:
// uninstall with nothing registered says so; the global config file that
// install created goes with the driver, while a file the user had stays,
// empty or not; and install writes where git does, the XDG file when only
// that exists.
func TestUninstallSaysWhenThereIsNothingAndLeavesNoFileInstallCreated(t *testing.T) {
	tests := []struct {
		name     string
		before   map[string]string // files under HOME
		file     string            // the global config, under HOME
		wantGone bool              // the file is gone after uninstall
	}{
		{"no global config: install creates it, uninstall deletes it", nil, ".gitconfig", true},
		{"an empty global config of the user's stays", map[string]string{".gitconfig": ""}, ".gitconfig", false},
		{"a global config with settings keeps them", map[string]string{".gitconfig": "[user]\n\tname = Ada\n"}, ".gitconfig", false},
		{"only the XDG config: install writes there", map[string]string{".config/git/config": "[core]\n\teditor = vi\n"}, ".config/git/config", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := userEnv(t, os.Getenv("PATH"))
			home := homeOf(env)
			for rel, content := range tt.before {
				writeFile(t, home, rel, content)
			}
			file := filepath.Join(home, tt.file)
			if r := cliAs(t, home, env, "uninstall"); r.code != 0 || r.stdout != "nothing to remove: no merge driver in "+file+"\n" {
				t.Errorf("uninstall with nothing registered: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if r := cliAs(t, home, env, "install"); r.code != 0 || !strings.Contains(r.stdout, "merge driver registered in "+file) {
				t.Fatalf("install: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if tt.file != ".gitconfig" {
				if _, err := os.Lstat(filepath.Join(home, ".gitconfig")); err == nil {
					t.Errorf("install created ~/.gitconfig, which git would then read instead of %s", file)
				}
			}
			if r := cliAs(t, home, env, "uninstall"); r.code != 0 || !strings.Contains(r.stdout, "merge driver removed") {
				t.Errorf("uninstall: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			b, err := os.ReadFile(file)
			switch {
			case tt.wantGone && err == nil:
				t.Errorf("uninstall left %s:\n%q", file, b)
			case !tt.wantGone && err != nil:
				t.Errorf("uninstall deleted the user's %s: %v", file, err)
			case !tt.wantGone && string(b) != tt.before[tt.file]:
				t.Errorf("uninstall left %s as\n%q\nwant it as it was\n%q", file, b, tt.before[tt.file])
			}
			if r := cliAs(t, home, env, "uninstall"); r.code != 0 || !strings.Contains(r.stdout, "nothing to remove") {
				t.Errorf("uninstall again: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
