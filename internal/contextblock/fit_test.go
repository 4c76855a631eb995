package contextblock_test

import (
	"context"
	"testing"

	"github.com/contextfs/contextfs/internal/contextblock"
)

// TestFitCountsTheBlockAsAWhole: fit re-estimates only the section a trim
// changes and adds up the parts; at every budget, with and without a
// task, the tokens it reports are the estimate of the whole Markdown, and
// a block over its budget is one fit cannot trim further.
func TestFitCountsTheBlockAsAWhole(t *testing.T) {
	f := seed(t)
	for _, task := range []string{"", "invoice facts", "deploy with tokens"} {
		for _, budget := range []int{20, 60, 150, 300, 450, 700, 1000, 1500, 2000, 5000} {
			b, err := contextblock.Build(context.Background(), f.s, contextblock.Options{Task: task, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			if whole := contextblock.EstimateTokens(b.Markdown()); b.Tokens != whole {
				t.Errorf("task %q, budget %d: fit counted %d tokens, the Markdown is %d", task, budget, b.Tokens, whole)
			}
			if b.Tokens > budget && len(b.Sections) > 0 {
				t.Errorf("task %q, budget %d: %d tokens with %d sections left", task, budget, b.Tokens, len(b.Sections))
			}
		}
	}
}
