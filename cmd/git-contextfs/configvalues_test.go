package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestConfigValueOutOfItsDomainIsAConfigError: a value in
// .contextfs/config.yaml that its key does not allow stops the commands
// with an error that names the file and the key, exit 1 (the config is
// wrong, not the command line), and doctor fails its config check. Before,
// hygiene.dedup: maybe was reported as a bad --dedup flag (exit 2) that the
// user never gave, a semantic_weight of 1.5 inverted the ranking, and
// doctor said the config was valid.
func TestConfigValueOutOfItsDomainIsAConfigError(t *testing.T) {
	tests := []struct {
		name, config, want string
		args               []string
	}{
		{"a bad dedup policy at save", "hygiene:\n  dedup: maybe\n", "hygiene.dedup must be skip, update, error, allow, supersede or off, not \"maybe\"",
			[]string{"save", "--type", "fact", "The puffin colony nests on the cliff."}},
		{"a bad dedup policy, with the flag given", "hygiene:\n  dedup: maybe\n", "hygiene.dedup must be",
			[]string{"save", "--dedup", "allow", "--type", "fact", "The puffin colony nests on the cliff."}},
		{"a weight above 1 at search", "search:\n  semantic_weight: 1.5\n", "search.semantic_weight must be a number from 0 to 1",
			[]string{"search", "puffin"}},
		{"a NaN weight at search", "search:\n  semantic_weight: .nan\n", "search.semantic_weight", []string{"search", "puffin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			testgit.WriteFile(t, dir, ".contextfs/config.yaml", tt.config)
			r := cli(t, dir, "", tt.args...)
			if r.code != 1 || !strings.Contains(r.stderr, ".contextfs/config.yaml: "+tt.want) || strings.Contains(r.stderr, "--dedup") {
				t.Errorf("%v: exit %d, stderr %q; want exit 1 naming .contextfs/config.yaml: %s", tt.args, r.code, r.stderr, tt.want)
			}
			r = cli(t, dir, "", "doctor")
			if r.code != 1 || !strings.Contains(r.stdout, "FAIL   config         .contextfs/config.yaml: "+tt.want) {
				t.Errorf("doctor: exit %d, want 1 with a config failure naming %s\n%s%s", r.code, tt.want, r.stdout, r.stderr)
			}
		})
	}
}
