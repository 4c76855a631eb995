package review

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Marker is an HTML comment at the top of every Markdown report. It does
// not render; a CI job finds its previous comment on a pull request by it
// and edits that comment instead of adding another on every push.
const Marker = "<!-- contextfs-review -->"

// captured is the group of added memories that were captured (Change.Captured),
// listed first: nobody asked for them, so a reviewer reads them first.
const captured = "captured"

// maxValue is how many characters of a field value a Markdown report
// shows; the JSON report has them all.
const maxValue = 120

// maxDiffLines is how many lines of a body diff a Markdown report shows.
const maxDiffLines = 200

// Markdown renders the report for people, in the GitHub-flavoured Markdown
// of a pull-request comment: a one-line summary, then the changes in
// sections (Added, Changed, Superseded, Deleted) grouped by memory type,
// then validation problems and suspected secrets. Body diffs are folded
// away in <details> so a long edit does not bury the rest.
func (r Report) Markdown() string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	b.WriteString("### contextfs review\n\n")
	switch {
	case r.MergeBase:
		// Base moved on: say so, or its later edits would seem to be
		// missing from the report.
		fmt.Fprintf(&b, "Memories changed on %s since it left %s (their merge base %s).\n\n",
			code(cmpLabel(r.Head, r.HeadCommit)), code(r.Base), code(cmpLabel("", r.BaseCommit)))
	case r.Base != "" || r.Head != "":
		fmt.Fprintf(&b, "Memories changed from %s to %s.\n\n", code(cmpLabel(r.Base, r.BaseCommit)), code(cmpLabel(r.Head, r.HeadCommit)))
	}
	fmt.Fprintf(&b, "**%s**\n", r.Summary())
	if len(r.Changes) == 0 {
		b.WriteString("\nNo memory changes.\n")
	}
	titles := map[string]string{captured: "Captured", Added: "Added", Changed: "Changed", Superseded: "Superseded", Deleted: "Deleted"}
	for _, kind := range append([]string{captured}, kindOrder...) {
		var cs []Change
		for _, c := range r.Changes {
			if c.Kind == kind && !c.Captured || kind == captured && c.Captured {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s (%d)\n", titles[kind], len(cs))
		if kind == captured {
			b.WriteString("\nSaved by an agent at a hook's request, or written by one, without anyone asking: " +
				"keep, edit or delete each before this merges.\n")
		}
		typ := "\x00"
		for _, c := range cs {
			if c.Type != typ {
				typ = c.Type
				name := typ
				if name == "" {
					name = "unreadable"
				}
				fmt.Fprintf(&b, "\n**%s**\n\n", escape(name))
			}
			writeChange(&b, c)
		}
	}
	if len(r.Relevant) > 0 {
		fmt.Fprintf(&b, "\n#### Memories on the changed code (%d)\n\n", len(r.Relevant))
		for _, m := range r.Relevant {
			fmt.Fprintf(&b, "- %s %s %s", code(m.ID), escape(m.Type), escape(m.Title))
			if m.MayBeStale {
				b.WriteString(" — **may be stale**: its code changes here and it does not")
			}
			b.WriteString("\n")
		}
	}
	if r.Diagram != "" {
		fmt.Fprintf(&b, "\n#### Links\n\n```mermaid\n%s```\n", r.Diagram)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(&b, "\n#### Problems (%d)\n\n", len(r.Problems))
		for _, p := range r.Problems {
			loc := p.Path
			if p.Line > 0 {
				loc = fmt.Sprintf("%s:%d", p.Path, p.Line)
			}
			fmt.Fprintf(&b, "- %s **%s**: %s\n", code(loc), escape(p.Rule), escape(p.Message))
		}
		b.WriteString("\nRun `git contextfs validate` locally to check memory files before pushing.\n")
	}
	if len(r.Secrets) > 0 {
		fmt.Fprintf(&b, "\n#### Possible secrets (%d)\n\n", len(r.Secrets))
		for _, f := range r.Secrets {
			fmt.Fprintf(&b, "- %s %s %s (rule %s, fingerprint %s)\n", code(fmt.Sprintf("%s:%d:%d", f.Path, f.Line, f.Column)),
				escape(f.Description), code(f.Redacted), code(f.Rule), code(f.Fingerprint))
		}
		b.WriteString("\nRemove each secret and rotate it: it is in the branch's history now. " +
			"For a false positive, add its fingerprint to `secrets.fingerprints` in `.contextfs/config.yaml`.\n")
	}
	return b.String()
}

func cmpLabel(name, commit string) string {
	short := commit
	if len(short) > 12 {
		short = short[:12]
	}
	switch {
	case name == "":
		return short
	case short == "" || strings.HasPrefix(name, short) || strings.HasPrefix(commit, name):
		return name
	}
	return name + " " + short
}

// writeChange writes one change as a list item with its fields below.
func writeChange(b *strings.Builder, c Change) {
	title := c.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(b, "- **%s**", escape(title))
	if c.ID != "" {
		fmt.Fprintf(b, " %s", code(c.ID))
	}
	fmt.Fprintf(b, " · %s", code(c.Path))
	if c.OldPath != "" {
		fmt.Fprintf(b, " (renamed from %s)", code(c.OldPath))
	}
	if c.SupersededBy != "" {
		fmt.Fprintf(b, " — superseded by %s", code(c.SupersededBy))
	}
	if c.Why != "" {
		fmt.Fprintf(b, " (%s)", escape(c.Why))
	}
	b.WriteString("\n")
	for _, d := range c.NearDuplicates {
		fmt.Fprintf(b, "  - **near-duplicate** of **%s** %s · %s (similarity %.2f): update that memory instead?\n",
			escape(d.Title), code(d.ID), code(d.Path), d.Similarity)
	}
	var diffs []FieldChange
	for _, f := range c.Fields {
		fmt.Fprintf(b, "  - **%s**: ", escape(f.Field))
		switch {
		case f.Diff != "" || f.Summary != "":
			b.WriteString(f.Summary)
			diffs = append(diffs, f)
		case f.Added != nil || f.Removed != nil:
			var parts []string
			if len(f.Added) > 0 {
				parts = append(parts, "added "+codeList(f.Added))
			}
			if len(f.Removed) > 0 {
				parts = append(parts, "removed "+codeList(f.Removed))
			}
			b.WriteString(strings.Join(parts, "; "))
		case f.Old == "":
			b.WriteString("set to " + code(f.New))
		case f.New == "":
			b.WriteString("removed (was " + code(f.Old) + ")")
		default:
			b.WriteString(code(f.Old) + " → " + code(f.New))
		}
		b.WriteString("\n")
	}
	for _, f := range diffs {
		writeDiff(b, f)
	}
}

// writeDiff writes a body diff, folded, indented under its list item.
func writeDiff(b *strings.Builder, f FieldChange) {
	lines := splitLines(f.Diff)
	more := 0
	if len(lines) > maxDiffLines {
		more = len(lines) - maxDiffLines
		lines = lines[:maxDiffLines]
	}
	fence := "```"
	for _, l := range lines {
		for strings.Contains(l, fence) {
			fence += "`"
		}
	}
	fmt.Fprintf(b, "\n  <details><summary>%s diff (%s)</summary>\n\n", escape(f.Field), f.Summary)
	b.WriteString("  " + fence + "diff\n")
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("  " + fence + "\n")
	if more > 0 {
		fmt.Fprintf(b, "\n  … %d more lines (see the JSON report or the file diff)\n", more)
	}
	b.WriteString("\n  </details>\n\n")
}

func codeList(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = code(x)
	}
	return strings.Join(out, ", ")
}

// code renders s as an inline code span on one line, shortened to
// maxValue characters, with a fence longer than any run of backticks in
// it, as CommonMark requires.
func code(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxValue {
		s = string([]rune(s)[:maxValue-1]) + "…"
	}
	if s == "" {
		return "*(empty)*"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if len(fence) > 1 || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdSpecial are the characters that could start Markdown or HTML
// formatting in running text.
var mdSpecial = []rune{'\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '~', '!'}

// escape makes s literal text on one line: backslash-escapes Markdown
// punctuation and folds newlines, so a title cannot open a heading, a link
// or an HTML tag in the comment.
func escape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for _, r := range s {
		if slices.Contains(mdSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
