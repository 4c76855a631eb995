package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
)

// listOptions are the flags of list.
type listOptions struct {
	types, tags []string
	limit       int
	since       string
	all, json   bool
	scope       string
	attach      filterAttach
}

// listOptions checks the options and returns the contextfs.ListOptions
// they ask for; a bad value is a usageError.
func (o *listOptions) options() (contextfs.ListOptions, error) {
	lo := contextfs.ListOptions{Types: o.types, Tags: o.tags, Limit: o.limit, All: o.all,
		Attached: o.attach.files, Source: o.attach.source}
	if o.limit == 0 && !o.all {
		// One more than shown, to know whether to say there is more.
		lo.Limit = defaultListLimit + 1
	}
	if err := checkTypes(o.types, false); err != nil {
		return lo, err
	}
	if err := checkLimit(o.limit); err != nil {
		return lo, err
	}
	if o.since != "" {
		t, err := parseSince(o.since)
		if err != nil {
			return lo, &usageError{err}
		}
		lo.Since = t
	}
	return lo, nil
}

// defaultListLimit is how many memories list shows without -n or --all,
// as a page: at 10,000 memories listing everything costs a second and
// tens of megabytes, and nobody reads it on a terminal.
const defaultListLimit = 100

// listCmd is list: its help and flags; runList does the work.
func (a *app) listCmd() *cobra.Command {
	o := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories, newest first",
		Long: `Lists the memories of the repository and of your user store (git
contextfs user path), newest first; --scope repo or --scope user lists one.
JSON output carries each memory's scope.

Like git log, it shows the newest first and stops after a page: the
newest 100 unless -n says how many, or --all asks for everything
(superseded memories too). On a terminal the text goes through your
pager ($GIT_PAGER, $PAGER, else less); --json prints a JSON array,
written as it goes. --path FILE, named from the current folder or
absolute, lists the memories attached to the file.`,
		Example: "  git contextfs list --type decision\n  git contextfs list --tag db --json\n  git contextfs list --all --json > memories.json\n  git contextfs list -n 20 --scope user",
		Args:    argsRange(0, 0),
		RunE:    func(cmd *cobra.Command, _ []string) error { return a.runList(cmd.Context(), o) },
	}
	f := cmd.Flags()
	stringArrayVar(f, &o.types, "type", "t", "only this `TYPE` (repeatable)")
	stringArrayVar(f, &o.tags, "tag", "", "only memories with this tag (repeatable: all must match)")
	f.IntVarP(&o.limit, "limit", "n", 0, "at most N memories (default 100; --all for every one)")
	f.StringVar(&o.since, "since", "", "only memories updated since `WHEN`")
	f.BoolVar(&o.all, "all", false, "everything: superseded memories too, and no count limit")
	f.BoolVar(&o.json, "json", false, "print as a JSON array")
	o.attach.flags(f)
	f.StringVar(&o.scope, "scope", "", scopeUsage+" (default all)")
	return cmd
}

// runList runs list with o. The memories are read one at a time and
// written as they come (--json) or into the table (text), never held
// whole as a list: list --all at 10,000 memories stays small.
func (a *app) runList(ctx context.Context, o *listOptions) error {
	lo, err := o.options()
	if err != nil {
		return err
	}
	if lo.Attached, err = a.repoPaths(o.attach.files); err != nil {
		return err
	}
	sc, err := parseScope(o.scope, false)
	if err != nil {
		return err
	}
	s, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	// The default page asked the stores for one more than it shows: if
	// that one comes, there is more to say.
	page := o.limit == 0 && !o.all
	shown, more := 0, false
	entries := func(yield func(workflow.Entry, error) bool) {
		for e, err := range s.ListSeq(ctx, sc, lo) {
			if err == nil && page && shown == defaultListLimit {
				more = true
				return
			}
			shown++
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
	if o.json {
		err = streamJSON(a.io.Out, entries, appendEntryJSON)
	} else {
		err = a.listText(ctx, s, o.all, entries)
	}
	if err != nil {
		return err
	}
	if s.Repo() != nil && sc != workflow.User {
		a.noteSkipped(ctx, s.Repo()) // the user store's are warned about by the scope set
	}
	if more {
		fmt.Fprintf(a.io.ErrOut, "list: the newest %d shown; -n N or --all for more\n", defaultListLimit)
	}
	return nil
}

// listText writes entries as a table, through the pager on a terminal.
// The table is laid out whole before the pager starts, so an error
// while reading shows on its own, not behind a pager.
func (a *app) listText(ctx context.Context, s *workflow.Service, all bool, entries iter.Seq2[workflow.Entry, error]) error {
	mark := func(workflow.Entry) string { return "" }
	if s.Repo() != nil {
		mark = a.supersededMarks(ctx, s, all) // hygiene
	}
	cs := a.io.ColorScheme()
	paintType := func(t string) string { return typeColor(cs, t) }
	var rows [][]cell
	var tails []cell
	for e, err := range entries {
		if err != nil {
			return err
		}
		tail := mark(e)
		if e.Scope == workflow.User {
			tail = "  (user)" + tail
		}
		rows = append(rows, []cell{{e.ID, cs.Yellow}, {e.Type, paintType},
			{e.Updated.Format("2006-01-02"), cs.Gray}, {e.Title, nil}})
		tails = append(tails, cell{tail, cs.Gray})
	}
	var table strings.Builder
	writeTable(&table, rows, tails, a.io.TerminalWidth())
	out, done := a.pager()
	defer done()
	if _, err := io.WriteString(out, table.String()); err != nil && !errors.Is(err, syscall.EPIPE) {
		return err // a pager quit before the end is no failure, as with git
	}
	return nil
}

// streamJSON writes the elements of seq as an indented JSON array, each
// as it comes, so the output is never held in memory whole (a JSON
// encoder marshals its whole value into one buffer first). The bytes are
// those of printJSON for the same elements: v1 semantics, two-space
// indent, no HTML escaping; each element is written by fast, a writer
// made for its type, or, where fast is nil or declines, marshalled and
// indented in one pass (encoding/json/v2). An error from seq ends the
// output; if no element came before it, nothing is written.
func streamJSON[T any](w io.Writer, seq iter.Seq2[T, error], fast func([]byte, T) ([]byte, bool)) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var opts jsonv2.Options
	buf := make([]byte, 0, 1024)
	n := 0
	for e, err := range seq {
		if err != nil {
			if n > 0 {
				bw.Flush()
			}
			return err
		}
		if n == 0 {
			bw.WriteString("[\n  ")
		} else {
			bw.WriteString(",\n  ")
		}
		ok := false
		if fast != nil {
			buf, ok = fast(buf[:0], e)
		}
		if !ok {
			if opts == nil {
				opts = jsonv2.JoinOptions(json.DefaultOptionsV1(), jsontext.EscapeForHTML(false),
					jsontext.WithIndentPrefix("  "), jsontext.WithIndent("  "))
			}
			if buf, err = jsonv2.Marshal(e, opts); err != nil {
				return err
			}
		}
		bw.Write(buf)
		n++
	}
	if n == 0 {
		bw.WriteString("[]\n")
	} else {
		bw.WriteString("\n]\n")
	}
	return bw.Flush()
}

// pager returns where a long text output goes: through the user's pager
// when standard output is a terminal (as git does: $GIT_PAGER, $PAGER,
// else less -FRX, which exits at once when the text fits the screen),
// else standard output itself. done waits for the pager to exit.
func (a *app) pager() (out io.Writer, done func()) {
	if !a.io.StdoutIsTerminal() {
		return a.io.Out, func() {}
	}
	cmdline := os.Getenv("GIT_PAGER")
	if cmdline == "" {
		cmdline = os.Getenv("PAGER")
	}
	if cmdline == "" {
		cmdline = "less"
	}
	if cmdline == "cat" {
		return a.io.Out, func() {}
	}
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = a.io.Out, a.io.ErrOut
	cmd.Env = append(os.Environ(), "LESS="+cmp.Or(os.Getenv("LESS"), "FRX"))
	w, err := cmd.StdinPipe()
	if err != nil {
		return a.io.Out, func() {}
	}
	if err := cmd.Start(); err != nil {
		return a.io.Out, func() {}
	}
	return w, func() {
		w.Close()
		cmd.Wait()
	}
}
