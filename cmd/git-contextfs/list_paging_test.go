package main

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestListShowsAPageUnlessAskedForMore saves more memories than list's
// default page and checks what each way of asking shows, and that the
// shortened listing says so on stderr.
func TestListShowsAPageUnlessAskedForMore(t *testing.T) {
	dir := testgit.Init(t)
	t.Setenv("CONTEXTFS_WATCH", "off")
	ctx := context.Background()
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	const n = defaultListLimit + 5
	for i := range n {
		if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Title: fmt.Sprintf("Fact number %d", i), Body: fmt.Sprintf("The fact numbered %d.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	tests := []struct {
		name     string
		args     []string
		want     int
		wantNote bool
	}{
		{name: "default is one page, with a note", args: []string{"list"}, want: defaultListLimit, wantNote: true},
		{name: "-n asks for a number", args: []string{"list", "-n", "7"}, want: 7},
		{name: "--all shows everything", args: []string{"list", "--all"}, want: n},
		{name: "--json pages too", args: []string{"list", "--json"}, want: defaultListLimit, wantNote: true},
		{name: "--json --all is every memory", args: []string{"list", "--json", "--all"}, want: n},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inProcess(t, dir, "", tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var got int
			if strings.Contains(strings.Join(tc.args, " "), "--json") {
				var es []map[string]any
				decodeJSON(t, r.stdout, &es)
				got = len(es)
			} else {
				got = strings.Count(r.stdout, "\n")
			}
			if got != tc.want {
				t.Errorf("%d memories listed, want %d", got, tc.want)
			}
			if note := strings.Contains(r.stderr, "-n N or --all for more"); note != tc.wantNote {
				t.Errorf("note on stderr = %v, want %v (stderr %q)", note, tc.wantNote, r.stderr)
			}
		})
	}
}

// TestStreamJSONPrintsWhatPrintJSONPrints keeps list --json's bytes
// unchanged by the streaming writer: same indentation, no HTML escaping,
// [] for nothing.
func TestStreamJSONPrintsWhatPrintJSONPrints(t *testing.T) {
	type row struct {
		ID    string   `json:"id"`
		Title string   `json:"title"`
		Tags  []string `json:"tags,omitempty"`
	}
	tests := []struct {
		name string
		rows []row
	}{
		{name: "empty", rows: []row{}},
		{name: "one", rows: []row{{ID: "a", Title: "one"}}},
		{name: "several with markup and nesting", rows: []row{{ID: "a", Title: "x < y && z > w", Tags: []string{"t1", "t2"}}, {ID: "b", Title: `quote " and \u003c`}}},
		{name: "separators, control characters and bad UTF-8", rows: []row{{ID: "a", Title: "line\u2028para\u2029tab\tbell\a", Tags: []string{"bad \xff byte", ""}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			ios, _, want, _ := iostreams.Test()
			if err := (&app{io: ios}).printJSON(tc.rows); err != nil {
				t.Fatal(err)
			}
			if err := streamJSON(&got, seqOf(tc.rows), nil); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("streamed:\n%s\nprintJSON:\n%s", got.String(), want.String())
			}
		})
	}
}

// seqOf yields the elements of s with no error, as a listing does.
func seqOf[T any](s []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, e := range s {
			if !yield(e, nil) {
				return
			}
		}
	}
}
