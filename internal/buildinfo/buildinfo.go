// Package buildinfo says which build of contextfs a program is: its
// semantic version, the commit it was built from and the Go that built
// it. The three programs (git-contextfs, git-contextfs-mcp,
// git-contextfs-embed) read it from here, so that one -ldflags setting
// names the version of all three.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit are set at link time, never at run time, by the
// Makefile:
//
//	-ldflags "-X github.com/contextfs/contextfs/internal/buildinfo.version=v1.2.3
//	          -X github.com/contextfs/contextfs/internal/buildinfo.commit=0123456789ab"
//
// The version comes from git describe --tags, so a tagged commit is
// vX.Y.Z and a later one vX.Y.Z-N-gHASH. Empty when the build did not set
// them: go install and a plain go build.
var version, commit string

// Dev is the version of a build that says nothing about its source: no
// -ldflags, no module version (go build -buildvcs=false, go test).
const Dev = "dev"

// Info is what a build knows about itself.
type Info struct {
	// Version is a semantic version, "v1.2.3" (a release), a git
	// describe or Go pseudo-version (between releases), or Dev.
	Version string
	// Commit is the abbreviated commit the build came from, with
	// "-dirty" when the work tree had changes; "" when unknown (go
	// install of a release records only the module version).
	Commit string
	// Go is the version of Go that built the program, "go1.27.1".
	Go string
}

// Read returns this program's build information: the version and commit
// set with -ldflags if any, else what the Go toolchain recorded (go
// install …@vX.Y.Z records the module version; go build in a git
// checkout a pseudo-version and the commit), else Dev.
func Read() Info {
	return resolve(version, commit, debug.ReadBuildInfo)
}

// Version returns Read().Version, without reading the toolchain's record
// when the Makefile set the version: commands compare it on every run.
func Version() string {
	if version != "" {
		return version
	}
	return Read().Version
}

// resolve is Read with the link-time values and the toolchain's record
// passed in, for tests.
func resolve(ldVersion, ldCommit string, read func() (*debug.BuildInfo, bool)) Info {
	info := Info{Version: ldVersion, Commit: ldCommit, Go: runtime.Version()}
	if info.Version != "" && info.Commit != "" {
		return info // make's build: nothing to look up
	}
	bi, ok := read()
	if ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		if info.Commit == "" {
			info.Commit = vcsCommit(bi.Settings)
		}
		if bi.GoVersion != "" {
			info.Go = bi.GoVersion
		}
	}
	if info.Version == "" {
		info.Version = Dev
	}
	return info
}

// vcsCommit is the commit go build stamped (-buildvcs), abbreviated to
// twelve digits as Go's pseudo-versions are, with "-dirty" for a
// modified work tree; "" if none was stamped.
func vcsCommit(settings []debug.BuildSetting) string {
	var rev string
	var dirty bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// String is the line `git contextfs version` prints:
//
//	contextfs v1.2.3 (commit 0123456789ab, go1.27.1)
//
// or, with the commit unknown, "contextfs v1.2.3 (go1.27.1)".
func (i Info) String() string {
	if i.Commit == "" {
		return "contextfs " + i.Version + " (" + i.Go + ")"
	}
	return "contextfs " + i.Version + " (commit " + i.Commit + ", " + i.Go + ")"
}

// VersionOf returns the version in a line a contextfs program printed for
// --version: the second word of String's form, or the last word of the
// older "git-contextfs version X"; "" for an empty line.
func VersionOf(line string) string {
	f := strings.Fields(line)
	switch {
	case len(f) >= 2 && f[0] == "contextfs":
		return f[1]
	case len(f) > 0:
		return f[len(f)-1]
	}
	return ""
}
