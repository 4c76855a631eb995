package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

func TestUpdateWarnsOfASecretItBringsIn(t *testing.T) {
	dir := testgit.Init(t)
	r := inProcess(t, dir, "", "save", "--type", "fact", "Deploys read the token from the CI secret store.")
	if r.code != exitOK {
		t.Fatalf("save: exit %d: %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	tests := []struct {
		name string
		body string
		warn bool
	}{
		{"a body with a token", "Deploys use " + fakeGitHubToken + " now.", true},
		{"a body without one", "Deploys read the token from the CI secret store again.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := inProcess(t, dir, tt.body, "update", id, "-")
			if r.code != exitOK {
				t.Fatalf("update: exit %d: %s", r.code, r.stderr)
			}
			if got := strings.Contains(r.stderr, "warning: possible secret"); got != tt.warn {
				t.Errorf("warned %v, want %v: %q", got, tt.warn, r.stderr)
			}
		})
	}
}
