package memmerge

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
)

// base is a memory as contextfs writes it, with a comment and an unknown
// key that a merge must keep.
const base = `---
id: k3x9m2abcd
type: decision
title: Pool DB connections with pgxpool
# reviewers asked us to keep this tag list short
tags:
  - db
  - postgres
created: 2024-05-01T10:00:00Z
updated: 2024-05-01T10:00:00Z
data:
  decision: pgxpool, 20 per instance
  status: accepted
owner: platform-team
---
We pool Postgres connections with pgxpool.

Each process opens one pool of 20 connections.

See the runbook for tuning.
`

// plain is base without its comment: frontmatter.Format adds a blank
// line after a comment in a CRLF file, which is not the merge's doing.
var plain = edit(base, "# reviewers asked us to keep this tag list short\n", "")

// edit returns s with each pair of old, new strings replaced once; it
// panics when old is missing, so a typo in a test cannot pass silently.
func edit(s string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			panic("edit: " + pairs[i] + " not found")
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name                 string
		base, ours, theirs   string
		want                 string   // exact result, when set
		contains             []string // substrings of the result
		conflicts            []string // exact conflict descriptions
		notMemory            bool     // a side is not a memory: the result need not be one
		unparseable          bool     // the result must not parse as frontmatter
		parseableFrontmatter bool     // the frontmatter must parse (conflicts only in the body)
	}{
		{
			name:   "tags added on both sides are united",
			base:   base,
			ours:   edit(base, "  - postgres\n", "  - postgres\n  - x\n"),
			theirs: edit(base, "  - postgres\n", "  - postgres\n  - y\n"),
			want:   edit(base, "  - postgres\n", "  - postgres\n  - x\n  - y\n"),
		},
		{
			name:   "a tag removed on one side stays removed",
			base:   base,
			ours:   edit(base, "  - db\n", ""),
			theirs: edit(base, "  - postgres\n", "  - postgres\n  - y\n"),
			want:   edit(base, "  - db\n", "", "  - postgres\n", "  - postgres\n  - y\n"),
		},
		{
			name:   "links and supersedes merge as sets",
			base:   edit(base, "created:", "links:\n  - a1\n  - b2\nsupersedes:\n  - old1\ncreated:"),
			ours:   edit(base, "created:", "links:\n  - a1\n  - b2\n  - c3\nsupersedes:\n  - old1\ncreated:"),
			theirs: edit(base, "created:", "links:\n  - b2\nsupersedes:\n  - old1\n  - old2\ncreated:"),
			want:   edit(base, "created:", "links:\n  - b2\n  - c3\nsupersedes:\n  - old1\n  - old2\ncreated:"),
		},
		{
			name:   "updated takes the later time and created the earlier",
			base:   base,
			ours:   edit(base, "updated: 2024-05-01T10:00:00Z", "updated: 2024-07-01T10:00:00Z"),
			theirs: edit(base, "created: 2024-05-01T10:00:00Z", "created: 2024-04-01T10:00:00Z", "updated: 2024-05-01T10:00:00Z", "updated: 2024-06-02T10:00:00Z"),
			want:   edit(base, "created: 2024-05-01T10:00:00Z", "created: 2024-04-01T10:00:00Z", "updated: 2024-05-01T10:00:00Z", "updated: 2024-07-01T10:00:00Z"),
		},
		{
			name:   "different data fields changed on each side both apply",
			base:   base,
			ours:   edit(base, "  status: accepted", "  status: deprecated"),
			theirs: edit(base, "  decision: pgxpool, 20 per instance", "  decision: pgxpool, 30 per instance"),
			want:   edit(base, "  status: accepted", "  status: deprecated", "  decision: pgxpool, 20 per instance", "  decision: pgxpool, 30 per instance"),
		},
		{
			name:   "a data field added on one side and one removed on the other both apply",
			base:   base,
			ours:   edit(base, "  status: accepted\n", "  status: accepted\n  rationale: fewer connections\n"),
			theirs: edit(base, "  decision: pgxpool, 20 per instance\n", ""),
			want:   edit(base, "  decision: pgxpool, 20 per instance\n", "", "  status: accepted\n", "  status: accepted\n  rationale: fewer connections\n"),
		},
		{
			name:   "the same data field changed differently is a conflict with markers",
			base:   base,
			ours:   edit(base, "  status: accepted", "  status: deprecated"),
			theirs: edit(base, "  status: accepted", "  status: superseded"),
			want: edit(base, "  status: accepted\n",
				"<<<<<<< ours\n  status: deprecated\n=======\n  status: superseded\n>>>>>>> theirs\n"),
			conflicts:   []string{"data.status: both sides changed it"},
			unparseable: true,
		},
		{
			name:   "data removed on one side and a data field changed on the other conflicts on that field",
			base:   base,
			ours:   edit(base, "data:\n  decision: pgxpool, 20 per instance\n  status: accepted\n", ""),
			theirs: edit(base, "  status: accepted", "  status: deprecated"),
			want: edit(base, "data:\n  decision: pgxpool, 20 per instance\n  status: accepted\n",
				"data:\n<<<<<<< ours\n=======\n  status: deprecated\n>>>>>>> theirs\n"),
			conflicts:   []string{"data.status: theirs changed it, ours removed it"},
			unparseable: true,
		},
		{
			name:   "the same field changed differently is a conflict with markers",
			base:   base,
			ours:   edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx"),
			theirs: edit(base, "title: Pool DB connections with pgxpool", "title: Use pgxpool"),
			want: edit(base, "title: Pool DB connections with pgxpool\n",
				"<<<<<<< ours\ntitle: Use pgx\n=======\ntitle: Use pgxpool\n>>>>>>> theirs\n"),
			conflicts:   []string{"title: both sides changed it"},
			unparseable: true,
		},
		{
			name:   "a field changed on one side and removed on the other is a conflict",
			base:   edit(base, "created:", "summary: Pool it.\ncreated:"),
			ours:   edit(base, "created:", "summary: Pool it well.\ncreated:"),
			theirs: base,
			want: edit(base, "created:",
				"<<<<<<< ours\nsummary: Pool it well.\n=======\n>>>>>>> theirs\ncreated:"),
			conflicts:   []string{"summary: ours changed it, theirs removed it"},
			unparseable: true,
		},
		{
			name:   "the same field changed identically on both sides is clean",
			base:   base,
			ours:   edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx", "  - db\n", ""),
			theirs: edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx"),
			want:   edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx", "  - db\n", ""),
		},
		{
			name:   "a type alias is not a change",
			base:   base,
			ours:   edit(base, "type: decision", "type: Decision", "  - db\n", ""),
			theirs: edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx"),
			want:   edit(base, "type: decision", "type: Decision", "  - db\n", "", "title: Pool DB connections with pgxpool", "title: Use pgx"),
		},
		{
			name:   "edits to the first and the last paragraph of the body merge",
			base:   base,
			ours:   edit(base, "We pool Postgres connections with pgxpool.", "We pool Postgres connections with pgxpool (v5)."),
			theirs: edit(base, "See the runbook for tuning.", "See docs/runbook.md for tuning."),
			want: edit(base, "We pool Postgres connections with pgxpool.", "We pool Postgres connections with pgxpool (v5).",
				"See the runbook for tuning.", "See docs/runbook.md for tuning."),
		},
		{
			name:   "the same body line changed differently is a conflict with markers",
			base:   base,
			ours:   edit(base, "one pool of 20", "one pool of 25"),
			theirs: edit(base, "one pool of 20", "one pool of 30"),
			want: edit(base, "Each process opens one pool of 20 connections.\n",
				"<<<<<<< ours\nEach process opens one pool of 25 connections.\n=======\nEach process opens one pool of 30 connections.\n>>>>>>> theirs\n"),
			conflicts:            []string{"body: lines 18-22"},
			parseableFrontmatter: true,
		},
		{
			name:      "a side that is not a memory merges as text",
			base:      base,
			ours:      edit(base, "title: Pool DB connections with pgxpool", "title: [unclosed"),
			theirs:    edit(base, "See the runbook for tuning.", "See docs/runbook.md for tuning."),
			want:      edit(base, "title: Pool DB connections with pgxpool", "title: [unclosed", "See the runbook for tuning.", "See docs/runbook.md for tuning."),
			notMemory: true,
		},
		{
			name:      "a side that is not a memory merges as text, with markers on conflict",
			base:      base,
			ours:      edit(base, "title: Pool DB connections with pgxpool", "title: [unclosed"),
			theirs:    edit(base, "title: Pool DB connections with pgxpool", "title: Use pgxpool"),
			contains:  []string{"<<<<<<< ours\ntitle: [unclosed\n=======\ntitle: Use pgxpool\n>>>>>>> theirs\n"},
			conflicts: []string{"file: lines 4-8 (merged as text: ours:4: did not find expected ',' or ']')"},
			notMemory: true,
		},
		{
			name:   "a file added on both sides merges field by field",
			base:   "",
			ours:   edit(base, "  - postgres\n", "  - x\n", "updated: 2024-05-01T10:00:00Z", "updated: 2024-05-02T10:00:00Z"),
			theirs: edit(base, "  - postgres\n", "  - y\n", "owner: platform-team", "owner: platform-team\nreviewer: bob"),
			want: edit(base, "  - postgres\n", "  - x\n  - y\n", "updated: 2024-05-01T10:00:00Z", "updated: 2024-05-02T10:00:00Z",
				"owner: platform-team", "owner: platform-team\nreviewer: bob"),
		},
		{
			name:   "a file added on both sides with different titles conflicts",
			base:   "",
			ours:   base,
			theirs: edit(base, "title: Pool DB connections with pgxpool", "title: Use pgxpool"),
			want: edit(base, "title: Pool DB connections with pgxpool\n",
				"<<<<<<< ours\ntitle: Pool DB connections with pgxpool\n=======\ntitle: Use pgxpool\n>>>>>>> theirs\n"),
			conflicts:   []string{"title: both sides added it with different values"},
			unparseable: true,
		},
		{
			name:   "unknown keys are kept and merged",
			base:   base,
			ours:   edit(base, "owner: platform-team", "owner: platform-team\nreviewer: bob"),
			theirs: edit(base, "owner: platform-team", "owner: db-team\nsla: 99.9"),
			want:   edit(base, "owner: platform-team", "owner: db-team\nreviewer: bob\nsla: 99.9"),
		},
		{
			name:   "a conflicting key is found by key, not by a value that spells it",
			base:   edit(base, "---\nid:", "---\nnote: title\nid:"),
			ours:   edit(base, "---\nid:", "---\nnote: title\nid:", "title: Pool DB connections with pgxpool", "title: Use pgx"),
			theirs: edit(base, "---\nid:", "---\nnote: title\nid:", "title: Pool DB connections with pgxpool", "title: Use pgxpool"),
			want: edit(base, "---\nid:", "---\nnote: title\nid:", "title: Pool DB connections with pgxpool\n",
				"<<<<<<< ours\ntitle: Use pgx\n=======\ntitle: Use pgxpool\n>>>>>>> theirs\n"),
			conflicts:   []string{"title: both sides changed it"},
			unparseable: true,
		},
		{
			name:   "an unknown key changed differently on both sides is a conflict",
			base:   base,
			ours:   edit(base, "owner: platform-team", "owner: db-team"),
			theirs: edit(base, "owner: platform-team", "owner:\n  - alice\n  - bob"),
			want: edit(base, "owner: platform-team\n",
				"<<<<<<< ours\nowner: db-team\n=======\nowner:\n  - alice\n  - bob\n>>>>>>> theirs\n"),
			conflicts:   []string{"owner: both sides changed it"},
			unparseable: true,
		},
		{
			name: "lines neither side changed stay byte for byte ours",
			base: base,
			ours: edit(base, "title: Pool DB connections with pgxpool", "title: 'Pool DB connections with pgxpool' # quoted on purpose",
				"tags:\n  - db\n  - postgres\n", "tags: [db, postgres]\n", "owner: platform-team", "owner: \"platform-team\""),
			theirs: edit(base, "  status: accepted", "  status: deprecated", "title: Pool DB connections with pgxpool", "title: \"Pool DB connections with pgxpool\""),
			want: edit(base, "title: Pool DB connections with pgxpool", "title: 'Pool DB connections with pgxpool' # quoted on purpose",
				"tags:\n  - db\n  - postgres\n", "tags: [db, postgres]\n", "owner: platform-team", "owner: \"platform-team\"",
				"  status: accepted", "  status: deprecated"),
		},
		{
			name:   "comments edited only on their side are kept",
			base:   base,
			ours:   edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx", "  status: accepted", "  status: deprecated"),
			theirs: edit(base, "# reviewers asked us to keep this tag list short", "# keep this list short", "  decision: pgxpool, 20 per instance", "  # agreed in the May review\n  decision: pgxpool, 20 per instance", "owner: platform-team", "owner: platform-team # until June"),
			want: edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx", "  status: accepted", "  status: deprecated",
				"# reviewers asked us to keep this tag list short", "# keep this list short", "  decision: pgxpool, 20 per instance", "  # agreed in the May review\n  decision: pgxpool, 20 per instance", "owner: platform-team", "owner: platform-team # until June"),
		},
		{
			name:   "their comment on a list is kept when ours changes the list",
			base:   base,
			ours:   edit(base, "  - postgres\n", "  - postgres\n  - x\n"),
			theirs: edit(base, "# reviewers asked us to keep this tag list short", "# keep this list short"),
			want:   edit(base, "# reviewers asked us to keep this tag list short", "# keep this list short", "  - postgres\n", "  - postgres\n  - x\n"),
		},
		{
			name:   "CRLF files keep CRLF around conflict markers",
			base:   strings.ReplaceAll(plain, "\n", "\r\n"),
			ours:   strings.ReplaceAll(edit(plain, "title: Pool DB connections with pgxpool", "title: Use pgx"), "\n", "\r\n"),
			theirs: strings.ReplaceAll(edit(plain, "title: Pool DB connections with pgxpool", "title: Use pgxpool"), "\n", "\r\n"),
			want: strings.ReplaceAll(edit(plain, "title: Pool DB connections with pgxpool\n",
				"<<<<<<< ours\ntitle: Use pgx\n=======\ntitle: Use pgxpool\n>>>>>>> theirs\n"), "\n", "\r\n"),
			conflicts:   []string{"title: both sides changed it"},
			unparseable: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Merge([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if err != nil {
				t.Fatal(err)
			}
			got := string(res.Content)
			if tt.want != "" && got != tt.want {
				t.Errorf("merged:\n%s\nwant:\n%s", got, tt.want)
			}
			for _, s := range tt.contains {
				if !strings.Contains(got, s) {
					t.Errorf("merged:\n%s\nwant it to contain:\n%s", got, s)
				}
			}
			if strings.Join(res.Conflicts, "\n") != strings.Join(tt.conflicts, "\n") {
				t.Errorf("conflicts = %q, want %q", res.Conflicts, tt.conflicts)
			}
			if len(tt.conflicts) == 0 && !tt.notMemory {
				if _, _, err := gitstore.Decode("merged.md", res.Content); err != nil {
					t.Errorf("clean merge is not a memory: %v", err)
				}
			}
			if _, err := frontmatter.Parse(res.Content); tt.unparseable && err == nil {
				t.Errorf("frontmatter with conflict markers parsed without error:\n%s", got)
			} else if tt.parseableFrontmatter && err != nil {
				t.Errorf("frontmatter does not parse: %v", err)
			}
			again, err := Merge([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if err != nil || !bytes.Equal(again.Content, res.Content) {
				t.Errorf("second merge differs: %v\n%s", err, again.Content)
			}
		})
	}
}

func TestMergeTrivial(t *testing.T) {
	changed := edit(base, "  - db\n", "")
	for _, tt := range []struct{ name, base, ours, theirs, want string }{
		{"only ours changed", base, changed, base, changed},
		{"only theirs changed", base, base, changed, changed},
		{"both made the same change", base, changed, changed, changed},
		{"not a memory and only theirs changed", "a\n", "a\n", "b\n", "b\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Merge([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if err != nil || string(res.Content) != tt.want || len(res.Conflicts) > 0 {
				t.Errorf("Merge = %q, %q, %v; want %q", res.Content, res.Conflicts, err, tt.want)
			}
		})
	}
}

func TestMergeConflictInBodyAndFrontmatter(t *testing.T) {
	ours := edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx", "one pool of 20", "one pool of 25")
	theirs := edit(base, "title: Pool DB connections with pgxpool", "title: Use pgxpool", "one pool of 20", "one pool of 30")
	res, err := Merge([]byte(base), []byte(ours), []byte(theirs))
	if err != nil {
		t.Fatal(err)
	}
	// The title's markers add four lines above the body.
	want := []string{"title: both sides changed it", "body: lines 22-26"}
	if strings.Join(res.Conflicts, "\n") != strings.Join(want, "\n") {
		t.Errorf("conflicts = %q, want %q", res.Conflicts, want)
	}
	lines := strings.Split(string(res.Content), "\n")
	if lines[21] != "<<<<<<< ours" || lines[25] != ">>>>>>> theirs" {
		t.Errorf("body markers not on lines 22-26:\n%s", res.Content)
	}
}

func FuzzMerge(f *testing.F) {
	variants := []string{
		base,
		edit(base, "  - postgres\n", "  - postgres\n  - x\n"),
		edit(base, "title: Pool DB connections with pgxpool", "title: Use pgx"),
		edit(base, "  status: accepted", "  status: deprecated", "one pool of 20", "one pool of 25"),
		edit(base, "owner: platform-team", "owner: [a, b]\nextra: &x {k: v}\nmore: *x"),
		"",
		"not a memory\n",
		"---\nid: abc\ntype: fact\n---\n",
	}
	for i, b := range variants {
		for j, o := range variants {
			f.Add([]byte(b), []byte(o), []byte(variants[(i+j)%len(variants)]))
		}
	}
	// A text merge runs git merge-file, so an exec costs milliseconds and
	// minimising each new input took the whole default minimise time (60s,
	// during which no exec is counted): run with -fuzzminimizetime=100x as
	// make fuzz does. Inputs past 8 KiB only slow that down.
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		if len(base)+len(ours)+len(theirs) > 8<<10 {
			return
		}
		res, err := Merge(base, ours, theirs)
		if err != nil {
			return // git merge-file refuses some input, such as binary files
		}
		if len(res.Conflicts) > 0 {
			return
		}
		for _, in := range [][]byte{ours, theirs} {
			if _, _, err := gitstore.Decode("", in); err != nil {
				return
			}
		}
		if _, _, err := gitstore.Decode("", base); err != nil && len(bytes.TrimSpace(base)) > 0 {
			return
		}
		if _, _, err := gitstore.Decode("merged.md", res.Content); err != nil {
			t.Fatalf("clean merge of three memories is not a memory: %v\n%s", err, res.Content)
		}
	})
}
