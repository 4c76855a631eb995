package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/git"
)

// TestAuthorReadsConfigLikeGit compares Author, which reads the
// configuration files itself, with what `git config --get` answers for the
// same files, including the cases where it must hand over to git.
func TestAuthorReadsConfigLikeGit(t *testing.T) {
	tests := []struct {
		name          string
		global, local string
		wantFast      bool // answered without starting git
	}{
		{name: "local only", local: "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n", wantFast: true},
		{name: "global only", global: "[user]\n\tname = Grace Hopper\n\temail = grace@example.com\n", wantFast: true},
		{name: "local overrides global", global: "[user]\n\tname = Grace\n\temail = g@example.com\n", local: "[user]\n\tname = Ada\n", wantFast: true},
		{name: "quoted value and comment", local: "[user]\n\tname = \"Ada \\\"the\\\" Countess\" ; a comment\n", wantFast: true},
		{name: "key set twice, last wins", local: "[user]\n\temail = a@example.com\n\temail = b@example.com\n", wantFast: true},
		{name: "case-insensitive names", local: "[User]\n\tName = Ada\n\tEMAIL = ada@example.com\n", wantFast: true},
		{name: "neither set", wantFast: true},
		{name: "include hands over to git", global: "[include]\n\tpath = PEER\n", wantFast: false},
		{name: "inner white space becomes spaces, outer dropped", local: "[user]\n\tname =  \tAda \t Lovelace \t \n", wantFast: true},
		{name: "quotes keep white space", local: "[user]\n\tname = \" Ada\t\" Lovelace\n", wantFast: true},
		{name: "escapes", local: "[user]\n\tname = Ada\\tL\\\\x\\\"\n", wantFast: true},
		{name: "backslash continues a line", local: "[user]\n\tname = Ada \\\n  Lovelace\n", wantFast: true},
		{name: "hash and semicolon in quotes are kept", local: "[user]\n\tname = \"Ada #1; the first\" # comment\n", wantFast: true},
		{name: "CRLF line ends", local: "[user]\r\n\tname = Ada\r\n\temail = ada@example.com\r\n", wantFast: true},
		{name: "key on the header's line", local: "[user] name = Ada\n", wantFast: true},
		{name: "comments and blank lines", local: "# top\n\n; other\n[user] ; after header\n\n\tname = Ada # trailing\n", wantFast: true},
		{name: "byte-order mark", global: "\xef\xbb\xbf[user]\n\tname = Grace\n", wantFast: true},
		{name: "a section of the same name in another subsection is not read", local: "[user \"x\"]\n\tname = Not Me\n[user]\n\temail = a@example.com\n", wantFast: true},
		{name: "no space around the equals sign", local: "[user]\nname=Ada\n", wantFast: true},
		{name: "bare key hands over to git", local: "[user]\n\tname\n", wantFast: false},
		{name: "old dotted section hands over to git", local: "[user.x]\n\tname = Ada\n", wantFast: false},
		{name: "unknown escape hands over to git", local: "[user]\n\tname = A\\qda\n", wantFast: false},
		{name: "unterminated quote hands over to git", local: "[user]\n\tname = \"Grace\n", wantFast: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			repo := filepath.Join(dir, "repo")
			for _, d := range []string{home, repo} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			peer := filepath.Join(home, "peer")
			if err := os.WriteFile(peer, []byte("[user]\n\tname = Included Name\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			global := filepath.Join(home, "gitconfig")
			if err := os.WriteFile(global, []byte(strings.ReplaceAll(tc.global, "PEER", peer)), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("GIT_CONFIG_GLOBAL", global)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			t.Setenv("GIT_AUTHOR_NAME", "")
			t.Setenv("GIT_AUTHOR_EMAIL", "")
			r := initWithLocalConfig(t, repo, tc.local)
			gitName, gitEmail := r.config("user.name"), r.config("user.email")
			_, _, err := r.readIdentity()
			if fast := err == nil; fast != tc.wantFast {
				t.Errorf("read without git = %v (err %v), want %v", fast, err, tc.wantFast)
			}
			name, email := r.identity()
			if name != gitName || email != gitEmail {
				t.Errorf("identity = %q, %q; git config says %q, %q", name, email, gitName, gitEmail)
			}
		})
	}
}

// TestRemoteURLReadsConfigLikeGit compares RemoteURL, which reads the
// configuration files itself, with `git config --get remote.NAME.url`.
func TestRemoteURLReadsConfigLikeGit(t *testing.T) {
	tests := []struct {
		name, global, local, remote string
		wantFast                    bool
	}{
		{name: "origin in the repository", local: "[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n", remote: "origin", wantFast: true},
		{name: "no remote", remote: "origin", wantFast: true},
		{name: "another remote only", local: "[remote \"upstream\"]\n\turl = https://example.com/u.git\n", remote: "origin", wantFast: true},
		{name: "subsection names are case-sensitive", local: "[remote \"Origin\"]\n\turl = https://example.com/x.git\n", remote: "origin", wantFast: true},
		{name: "set twice, last wins", local: "[remote \"origin\"]\n\turl = https://a.example/x\n[remote \"origin\"]\n\turl = https://b.example/x\n", remote: "origin", wantFast: true},
		{name: "include hands over to git", global: "[include]\n\tpath = PEER\n", remote: "origin", wantFast: false},
		{name: "escaped quote in the subsection", local: "[remote \"a\\\"b\"]\n\turl = https://q.example/x\n", remote: "a\"b", wantFast: true},
		{name: "spaces before the subsection", local: "[remote   \"origin\"]\n\turl = https://s.example/x\n", remote: "origin", wantFast: true},
		{name: "remote url in a user section is not read", local: "[user]\n\turl = https://u.example/x\n", remote: "origin", wantFast: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			repo := filepath.Join(dir, "repo")
			for _, d := range []string{home, repo} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			peer := filepath.Join(home, "peer")
			os.WriteFile(peer, []byte("[remote \"origin\"]\n\turl = https://included.example/y\n"), 0o644)
			global := filepath.Join(home, "gitconfig")
			os.WriteFile(global, []byte(strings.ReplaceAll(tc.global, "PEER", peer)), 0o644)
			t.Setenv("GIT_CONFIG_GLOBAL", global)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			t.Setenv("HOME", home)
			r := initWithLocalConfig(t, repo, tc.local)
			want := r.config("remote." + tc.remote + ".url")
			_, err := r.readConfig("remote", tc.remote, "url")
			if fast := err == nil; fast != tc.wantFast {
				t.Errorf("read without git = %v (err %v), want %v", fast, err, tc.wantFast)
			}
			if got := r.RemoteURL(context.Background(), tc.remote); got != want {
				t.Errorf("RemoteURL = %q; git config says %q", got, want)
			}
		})
	}
}

// TestLocalConfigBoolReadsLikeGit compares LocalConfigBool, which reads
// the repository's own configuration file, with
// `git config --local --type=bool --get`, and checks it hands over to git
// only where the file or the value needs git.
func TestLocalConfigBoolReadsLikeGit(t *testing.T) {
	tests := []struct {
		name, key, local string
		wantGit          bool // handed over to git
	}{
		{"true", "contextfs.userStore", "[contextfs]\n\tuserStore = true\n", false},
		{"yes, on and upper case", "contextfs.userStore", "[contextfs]\n\tuserStore = YES\n", false},
		{"on", "contextfs.userStore", "[contextfs]\n\tuserStore = on\n", false},
		{"a key without a value is true", "contextfs.userStore", "[contextfs]\n\tuserStore\n", false},
		{"an empty value is false", "contextfs.userStore", "[contextfs]\n\tuserStore =\n", false},
		{"false", "contextfs.userStore", "[contextfs]\n\tuserStore = false\n", false},
		{"no and off", "contextfs.userStore", "[contextfs]\n\tuserStore = no\n\tuserStore = off\n", false},
		{"integers", "contextfs.userStore", "[contextfs]\n\tuserStore = 2\n", false},
		{"zero", "contextfs.userStore", "[contextfs]\n\tuserStore = 0\n", false},
		{"the last setting wins", "contextfs.userStore", "[contextfs]\n\tuserStore = false\n[contextfs]\n\tuserStore = true\n", false},
		{"unset", "contextfs.userStore", "[contextfs]\n\tother = true\n", false},
		{"names without case", "contextfs.userStore", "[CONTEXTFS]\n\tUSERSTORE = true\n", false},
		{"a subsection with case", "a.B.flag", "[a \"b\"]\n\tflag = true\n[a \"B\"]\n\tflag = false\n", false},
		{"a subsection is not the section", "contextfs.userStore", "[contextfs \"x\"]\n\tuserStore = true\n", false},
		{"an include hands over to git", "contextfs.userStore", "[include]\n\tpath = nowhere\n[contextfs]\n\tuserStore = true\n", true},
		{"a unit hands over to git", "contextfs.userStore", "[contextfs]\n\tuserStore = 1k\n", true},
		{"a value git refuses hands over to git", "contextfs.userStore", "[contextfs]\n\tuserStore = maybe\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "none"))
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			repo := t.TempDir()
			r := initWithLocalConfig(t, repo, tc.local)
			value, set, err := r.LocalConfigBool(tc.key)
			if (err != nil) != tc.wantGit {
				t.Fatalf("LocalConfigBool(%q) = %v, %v, %v; want handed over to git: %v", tc.key, value, set, err, tc.wantGit)
			}
			if err != nil {
				return
			}
			out, gerr := git.Output(context.Background(), repo, "config", "--local", "--type=bool", "--get", tc.key)
			gitSet := gerr == nil
			if git.ExitCode(gerr) > 1 {
				t.Fatalf("git config: %v", gerr)
			}
			if set != gitSet || value != (out == "true") {
				t.Errorf("LocalConfigBool(%q) = %v (set %v); git says %q (set %v)", tc.key, value, set, out, gitSet)
			}
		})
	}
}

// initWithLocalConfig makes a git repository at dir (with the git CLI, as
// the environment configures it), appends local to its .git/config and
// opens it.
func initWithLocalConfig(t *testing.T, dir, local string) *Repo {
	t.Helper()
	if _, err := (git.Cmd{Dir: dir}).Combined(context.Background(), "init", "-q"); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(local); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
