package check

import (
	"errors"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/hooks"
)

func TestHooksDiagnosis(t *testing.T) {
	ok := hooks.State{Name: "pre-commit", Path: "/r/.git/hooks/pre-commit", Installed: true, Executable: true}
	postCommit := hooks.State{Name: "post-commit", Path: "/r/.git/hooks/post-commit", Installed: true, Executable: true}
	tests := []struct {
		name        string
		states      []hooks.State
		err         error
		wantOK      bool
		wantWarning bool
		inMessage   string
	}{
		{"all installed is healthy", []hooks.State{ok}, nil, true, false, "1 installed in /r/.git/hooks"},
		{"none installed is a warning", []hooks.State{{Name: "pre-commit"}}, nil, true, true, "not installed"},
		{"outdated is a failure", []hooks.State{{Name: "pre-commit", Installed: true, Outdated: true, Executable: true}}, nil, false, false, "outdated"},
		{"not executable is a failure", []hooks.State{{Name: "pre-commit", Installed: true}}, nil, false, false, "not executable"},
		{"an error is a failure that cannot be fixed", nil, errors.New("boom"), false, false, "boom"},
		{"pre-commit alone missing is a failure: commits are no longer checked",
			[]hooks.State{{Name: "pre-commit", Chained: true}, postCommit}, nil, false, false, "commits are no longer checked"},
		{"the framework running contextfs from its config counts as installed",
			[]hooks.State{{Name: "pre-commit", Chained: true, Framework: true, ViaFramework: true}, postCommit}, nil, true, false, "2 installed"},
		{"another hook alone missing is a warning",
			[]hooks.State{ok, {Name: "post-commit"}}, nil, true, true, "not installed: post-commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Hooks(tt.states, tt.err)
			if d.OK != tt.wantOK || d.Warning != tt.wantWarning || !strings.Contains(d.Message, tt.inMessage) {
				t.Errorf("Hooks = %+v, want ok %v, warning %v, message with %q", d, tt.wantOK, tt.wantWarning, tt.inMessage)
			}
		})
	}
}

func TestDescribeMergeDriver(t *testing.T) {
	tests := []struct {
		md   hooks.MergeDriverState
		err  error
		want string
	}{
		{hooks.MergeDriverState{Configured: true, Attributes: true}, nil, "registered"},
		{hooks.MergeDriverState{}, nil, "not registered"},
		{hooks.MergeDriverState{Configured: true}, nil, "configured, but .gitattributes does not route memories to it"},
		{hooks.MergeDriverState{}, errors.New("boom"), "unknown: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := DescribeMergeDriver(tt.md, tt.err); got != tt.want {
				t.Errorf("DescribeMergeDriver = %q, want %q", got, tt.want)
			}
		})
	}
}
