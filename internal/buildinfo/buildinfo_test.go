package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestResolvePrefersLinkTimeValuesThenTheToolchainsRecord(t *testing.T) {
	record := func(version string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.27.1", Main: debug.Module{Path: "github.com/contextfs/contextfs", Version: version}, Settings: settings}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}
	modified := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	tests := []struct {
		name                string
		ldVersion, ldCommit string
		read                func() (*debug.BuildInfo, bool)
		want                string
	}{
		{"make's build names version and commit", "v1.2.3", "0123456789ab", record("(devel)"),
			"contextfs v1.2.3 (commit 0123456789ab, go"},
		{"make between releases names git describe's version", "v1.2.3-4-g0123456-dirty", "0123456789ab-dirty", none,
			"contextfs v1.2.3-4-g0123456-dirty (commit 0123456789ab-dirty, go"},
		{"go install of a release reports the module version", "", "", record("v1.2.3"),
			"contextfs v1.2.3 (go1.27.1)"},
		{"go build in a checkout reports the pseudo-version and commit", "", "", record("v0.0.0-20261201214201-0123456789ab+dirty", rev, modified),
			"contextfs v0.0.0-20261201214201-0123456789ab+dirty (commit 0123456789ab-dirty, go1.27.1)"},
		{"a build that records nothing is dev", "", "", record("(devel)"),
			"contextfs dev (go1.27.1)"},
		{"no build information at all is dev", "", "", none,
			"contextfs dev (go"},
		{"a link-time version without a commit takes the stamped commit", "v1.2.3", "", record("(devel)", rev),
			"contextfs v1.2.3 (commit 0123456789ab, go1.27.1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(tt.ldVersion, tt.ldCommit, tt.read).String()
			if len(got) < len(tt.want) || got[:len(tt.want)] != tt.want {
				t.Errorf("got %q, want it to start %q", got, tt.want)
			}
		})
	}
}

func TestVersionOfReadsBothForms(t *testing.T) {
	tests := []struct{ line, want string }{
		{"contextfs v1.2.3 (commit 0123456789ab, go1.27.1)", "v1.2.3"},
		{"contextfs dev (go1.27.1)", "dev"},
		{"git-contextfs version 2d93a7c", "2d93a7c"}, // before version lines named contextfs
		{"", ""},
	}
	for _, tt := range tests {
		if got := VersionOf(tt.line); got != tt.want {
			t.Errorf("VersionOf(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestReadOfATestBinaryIsDev(t *testing.T) {
	// go test sets no -ldflags and records no module version.
	if got := Read(); got.Version != Dev || got.Go == "" {
		t.Errorf("Read() = %+v, want version %q and a Go version", got, Dev)
	}
}
