package check

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestDoctorReportsAConfigValueOutOfItsDomainAsAConfigProblem: doctor's
// config check fails, naming the file and the key, for a value that the
// YAML type allows and the setting does not; before, it said "is valid"
// and an unknown embedder surfaced as a cache that "cannot open". A false
// second result stops doctor before the cache and memory checks.
func TestDoctorReportsAConfigValueOutOfItsDomainAsAConfigProblem(t *testing.T) {
	testgit.Isolate(t)
	for _, tt := range []struct{ config, inMessage string }{
		{"search:\n  semantic_weight: 1.5\n", "search.semantic_weight must be a number from 0 to 1"},
		{"search:\n  semantic_weight: .nan\n", "search.semantic_weight"},
		{"hygiene:\n  dedup: maybe\n", "hygiene.dedup must be skip, update, error, allow, supersede or off"},
		{"embedder:\n  provider: bogus\n", "embedder.provider must be builtin or openai"},
		{"index:\n  languages: [klingon]\n", "index.languages"},
		{"limits:\n  max_data_depth: -2\n", "limits.max_data_depth"},
	} {
		dir := testgit.Init(t)
		testgit.WriteFile(t, dir, ".contextfs/config.yaml", tt.config)
		repo, err := gitstore.Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		d, usable := Config(repo)
		if d.OK || usable || !strings.Contains(d.Message, ".contextfs/config.yaml: "+tt.inMessage) {
			t.Errorf("config %q: ok=%v usable=%v %q; want a failure naming %q", tt.config, d.OK, usable, d.Message, tt.inMessage)
		}
	}
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, ".contextfs/config.yaml", "search:\n  semantic_weight: 0.7\n")
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d, usable := Config(repo); !d.OK || !usable || d.Warning {
		t.Errorf("a valid weight: %+v usable=%v", d, usable)
	}
}
