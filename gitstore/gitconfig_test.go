package gitstore

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfigLikeGit holds parseConfig to git itself: for any file it
// reads without handing over to git, `git config --file F --get` must
// accept the file and give the same user.name and remote "o" url.
func FuzzParseConfigLikeGit(f *testing.F) {
	for _, s := range []string{
		"[user]\n\tname = Ada Lovelace\n",
		"[User]\n\tNAME = \"Ada \\\"the\\\" Countess\" ; c\n",
		"[user] name = Ada \\\n  Lovelace # x\n",
		"[user]\r\n\tname =  \tA\tB  \r\n",
		"[remote \"o\"]\n\turl = https://x.example/y\n[remote \"O\"]\n\turl = z\n",
		"[remote \"o\\\"\"]\n\turl = q\n",
		"\xef\xbb\xbf[user]\nname=\"a;b#c\"\\t\n",
		"; only a comment",
		"[user]\n\tname\n",
		"[a.b]\n\tc = d\n",
		"[remote ", // once looped forever at the end of the file
		"[remote \n\"o\"]\n",
		// The shape of a real ~/.gitconfig.
		"[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n\tsigningkey = ABCD1234\n" +
			"[core]\n\teditor = vim\n\tpager = \"less -FRX\"\n\tautocrlf = input\n" +
			"[alias]\n\tlg = log --graph --pretty=format:'%C(auto)%h%d %s %C(black)%C(bold)%cr' --abbrev-commit\n" +
			"\tundo = \"!f() { git reset --soft HEAD~${1:-1}; }; f\"\n\tst = status -sb # short\n" +
			"[url \"git@github.com:\"]\n\tinsteadOf = https://github.com/\n" +
			"[remote \"o\"]\n\turl = git@github.com:acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/o/*\n" +
			"[pull]\n\trebase = true\n[init]\n\tdefaultBranch = main\n",
		"[user]\n\tname = Grace \\\n\t  Hopper\t ; c\n[alias]\n\tx = \"!sh -c 'echo \\\"hi\\\"'\" #c\n" +
			"[user \"z\"] name = no\n[remote \"o\"] url = \"a b\"   \n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	file := filepath.Join(dir, "config")
	get := func(key string) (string, bool) {
		cmd := exec.CommandContext(context.Background(), "git", "config", "--file", file, "--get", key)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 { // not set
			return "", true
		}
		return strings.TrimSpace(string(out)), err == nil
	}
	f.Fuzz(func(t *testing.T, src string) {
		entries, err := parseConfig([]byte(src))
		if err != nil {
			return // handed over to git
		}
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct{ section, sub, key, name string }{
			{"user", "", "name", "user.name"},
			{"remote", "o", "url", "remote.o.url"},
		} {
			var want string
			bare := false
			for _, e := range entries {
				if e.section == q.section && e.subsection == q.sub && e.key == q.key {
					want, bare = e.value, !e.hasValue
				}
			}
			if bare {
				continue // readConfig hands these over to git
			}
			got, ok := get(q.name)
			if !ok {
				t.Fatalf("git rejects %q, parseConfig read it as %+v", src, entries)
			}
			if strings.TrimSpace(want) != got {
				t.Errorf("%s in %q: parseConfig %q, git %q", q.name, src, want, got)
			}
		}
	})
}

// TestParseConfigAgreesWithGitOnGeneratedFiles builds configuration files
// from fragments that are hard to read right (quotes, escapes, comment
// characters, line ends, odd white space, section forms) and compares
// what parseConfig reads with what git answers, for every file it does
// not hand over to git. Deterministic: a fixed seed.
func TestParseConfigAgreesWithGitOnGeneratedFiles(t *testing.T) {
	frags := []string{
		"[user]", "[User]", "[remote \"o\"]", "[remote \"o\\\"\"]", "[remote  \"o\"]", "[user \"x\"]",
		"[core]", "[a.b]", "[include]", "[", "]", "\n", "\r\n", "\r", " ", "\t", "\v", "\f",
		"name", "NaMe", "url", "email", "path", "x-y", "=", " = ", "\"", "\\", "\\\n", "\\t", "\\n",
		"\\b", "\\\"", "\\\\", "\\x", "#", ";", "a", "b c", "é", "-", "1",
	}
	file := filepath.Join(t.TempDir(), "config")
	rng := rand.New(rand.NewSource(7))
	checked := 0
	for range 1500 {
		var b strings.Builder
		b.WriteString([]string{"[user]\n", "[remote \"o\"]\n", ""}[rng.Intn(3)])
		for k := rng.Intn(8); k >= 0; k-- {
			b.WriteString(frags[rng.Intn(len(frags))])
		}
		src := b.String()
		entries, err := parseConfig([]byte(src))
		if err != nil {
			continue // handed over to git
		}
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct{ section, sub, key, name string }{
			{"user", "", "name", "user.name"},
			{"remote", "o", "url", "remote.o.url"},
		} {
			var want string
			bare := false
			for _, e := range entries {
				if e.section == q.section && e.subsection == q.sub && e.key == q.key {
					want, bare = e.value, !e.hasValue
				}
			}
			if bare {
				continue
			}
			out, err := exec.Command("git", "config", "--file", file, "--get", q.name).Output()
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() != 1 || err != nil && !errors.As(err, &ee) {
				t.Errorf("git rejects %q (%v); parseConfig read %+v", src, err, entries)
				continue
			}
			if got := strings.TrimSpace(string(out)); got != strings.TrimSpace(want) {
				t.Errorf("%s in %q: parseConfig %q, git %q", q.name, src, want, got)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d values compared: the fragments no longer make readable files", checked)
	}
}
