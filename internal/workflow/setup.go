package workflow

import (
	"os"
	"path/filepath"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/agentsetup"
)

// SetupClients are the agent clients Setup configures.
var SetupClients = agentsetup.Clients

// SetupChange is one file Setup wrote, or would write, and what to it.
type SetupChange = agentsetup.Change

// SetupAbsent is the SetupChange.Action of a file that does not exist and
// that setup leaves so.
const SetupAbsent = agentsetup.ActionAbsent

// SetupRequest configures an agent client to use contextfs: its MCP
// server entry, the context and session hooks, the capture hooks.
type SetupRequest struct {
	// Client is one of SetupClients.
	Client string
	// User writes the person's own files (in the home directory) rather
	// than the repository's around Dir.
	User bool
	Dir  string
	// Remove takes contextfs out again; DryRun writes nothing.
	Remove, DryRun bool
}

// Setup writes the client's configuration files, keeping every other
// setting of theirs, and returns what it did to each. The user's files
// are found from $HOME, $CODEX_HOME and $XDG_STATE_HOME (where backups
// go); project setup reads the user's too, so that its hooks do not
// repeat theirs.
func Setup(req SetupRequest) ([]SetupChange, error) {
	o := agentsetup.Options{Client: req.Client, User: req.User, Remove: req.Remove, DryRun: req.DryRun, CodexHome: os.Getenv("CODEX_HOME")}
	// Without a home, project setup reads none of the user's settings.
	home, homeErr := os.UserHomeDir()
	o.Home = home
	if req.User {
		if homeErr != nil {
			return nil, homeErr
		}
		state := os.Getenv("XDG_STATE_HOME")
		if state == "" {
			state = filepath.Join(home, ".local", "state")
		}
		o.StateDir = filepath.Join(state, "contextfs")
		// Run in a repository, user setup says whether its own hooks
		// print the block too.
		if repo, err := gitstore.Discover(req.Dir); err == nil {
			o.Project = repo.Root
		}
	} else {
		repo, err := gitstore.Discover(req.Dir)
		if err != nil {
			return nil, err
		}
		o.Root, o.GitDir = repo.Root, repo.GitDir
	}
	return agentsetup.Run(o)
}

// ProjectInjects reports whether the repository around dir has a Claude
// Code SessionStart hook of its own that prints the context block; the
// user-level hook then prints nothing, so the agent reads the block once.
// Outside a repository only the user's hook runs.
func ProjectInjects(dir string) bool {
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return false
	}
	return agentsetup.ProjectInjects(repo.Root) != ""
}
