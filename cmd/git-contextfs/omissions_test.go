package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

func TestCLISaysWhatItLeftOutOrChose(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string // written before the command
		args       []string
		wantCode   int
		wantStderr string // a substring; "" means stderr must not hold "left out"
		wantStdout string
	}{
		{name: "list names the invalid files it left out",
			files: map[string]string{".contextfs/memories/plain.md": "just text\n"},
			args:  []string{"list"}, wantStderr: "1 invalid memory file(s) left out (first: .contextfs/memories/plain.md); run git contextfs validate"},
		{name: "search --json keeps stdout JSON and says it on stderr",
			files: map[string]string{".contextfs/memories/plain.md": "just text\n"},
			args:  []string{"search", "--json", "anything"}, wantStderr: "left out", wantStdout: "["},
		{name: "list of valid memories says nothing more",
			args: []string{"list"}},
		{name: "save without --type says which type it chose",
			args: []string{"save", "Run make bench before tagging"}, wantStderr: "saved as type fact (the default); give --type to choose"},
		{name: "--data that is an array is named in words",
			args: []string{"save", "--data", "[1,2]", "x"}, wantCode: 2, wantStderr: "--data must be a JSON object such as '{\"status\":\"accepted\"}', not an array"},
		{name: "--data that is not JSON says so",
			args: []string{"save", "--data", "{", "x"}, wantCode: 2, wantStderr: "--data must be a JSON object such as '{\"status\":\"accepted\"}': it is not valid JSON"},
		{name: "validate finds a secret by default",
			files: map[string]string{".contextfs/memories/k.md": memoryFile("abcd1234", "key "+fakeAWSKey+"\n")},
			args:  []string{"validate"}, wantCode: 1, wantStdout: "k.md:8: secret: AWS access key ID AKIA****"},
		{name: "validate --no-secrets skips the scan",
			files: map[string]string{".contextfs/memories/k.md": memoryFile("abcd1234", "key "+fakeAWSKey+"\n")},
			args:  []string{"validate", "--no-secrets"}},
		{name: "doctor fails on a committed secret",
			files: map[string]string{".contextfs/memories/k.md": memoryFile("abcd1234", "key "+fakeAWSKey+"\n")},
			args:  []string{"doctor"}, wantCode: 1, wantStdout: "invalid or holding a secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			ok(t, dir, "init")
			for rel, content := range tt.files {
				writeFile(t, dir, rel, content)
			}
			r := inProcess(t, dir, "", tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.wantCode, r.stdout, r.stderr)
			}
			if tt.wantStderr == "" && strings.Contains(r.stderr, "left out") {
				t.Errorf("stderr reports omissions where there are none: %s", r.stderr)
			}
			if !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to hold %q", r.stderr, tt.wantStderr)
			}
			if !strings.Contains(r.stdout, tt.wantStdout) {
				t.Errorf("stdout = %q, want it to hold %q", r.stdout, tt.wantStdout)
			}
		})
	}
}

func TestHooksCommandsOutsideARepositorySayNotARepository(t *testing.T) {
	for _, args := range [][]string{{"hooks", "install"}, {"hooks", "status"}, {"hooks", "uninstall"}} {
		r := inProcess(t, t.TempDir(), "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "not a git repository (or any parent directory); run `git init` first") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "fatal:") {
			t.Errorf("%v prints git's raw output: %q", args, r.stderr)
		}
	}
}
