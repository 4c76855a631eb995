package embed

import "testing"

func TestWordnetSensesFindsKnownStems(t *testing.T) {
	for _, w := range []string{"dog", "guitar", "violin", "run"} {
		lo, hi := wordnetSenses([]byte(w))
		if hi <= lo {
			t.Errorf("%s: no senses", w)
		}
	}
	if lo, hi := wordnetSenses([]byte("zzzqqq")); hi != lo {
		t.Errorf("unknown stem has senses")
	}
}
