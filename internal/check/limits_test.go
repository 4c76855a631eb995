package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestTheRepositoryLimitsHoldAtCommitAndInValidate: a memory over the size
// limit of the repository's config is refused by the pre-commit check and
// reported by validate and the doctor's memory check, without being
// parsed; under the default limit the same file passes.
func TestTheRepositoryLimitsHoldAtCommitAndInValidate(t *testing.T) {
	testgit.Isolate(t)
	big := testgit.Memory("abcd1234", "", strings.Repeat("A long line of notes about the pool.\n", 40)) // ~1.5 KB
	cases := []struct {
		name     string
		config   string
		wantSize bool
	}{
		{"the default limit lets a 1.5 KB memory through", "", false},
		{"a 1 KB limit in the config refuses it", "limits:\n  max_file_bytes: 1024\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testgit.Init(t)
			if c.config != "" {
				testgit.WriteFile(t, dir, ".contextfs/config.yaml", c.config)
			}
			testgit.WriteFile(t, dir, ".contextfs/memories/big-abcd1234.md", big)
			testgit.Run(t, dir, "add", "--", ".contextfs/memories/big-abcd1234.md")
			staged := rules(checkStaged(t, dir).Problems)
			if got := slices.Contains(staged, "size"); got != c.wantSize {
				t.Errorf("pre-commit problems %v; want a size problem: %v", staged, c.wantSize)
			}
			repo, err := gitstore.Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			probs, _, err := Validate(repo, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(rules(probs), "size"); got != c.wantSize {
				t.Errorf("validate problems %v; want a size problem: %v", probs, c.wantSize)
			}
			if d := Memories(repo); d.OK == c.wantSize {
				t.Errorf("doctor's memory check ok=%v (%s); want ok=%v", d.OK, d.Message, !c.wantSize)
			}
		})
	}
}

// TestDoctorWarnsAboutTempFilesOfInterruptedWrites: validate passes a temp
// file left by a kill -9 (it is not a memory), but doctor says it is there.
func TestDoctorWarnsAboutTempFilesOfInterruptedWrites(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, ".contextfs/memories/ok-abcd1234.md", testgit.Memory("abcd1234", "", "Fine.\n"))
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := Memories(repo); !d.OK || d.Warning {
		t.Fatalf("before: %+v", d)
	}
	testgit.WriteFile(t, dir, ".contextfs/memories/"+gitstore.TempPrefix+"42", "half a memo")
	d := Memories(repo)
	if !d.OK || !d.Warning || !strings.Contains(d.Message, "temporary file") {
		t.Fatalf("with a temp file: %+v; want ok with a warning naming it", d)
	}
}
