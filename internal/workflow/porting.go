package workflow

import (
	"context"

	"github.com/contextfs/contextfs/internal/exporter"
	"github.com/contextfs/contextfs/internal/importer"
)

// ImportPlan is what an import does, or would do: a step per memory.
type ImportPlan = importer.Plan

// The actions of an import step.
const (
	ImportCreate    = importer.Create
	ImportUpdate    = importer.Update
	ImportUnchanged = importer.Unchanged
	ImportGone      = importer.Gone // imported earlier from a place no longer in the file: kept
)

// ImportRequest reads the knowledge files a repository keeps for agents
// (CLAUDE.md, AGENTS.md, Cursor rules, .clinerules, memory-bank/, ADRs)
// into memories.
type ImportRequest struct {
	// Paths are the files or folders to read, work-tree relative; none
	// reads every one that exists.
	Paths []string
	// DryRun plans and writes nothing.
	DryRun bool
}

// Import imports req into the repository's store: importing again writes
// nothing, an edited rule updates its memory, and a rule gone from its
// file is reported and kept. The plan is returned with an error too, as
// far as it got.
func (s *Service) Import(ctx context.Context, req ImportRequest) (*ImportPlan, error) {
	st, _, err := s.storeFor(ctx, Repo, "")
	if err != nil {
		return nil, err
	}
	return importer.Import(ctx, st, importer.Options{Paths: req.Paths, DryRun: req.DryRun})
}

// ExportTargets are the files Export writes: agents-md, claude-md and
// cursor-rules.
var ExportTargets = exporter.Targets

// ExportRequest writes the project's key memories for agents that read
// files.
type ExportRequest struct {
	// Target is one of ExportTargets.
	Target string
	// Budget is the size in estimated tokens; 0 is the default (1500).
	Budget int
	// DryRun returns the files' new content and writes nothing.
	DryRun bool
}

// Exported is what an export wrote, or would write.
type Exported = exporter.Result

// Export writes the repository's brief, architecture, conventions,
// preferences and accepted decisions into req.Target's files, keeping
// every byte outside its block: a second export of the same memories
// changes no byte.
func (s *Service) Export(ctx context.Context, req ExportRequest) (*Exported, error) {
	st, _, err := s.storeFor(ctx, Repo, "")
	if err != nil {
		return nil, err
	}
	return exporter.Export(ctx, st, exporter.Options{Target: req.Target, Budget: req.Budget, DryRun: req.DryRun})
}
