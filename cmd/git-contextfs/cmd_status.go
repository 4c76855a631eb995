package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/internal/workflow"
)

// statusOptions are the flags of status.
type statusOptions struct {
	json bool
}

// statusCmd is status: its help and flags; runStatus does the work.
func (a *app) statusCmd() *cobra.Command {
	o := &statusOptions{}
	cmd := &cobra.Command{
		Use:     "status",
		Short:   "Show memory counts by type, invalid files, the cache state and the user store",
		Example: "  git contextfs status\n  git contextfs status --json",
		Args:    argsRange(0, 0),
		RunE: a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
			return a.runStatus(cmd.Context(), svc, o)
		}),
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return cmd
}

// runStatus runs status with o.
func (a *app) runStatus(ctx context.Context, svc *workflow.Service, o *statusOptions) error {
	rep, err := svc.Status(ctx)
	if err != nil {
		return err
	}
	st, user := rep.Status, rep.UserStore
	if o.json {
		return a.printJSON(rep)
	}
	fmt.Fprintf(a.io.Out, "repository  %s\n", printable.Path(st.Root))
	switch {
	case st.Sparse:
		fmt.Fprintln(a.io.Out, "            (.contextfs/ is outside the sparse checkout: git sparse-checkout add .contextfs)")
	case !st.Initiated:
		fmt.Fprintln(a.io.Out, "            (not initialised: run git contextfs init)")
	}
	if st.Cache.Fresh {
		fmt.Fprintf(a.io.Out, "memories    %d in %d files\n", st.Memories, st.Files)
	} else {
		now := "?"
		if st.OnDisk != nil {
			now = strconv.Itoa(*st.OnDisk)
		}
		fmt.Fprintf(a.io.Out, "memories    %d in %d files as the cache last saw them; %s files now\n", st.Memories, st.Files, now)
	}
	types := make([]string, 0, len(st.ByType))
	for t := range st.ByType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		fmt.Fprintf(a.io.Out, "  %-18s %d\n", t, st.ByType[t])
	}
	if len(st.Code) > 0 {
		n := 0
		for _, c := range st.Code {
			n += c
		}
		fmt.Fprintf(a.io.Out, "code        %d chunks\n", n)
	}
	if st.Commits > 0 {
		fmt.Fprintf(a.io.Out, "commits     %d\n", st.Commits)
	}
	fmt.Fprintf(a.io.Out, "embedder    %s\n", st.Embedder)
	freshness := "fresh"
	if !st.Cache.Fresh {
		freshness = "stale: it cannot be written, so answers come from what it last held"
	}
	fmt.Fprintf(a.io.Out, "cache       %s (%.1f MB, schema %s, %s)\n", printable.Path(st.Cache.Path), float64(st.Cache.Bytes)/1e6, st.Cache.Schema, freshness)
	fmt.Fprintf(a.io.Out, "watcher     %s\n", describeWatcher(st.Watcher))
	fmt.Fprintf(a.io.Out, "user store  %s (%s)\n", printable.Path(user.Path), user.Summary())
	if len(st.Invalid) > 0 {
		fmt.Fprintf(a.io.Out, "problems    %d file(s); run git contextfs validate\n", len(st.Invalid))
		for _, p := range st.Invalid {
			fmt.Fprintf(a.io.Out, "  %s\n", p)
		}
	}
	return nil
}
