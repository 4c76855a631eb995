package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// saveOptions are the flags and arguments of save.
type saveOptions struct {
	typ, title, summary, data string
	tags, links, supersedes   []string
	json                      bool
	scope                     string
	typeGiven                 bool     // --type was on the command line
	content                   []string // the body, as arguments; "-" or none reads stdin
	attach                    saveAttach
	dedup                     string
}

// saveCmd is save: its help and flags; runSave does the work.
func (a *app) saveCmd() *cobra.Command {
	o := &saveOptions{}
	cmd := &cobra.Command{
		Use:   "save [flags] [CONTENT|-]",
		Short: "Save a new memory and print its ID",
		Long: `Saves a new memory as .contextfs/memories/<slug>-<id>.md and prints its ID.
The content is the Markdown body: the arguments, or standard input with "-"
(or when nothing is given and stdin is not a terminal). With nothing given
on a terminal, the editor git would use (GIT_EDITOR, core.editor, VISUAL,
EDITOR) opens on a template with a title and the type's data fields; an
empty text aborts, and a failed save keeps the text in its file. An empty
text given otherwise (save "", or - with nothing on stdin) is a usage error
(exit 2), unless --title gives the memory something. Without --title the
first heading or sentence becomes the title. --data gives the type's
structured fields as JSON; "git contextfs schema TYPE" shows them. --link
takes an ID or a unique prefix (written as the full ID), REL:ID, or a URL;
a link to no memory, or an unknown REL, is refused.

The memory is validated before anything is written, and scanned for
secrets: findings are printed as warnings (the pre-commit hook blocks them).
It is compared with the memories of its type: ones it repeats are listed
("similar:" on stderr) and --dedup decides (skip: print the existing ID and
write nothing); ones it may replace are listed ("may supersede:"). Newest
wins: one it plainly replaces (the same title with another position, or
the same preference_key) is superseded ("supersedes:"). A progress memory
supersedes the current progress. See docs/HYGIENE.md.

--scope user saves it in your own store (git contextfs user path), which
follows you into every repository and is committed there at once; nothing
is written under the repository. The user type goes there by default (the
scopes: key of your config changes that per type; see docs/SCOPES.md);
every other type goes to the repository.`,
		Example: `  git contextfs save --type decision --tag db \
      --data '{"decision":"pgx pool of 20","status":"accepted"}' \
      "We pool Postgres connections with pgxpool, 20 per instance."
  echo "Run make bench before tagging" | git contextfs save --type procedural -
  git contextfs save --type error --title "EADDRINUSE in tests" --json "Tests must use port 0"
  git contextfs save --type user "Prefers terse answers"
  git contextfs save --scope user --type procedural "Never run the integration tests locally"`,
		Args: argsRange(0, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.content = args
			o.typeGiven = cmd.Flags().Changed("type")
			return a.runSave(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.typ, "type", "t", "fact", "memory `TYPE` (see: git contextfs schema)")
	f.StringVar(&o.title, "title", "", "title (default: the body's first heading or sentence)")
	f.StringVar(&o.summary, "summary", "", "one-paragraph summary (default: derived from the body)")
	stringArrayVar(f, &o.tags, "tag", "", "tag (repeatable, or comma-separated)")
	stringArrayVar(f, &o.links, "link", "", "link to another memory (ID, prefix or REL:ID) or a URL (repeatable)")
	stringArrayVar(f, &o.supersedes, "supersedes", "", "ID of a memory this one replaces (repeatable); it is then hidden from search")
	f.StringVar(&o.data, "data", "", "structured fields of the type, as a JSON object")
	f.BoolVar(&o.json, "json", false, "print the saved memory as JSON")
	f.StringVar(&o.dedup, "dedup", "", "when it repeats a memory of its type: skip (default), update, error, allow, supersede (newest wins), or off (no check)")
	o.attach.flags(f)
	f.StringVar(&o.scope, "scope", "", "repo or user (default: user for the user type, else repo)")
	return cmd
}

// runSave runs save with o.
func (a *app) runSave(ctx context.Context, o *saveOptions) error {
	if err := checkTypes([]string{o.typ}, false); err != nil {
		return err
	}
	sc, err := parseScope(o.scope, true)
	if err != nil {
		return err
	}
	// A link's relation is checked here, as link checks --rel; whether its
	// target exists is the store's to say (exit 1).
	if _, err := memory.ParseLinks(o.links); err != nil {
		return &usageError{fmt.Errorf("--link: %w", err)}
	}
	d, err := parseData(o.data)
	if err != nil {
		return err
	}
	var body, editFile string
	editDone := func() {}
	if len(o.content) == 0 && a.io.StdinIsTerminal() {
		// No text on a terminal: write it in the editor, as git commit does.
		file, done, err := a.editFile()
		if err != nil {
			return err
		}
		e, err := a.editMemory(ctx, o.typ, o.title, file)
		if errors.Is(err, errEmptyEdit) {
			os.Remove(file)
			done()
		}
		if err != nil {
			return err
		}
		body, editFile, editDone = e.body, file, done
		if o.title == "" {
			o.title = e.title
		}
		d = memory.PatchData(e.data, d) // --data wins over the template
	} else if body, err = a.readContent(o.content); err != nil {
		return err
	}
	if strings.TrimSpace(body) == "" && strings.TrimSpace(o.title) == "" {
		// Nothing to save is a mistake in how save was called, as an
		// empty ID is (exit 2), not a failure to save (exit 1).
		from := "the text given is empty"
		if len(o.content) == 0 || len(o.content) == 1 && o.content[0] == "-" {
			from = "standard input is empty"
		}
		return &usageError{fmt.Errorf("save: %s: give the memory's text as arguments, or - to read it from standard input (or at least a --title)", from)}
	}
	s, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	req := workflow.SaveRequest{Scope: sc, Dedup: o.dedup, SaveRequest: contextfs.SaveRequest{Type: o.typ, Title: o.title,
		Summary: o.summary, Tags: o.tags, Links: o.links, Supersedes: o.supersedes, Data: d, Body: body}}
	o.attach.apply(&req.SaveRequest)
	err = a.checkedSave(ctx, s, req, !o.typeGiven, o.json)
	if editFile != "" {
		// What was typed stays in its file until it is saved: nothing lost.
		if err == nil {
			os.Remove(editFile)
			editDone()
		} else {
			fmt.Fprintf(a.io.ErrOut, "contextfs: your text is kept in %s\n", editFile)
		}
	}
	return err
}
