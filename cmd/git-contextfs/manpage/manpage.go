// Package manpage writes the manual pages of a cobra command tree as roff,
// one page per command, the layout of cobra/doc's pages (NAME, SYNOPSIS,
// DESCRIPTION, OPTIONS, EXAMPLE, SEE ALSO).
//
// It exists so that git-contextfs need not link cobra/doc: that package
// renders through a Markdown library (blackfriday) whose package
// initialisers compile regular expressions and build tables in every run
// of the binary, a twentieth of the CPU of `git-contextfs --version`, for
// a command that make install runs once.
package manpage

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Header is what the .TH line of every page says.
type Header struct {
	// Title is the page's name in capitals; "" gives each page its own,
	// GIT-CONTEXTFS-SEARCH for git-contextfs-search(1), which man prints
	// at the top of the page.
	Title   string
	Section string    // 1
	Date    time.Time // printed as "Jan 2006"
	Source  string    // contextfs v1.2.3
	Manual  string    // contextfs Manual
}

// WriteTree writes a page for root and for every available command below
// it into dir, named as man looks them up: git-contextfs.1,
// git-contextfs-list.1. Hidden commands get none.
func WriteTree(root *cobra.Command, h Header, dir string) error {
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := WriteTree(c, h, dir); err != nil {
			return err
		}
	}
	name := strings.ReplaceAll(root.CommandPath(), " ", "-") + "." + h.Section
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	page(w, root, h)
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// page writes c's manual page to w.
func page(w *bufio.Writer, c *cobra.Command, h Header) {
	c.InitDefaultHelpFlag()
	dashed := strings.ReplaceAll(c.CommandPath(), " ", "-")
	title := h.Title
	if title == "" {
		title = strings.ToUpper(dashed)
	}
	fmt.Fprintf(w, ".nh\n.TH %q %q %q %q %q\n\n", title, h.Section, h.Date.Format("Jan 2006"), h.Source, h.Manual)
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n\n", dashed, text(c.Short))
	fmt.Fprintf(w, ".SH SYNOPSIS\n\\fB%s\\fP\n\n", text(c.UseLine()))
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	w.WriteString(".SH DESCRIPTION\n")
	paragraphs(w, desc)
	w.WriteString("\n")
	if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
		w.WriteString(".SH OPTIONS\n")
		flags(w, fs)
	}
	if fs := c.InheritedFlags(); fs.HasAvailableFlags() {
		w.WriteString(".SH OPTIONS INHERITED FROM PARENT COMMANDS\n")
		flags(w, fs)
	}
	if c.Example != "" {
		fmt.Fprintf(w, ".SH EXAMPLE\n.EX\n%s\n.EE\n\n", lines(c.Example))
	}
	var also []string
	if c.HasParent() {
		also = append(also, fmt.Sprintf("\\fB%s(%s)\\fP", strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"), h.Section))
	}
	subs := c.Commands()
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	for _, s := range subs {
		if s.IsAvailableCommand() && !s.IsAdditionalHelpTopicCommand() {
			also = append(also, fmt.Sprintf("\\fB%s-%s(%s)\\fP", dashed, s.Name(), h.Section))
		}
	}
	if len(also) > 0 {
		fmt.Fprintf(w, ".SH SEE ALSO\n%s\n", strings.Join(also, ", "))
	}
}

// paragraphs writes help text: paragraphs apart by .PP, and a paragraph
// whose lines are indented (a list, a command) kept as it is laid out.
func paragraphs(w *bufio.Writer, s string) {
	for i, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if i > 0 {
			w.WriteString("\n.PP\n")
		}
		if strings.Contains(p, "\n ") || strings.HasPrefix(p, " ") {
			fmt.Fprintf(w, ".EX\n%s\n.EE\n", lines(p))
			continue
		}
		fmt.Fprintf(w, "%s\n", lines(p))
	}
}

// flags writes the options of fs, as -h lists them: each with its default
// and its usage, a `NAME` in the usage in bold.
func flags(w *bufio.Writer, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			fmt.Fprintf(w, "\\fB-%s\\fP, ", f.Shorthand)
		}
		fmt.Fprintf(w, "\\fB--%s\\fP", f.Name)
		def := f.DefValue
		switch f.Value.Type() {
		case "string":
			def = fmt.Sprintf("%q", def)
		case "stringArray":
			// An empty default is "" (see stringArrayVar); pflag's own
			// string-array flags print it as an empty list.
			if def == "" {
				def = "[]"
			}
		}
		if f.NoOptDefVal != "" {
			fmt.Fprintf(w, "[=%s]", text(def))
		} else {
			fmt.Fprintf(w, "=%s", text(def))
		}
		fmt.Fprintf(w, "\n\t%s\n\n.PP\n", bold(text(f.Usage)))
	})
	w.WriteString("\n")
}

// lines escapes s for roff, line by line: a line that starts with a dot
// or an apostrophe would be read as a request.
func lines(s string) string {
	ls := strings.Split(text(s), "\n")
	for i, l := range ls {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			ls[i] = `\&` + l
		}
	}
	return strings.Join(ls, "\n")
}

// text escapes roff's escape character.
func text(s string) string { return strings.ReplaceAll(s, `\`, `\e`) }

// bold turns `NAME` into NAME in bold, as -h prints it plain.
func bold(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		b.WriteString(s[:i] + `\fB` + s[i+1:i+1+j] + `\fR`)
		s = s[i+1+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
