package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// reasonUsage checks --reason and turns a bad one into a usage error.
func reasonUsage(r string) error {
	if err := workflow.CheckReason(r); err != nil {
		return &usageError{fmt.Errorf("--reason: %w", err)}
	}
	return nil
}

// lineageUsage makes a request that lineage finds wrong in itself (a
// memory named twice, a blank or repeated part) a usage error.
func lineageUsage(err error) error {
	if re := (*workflow.RequestError)(nil); errors.As(err, &re) {
		return &usageError{err}
	}
	return err
}

func (a *app) evolveCmd() *cobra.Command {
	var reason, title, data string
	var asJSON, keepData bool
	cmd := &cobra.Command{
		Use:   "evolve ID [CONTENT|-]",
		Short: "Write a new version of a memory that supersedes it",
		Long: `Writes a new memory with the new content (the arguments, or stdin with "-")
that supersedes ID and records why (--reason: ` + strings.Join(memory.Reasons(), ", ") + `).
It keeps ID's type, tags, paths, links (not those of rel supersedes: they
stay with ID) and data, and its title unless that was derived from the old
content: then the new content gives the title. --data merges JSON fields
into the data (null deletes one). The old file stays, hidden from search;
"lineage" shows the chain. Blank content is refused, and so is an ID that
is already superseded: evolve its current version instead.

Data that restates a figure of the old text which the new text drops
("20 per instance" in data.decision, "40 connections" in the new text) is
refused, since the new version would contradict itself: give the field
anew with --data, or --keep-data to keep it as it is.`,
		Example: `  git contextfs evolve k3x9 --reason correction "We pool 40 connections, not 20."
  git contextfs evolve k3x9 --data '{"decision":"pgxpool, 40 per instance"}' "We pool 40 connections per instance."
  echo "New text" | git contextfs evolve k3x9 -`,
		Args: idArgs(1, -1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := reasonUsage(reason); err != nil {
				return err
			}
			d, err := parseData(data)
			if err != nil {
				return err
			}
			body, err := a.readContent(args[1:])
			if err != nil {
				return err
			}
			return a.withService(func(cmd *cobra.Command, _ []string, svc *workflow.Service) error {
				res, err := svc.Evolve(cmd.Context(), workflow.EvolveRequest{ID: args[0], Scope: workflow.Repo, Body: body, Title: title,
					Reason: reason, Data: d, KeepData: keepData})
				if err != nil {
					return err
				}
				return a.printSaved(res.Memories[0], asJSON)
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why: "+strings.Join(memory.Reasons(), ", "))
	cmd.Flags().StringVar(&title, "title", "", "a new title (default: the old one, or derived from the content as the old one was)")
	cmd.Flags().StringVar(&data, "data", "", "JSON object merged into the data (null deletes a field)")
	cmd.Flags().BoolVar(&keepData, "keep-data", false, "keep data whose figures the new text no longer states")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new memory as JSON")
	return cmd
}

// printSaved prints a new memory's ID, or the memory as JSON.
func (a *app) printSaved(m *memory.Memory, asJSON bool) error {
	if asJSON {
		return a.printJSON(m)
	}
	fmt.Fprintln(a.io.Out, m.ID)
	return nil
}

func (a *app) mergeCmd() *cobra.Command {
	var asJSON bool
	var body, data string
	cmd := &cobra.Command{
		Use:   "merge ID ID... [--content TEXT|-]",
		Short: "Merge memories of one type into one that supersedes them all",
		Long: `Writes one memory that supersedes every ID: the first one's type, title
and data (--data merges JSON fields into it), every one's tags, paths and
links (less those of rel supersedes), and --content as its body (or "-"
for stdin; by default the bodies joined in order). Blank --content is
refused, and so is an ID that is already superseded, and --content that
drops a figure the data restates (give the field anew with --data).`,
		Example: `  git contextfs merge k3x9 p2m7
  git contextfs merge k3x9 p2m7 --content "One pool of 20 per process."`,
		Args: idArgs(2, -1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := parseData(data)
			if err != nil {
				return err
			}
			if body == "-" {
				b, err := a.readContent([]string{"-"})
				if err != nil {
					return err
				}
				body = b
			}
			var content *string // nil joins the bodies; a blank --content is refused
			if cmd.Flags().Changed("content") {
				content = &body
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				res, err := svc.Merge(cmd.Context(), workflow.MergeRequest{IDs: args, Scope: workflow.Repo, Body: content, Data: d})
				if err != nil {
					return lineageUsage(err)
				}
				return a.printSaved(res.Memories[0], asJSON)
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&body, "content", "", "the merged memory's body, or - for stdin")
	cmd.Flags().StringVar(&data, "data", "", "JSON object merged into the data (null deletes a field)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new memory as JSON")
	return cmd
}

func (a *app) splitCmd() *cobra.Command {
	var parts []string
	var asJSON bool
	var data string
	cmd := &cobra.Command{
		Use:   "split ID --part TEXT --part TEXT...",
		Short: "Split a memory into parts derived from it that supersede it",
		Long: `Writes one memory per --part, each of ID's type, tags, paths and data
(--data merges JSON fields into it), linked to ID as derived_from and
superseding it. Prints the new IDs, one per line. A blank
part, or the same part twice, is refused, and so is an ID that is already
superseded.`,
		Example: `  git contextfs split k3x9 --part "We pool with pgxpool." --part "Pools hold 20 connections."`,
		Args:    idArgs(1, 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(parts) < 2 {
				return &usageError{fmt.Errorf("split needs at least two --part, got %d", len(parts))}
			}
			d, err := parseData(data)
			if err != nil {
				return err
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				res, err := svc.Split(cmd.Context(), workflow.SplitRequest{ID: args[0], Scope: workflow.Repo, Parts: parts, Data: d})
				if err != nil {
					return lineageUsage(err)
				}
				if asJSON {
					return a.printJSON(res.Memories)
				}
				for _, m := range res.Memories {
					fmt.Fprintln(a.io.Out, m.ID)
				}
				return nil
			})(cmd, args)
		},
	}
	stringArrayVar(cmd.Flags(), &parts, "part", "", "the text of one part (repeat for each)")
	cmd.Flags().StringVar(&data, "data", "", "JSON object merged into each part's data (null deletes a field)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new memories as JSON")
	return cmd
}

func (a *app) lineageCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lineage ID",
		Short: "Show a memory's supersedes chain, both ways, with each file's git history",
		Long: `Lists every version in the chain through ID, oldest first: what it
superseded and what superseded it, with the reason recorded, and under each
the commits that touched its file (commit, author, date).`,
		Example: `  git contextfs lineage k3x9
  git contextfs lineage k3x9 --json`,
		Args: idArgs(1, 1, 1),
		RunE: a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
			vs, err := svc.Lineage(cmd.Context(), workflow.Repo, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(vs)
			}
			for _, v := range vs {
				state := "current"
				if !v.Current {
					state = "superseded by " + strings.Join(v.SupersededBy, ", ")
				}
				fmt.Fprintf(a.io.Out, "%s  %s  %s (%s)\n", v.ID, v.Title, v.Path, state)
				if v.Reason != "" {
					fmt.Fprintf(a.io.Out, "    reason: %s\n", v.Reason)
				}
				if len(v.Commits) == 0 {
					fmt.Fprintln(a.io.Out, "    not committed yet")
				}
				for _, c := range v.Commits {
					fmt.Fprintf(a.io.Out, "    %.10s  %s  %s  %s\n", c.SHA, c.Date.Format("2006-01-02 15:04"), c.Author, c.Subject)
				}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// noteSuperseded tells the reader of an old version, found in sc, what
// replaced it.
func (a *app) noteSuperseded(ctx context.Context, svc *workflow.Service, sc workflow.Scope, m *memory.Memory) {
	by, err := svc.SupersededBy(ctx, sc, m.ID)
	if err == nil && len(by) > 0 {
		fmt.Fprintf(a.io.ErrOut, "note: %s is superseded by %s\n", m.ID, strings.Join(by, ", "))
	}
}

// supersededMarks returns what list --all appends to the line of a
// superseded memory of the repository; without --all nothing is
// superseded, so it looks nothing up. What supersedes what comes from the
// cache (workflow.Service.Superseders), which the listing has just synced.
func (a *app) supersededMarks(ctx context.Context, svc *workflow.Service, all bool) func(e workflow.Entry) string {
	none := func(workflow.Entry) string { return "" }
	if !all {
		return none
	}
	by, err := svc.Superseders(ctx)
	if err != nil {
		return none
	}
	return func(e workflow.Entry) string {
		if e.Scope != workflow.Repo {
			return ""
		}
		if ids := by[e.ID]; len(ids) > 0 {
			return "  [superseded by " + strings.Join(ids, ", ") + "]"
		}
		if e.Status == "superseded" {
			return "  [superseded]"
		}
		return ""
	}
}
