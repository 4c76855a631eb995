package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// memoryFile returns a valid memory file with the given id and body.
func memoryFile(id, body string) string {
	return "---\nid: " + id + "\ntype: fact\ntitle: Memory " + id + "\n" +
		"created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\n" + body
}

// memoryBodyLine is the file line of a memoryFile's first body line.
const memoryBodyLine = 8

// Secrets for fixtures are assembled at run time, so that this file holds
// none a scanner would flag.
var (
	fakeAWSKey      = "AKIA" + "Z7QWERTYUIOPASDF"
	fakeGitHubToken = "ghp_" + "Zx8Kq2Lm4Np6Rs8Tu0Vw2Xy4Za6Bc8De0Fg2"
	fakePEM         = "-----BEGIN " + "RSA PRIVATE KEY-----\n" +
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
		"-----END RSA PRIVATE KEY-----\n"
)

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gitEnv runs git in dir with extra environment variables, the way a user
// would, so that the installed hooks run the test binary. It returns
// git's stderr, where hooks report, and its exit status.
func gitEnv(t testing.TB, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out.String(), 0
}

// hookedRepo returns a repository with one commit and the hooks installed.
func hookedRepo(t testing.TB) string {
	t.Helper()
	dir := testgit.Init(t)
	writeFile(t, dir, "README", "project\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	ok(t, dir, "hooks", "install")
	return dir
}

// listedIDs returns the IDs `list --json` shows, sorted.
func listedIDs(t testing.TB, dir string) []string {
	t.Helper()
	var es []struct {
		ID string `json:"id"`
	}
	decodeJSON(t, ok(t, dir, "list", "--json"), &es)
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	sort.Strings(ids)
	return ids
}

func TestHookPreCommitRefusesInvalidMemoriesAndSecrets(t *testing.T) {
	t.Parallel()
	const rel = ".contextfs/memories/m.md"
	tests := []struct {
		name    string
		content string
		config  string
		// wantRefused lists what stderr must name, "" means the commit
		// goes through.
		want string
	}{
		{"schema-invalid memory", "---\nid: abcd1234\ntype: decision\ntitle: T\ncreated: 2024-05-01T10:00:00Z\n" +
			"updated: 2024-05-01T10:00:00Z\ndata:\n  status: maybe\n---\nB\n", "", rel + ":8: schema: data.status"},
		{"unknown type", strings.Replace(memoryFile("abcd1234", "B\n"), "type: fact", "type: factoid", 1), "", rel + ":3: type:"},
		{"YAML syntax error", "---\nid: abcd1234\ntitle: a: b\n---\nB\n", "", rel + ":3: syntax:"},
		{"AWS access key", memoryFile("abcd1234", "key "+fakeAWSKey+"\n"), "", fmt.Sprintf("%s:%d: secret: AWS access key ID", rel, memoryBodyLine)},
		{"GitHub token", memoryFile("abcd1234", "One.\n\ntoken: "+fakeGitHubToken+"\n"), "", fmt.Sprintf("%s:%d: secret: GitHub token", rel, memoryBodyLine+2)},
		{"PEM private key", memoryFile("abcd1234", "Deploy key:\n"+fakePEM), "", fmt.Sprintf("%s:%d: secret: private key", rel, memoryBodyLine+1)},

		{"valid memory", memoryFile("abcd1234", "Keys live in the vault.\n"), "", ""},
		{"the same memory without the secret", memoryFile("abcd1234", "key: see the vault\n"), "", ""},
		{"non-canonical but valid", "---\ntitle: Hand written\ntags: [b, a]\ntype: note\nupdated: 2024-05-02\nid: abcd1234\ncreated: 2024-05-01\n---\n\n  odd   spacing\n\n\n", "", ""},
		{"allow marker on the secret's line", memoryFile("abcd1234", "key "+fakeAWSKey+" <!-- contextfs:allow-secret -->\n"), "", ""},
		{"allow pattern in config.yaml", memoryFile("abcd1234", "key "+fakeAWSKey+"\n"), "secrets:\n  allow: ['^AKIAZ7QW']\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := hookedRepo(t)
			if tt.config != "" {
				writeFile(t, dir, ".contextfs/config.yaml", tt.config)
			}
			writeFile(t, dir, rel, tt.content)
			testgit.Run(t, dir, "add", "-A")
			stderr, code := gitEnv(t, dir, nil, "commit", "-q", "-m", "add memory")
			if tt.want == "" {
				if code != 0 {
					t.Fatalf("commit refused (exit %d), want it to go through:\n%s", code, stderr)
				}
				if strings.Contains(stderr, "contextfs") {
					t.Errorf("hooks printed on a clean commit:\n%s", stderr)
				}
				return
			}
			if code == 0 {
				t.Fatalf("commit went through, want it refused naming %q:\n%s", tt.want, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr does not name %q:\n%s", tt.want, stderr)
			}
			if !strings.Contains(stderr, "git commit --no-verify") {
				t.Errorf("stderr does not tell how to bypass:\n%s", stderr)
			}
			for _, secret := range []string{fakeAWSKey, fakeGitHubToken, "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOE"} {
				if strings.Contains(stderr, secret) {
					t.Errorf("stderr discloses the secret %q", secret)
				}
			}
			if strings.Contains(stderr, "\x1b[") {
				t.Errorf("stderr holds terminal escapes:\n%q", stderr)
			}
			if out := testgit.Run(t, dir, "rev-list", "--count", "HEAD"); out != "1" {
				t.Errorf("HEAD has %s commits after a refused commit, want 1", out)
			}
		})
	}
}

func TestHookPreCommitChecksWhatTheCommitWillHold(t *testing.T) {
	t.Parallel()
	const rel = ".contextfs/m.md"
	valid := memoryFile("abcd1234", "B\n")
	invalid := strings.Replace(valid, "type: fact", "type: factoid", 1)
	tests := []struct {
		name        string
		commit      []string // git commit arguments
		staged      string   // "" stages nothing
		onDisk      string
		wantRefused bool
	}{
		{"index valid, work tree invalid", []string{"commit", "-q", "-m", "x"}, valid, invalid, false},
		{"index invalid, work tree valid", []string{"commit", "-q", "-m", "x"}, invalid, valid, true},
		{"commit -a takes the work tree", []string{"commit", "-q", "-a", "-m", "x"}, "", invalid, true},
		{"commit PATH takes the work tree", []string{"commit", "-q", "-m", "x", "--", rel}, "", invalid, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := hookedRepo(t)
			writeFile(t, dir, rel, memoryFile("abcd1234", "first version\n"))
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "commit", "-q", "-m", "memory")
			if tt.staged != "" {
				writeFile(t, dir, rel, tt.staged)
				testgit.Run(t, dir, "add", rel)
			}
			writeFile(t, dir, rel, tt.onDisk)
			stderr, code := gitEnv(t, dir, nil, tt.commit...)
			if refused := code != 0; refused != tt.wantRefused {
				t.Errorf("refused = %v, want %v:\n%s", refused, tt.wantRefused, stderr)
			}
			if tt.wantRefused && !strings.Contains(stderr, rel+":3: type:") {
				t.Errorf("stderr does not name %s:3:\n%s", rel, stderr)
			}
		})
	}
}

func TestHookPostCheckoutAndMergeRefreshTheCache(t *testing.T) {
	t.Parallel()
	dir := hookedRepo(t)
	debug := []string{"CONTEXTFS_HOOK_DEBUG=1"}
	writeFile(t, dir, ".contextfs/shared.md", memoryFile("shared01", "S\n"))
	writeFile(t, dir, ".contextfs/main.md", memoryFile("mainonly", "M\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "main memories")
	testgit.Run(t, dir, "checkout", "-q", "-b", "feature")
	testgit.Run(t, dir, "rm", "-q", ".contextfs/main.md")
	writeFile(t, dir, ".contextfs/feature.md", memoryFile("featonly", "F\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "feature memories")
	testgit.Run(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, ".contextfs/late.md", memoryFile("late0001", "L\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "main moves on")
	testgit.Run(t, dir, "checkout", "-q", "feature")
	if got, want := listedIDs(t, dir), []string{"featonly", "shared01"}; !slices.Equal(got, want) {
		t.Fatalf("on feature: list = %v, want %v", got, want)
	}

	steps := []struct {
		name     string
		git      []string
		wantNote string // in the hook's debug output
		wantIDs  []string
	}{
		{"switch to main", []string{"checkout", "main"},
			"post-checkout: refreshed 3 memory file(s): 2 changed, 1 removed", []string{"late0001", "mainonly", "shared01"}},
		{"switch back to feature", []string{"checkout", "feature"},
			"post-checkout: refreshed 2 memory file(s): 1 changed, 2 removed", []string{"featonly", "shared01"}},
		{"check out one file", []string{"checkout", "main", "--", ".contextfs/main.md"},
			"post-checkout: skipped: a checkout of files", []string{"featonly", "mainonly", "shared01"}},
		{"commit it", []string{"commit", "-q", "-m", "restore main.md"},
			"post-commit: refreshed 3 memory file(s)", []string{"featonly", "mainonly", "shared01"}},
		{"merge main", []string{"merge", "-q", "--no-edit", "main"},
			"post-merge: refreshed 4 memory file(s): 1 changed, 0 removed", []string{"featonly", "late0001", "mainonly", "shared01"}},
	}
	for _, st := range steps {
		stderr, code := gitEnv(t, dir, debug, st.git...)
		if code != 0 {
			t.Fatalf("%s: git %v: exit %d\n%s", st.name, st.git, code, stderr)
		}
		if !strings.Contains(stderr, st.wantNote) {
			t.Errorf("%s: the hook did not report %q:\n%s", st.name, st.wantNote, stderr)
		}
		if got := listedIDs(t, dir); !slices.Equal(got, st.wantIDs) {
			t.Errorf("%s: list = %v, want %v", st.name, got, st.wantIDs)
		}
	}
}

func TestHookRebaseRefreshesOnceAtTheEnd(t *testing.T) {
	t.Parallel()
	dir := hookedRepo(t)
	testgit.Run(t, dir, "checkout", "-q", "-b", "feature")
	for i := 1; i <= 2; i++ {
		writeFile(t, dir, fmt.Sprintf(".contextfs/f%d.md", i), memoryFile(fmt.Sprintf("feat%04d", i), "F\n"))
		testgit.Run(t, dir, "add", "-A")
		testgit.Run(t, dir, "commit", "-q", "-m", fmt.Sprint("f", i))
	}
	testgit.Run(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "other.txt", "x\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "main moves on")
	testgit.Run(t, dir, "checkout", "-q", "feature")

	stderr, code := gitEnv(t, dir, []string{"CONTEXTFS_HOOK_DEBUG=1"}, "rebase", "main")
	if code != 0 {
		t.Fatalf("rebase: exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "post-rewrite: refreshed"); n != 1 {
		t.Errorf("post-rewrite refreshed %d times, want once:\n%s", n, stderr)
	}
	if strings.Contains(stderr, "post-commit: refreshed") || strings.Contains(stderr, "post-checkout: refreshed") {
		t.Errorf("a hook refreshed in the middle of the rebase:\n%s", stderr)
	}
	if got, want := listedIDs(t, dir), []string{"feat0001", "feat0002"}; !slices.Equal(got, want) {
		t.Errorf("list = %v, want %v", got, want)
	}
}

func TestHookFailuresNeverBlockACommit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		env      []string
		setup    func(t *testing.T, dir string)
		content  string
		wantWarn string
	}{
		{
			name:     "embedding server unreachable",
			env:      []string{"CONTEXTFS_EMBEDDER=openai", "CONTEXTFS_EMBED_URL=http://127.0.0.1:1"},
			content:  memoryFile("abcd1234", "B\n"),
			wantWarn: "contextfs: post-commit: warning: cache not refreshed",
		},
		{
			name: "cache directory unusable",
			setup: func(t *testing.T, dir string) {
				os.RemoveAll(filepath.Join(dir, ".git", "contextfs"))
				writeFile(t, dir, ".git/contextfs", "a file where the cache directory should be\n")
			},
			content:  memoryFile("abcd1234", "B\n"),
			wantWarn: "contextfs: post-commit: warning: cache not refreshed",
		},
		{
			name:     "pre-commit over its time budget",
			env:      []string{"CONTEXTFS_HOOK_TIMEOUT=1ns"},
			content:  "no frontmatter: invalid, but the check never finishes\n",
			wantWarn: "contextfs: pre-commit: warning: took longer than 1ns and was skipped",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := hookedRepo(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			writeFile(t, dir, ".contextfs/m.md", tt.content)
			testgit.Run(t, dir, "add", "-A")
			stderr, code := gitEnv(t, dir, tt.env, "commit", "-q", "-m", "memory")
			if code != 0 {
				t.Fatalf("commit refused (exit %d), want it to fail open:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tt.wantWarn) {
				t.Errorf("stderr lacks the warning %q:\n%s", tt.wantWarn, stderr)
			}
		})
	}
}

func TestHookHandlersExitZeroOnInternalErrors(t *testing.T) {
	t.Parallel()
	notRepo := t.TempDir()
	tests := []struct {
		name     string
		dir      string
		args     []string
		wantWarn string
	}{
		{"pre-commit outside a repository", notRepo, []string{"hook", "pre-commit"}, "contextfs: pre-commit: warning:"},
		{"post-checkout outside a repository", notRepo, []string{"hook", "post-checkout", "a", "b", "1"}, "contextfs: post-checkout: warning:"},
		{"a hook this version does not know", notRepo, []string{"hook", "pre-push", "origin"}, "contextfs: pre-push: warning: unknown hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := cli(t, tt.dir, "", tt.args...)
			if r.code != 0 {
				t.Errorf("exit %d, want 0 (fail open)\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.wantWarn) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantWarn, r.stderr)
			}
		})
	}
}

func TestHookPostRewriteConsumesStdin(t *testing.T) {
	t.Parallel()
	dir := hookedRepo(t)
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "hook", "post-rewrite", "amend")
	cmd.Dir = dir
	cmd.Env = testgit.Env()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Far more than a pipe buffers: the write fails with a broken pipe
	// unless the handler reads it all.
	line := strings.Repeat("a", 40) + " " + strings.Repeat("b", 40) + "\n"
	_, werr := io.WriteString(in, strings.Repeat(line, 1<<14))
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("post-rewrite: %v\n%s", err, stderr.String())
	}
	if werr != nil {
		t.Errorf("writing the rewritten list: %v; the handler did not read its stdin", werr)
	}
}

func TestHooksInstallStatusUninstall(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	userHook := "#!/bin/sh\necho user hook ran >> \"$(git rev-parse --git-dir)/user-hook.log\"\n"
	writeFile(t, dir, ".git/hooks/post-commit", userHook)
	os.Chmod(filepath.Join(dir, ".git/hooks/post-commit"), 0o755)

	type status struct {
		Hooks []struct {
			Name                                     string
			Installed, Outdated, Chained, Executable bool
		} `json:"hooks"`
		MergeDriver struct {
			Configured, Attributes bool
		} `json:"merge_driver"`
	}
	read := func() status {
		var s status
		decodeJSON(t, ok(t, dir, "hooks", "status", "--json"), &s)
		return s
	}

	s := read()
	if len(s.Hooks) != 5 || s.MergeDriver.Configured {
		t.Fatalf("before install: %+v", s)
	}
	for _, h := range s.Hooks {
		if h.Installed {
			t.Errorf("%s installed before install", h.Name)
		}
	}

	out := ok(t, dir, "hooks", "install")
	for _, want := range []string{"pre-commit     installed", "post-commit    installed, chained", "merge driver   registered"} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	s = read()
	for _, h := range s.Hooks {
		if !h.Installed || h.Outdated || !h.Executable || h.Chained != (h.Name == "post-commit") {
			t.Errorf("after install: %+v", h)
		}
	}
	if !s.MergeDriver.Configured || !s.MergeDriver.Attributes {
		t.Errorf("merge driver after install: %+v", s.MergeDriver)
	}
	if again := ok(t, dir, "hooks", "install"); again != out {
		t.Errorf("installing twice changed the outcome:\n%s\nthen\n%s", out, again)
	}

	// Both our block and the user's hook run.
	testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "x")
	if log := readFile(t, dir, ".git/user-hook.log"); log != "user hook ran\n" {
		t.Errorf("user hook log = %q", log)
	}

	ok(t, dir, "hooks", "uninstall")
	if got := readFile(t, dir, ".git/hooks/post-commit"); got != userHook {
		t.Errorf("uninstall left the user's hook as\n%s\nwant\n%s", got, userHook)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/hooks/pre-commit")); !os.IsNotExist(err) {
		t.Errorf("uninstall kept the pre-commit hook it created (stat: %v)", err)
	}
	if s := read(); !s.MergeDriver.Configured {
		t.Error("uninstall without --merge-driver unregistered the merge driver")
	}
	ok(t, dir, "hooks", "uninstall", "--merge-driver")
	if s := read(); s.MergeDriver.Configured || s.MergeDriver.Attributes {
		t.Errorf("merge driver after uninstall --merge-driver: %+v", s.MergeDriver)
	}
}

func TestHooksInstallHonoursHooksPathAndWorktrees(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
	testgit.Run(t, dir, "config", "core.hooksPath", "githooks")
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Run(t, dir, "worktree", "add", "-q", "-b", "side", wt)

	ok(t, wt, "hooks", "install")
	if _, err := os.Stat(filepath.Join(wt, "githooks", "pre-commit")); err != nil {
		t.Errorf("hook not installed under core.hooksPath of the worktree: %v", err)
	}
	// The invalid memory is refused from the worktree too.
	writeFile(t, wt, ".contextfs/m.md", "no frontmatter\n")
	testgit.Run(t, wt, "add", "-A")
	if stderr, code := gitEnv(t, wt, nil, "commit", "-q", "-m", "x"); code == 0 || !strings.Contains(stderr, ".contextfs/m.md:1: syntax") {
		t.Errorf("commit in worktree: exit %d, want refused naming .contextfs/m.md:1\n%s", code, stderr)
	}
}

type doctorReport struct {
	OK     bool `json:"ok"`
	Checks []struct {
		Name    string `json:"name"`
		OK      bool   `json:"ok"`
		Warning bool   `json:"warning"`
		Message string `json:"message"`
		Fixable bool   `json:"fixable"`
	} `json:"checks"`
	Fixed []string `json:"fixed"`
}

// states returns each check as "ok", "warn" or "fail".
func (d doctorReport) states() map[string]string {
	m := map[string]string{}
	for _, c := range d.Checks {
		switch {
		case !c.OK:
			m[c.Name] = "fail"
		case c.Warning:
			m[c.Name] = "warn"
		default:
			m[c.Name] = "ok"
		}
	}
	return m
}

func doctor(t *testing.T, dir string, args ...string) (doctorReport, int) {
	t.Helper()
	r := cli(t, dir, "", append([]string{"doctor", "--json"}, args...)...)
	var d doctorReport
	decodeJSON(t, r.stdout, &d)
	return d, r.code
}

func TestDoctorReportsMissingSetupAndFixRepairsIt(t *testing.T) {
	t.Parallel()
	allOK := map[string]string{"git-contextfs": "ok", "hooks": "ok", "merge-driver": "ok", "config": "ok", "cache": "ok", "memories": "ok", "embedder": "ok", "user-store": "ok", "user-privacy": "ok"}
	tests := []struct {
		name      string
		setup     func(t *testing.T, dir string)
		want      map[string]string
		wantCode  int
		wantFixed bool // fix leaves everything ok
	}{
		{
			name:     "nothing set up is a warning, not a failure",
			want:     map[string]string{"hooks": "warn", "merge-driver": "warn", "config": "warn", "cache": "ok", "memories": "ok"},
			wantCode: 0, wantFixed: true,
		},
		{
			name: "outdated hook block fails",
			setup: func(t *testing.T, dir string) {
				ok(t, dir, "hooks", "install")
				p := ".git/hooks/post-merge"
				writeFile(t, dir, p, strings.Replace(readFile(t, dir, p), "git-contextfs hook post-merge", "git-contextfs hook post-merge --old", 1))
				os.Chmod(filepath.Join(dir, p), 0o755)
			},
			want:     map[string]string{"hooks": "fail", "merge-driver": "ok"},
			wantCode: 1, wantFixed: true,
		},
		{
			name: "hook that is not executable fails",
			setup: func(t *testing.T, dir string) {
				ok(t, dir, "hooks", "install")
				os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o644)
			},
			want:     map[string]string{"hooks": "fail"},
			wantCode: 1, wantFixed: true,
		},
		{
			name: "invalid memory fails and is left to the user",
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir, ".contextfs/bad.md", "no frontmatter\n")
			},
			want:     map[string]string{"memories": "fail"},
			wantCode: 1, wantFixed: false,
		},
		{
			name: "invalid config fails",
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir, ".contextfs/config.yaml", "search:\n  mode: psychic\n")
			},
			want:     map[string]string{"config": "fail", "cache": "fail"},
			wantCode: 1, wantFixed: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := testgit.Init(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			d, code := doctor(t, dir)
			if code != tt.wantCode || d.OK != (tt.wantCode == 0) {
				t.Errorf("doctor: exit %d ok %v, want exit %d\n%+v", code, d.OK, tt.wantCode, d)
			}
			got := d.states()
			for name, want := range tt.want {
				if got[name] != want {
					t.Errorf("check %s = %s, want %s (%+v)", name, got[name], want, d.Checks)
				}
			}

			fixed, code := doctor(t, dir, "--fix")
			if tt.wantFixed {
				if code != 0 || !fixed.OK || len(fixed.Fixed) == 0 {
					t.Errorf("doctor --fix: exit %d, fixed %q\n%+v", code, fixed.Fixed, fixed.Checks)
				}
				again, code := doctor(t, dir)
				if code != 0 || !maps(again.states(), allOK) {
					t.Errorf("doctor after --fix: exit %d, checks %v, want all ok", code, again.states())
				}
			} else if code == 0 {
				t.Errorf("doctor --fix exit 0, want 1: the failure is not fixable\n%+v", fixed.Checks)
			}
		})
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestDoctorHumanOutputSuggestsFix(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	r := cli(t, dir, "", "doctor")
	if r.code != 0 {
		t.Fatalf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"warn   hooks", "ok     memories", "doctor --fix"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestDoctorNamesTheCommandThatFixesTheMergeDriver: install registers the
// driver in the global config and nothing else, so where .gitattributes
// lacks the route, or the clone's own config holds another driver, the
// remedy is doctor --fix, which does fix it.
func TestDoctorNamesTheCommandThatFixesTheMergeDriver(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		setup     func(t *testing.T, dir string)
		want      string
		installOK bool // whether git contextfs install is a remedy
	}{
		{"only .gitattributes lacks the route", func(t *testing.T, dir string) {
			ok(t, dir, "init")
			os.Remove(filepath.Join(dir, ".gitattributes"))
		}, "run git contextfs doctor --fix to add the line to .gitattributes", false},
		{"only the driver is missing", func(t *testing.T, dir string) {
			ok(t, dir, "init")
			testgit.Run(t, dir, "config", "--unset", "merge.contextfs.driver")
		}, "run git contextfs install (once per user, for every clone) or git contextfs doctor --fix", true},
		{"both are missing", func(t *testing.T, dir string) {},
			"run git contextfs doctor --fix to register the driver in this clone and add the line to .gitattributes", true},
		{"an older version's driver is in the clone's config", func(t *testing.T, dir string) {
			ok(t, dir, "init")
			testgit.Run(t, dir, "config", "merge.contextfs.driver", "git-contextfs merge-driver %O %A %B %P")
		}, "run git contextfs doctor --fix to register this version's driver in this clone", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := testgit.Init(t)
			tt.setup(t, dir)
			d, _ := doctor(t, dir)
			var msg string
			for _, c := range d.Checks {
				if c.Name == "merge-driver" {
					msg = c.Message
				}
			}
			if !strings.Contains(msg, tt.want) || !tt.installOK && strings.Contains(msg, "contextfs install") {
				t.Fatalf("merge-driver: %q\nwant %q", msg, tt.want)
			}
			doctor(t, dir, "--fix")
			if d, _ := doctor(t, dir); d.states()["merge-driver"] != "ok" {
				t.Errorf("the remedy named did not fix it: %+v", d.Checks)
			}
		})
	}
}

func TestFmtRewritesCanonicallyKeepingTheBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{
			name: "keys out of order, flow-style tags, alias type, local times",
			in: "---\ntitle: Hand written # my title\ntags: [a, b]\ntype: adr\nextra: kept\nid: hand1234\n" +
				"created: 2024-05-01T12:00:00+02:00\nupdated: 2024-05-02\ndata: {status: accepted, decision: x}\n---\n\n  Body  with   odd spacing\n\n\n",
			want: "---\nid: hand1234\ntype: decision\ntitle: Hand written # my title\ntags:\n  - a\n  - b\n" +
				"created: 2024-05-01T10:00:00Z\nupdated: 2024-05-02T00:00:00Z\ndata:\n  decision: x\n  status: accepted\nextra: kept\n---\n\n  Body  with   odd spacing\n\n\n",
		},
		{
			name: "CRLF file keeps CRLF and its body",
			in:   "---\r\ntype: fact\r\nid: crlf1234\r\ntitle: T\r\ncreated: 2024-05-01T10:00:00Z\r\nupdated: 2024-05-01T10:00:00Z\r\n---\r\nline one\r\nline two\r\n",
			want: "---\r\nid: crlf1234\r\ntype: fact\r\ntitle: T\r\ncreated: 2024-05-01T10:00:00Z\r\nupdated: 2024-05-01T10:00:00Z\r\n---\r\nline one\r\nline two\r\n",
		},
		{
			name: "comma-separated tags and no trailing newline in the body",
			in:   "---\nid: tags1234\ntype: fact\ntitle: T\ntags: x, y\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nno newline",
			want: "---\nid: tags1234\ntype: fact\ntitle: T\ntags:\n  - x\n  - y\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nno newline",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := testgit.Init(t)
			const rel = ".contextfs/memories/hand.md"
			writeFile(t, dir, rel, tt.in)

			r := cli(t, dir, "", "fmt", "--check")
			if r.code != 1 || strings.TrimSpace(r.stdout) != rel {
				t.Errorf("fmt --check before: exit %d, stdout %q; want exit 1 listing %s", r.code, r.stdout, rel)
			}
			if got := readFile(t, dir, rel); got != tt.in {
				t.Fatal("fmt --check changed the file")
			}

			if out := ok(t, dir, "fmt"); strings.TrimSpace(out) != rel {
				t.Errorf("fmt printed %q, want %s", out, rel)
			}
			got := readFile(t, dir, rel)
			if got != tt.want {
				t.Errorf("formatted file:\n%q\nwant\n%q", got, tt.want)
			}
			if body(got) != body(tt.in) {
				t.Errorf("body changed:\n%q\nwas\n%q", body(got), body(tt.in))
			}

			// Idempotent, and a file already canonical is not written.
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			os.Chtimes(filepath.Join(dir, rel), old, old)
			if out := ok(t, dir, "fmt"); out != "" {
				t.Errorf("second fmt printed %q, want nothing", out)
			}
			fi, err := os.Stat(filepath.Join(dir, rel))
			if err != nil || !fi.ModTime().Equal(old) || readFile(t, dir, rel) != tt.want {
				t.Error("second fmt rewrote a canonical file")
			}
			if r := cli(t, dir, "", "fmt", "--check"); r.code != 0 || r.stdout != "" {
				t.Errorf("fmt --check after: exit %d, stdout %q; want 0 and nothing", r.code, r.stdout)
			}
			// The result is still a valid memory.
			ok(t, dir, "validate")
		})
	}
}

// body returns what follows the closing frontmatter delimiter.
func body(file string) string {
	_, rest, _ := strings.Cut(file, "\n")
	for {
		line, next, found := strings.Cut(rest, "\n")
		if strings.TrimRight(line, "\r") == "---" || !found {
			return next
		}
		rest = next
	}
}

func TestFmtNeverTouchesAFileThatDoesNotParse(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	broken := "---\nid: abcd1234\ntitle: a: b\n---\nB\n"
	writeFile(t, dir, ".contextfs/broken.md", broken)
	writeFile(t, dir, ".contextfs/ok.md", "---\ntype: fact\nid: okok1234\ntitle: T\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nB\n")
	writeFile(t, dir, ".contextfs/README.md", "# not a memory\n")

	for _, args := range [][]string{{"fmt", "--check"}, {"fmt"}} {
		r := cli(t, dir, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, ".contextfs/broken.md:3: syntax:") {
			t.Errorf("%v: exit %d, stderr %q; want 1 naming .contextfs/broken.md:3", args, r.code, r.stderr)
		}
		if strings.TrimSpace(r.stdout) != ".contextfs/ok.md" {
			t.Errorf("%v: stdout %q, want only the parseable file", args, r.stdout)
		}
	}
	if readFile(t, dir, ".contextfs/broken.md") != broken {
		t.Error("fmt changed a file that does not parse")
	}
	if readFile(t, dir, ".contextfs/README.md") != "# not a memory\n" {
		t.Error("fmt changed a README")
	}
	r := cli(t, dir, "", "fmt", ".contextfs/README.md")
	if r.code != exitUsage {
		t.Errorf("fmt README.md: exit %d, want %d (not a memory file)\n%s", r.code, exitUsage, r.stderr)
	}
}

func TestFmtLeavesFilesSavedByContextfsAlone(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "decision", "--tag", "db", "--data", `{"decision":"pgx","status":"accepted"}`, "Use pgx pools.")
	if r := cli(t, dir, "", "fmt", "--check"); r.code != 0 || r.stdout != "" {
		t.Errorf("fmt --check on a saved memory: exit %d, stdout %q; want 0 and nothing", r.code, r.stdout)
	}
}

func TestHookCommandsHaveHelpWithExamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"hooks", "-h"}, {"hooks", "install", "-h"}, {"hooks", "uninstall", "-h"}, {"hooks", "status", "-h"},
		{"hook", "-h"}, {"doctor", "-h"}, {"fmt", "-h"},
	} {
		out := ok(t, dir, args...)
		if !strings.Contains(out, "Examples:") {
			t.Errorf("%v: help has no examples:\n%s", args, out)
		}
	}
	if out := ok(t, dir, "-h"); strings.Contains(out, "\n  hook ") {
		t.Errorf("the hook command is listed in the main help; it is for the shims only:\n%s", out)
	}
}

// benchRepo returns a repository with ten committed memories, hooks
// installed, and whatever stage adds staged.
func benchRepo(b *testing.B, stage func(dir string)) string {
	b.Helper()
	dir := testgit.Init(b)
	for i := range 10 {
		writeFile(b, dir, fmt.Sprintf(".contextfs/memories/old-%02d.md", i), memoryFile(fmt.Sprintf("old%05d", i), "An older memory.\n"))
	}
	writeFile(b, dir, "main.go", "package main\n")
	testgit.Run(b, dir, "add", "-A")
	testgit.Run(b, dir, "commit", "-q", "--no-verify", "-m", "base")
	stage(dir)
	return dir
}

// benchExec runs a command b.N times in dir.
func benchExec(b *testing.B, dir string, name string, args ...string) {
	env := testgit.Env()
	for b.Loop() {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
}

func BenchmarkPreCommitNoMemories(b *testing.B) {
	dir := benchRepo(b, func(dir string) {
		writeFile(b, dir, "main.go", "package main\n\nfunc main() {}\n")
		testgit.Run(b, dir, "add", "main.go")
	})
	benchExec(b, dir, filepath.Join(binDir, "git-contextfs"), "hook", "pre-commit")
}

func BenchmarkPreCommit10Memories(b *testing.B) {
	dir := benchRepo(b, func(dir string) {
		for i := range 10 {
			writeFile(b, dir, fmt.Sprintf(".contextfs/memories/new-%02d.md", i),
				memoryFile(fmt.Sprintf("new%05d", i), "A new memory about connection pools and retries.\n\nIt has two paragraphs.\n"))
		}
		testgit.Run(b, dir, "add", "-A")
	})
	benchExec(b, dir, filepath.Join(binDir, "git-contextfs"), "hook", "pre-commit")
}

func BenchmarkEmptyShellHook(b *testing.B) {
	benchExec(b, b.TempDir(), "sh", "-c", ":")
}

// git refuses hook work from inside .git; the hooks commands work from the
// top of the work tree wherever they run.
func TestCLIHooksWorkFromInsideTheGitDirectory(t *testing.T) {
	dir := testgit.Init(t)
	gitDir := filepath.Join(dir, ".git")
	for _, args := range [][]string{{"hooks", "status"}, {"hooks", "install"}, {"hooks", "status"}, {"hooks", "uninstall"}} {
		if r := cli(t, gitDir, "", args...); r.code != 0 {
			t.Errorf("%v from .git: exit %d: %s", args, r.code, r.stderr)
		}
	}
}
