package contextblock

import (
	"context"
	"fmt"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/secrets"
)

// RegisteredRepos is the key of the section of memories from the
// registered repositories (Options.Repos): left out unless asked for.
const RegisteredRepos = "registered-repos"

// registeredSection fills the section of the registered repositories'
// memories relevant to the task: one search of each (scope.Set.
// SearchRegistered), memories only, each item naming its repository. It is
// built only when the caller asks (Options.Repos) and there is a task: a
// block goes into every session's context window, and other
// repositories' memories may be under other rules (docs/SCOPES.md). The
// items' text is masked with a scanner without exceptions: this
// repository's allow lists say nothing about another's secrets.
func registeredSection(ctx context.Context, sp spec, o Options, shown map[string]bool) (Section, bool) {
	sec := Section{Key: sp.key, Title: sp.title}
	if len(o.Repos) == 0 || o.Scopes == nil || o.Task == "" {
		return sec, false
	}
	res, err := o.Scopes.SearchRegistered(ctx, o.Repos, contextfs.Query{Text: o.Task, Types: memoryTypes(), Kinds: []string{"memory"}, Limit: sp.limit * 2})
	if err != nil {
		sec.Note = degraded(fmt.Errorf("registered repositories: %w", err))
		return sec, true
	}
	sc := &secrets.Scanner{}
	for _, r := range res {
		key := r.Repo + "/" + r.ID
		if r.Kind != "memory" || r.Type == "progress" || shown[key] || len(sec.Items) == sp.limit {
			continue
		}
		it := Item{ID: r.ID, Type: r.Type, Title: oneLine(r.Title), Repo: r.Repo}
		it.mask(sc)
		shown[key] = true
		sec.Items = append(sec.Items, it)
	}
	return sec, len(sec.Items) > 0
}

// Repos is what Options.Repos takes: the registered repositories whose
// memories the block may include (scope.Config.Pick).
type Repos = []scope.RepoEntry
