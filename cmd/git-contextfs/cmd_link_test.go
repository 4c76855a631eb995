package main

import (
	"slices"
	"strings"
	"testing"
)

// `link A B --rel supersedes` hides B from list and search as `save
// --supersedes` does (recall and lineage already said B was superseded);
// list --all and search --all still show it.
func TestCLILinkOfRelSupersedesHidesFromListAndSearch(t *testing.T) {
	tests := []struct {
		name string
		// supersede makes newer supersede old, and returns newer's ID.
		supersede func(t *testing.T, dir, old string) string
	}{
		{"save --supersedes", func(t *testing.T, dir, old string) string {
			return save(t, dir, "--type", "fact", "--supersedes", old, "beta two other thing")
		}},
		{"link --rel supersedes", func(t *testing.T, dir, old string) string {
			newer := save(t, dir, "--type", "fact", "beta two other thing")
			ok(t, dir, "link", newer, old, "--rel", "supersedes")
			return newer
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hookedRepo(t)
			old := save(t, dir, "--type", "fact", "alpha one fact here")
			newer := tt.supersede(t, dir, old)
			if got := listedIDs(t, dir); !slices.Equal(got, []string{newer}) {
				t.Errorf("list shows %v, want only %s", got, newer)
			}
			if out := ok(t, dir, "search", "alpha"); strings.Contains(out, old) {
				t.Errorf("search shows the superseded memory:\n%s", out)
			}
			if out := ok(t, dir, "search", "alpha", "--all"); !strings.Contains(out, old) {
				t.Errorf("search --all does not show the superseded memory:\n%s", out)
			}
			if out := ok(t, dir, "list", "--all"); !strings.Contains(out, "[superseded by "+newer+"]") {
				t.Errorf("list --all does not mark it:\n%s", out)
			}
		})
	}
}

// `link A B --rel supersedes` is refused (exit 1, naming the cycle and how
// to reverse it) when B already supersedes A, directly or through others,
// by a link or an entry; nothing is written, so validate still passes. A
// link of another relation back is added.
func TestCLILinkRefusesASupersedesCycle(t *testing.T) {
	tests := []struct {
		name string
		// setup writes the chain and returns the link's ends and the
		// cycle it would close ("" when it is allowed).
		setup func(t *testing.T, dir, a string) (from, to, rel, cycle string)
	}{
		{"back to what supersedes it by a link", func(t *testing.T, dir, a string) (string, string, string, string) {
			c := save(t, dir, "--type", "fact", "beta two other thing")
			ok(t, dir, "link", c, a, "--rel", "supersedes")
			return a, c, "supersedes", a + " → " + c + " → " + a
		}},
		{"back to what supersedes it by an entry", func(t *testing.T, dir, a string) (string, string, string, string) {
			c := save(t, dir, "--type", "fact", "--supersedes", a, "beta two other thing")
			return a, c, "supersedes", a + " → " + c + " → " + a
		}},
		{"back through a newer version", func(t *testing.T, dir, a string) (string, string, string, string) {
			c := save(t, dir, "--type", "fact", "beta two other thing")
			ok(t, dir, "link", c, a, "--rel", "supersedes")
			d := save(t, dir, "--type", "fact", "--supersedes", c, "gamma three, newer still")
			return a, d, "supersedes", a + " → " + d + " → " + c + " → " + a
		}},
		{"back by another relation", func(t *testing.T, dir, a string) (string, string, string, string) {
			c := save(t, dir, "--type", "fact", "beta two other thing")
			ok(t, dir, "link", c, a, "--rel", "supersedes")
			return a, c, "contradicts", ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hookedRepo(t)
			a := save(t, dir, "--type", "fact", "alpha one fact here")
			from, to, rel, cycle := tt.setup(t, dir, a)
			r := cli(t, dir, "", "link", from, to, "--rel", rel)
			if cycle == "" {
				if r.code != 0 {
					t.Fatalf("link: exit %d\n%s", r.code, r.stderr)
				}
				return
			}
			if r.code != 1 || !strings.Contains(r.stderr, "supersedes cycle, "+cycle) || !strings.Contains(r.stderr, "--rel supersedes") {
				t.Errorf("link: exit %d, stderr %q; want exit 1 naming the cycle %s and how to reverse it", r.code, r.stderr, cycle)
			}
			if out := ok(t, dir, "recall", from); strings.Contains(out, "{id: "+to+", rel: supersedes}") {
				t.Errorf("the refused link was written:\n%s", out)
			}
			if v := cli(t, dir, "", "validate"); v.code != 0 {
				t.Errorf("validate after a refused link: exit %d\n%s%s", v.code, v.stdout, v.stderr)
			}
		})
	}
}

// `unlink A B --rel supersedes` removes B from A's supersedes: entries as
// well as A's links of rel supersedes to B, and B is current again; a
// plain `unlink A B` keeps the entries (and fails when A has no link to
// B). The help says so.
func TestCLIUnlinkRelSupersedesMakesTheMemoryCurrentAgain(t *testing.T) {
	tests := []struct {
		name string
		// supersede makes a memory supersede old, and returns its ID.
		supersede func(t *testing.T, dir, old string) string
		args      []string // after "unlink NEWER OLD"
		code      int
		current   bool   // old is listed afterwards
		out       string // in stdout or stderr
	}{
		{"an evolve's entry, with --rel supersedes", func(t *testing.T, dir, old string) string {
			return strings.TrimSpace(ok(t, dir, "evolve", old, "alpha two, evolved"))
		}, []string{"--rel", "supersedes"}, 0, true, "supersedes now nothing"},
		{"a link of rel supersedes, with --rel supersedes", func(t *testing.T, dir, old string) string {
			newer := save(t, dir, "--type", "fact", "beta two other thing")
			ok(t, dir, "link", newer, old, "--rel", "supersedes")
			return newer
		}, []string{"--rel", "supersedes"}, 0, true, "links now nothing"},
		{"a link of rel supersedes, without --rel", func(t *testing.T, dir, old string) string {
			newer := save(t, dir, "--type", "fact", "beta two other thing")
			ok(t, dir, "link", newer, old, "--rel", "supersedes")
			return newer
		}, nil, 0, true, "links now nothing"},
		{"an evolve's entry, without --rel, stays", func(t *testing.T, dir, old string) string {
			return strings.TrimSpace(ok(t, dir, "evolve", old, "alpha two, evolved"))
		}, nil, 1, false, "which only the relation supersedes removes (unlink --rel supersedes)"},
		{"a memory it does not supersede, with --rel supersedes", func(t *testing.T, dir, old string) string {
			newer := save(t, dir, "--type", "fact", "beta two other thing")
			ok(t, dir, "link", newer, old, "--rel", "depends_on")
			return newer
		}, []string{"--rel", "supersedes"}, 1, true, "does not supersede"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hookedRepo(t)
			old := save(t, dir, "--type", "fact", "alpha one fact here")
			newer := tt.supersede(t, dir, old)
			r := cli(t, dir, "", append([]string{"unlink", newer, old}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.out) {
				t.Errorf("unlink: exit %d\n%s%s\nwant exit %d and %q", r.code, r.stdout, r.stderr, tt.code, tt.out)
			}
			if got := slices.Contains(listedIDs(t, dir), old); got != tt.current {
				t.Errorf("list shows %s: %v, want %v", old, got, tt.current)
			}
			if v := cli(t, dir, "", "validate"); v.code != 0 {
				t.Errorf("validate after unlink: exit %d\n%s%s", v.code, v.stdout, v.stderr)
			}
		})
	}
	help := ok(t, t.TempDir(), "unlink", "-h")
	for _, want := range []string{"--rel supersedes it also removes TO from FROM's supersedes: entries", "without --rel, those entries\nstay"} {
		if !strings.Contains(help, want) {
			t.Errorf("unlink -h does not say %q:\n%s", want, help)
		}
	}
}
