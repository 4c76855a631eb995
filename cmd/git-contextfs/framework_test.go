package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// preCommitFramework returns the path of the pre-commit framework's
// binary. CI installs it (.ci/run); elsewhere a missing one skips the
// tests that need the real framework, saying how to get it.
func preCommitFramework(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("pre-commit")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pre-commit is not on PATH; .ci/run installs it (apt-get install pre-commit)")
		}
		t.Skip("pre-commit is not on PATH: apt-get install pre-commit to run this test")
	}
	return p
}

// frameworkRepo is a repository using contextfs through the pre-commit
// framework: a second repository holds this checkout's
// .pre-commit-hooks.yaml (the framework clones it, offline), and the
// first's .pre-commit-config.yaml names its contextfs hook.
func frameworkRepo(t *testing.T) (dir string, env []string) {
	t.Helper()
	hooksRepo := testgit.Init(t)
	def, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, hooksRepo, ".pre-commit-hooks.yaml", string(def))
	testgit.Run(t, hooksRepo, "add", ".")
	testgit.Run(t, hooksRepo, "commit", "-qm", "hooks")
	rev := testgit.Run(t, hooksRepo, "rev-parse", "HEAD")

	dir = testgit.Init(t)
	ok(t, dir, "init")
	writeFile(t, dir, ".pre-commit-config.yaml", "repos:\n- repo: "+hooksRepo+"\n  rev: "+rev+"\n  hooks:\n  - id: contextfs\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "setup", "--no-verify")
	env = append(testgit.Env(), "PRE_COMMIT_HOME="+t.TempDir(), "PATH="+os.Getenv("PATH"))
	return dir, env
}

// run runs name with args in dir and returns its combined output and
// whether it succeeded.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out), err == nil
}

func TestPreCommitFrameworkRefusesASecretInEveryInstallOrder(t *testing.T) {
	fw := preCommitFramework(t)
	tests := []struct {
		name  string
		steps [][]string // "pre-commit ..." or "git-contextfs ..."
	}{
		{"framework hook only", [][]string{{"pre-commit", "install"}}},
		{"framework, then contextfs hooks, then framework again", [][]string{
			{"pre-commit", "install"}, {"git-contextfs", "hooks", "install"}, {"pre-commit", "install"}}},
		{"contextfs hooks, then framework, re-run", [][]string{
			{"git-contextfs", "hooks", "install"}, {"pre-commit", "install"}, {"pre-commit", "install"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, env := frameworkRepo(t)
			for _, s := range tt.steps {
				bin := fw
				if s[0] == "git-contextfs" {
					bin = filepath.Join(binDir, "git-contextfs")
				}
				if out, ok := runIn(t, dir, env, bin, s[1:]...); !ok {
					t.Fatalf("%v: %s", s, out)
				}
			}
			status := ok(t, dir, "hooks", "status")
			pre := strings.SplitN(status, "\n", 2)[0]
			if !strings.Contains(pre, "pre-commit framework") || strings.Contains(pre, "not installed") {
				t.Errorf("hooks status says for pre-commit:\n%s", pre)
			}

			writeFile(t, dir, ".contextfs/memories/abcd1234.md", memoryFile("abcd1234", "key "+fakeAWSKey+"\n"))
			testgit.Run(t, dir, "add", ".")
			out, committed := runIn(t, dir, env, "git", "commit", "-qm", "leak")
			if committed {
				t.Fatalf("the commit of a memory holding an AWS key went through:\n%s", out)
			}
			// Both hooks installed, git's leaves the check to the
			// framework's: one refusal, not two.
			if n := strings.Count(out, "secret: AWS access key ID"); n != 1 {
				t.Errorf("the refusal names the secret %d times, want once (the check ran once):\n%s", n, out)
			}
			writeFile(t, dir, ".contextfs/memories/abcd1234.md", memoryFile("abcd1234", "key: see the vault\n"))
			testgit.Run(t, dir, "add", ".")
			if out, committed := runIn(t, dir, env, "git", "commit", "-qm", "clean"); !committed {
				t.Fatalf("a clean memory was refused:\n%s", out)
			}
		})
	}
}

// TestPreCommitFrameworkAllFilesChecksEveryMemory runs `pre-commit run
// --all-files`, as CI runs the framework: the hook is given every file
// under .contextfs/, committed long ago or not, and fails on any memory
// that is invalid or holds a token.
func TestPreCommitFrameworkAllFilesChecksEveryMemory(t *testing.T) {
	fw := preCommitFramework(t)
	tests := []struct {
		name    string
		files   map[string]string // committed with --no-verify
		wantOK  bool
		wantOut string
	}{
		{"clean memories pass", map[string]string{".contextfs/memories/abcd1234.md": memoryFile("abcd1234", "Fine.\n")}, true, "Passed"},
		{"a committed memory holding a token fails", map[string]string{
			".contextfs/memories/abcd1234.md": memoryFile("abcd1234", "Fine.\n"),
			".contextfs/memories/efgh5678.md": memoryFile("efgh5678", "key "+fakeAWSKey+"\n")},
			false, ".contextfs/memories/efgh5678.md:8: secret: AWS access key ID"},
		{"a committed invalid memory fails", map[string]string{
			".contextfs/memories/abcd1234.md": strings.Replace(memoryFile("abcd1234", "x\n"), "type: fact", "type: nonsense", 1)},
			false, ".contextfs/memories/abcd1234.md"},
		{"a token in the committed config fails", map[string]string{".contextfs/config.yaml": "embedder:\n  api_key: " + fakeGitHubToken + "\n"},
			false, "secret: GitHub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, env := frameworkRepo(t)
			for rel, content := range tt.files {
				writeFile(t, dir, rel, content)
			}
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "memories", "--no-verify")
			out, passed := runIn(t, dir, env, fw, "run", "--all-files")
			if passed != tt.wantOK || !strings.Contains(out, tt.wantOut) {
				t.Errorf("pre-commit run --all-files passed=%v, want %v with %q:\n%s", passed, tt.wantOK, tt.wantOut, out)
			}
		})
	}
}
