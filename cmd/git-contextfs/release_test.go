package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// releaseEpoch is the SOURCE_DATE_EPOCH the test releases with: every
// file of the archive must carry it.
const releaseEpoch = 1767225600 // 2026-01-01T00:00:00Z

// versionLine is what `git contextfs version` prints for a build of make:
// a semantic version (a tag, git describe past one, or v0.0.0-dev before
// the first), the commit and the Go version.
var versionLine = regexp.MustCompile(`^contextfs (v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?) \(commit [0-9a-f]{12}(?:-dirty)?, go1\.\d+[^)]*\)\n$`)

// TestMakeReleaseIsReproducibleAndRunsUnpacked runs make release twice
// for this machine's platform and checks that the archives and SHA256SUMS
// are byte-identical, that the archive is laid out and stamped as
// promised (sorted, owner 0, every time SOURCE_DATE_EPOCH), and that,
// unpacked into a folder of its own, it runs `git contextfs version`, its
// MCP server (--version, and an initialize and a ping through `git
// contextfs mcp`), the viewer's --version, and shows its manual page
// with man -l. It links the four programs twice (the compiled packages come from the build
// cache), so -short skips it.
func TestMakeReleaseIsReproducibleAndRunsUnpacked(t *testing.T) {
	if testing.Short() {
		t.Skip("links the release twice; run without -short")
	}
	for _, tool := range []string{"make", "tar", "gzip", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("make release needs %s", tool)
		}
	}
	if out, err := exec.Command("tar", "--sort=name", "-cf", "/dev/null", "/dev/null").CombinedOutput(); err != nil {
		t.Skipf("make release needs GNU tar 1.28 or later (--sort): %s", out)
	}
	t.Parallel()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	var dists [2]string
	for i := range dists {
		dists[i] = t.TempDir()
		cmd := exec.Command("make", "-C", filepath.Join("..", ".."), "release", "DIST="+dists[i], "PLATFORMS="+platform)
		cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+strconv.Itoa(releaseEpoch), "MAKEFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make release (run %d): %v\n%s", i+1, err, out)
		}
	}
	archives, _ := filepath.Glob(filepath.Join(dists[0], "contextfs-*.tar.gz"))
	if len(archives) != 1 {
		t.Fatalf("make release PLATFORMS=%s wrote %v, want one archive", platform, archives)
	}
	name := filepath.Base(archives[0])
	for _, f := range []string{name, "SHA256SUMS"} {
		a, err1 := os.ReadFile(filepath.Join(dists[0], f))
		b, err2 := os.ReadFile(filepath.Join(dists[1], f))
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of make release (%d and %d bytes)", f, len(a), len(b))
		}
	}
	archive, err := os.ReadFile(archives[0])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	sums, _ := os.ReadFile(filepath.Join(dists[0], "SHA256SUMS"))
	if want := hex.EncodeToString(sum[:]) + "  " + name + "\n"; string(sums) != want {
		t.Errorf("SHA256SUMS is %q, want %q", sums, want)
	}

	top := strings.TrimSuffix(name, ".tar.gz")
	names := checkArchiveHeaders(t, archive)
	for _, want := range []string{"bin/git-contextfs", "bin/git-contextfs-mcp", "bin/git-contextfs-embed", "bin/git-contextfs-serve",
		"share/man/man1/git-contextfs.1", "share/man/man1/git-contextfs-search.1",
		"share/bash-completion/completions/git-contextfs", "share/zsh/site-functions/_git-contextfs",
		"share/fish/vendor_completions.d/git-contextfs.fish", "README.md"} {
		if !slices.Contains(names, top+"/"+want) {
			t.Errorf("the archive lacks %s/%s; it holds %v", top, want, names)
		}
	}

	// Unpacked with tar into a folder of its own, with only git and man
	// beside it on PATH: not the programs this test binary built.
	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-C", unpacked, "-xzf", archives[0]).CombinedOutput(); err != nil {
		t.Fatalf("tar -x: %v\n%s", err, out)
	}
	prefix := filepath.Join(unpacked, top)
	path := filepath.Join(prefix, "bin")
	for _, tool := range []string{"git", "man", "groff", "nroff", "less", "cat"} {
		if p, err := exec.LookPath(tool); err == nil {
			path += string(os.PathListSeparator) + filepath.Dir(p)
		}
	}
	env := append(testgit.Env(), "PATH="+path, "MANPAGER=cat", "PAGER=cat", "CONTEXTFS_WATCH=off")
	// run runs name (found on this test's PATH unless a path: give the
	// archive's programs by path) with env.
	run := func(dir, stdin, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, stderr.String())
		}
		return string(out)
	}
	repo := testgit.Init(t)
	got := run(repo, "", "git", "contextfs", "version")
	m := versionLine.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("git contextfs version printed %q, want %s", got, versionLine)
	}
	if !strings.Contains(name, "contextfs-"+m[1]+"-") {
		t.Errorf("the archive %s is not named for the version %s it reports", name, m[1])
	}
	if v := run(repo, "", filepath.Join(prefix, "bin", "git-contextfs-mcp"), "--version"); v != got {
		t.Errorf("git-contextfs-mcp --version printed %q, git contextfs version %q", v, got)
	}
	// The viewer, which git contextfs serve runs, is in the archive too.
	if v := run(repo, "", filepath.Join(prefix, "bin", "git-contextfs-serve"), "--version"); !strings.Contains(v, " "+m[1]+"\n") {
		t.Errorf("git-contextfs-serve --version printed %q, want version %s", v, m[1])
	}
	replies := run(repo, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
`, "git", "contextfs", "mcp")
	var initReply, ping rpcReply
	lines := strings.Split(strings.TrimSpace(replies), "\n")
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &initReply) != nil || json.Unmarshal([]byte(lines[1]), &ping) != nil ||
		initReply.Error != nil || ping.Error != nil {
		t.Fatalf("the unpacked MCP server answered initialize and ping with:\n%s", replies)
	}
	if !strings.Contains(string(initReply.Result), `"version":"`+m[1]+`"`) {
		t.Errorf("the unpacked MCP server does not report version %s: %s", m[1], initReply.Result)
	}
	if _, err := exec.LookPath("man"); err == nil {
		page := run(repo, "", "man", "-l", filepath.Join(prefix, "share", "man", "man1", "git-contextfs.1"))
		if !strings.Contains(page, "git-contextfs - A git-native memory") || !strings.Contains(page, "contextfs "+m[1]) {
			t.Errorf("man -l git-contextfs.1 shows no name line or version:\n%.600s", page)
		}
	}
}

// checkArchiveHeaders reads a release archive and checks what makes it
// reproducible: gzip names no file and no time, entries come sorted by
// name, owned by 0:0 with no user names, all at releaseEpoch. It returns
// the entries' names.
func checkArchiveHeaders(t *testing.T, archive []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header records name %q and time %v; gzip -n records neither", zr.Name, zr.ModTime)
	}
	var names []string
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.TrimSuffix(h.Name, "/"))
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s is owned by %d:%d (%q:%q), want 0:0 unnamed", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if !h.ModTime.Equal(time.Unix(releaseEpoch, 0)) {
			t.Errorf("%s has time %v, want SOURCE_DATE_EPOCH %v", h.Name, h.ModTime.UTC(), time.Unix(releaseEpoch, 0).UTC())
		}
		if strings.Contains(h.Name, "/bin/") && h.Mode&0o111 == 0 {
			t.Errorf("%s is not executable (mode %o)", h.Name, h.Mode)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("the archive's entries are not sorted by name: %v", names)
	}
	return names
}
