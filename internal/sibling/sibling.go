// Package sibling finds the other programs of contextfs. git-contextfs and
// git-contextfs-mcp are installed side by side and start each other: the
// CLI runs the MCP server for `git contextfs mcp`, and the server starts
// the CLI's change watcher.
package sibling

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// VersionEnv names the environment variable in which a program passes its
// version to the sibling it starts, so that a sibling left from another
// install can say so rather than be trusted silently.
const VersionEnv = "CONTEXTFS_CLI_VERSION"

// NotFoundError says that a program is neither beside the running one nor
// on PATH.
type NotFoundError struct {
	// Name is the program looked for; Dir is the folder of the running
	// program, where it was looked for first.
	Name, Dir string
}

// Error names the program and where it was looked for.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s is not installed in %s or on PATH", e.Name, e.Dir)
}

// InstallHint says how to install the program name beside git-contextfs,
// for an error that it is missing: make install, or go install with tags
// (the build tags it needs, which also need cgo; "" for none) at version,
// the running program's, so that the two match; a version that is no
// release tag (a build between releases, dev) asks for @latest.
func InstallHint(name, tags, version string) string {
	cmd := "go install "
	if tags != "" {
		cmd = "CGO_ENABLED=1 go install -tags " + tags + " "
	}
	if !isRelease(version) {
		version = "latest"
	}
	return "Install it beside git-contextfs with make install, or with\n" +
		"  " + cmd + "github.com/contextfs/contextfs/cmd/" + name + "@" + version
}

// isRelease reports whether v is a release tag, vX.Y.Z, which go install
// takes. (Not a regexp: compiling one at start costs every process.)
func isRelease(v string) bool {
	rest, ok := strings.CutPrefix(v, "v")
	parts := strings.Split(rest, ".")
	if !ok || len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// Find returns the path of the program name. It looks beside the running
// executable first, links resolved, so that the programs of one build (or
// one install) find each other rather than another version on PATH; then
// on PATH.
func Find(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find %s: %w", name, err)
	}
	return find(name, exe)
}

// find is Find for the running executable exe.
func find(name, exe string) (string, error) {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	if p := filepath.Join(dir, name); executable(p) {
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return "", &NotFoundError{Name: name, Dir: dir}
		}
		return "", fmt.Errorf("find %s: %w", name, err)
	}
	return p, nil
}

// executable reports whether p is a regular file someone may run.
func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
