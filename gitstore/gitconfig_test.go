package gitstore

import (
	"context"
	"errors"
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
