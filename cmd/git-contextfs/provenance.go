package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/memory"
)

// Environment variables naming the tool (and model) that saves memories,
// for agents that run the CLI rather than the MCP server.
const (
	envSourceTool  = "CONTEXTFS_SOURCE_TOOL"
	envSourceModel = "CONTEXTFS_SOURCE_MODEL"
)

// saveAttach holds save's --path and --source flags.
type saveAttach struct {
	paths  []string
	source string
}

func (s *saveAttach) flags(f *pflag.FlagSet) {
	stringArrayVar(f, &s.paths, "path", "", "attach to code: a `GLOB` relative to the repository root, such as auth/** (repeatable)")
	f.StringVar(&s.source, "source", "", "the `TOOL` saving this memory (default: $"+envSourceTool+", else the open session's tool)")
}

// apply fills req's paths and source: the flags, then the environment.
// The open session (and its tool, when none is given) is the service's
// to stamp.
func (s *saveAttach) apply(req *contextfs.SaveRequest) {
	req.Paths = s.paths
	tool, model := s.source, os.Getenv(envSourceModel)
	if tool == "" {
		tool = os.Getenv(envSourceTool)
	}
	if tool != "" || model != "" {
		req.Source = &memory.Source{Tool: tool, Model: model}
	}
}

// updateAttach holds update's --add-path and --remove-path flags.
type updateAttach struct{ add, remove []string }

func (u *updateAttach) flags(f *pflag.FlagSet) {
	stringArrayVar(f, &u.add, "add-path", "", "attach to the code matching `GLOB` (repeatable)")
	stringArrayVar(f, &u.remove, "remove-path", "", "detach from `GLOB` (repeatable)")
}

// filterAttach holds the --path and --source filters of list and search.
type filterAttach struct {
	files  []string
	source string
}

func (f *filterAttach) flags(fs *pflag.FlagSet) {
	stringArrayVar(fs, &f.files, "path", "", "only memories attached to `FILE` (their paths globs cover it; repeatable)")
	fs.StringVar(&f.source, "source", "", "only memories saved by `TOOL`")
}

// listAttached is `search --path FILE` without a query: the memories
// attached to the files, newest first.
func (a *app) listAttached(cmd *cobra.Command, f filterAttach, asJSON bool) error {
	if len(f.files) == 0 {
		return &usageError{fmt.Errorf("search needs a QUERY, or --path FILE to list the memories attached to a file\nUsage: %s", cmd.UseLine())}
	}
	s, err := a.open(cmd)
	if err != nil {
		return err
	}
	defer s.Close()
	es, err := s.List(cmd.Context(), contextfs.ListOptions{Attached: f.files, Source: f.source})
	if err != nil {
		return err
	}
	if asJSON {
		if es == nil {
			es = []contextfs.Entry{}
		}
		return a.printJSON(es)
	}
	if len(es) == 0 {
		fmt.Fprintln(a.io.ErrOut, "no memories attached to "+strings.Join(f.files, ", "))
		return nil
	}
	for _, e := range es {
		fmt.Fprintf(a.io.Out, "%s  %-10s %s\n    %s\n", e.ID, e.Type, e.Title, e.Path)
	}
	return nil
}
