package mcpserver

import (
	"context"
	"fmt"
	"strings"
)

// ReposInput is the argument of list_repos: with add, it registers that
// repository first, as the CLI's repos add does.
type ReposInput struct {
	Add  string `json:"add,omitempty" jsonschema:"a repository folder to register"`
	Name string `json:"name,omitempty" jsonschema:"add: its name"`
}

// addRepo registers in.Add (relative to this repository's root) when
// given, and says what it did ("" when nothing was asked).
func (sv *server) addRepo(ctx context.Context, in ReposInput) (string, error) {
	if in.Name != "" && in.Add == "" {
		return "", fmt.Errorf("name names a repository to add: give add too")
	}
	if strings.TrimSpace(in.Add) == "" {
		return "", nil
	}
	e, err := sv.svc.AddRepo(ctx, in.Add, in.Name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("registered %s (%s) %s\n", e.Name, e.ID, e.Path), nil
}
