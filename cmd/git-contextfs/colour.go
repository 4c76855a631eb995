package main

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/workflow"
)

// colorUsage is the help of --color.
const colorUsage = "colour the output `WHEN`: auto (on a terminal), always or never"

// setColor applies --color and turns colour off for the output programs
// read: the hooks and the merge driver (git and agents read it), --json
// and --format json. It runs before each command, after its flags are
// parsed.
func (a *app) setColor(c *cobra.Command) error {
	if err := a.colorFlag(c); err != nil {
		return err
	}
	if forPrograms(c) {
		a.io.DisableColor()
	}
	return nil
}

// colorFlag applies --color as c's flags have it, if given.
func (a *app) colorFlag(c *cobra.Command) error {
	f := c.Flags().Lookup("color")
	if f == nil || !f.Changed {
		return nil
	}
	m, err := iostreams.ParseColorMode(f.Value.String())
	if err != nil {
		return &usageError{fmt.Errorf("--color: %w", err)}
	}
	a.io.SetColorMode(m)
	return nil
}

// forPrograms reports whether c's output is read by programs: never
// coloured, whatever --color says.
func forPrograms(c *cobra.Command) bool {
	for p := c; p != nil && p.Parent() != nil; p = p.Parent() {
		if p.Parent() == p.Root() {
			switch p.Name() {
			case "hook", "merge-driver", "mcp", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
				return true
			}
		}
	}
	if j, err := c.Flags().GetBool("json"); err == nil && j {
		return true
	}
	if f := c.Flags().Lookup("format"); f != nil && f.Value.String() == "json" {
		return true
	}
	return false
}

// gitColorConfig is git's colour setting for this program, as git reads
// its own: color.contextfs, else color.ui ("" when neither is set, which
// means auto). iostreams asks for it only where a stream is a terminal
// and neither --color nor the environment decided, so a pipe never starts
// git for it.
func (a *app) gitColorConfig() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return workflow.ColorConfig(ctx, a.workDir())
}

// typeColor paints a memory type: the kinds people scan for each their
// own colour, the rest cyan.
func typeColor(cs *iostreams.ColorScheme, typ string) string {
	switch strings.TrimSpace(typ) {
	case "decision", "architecture":
		return cs.Magenta(typ)
	case "error", "issue":
		return cs.Red(typ)
	case "fact", "config", "dependency", "tech-context":
		return cs.Blue(typ)
	case "procedural", "workflow", "learned-pattern":
		return cs.Green(typ)
	}
	return cs.Cyan(typ)
}

// cell is one cell of a table and how to paint it.
type cell struct {
	text  string
	paint func(string) string // nil: as it is
}

func (c cell) painted() string {
	if c.paint == nil {
		return c.text
	}
	return c.paint(c.text)
}

// writeTable lays rows out as text/tabwriter does with a padding of two
// (each cell but the last padded to its column's widest, plus two
// spaces; the last as it is), painting cells after they are measured so
// that escapes do not count. With width > 0 (a terminal) the line's last
// cell is cut to fit, ending in an ellipsis, and tail (a mark such as
// "  [superseded]") is kept after it when it fits. Widths count
// characters, as tabwriter's do.
func writeTable(w *strings.Builder, rows [][]cell, tails []cell, width int) {
	if len(rows) == 0 {
		return
	}
	cols := len(rows[0]) - 1
	widths := make([]int, cols)
	for _, r := range rows {
		for i := 0; i < cols && i < len(r); i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i].text))
		}
	}
	for n, r := range rows {
		used := 0
		for i := 0; i < cols && i < len(r); i++ {
			w.WriteString(r[i].painted())
			pad := widths[i] - utf8.RuneCountInString(r[i].text) + 2
			w.WriteString(strings.Repeat(" ", pad))
			used += widths[i] + 2
		}
		last, tail := r[len(r)-1], tails[n]
		if width > 0 {
			room := width - used
			tw := utf8.RuneCountInString(tail.text)
			if utf8.RuneCountInString(last.text)+tw > room {
				if tw > 0 && room-tw >= 8 {
					last.text = iostreams.Truncate(last.text, room-tw)
				} else {
					last.text = iostreams.Truncate(last.text+tail.text, room)
					tail.text = ""
				}
			}
		}
		w.WriteString(last.painted())
		w.WriteString(tail.painted())
		w.WriteByte('\n')
	}
}

// paintHeadings colours the headings of a Markdown report, and nothing
// else, so that what is pasted from a terminal is still the Markdown: a
// section's heading in the colour of what it holds (Added green, Deleted
// red, ...), others bold. Lines inside fenced blocks (a diff, a diagram)
// are left alone.
func paintHeadings(cs *iostreams.ColorScheme, md string) string {
	if !cs.Enabled() {
		return md
	}
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(md) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		text := strings.TrimRight(line, "\n")
		if fenced || !strings.HasPrefix(text, "#") {
			b.WriteString(line)
			continue
		}
		title := strings.TrimLeft(text, "# ")
		paint := cs.Bold
		switch strings.SplitN(title, " ", 2)[0] {
		case "Added":
			paint = cs.Green
		case "Changed", "Captured":
			paint = cs.Yellow
		case "Superseded":
			paint = cs.Magenta
		case "Deleted", "Problems", "Possible":
			paint = cs.Red
		}
		b.WriteString(paint(text))
		b.WriteString(line[len(text):])
	}
	return b.String()
}
