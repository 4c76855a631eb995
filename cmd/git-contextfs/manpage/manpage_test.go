package manpage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestWriteTreeWritesRoffThatManReadsAsText checks the pages of a small
// tree: one per available command, none for a hidden one, and text that
// roff would read as requests or escapes made safe.
func TestWriteTreeWritesRoffThatManReadsAsText(t *testing.T) {
	root := &cobra.Command{Use: "tool", Short: "A tool", Long: "First paragraph.\n\nSecond, with a back\\slash.\n.starts with a dot\n\n  indented  layout\n  kept"}
	var names []string
	sub := &cobra.Command{Use: "sub", Short: "A subcommand", Example: "  tool sub --in x", Run: func(*cobra.Command, []string) {}}
	sub.Flags().StringArrayVarP(&names, "name", "n", nil, "only this `NAME` (repeatable)")
	sub.Flags().Bool("all", false, "every one")
	hidden := &cobra.Command{Use: "secret", Short: "Hidden", Hidden: true, Run: func(*cobra.Command, []string) {}}
	root.AddCommand(sub, hidden)
	dir := t.TempDir()
	h := Header{Title: "TOOL", Section: "1", Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Source: "tool 1.0", Manual: "tool Manual"}
	if err := WriteTree(root, h, dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name, page string
		want       []string
	}{
		{"header", "tool.1", []string{`.TH "TOOL" "1" "Nov 2026" "tool 1.0" "tool Manual"`, ".SH NAME\ntool \\- A tool\n"}},
		{"paragraphs apart", "tool.1", []string{"First paragraph.\n\n.PP\nSecond"}},
		{"backslash escaped", "tool.1", []string{`back\eslash`}},
		{"leading dot is no request", "tool.1", []string{"\n\\&.starts with a dot"}},
		{"indented text kept as laid out", "tool.1", []string{".EX\n  indented  layout\n  kept\n.EE"}},
		{"see also lists the available subcommands", "tool.1", []string{".SH SEE ALSO\n\\fBtool-sub(1)\\fP\n"}},
		{"synopsis", "tool-sub.1", []string{".SH SYNOPSIS\n\\fBtool sub [flags]\\fP"}},
		{"flag with shorthand, default and bold name", "tool-sub.1", []string{`\fB-n\fP, \fB--name\fP=[]` + "\n\tonly this \\fBNAME\\fR (repeatable)"}},
		{"bool flag", "tool-sub.1", []string{`\fB--all\fP[=false]`}},
		{"examples", "tool-sub.1", []string{".SH EXAMPLE\n.EX\n  tool sub --in x\n.EE"}},
		{"see also the parent", "tool-sub.1", []string{".SH SEE ALSO\n\\fBtool(1)\\fP"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := read(tc.page)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("%s lacks %q:\n%s", tc.page, w, page)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "tool-secret.1")); err == nil {
		t.Error("a page was written for a hidden command")
	}
}
