package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// save runs `save` and returns the new ID.
func save(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(ok(t, dir, append([]string{"save"}, args...)...))
}

func TestCLILinkRelatedUnlink(t *testing.T) {
	dir := hookedRepo(t)
	a := save(t, dir, "--type", "decision", "Use pgx for Postgres access.")
	b := save(t, dir, "--type", "fact", "The orders service talks to Postgres.")
	c := save(t, dir, "--type", "fact", "The orders service runs on Kubernetes.")

	out := ok(t, dir, "link", b, a, "--rel", "depends_on")
	if !strings.Contains(out, "depends_on:"+a) {
		t.Fatalf("link output %q does not show the typed link", out)
	}
	ok(t, dir, "link", c, b)
	m := ok(t, dir, "recall", b)
	if !strings.Contains(m, "  - {id: "+a+", rel: depends_on}\n") {
		t.Fatalf("file does not hold the canonical typed link:\n%s", m)
	}
	tests := []struct {
		name string
		args []string
		want []string // IDs reached, in order
	}{
		{"depth 1 walks both ways", []string{"related", b}, []string{a, c}},
		{"depth 2 reaches the far end", []string{"related", c, "--depth", "2"}, []string{b, a}},
		{"a relation filter keeps only its links", []string{"related", b, "--rel", "depends_on"}, []string{a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []struct{ ID string }
			decodeJSON(t, ok(t, dir, append(tt.args, "--json")...), &got)
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if strings.Join(ids, " ") != strings.Join(tt.want, " ") {
				t.Errorf("reached %v, want %v", ids, tt.want)
			}
		})
	}
	ok(t, dir, "unlink", b, a)
	if r := cli(t, dir, "", "unlink", b, a); r.code != 1 || !strings.Contains(r.stderr, "no link") {
		t.Errorf("unlinking a missing link: exit %d, stderr %q; want exit 1 naming the problem", r.code, r.stderr)
	}
	if r := cli(t, dir, "", "link", b, a, "--rel", "likes"); r.code != 2 || !strings.Contains(r.stderr, "depends_on") {
		t.Errorf("an unknown relation: exit %d, stderr %q; want exit 2 listing the vocabulary", r.code, r.stderr)
	}
}

func TestCLIDanglingLinkFailsValidateAndPreCommit(t *testing.T) {
	dir := hookedRepo(t)
	a := save(t, dir, "The first memory.")
	file := ".contextfs/memories/dangling.md"
	writeFile(t, dir, file, "---\nid: dangler01\ntype: fact\ntitle: Dangling\nlinks:\n  - "+a+
		"\n  - {id: nowhere99, rel: depends_on}\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nbody\n")
	r := cli(t, dir, "", "validate")
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, file+":7: link: links[1]: links to nowhere99") {
		t.Fatalf("validate: exit %d\n%s%s\nwant exit 1 naming %s:7", r.code, r.stdout, r.stderr, file)
	}
	testgit.Run(t, dir, "add", "-A")
	if msg, code := gitEnv(t, dir, nil, "commit", "-q", "-m", "dangling"); code == 0 || !strings.Contains(msg, "nowhere99") {
		t.Fatalf("pre-commit let a dangling link through: exit %d\n%s", code, msg)
	}
}

func TestCLIEvolveMergeSplitLineage(t *testing.T) {
	dir := hookedRepo(t)
	old := save(t, dir, "--type", "decision", "--title", "Connection pool size", "--tag", "db", "We pool 20 connections per instance.")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "pool decision")

	if r := cli(t, dir, "", "evolve", old, "--reason", "whim", "x"); r.code != 2 {
		t.Errorf("evolve with an unknown reason: exit %d, want 2", r.code)
	}
	newer := strings.TrimSpace(ok(t, dir, "evolve", old, "--reason", "correction", "We pool 40 connections per instance."))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "pool size corrected")

	t.Run("recall of the old version says what superseded it", func(t *testing.T) {
		r := cli(t, dir, "", "recall", old)
		if r.code != 0 || !strings.Contains(r.stderr, "superseded by "+newer) {
			t.Fatalf("recall: exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("the new version keeps title and tags and records the reason", func(t *testing.T) {
		f := ok(t, dir, "recall", newer)
		for _, want := range []string{"title: Connection pool size", "  - db\n", "supersedes:\n  - " + old, "reason: correction", "40 connections"} {
			if !strings.Contains(f, want) {
				t.Errorf("new version lacks %q:\n%s", want, f)
			}
		}
	})
	t.Run("list hides the old version and list --all marks it", func(t *testing.T) {
		if strings.Contains(ok(t, dir, "list"), old) {
			t.Error("list shows the superseded version")
		}
		if all := ok(t, dir, "list", "--all"); !strings.Contains(all, "[superseded by "+newer+"]") {
			t.Errorf("list --all does not mark it:\n%s", all)
		}
	})
	t.Run("lineage shows the chain both ways with git history", func(t *testing.T) {
		var vs []struct {
			ID      string
			Current bool
			Reason  string
			Commits []struct{ SHA, Author, Subject string }
		}
		for _, from := range []string{old, newer} {
			decodeJSON(t, ok(t, dir, "lineage", from, "--json"), &vs)
			if len(vs) != 2 || vs[0].ID != old || vs[1].ID != newer || vs[0].Current || !vs[1].Current || vs[1].Reason != "correction" {
				t.Fatalf("lineage from %s = %+v", from, vs)
			}
			if len(vs[0].Commits) != 1 || vs[0].Commits[0].Subject != "pool decision" || vs[0].Commits[0].Author != "Ada Lovelace" ||
				len(vs[1].Commits) != 1 || vs[1].Commits[0].Subject != "pool size corrected" {
				t.Fatalf("lineage history = %+v", vs)
			}
		}
	})

	x := save(t, dir, "--type", "fact", "--tag", "ci", "CI runs on GitHub Actions.")
	y := save(t, dir, "--type", "fact", "--tag", "speed", "--link", "depends_on:"+newer, "CI takes about eight minutes.")
	t.Run("merge writes one memory superseding all, tags and links unioned", func(t *testing.T) {
		merged := strings.TrimSpace(ok(t, dir, "merge", x, y))
		f := ok(t, dir, "recall", merged)
		for _, want := range []string{"  - ci\n  - speed\n", "{id: " + newer + ", rel: depends_on}", "  - " + x + "\n  - " + y + "\n",
			"GitHub Actions.\n\nCI takes about eight minutes."} {
			if !strings.Contains(f, want) {
				t.Errorf("merged memory lacks %q:\n%s", want, f)
			}
		}
		if r := cli(t, dir, "", "merge", merged, newer); r.code != 1 || !strings.Contains(r.stderr, "one type") {
			t.Errorf("merging a fact with a decision: exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("split writes parts derived from the memory that supersede it", func(t *testing.T) {
		parts := strings.Fields(ok(t, dir, "split", newer, "--part", "We use pgxpool.", "--part", "Each pool holds 40 connections."))
		if len(parts) != 2 {
			t.Fatalf("split printed %v", parts)
		}
		for _, p := range parts {
			f := ok(t, dir, "recall", p)
			if !strings.Contains(f, "{id: "+newer+", rel: derived_from}") || !strings.Contains(f, "supersedes:\n  - "+newer) {
				t.Errorf("part %s:\n%s", p, f)
			}
		}
		if r := cli(t, dir, "", "split", newer, "--part", "only one"); r.code != 2 {
			t.Errorf("split with one part: exit %d, want 2", r.code)
		}
	})
}

func TestCLIMergeOfBranchesKeepsLinksAddedOnEach(t *testing.T) {
	dir := hookedRepo(t)
	a := save(t, dir, "The API gateway terminates TLS.")
	b := save(t, dir, "Billing exports invoices nightly.")
	c := save(t, dir, "Search reindexes on every deploy.")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "three memories")
	testgit.Run(t, dir, "checkout", "-q", "-b", "other")
	ok(t, dir, "link", a, b, "--rel", "depends_on")
	testgit.Run(t, dir, "commit", "-q", "-am", "a depends on b")
	testgit.Run(t, dir, "checkout", "-q", "main")
	ok(t, dir, "link", a, c)
	testgit.Run(t, dir, "commit", "-q", "-am", "a related to c")
	if out, code := gitEnv(t, dir, nil, "merge", "--no-edit", "other"); code != 0 {
		t.Fatalf("merge failed: %s", out)
	}
	f := ok(t, dir, "recall", a)
	if !strings.Contains(f, "links:\n  - "+c+"\n  - {id: "+b+", rel: depends_on}\n") {
		t.Fatalf("merged memory lost a link:\n%s", f)
	}
}

// What supersedes a memory is read from the cache, which must know both
// ways of saying it: supersedes: (above) and a link of rel supersedes; and
// list --all marks a memory whose status says it is superseded.
func TestCLISupersedingLinksAndStatusAreMarked(t *testing.T) {
	dir := hookedRepo(t)
	old := save(t, dir, "--type", "decision", "--title", "Cache in Redis", "We cache sessions in Redis.")
	newer := save(t, dir, "--type", "decision", "--title", "Cache in memory", "We cache sessions in process memory.")
	retired := save(t, dir, "--type", "decision", "--title", "Retired rule", "--data", `{"decision":"none","status":"superseded"}`, "An old rule nobody follows.")
	if r := cli(t, dir, "", "recall", old); strings.Contains(r.stderr, "superseded") {
		t.Fatalf("recall before any link: %q", r.stderr)
	}
	ok(t, dir, "link", newer, old, "--rel", "supersedes")
	if r := cli(t, dir, "", "recall", old); r.code != 0 || !strings.Contains(r.stderr, "superseded by "+newer) {
		t.Fatalf("recall after the link: exit %d, stderr %q", r.code, r.stderr)
	}
	all := ok(t, dir, "list", "--all")
	for _, want := range []string{old + " ", "[superseded by " + newer + "]", retired + " ", "[superseded]"} {
		if !strings.Contains(all, want) {
			t.Errorf("list --all lacks %q:\n%s", want, all)
		}
	}
	ok(t, dir, "unlink", newer, old)
	if r := cli(t, dir, "", "recall", old); strings.Contains(r.stderr, "superseded") {
		t.Fatalf("recall after unlink: %q", r.stderr)
	}
}

// The hygiene commands refuse what they would write wrong, before writing
// anything: links that validate rejects, blank content, a memory that a
// newer version already replaces. A mistake in the command line itself is
// a usage error (exit 2); one that depends on what the store holds, or a
// memory without content (as for save), exits 1.
func TestCLIHygieneRefusals(t *testing.T) {
	dir := hookedRepo(t)
	a := save(t, dir, "The API listens on port 8080.")
	b := save(t, dir, "The API answers in JSON.")
	v1 := save(t, dir, "Cache TTL is 60 seconds.")
	v2 := strings.TrimSpace(ok(t, dir, "evolve", v1, "Cache TTL is 120 seconds."))
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string // in stderr
	}{
		{"save with a link to a missing memory", "", []string{"save", "--link", "depends_on:zzzzzzzzzz", "dead link memory"}, 1, "zzzzzzzzzz"},
		{"save with a prefix of no memory", "", []string{"save", "--link", "qqqq", "dead prefix memory"}, 1, `"qqqq"`},
		{"save with an unknown relation", "", []string{"save", "--link", "bogus:" + a, "bogus relation memory"}, 2, `unknown relation "bogus"`},
		{"evolve with empty content", "", []string{"evolve", a, ""}, 1, "needs content"},
		{"evolve with nothing on stdin", "", []string{"evolve", a}, 1, "needs content"},
		{"evolve with blank stdin", " \n\t\n", []string{"evolve", a, "-"}, 1, "needs content"},
		{"evolve of a superseded memory", "", []string{"evolve", v1, "Cache TTL is 300 seconds."}, 1,
			v1 + " is superseded by " + v2 + "; evolve " + v2 + " instead"},
		{"merge of a memory with itself", "", []string{"merge", a, a[:5]}, 2, "named twice"},
		{"merge with empty content", "", []string{"merge", a, b, "--content", ""}, 1, "needs content"},
		{"merge with blank content on stdin", "  \n", []string{"merge", a, b, "--content", "-"}, 1, "needs content"},
		{"merge with a superseded memory", "", []string{"merge", a, v1}, 1, "merge " + v2 + " instead"},
		{"merge of a memory with what replaced it", "", []string{"merge", v2, v1}, 1, "leave " + v1 + " out"},
		{"split with an empty part", "", []string{"split", a, "--part", "", "--part", "x"}, 2, "part 1 is empty"},
		{"split into the same part twice", "", []string{"split", a, "--part", "same", "--part", " same"}, 2, "parts 1 and 2 are the same"},
		{"split of a superseded memory", "", []string{"split", v1, "--part", "Cache TTL is set.", "--part", "In seconds."}, 1, "split " + v2 + " instead"},
		{"save superseding a superseded memory", "", []string{"save", "--supersedes", v1, "Cache TTL is 600 seconds."}, 1, "supersede " + v2 + " instead"},
	}
	mems := filepath.Join(dir, ".contextfs", "memories")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, mems)
			r := cli(t, dir, tt.stdin, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", r.code, r.stderr, tt.code, tt.want)
			}
			if snapshot(t, mems) != before {
				t.Error("a refused command changed the memory files")
			}
		})
	}
}

// What save --link writes is what link would: the full ID of a unique
// prefix, a URL as it is.
func TestCLISaveLinksAsLinkDoes(t *testing.T) {
	dir := hookedRepo(t)
	a := save(t, dir, "The API listens on port 8080.")
	tests := []struct {
		name, link, body, want string // want: the line in the file
	}{
		{"a prefix becomes the full ID", a[:4], "The gateway sits in front of the API.", "  - " + a + "\n"},
		{"a typed prefix becomes the full ID", "depends_on:" + a[:5], "Rate limits are enforced per token.", "  - {id: " + a + ", rel: depends_on}\n"},
		{"a URL is kept", "https://example.com/api?v=2", "The OpenAPI spec is published.", "  - https://example.com/api?v=2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := save(t, dir, "--link", tt.link, tt.body)
			if f := ok(t, dir, "recall", id); !strings.Contains(f, "links:\n"+tt.want) {
				t.Errorf("file lacks %q:\n%s", tt.want, f)
			}
		})
	}
	if r := cli(t, dir, "", "validate"); r.code != 0 {
		t.Errorf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Identical content is never saved twice, so the advice to save it anyway
// with --dedup allow is given only where allow would do it.
func TestCLIDedupHintFitsThePolicy(t *testing.T) {
	dir := hookedRepo(t)
	text := "Deploys go through Argo CD, never by hand."
	a := save(t, dir, "--type", "decision", "--title", "Deploy with Argo CD", text)
	tests := []struct {
		name    string
		args    []string
		want    string
		wantNot string
	}{
		{"identical content with allow", []string{"--dedup", "allow", "--title", "Deploy with Argo CD", text}, "not saved: " + a, "--dedup allow"},
		{"identical content with skip", []string{"--dedup", "skip", "--title", "Deploy with Argo CD", text}, "not saved: " + a, "--dedup allow"},
		{"a paraphrase with skip", []string{"--title", "Argo CD deploys", "Deploys go through Argo CD and never by hand."}, "use --dedup allow to save anyway", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, dir, "", append([]string{"save", "--type", "decision"}, tt.args...)...)
			if r.code != 0 || strings.TrimSpace(r.stdout) != a || !strings.Contains(r.stderr, tt.want) ||
				tt.wantNot != "" && strings.Contains(r.stderr, tt.wantNot) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %s printed, saying %q and not %q", r.code, r.stdout, r.stderr, a, tt.want, tt.wantNot)
			}
		})
	}
}

func TestCLIDeleteWarnsOfLinksItLeavesDangling(t *testing.T) {
	dir := hookedRepo(t)
	target := save(t, dir, "--type", "fact", "The API listens on port 8080.")
	from := save(t, dir, "--type", "fact", "--link", "depends_on:"+target, "Clients call the API on its port.")
	alone := save(t, dir, "--type", "fact", "Nothing links here.")
	r := cli(t, dir, "", "delete", "--json", target)
	if r.code != 0 || !strings.Contains(r.stderr, "warning: "+from+" linked to "+target) {
		t.Fatalf("delete: exit %d, stderr %q", r.code, r.stderr)
	}
	var got struct {
		LinkedFrom []string `json:"linked_from"`
	}
	decodeJSON(t, r.stdout, &got)
	if len(got.LinkedFrom) != 1 || got.LinkedFrom[0] != from {
		t.Errorf("--json linked_from = %v, want [%s]", got.LinkedFrom, from)
	}
	if r := cli(t, dir, "", "delete", alone); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Errorf("delete of an unlinked memory: exit %d, stderr %q", r.code, r.stderr)
	}
}
