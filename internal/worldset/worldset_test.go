package worldset

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/porter"
	"github.com/contextfs/contextfs/internal/wordvec"
)

// stop are the function words (and "use") that a question may share with
// its answer.
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at by for from with without into over under
		is are was were be been being do does did done have has had will would shall should can could may might must
		i we you he she it they me us our ours your my their them this that these those there here what which who whom
		whose when where why how not no nor only very so too than then as if else all any each every some such
		use used using get got one s t`) {
		stop[w] = true
	}
}

func contentStems(text string) map[string]bool {
	out := map[string]bool{}
	var tok wordvec.Tokenizer
	tok.Each(text, func(b []byte) {
		if w := string(b); !stop[w] {
			out[string(porter.Stem([]byte(w)))] = true
		}
	}, nil)
	return out
}

// TestWorldQuestionsShareNoContentWord: a world-knowledge question can be
// answered only by knowing what words mean, not by matching them.
func TestWorldQuestionsShareNoContentWord(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, m := range s.Memories {
		text[m.ID] = m.Text
	}
	if len(s.World) < 40 || len(s.Memories) < 31 {
		t.Errorf("%d questions among %d memories, want at least 40 among 31", len(s.World), len(s.Memories))
	}
	if len(s.HeldOutWorld) < 20 {
		t.Errorf("%d held-out questions, want at least 20", len(s.HeldOutWorld))
	}
	for _, q := range append(s.World, s.HeldOutWorld...) {
		m := contentStems(text[q.Target])
		for w := range contentStems(q.Q) {
			if m[w] {
				t.Errorf("question %q shares %q with %q", q.Q, w, text[q.Target])
			}
		}
	}
}
