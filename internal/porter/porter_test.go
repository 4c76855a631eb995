package porter

import "testing"

func TestStem(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		// Outputs of Porter's reference implementation.
		{"plural -sses loses -es", "caresses", "caress"},
		{"plural -ies becomes -i", "ponies", "poni"},
		{"short -ies keeps the stem", "ties", "ti"},
		{"plain plural loses -s", "cats", "cat"},
		{"double s is not a plural", "caress", "caress"},
		{"-eed kept without a stem", "feed", "feed"},
		{"-eed loses d after a stem", "agreed", "agre"},
		{"-ed removed", "plastered", "plaster"},
		{"-ed kept without a vowel before", "bled", "bled"},
		{"-ing removed", "motoring", "motor"},
		{"-ing kept without a vowel before", "sing", "sing"},
		{"double consonant undoubled", "hopping", "hop"},
		{"ll stays doubled", "falling", "fall"},
		{"ss stays doubled", "hissing", "hiss"},
		{"final e restored on short stems", "filing", "file"},
		{"final y becomes i", "happy", "happi"},
		{"-ational becomes -ate then goes", "relational", "relat"},
		{"-tional becomes -tion then goes", "conditional", "condit"},
		{"-ization reduces fully", "generalization", "gener"},
		{"-ator on a plural", "oscillators", "oscil"},
		{"inflections of one verb meet", "connections", "connect"},
		{"-ed of that verb", "connected", "connect"},
		{"-ing of that verb", "connecting", "connect"},
		{"-able removed", "adjustable", "adjust"},
		{"-ive removed", "effective", "effect"},
		{"-ical removed", "electrical", "electr"},
		{"-ful removed", "hopeful", "hope"},
		{"-ness removed", "goodness", "good"},
		{"doubled n of running", "running", "run"},
		// Additions from Snowball English.
		{"-ly adverb meets its adjective", "quickly", "quick"},
		{"-ly kept after an invalid ending", "apply", "appli"},
		{"exception keeps early apart from ear", "early", "early"},
		{"exception maps dying to die", "dying", "die"},
		{"exception maps skies to sky", "skies", "sky"},
		// Edge cases.
		{"two letters unchanged", "is", "is"},
		{"one letter unchanged", "a", "a"},
		{"short word without a suffix is unchanged", "ran", "ran"},
		{"digits pass through", "1234", "1234"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Stem([]byte(tt.in))); got != tt.want {
				t.Errorf("Stem(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStemDoesNotAllocate(t *testing.T) {
	buf := []byte("generalizations")
	allocs := testing.AllocsPerRun(100, func() {
		copy(buf, "generalizations")
		Stem(buf[:len("generalizations")])
	})
	if allocs != 0 {
		t.Errorf("stem allocates %v times, want 0", allocs)
	}
}
