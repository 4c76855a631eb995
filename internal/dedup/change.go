package dedup

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A save at or above the duplicate threshold repeats the memory it is
// near only when it says nothing that memory does not: the similarity of
// a bag of words is as high for "Use spaces for indentation in YAML
// files" against "Use tabs for indentation in YAML files" (0.77) as for a
// paraphrase, and skipping it would drop the person's change without a
// word. change tells the two apart (docs/HYGIENE.md, "Repeat or change").

// change says how the newer text changes the older one, when it does: the
// words each says that the other does not ("spaces", was "tabs"), in a
// text that is otherwise the same, or a negation one has and the other
// lacks. why is "" when newer only repeats older (its differing words are
// function words, inflections or words only one side has, as a paraphrase
// adds). slot is set when the two are the same word for word but for one
// run of words each, wherever it recurs (the "_" of "use _ for
// indentation in yaml files"):
// the plainest change, which newest wins settles.
func change(newer, older string) (why string, slot bool) {
	a, b := contentWords(newer), contentWords(older)
	na, nb := negated(words(newer)), negated(words(older))
	// Otherwise the same: the words in the same order (their longest
	// common subsequence) are most of each text. A paraphrase reorders
	// and rewords; a change keeps the sentence and swaps a part.
	hunks, common := diff(a, b)
	if 2*common < len(a) || 2*common < len(b) {
		return "", false
	}
	if na != nb {
		if na {
			return "text differs: it adds a negation", false
		}
		return "text differs: it drops a negation", false
	}
	var onlyA, onlyB []string
	for _, h := range hunks {
		na, nb := novel(h.a, b), novel(h.b, a)
		if len(na) == 0 || len(nb) == 0 {
			continue // an insertion, a deletion or a reordering: a paraphrase's
		}
		for _, w := range na {
			if w = spelt(newer, w); !slices.Contains(onlyA, w) {
				onlyA = append(onlyA, w)
			}
		}
		for _, w := range nb {
			if w = spelt(older, w); !slices.Contains(onlyB, w) {
				onlyB = append(onlyB, w)
			}
		}
	}
	if len(onlyA) == 0 {
		return "", false
	}
	why = fmt.Sprintf("text differs: %q, was %q", strings.Join(onlyA, " "), strings.Join(onlyB, " "))
	// One slot: every run that differs is the same swap (a title and a
	// body that both say "tabs" where the other says "spaces").
	slot = !slices.ContainsFunc(hunks, func(h hunk) bool {
		return !slices.Equal(h.a, hunks[0].a) || !slices.Equal(h.b, hunks[0].b)
	})
	return why, slot
}

// spelt is the first word of text whose stem is w, as the text spells it.
func spelt(text, w string) string {
	for _, x := range words(text) {
		if stem(x) == w {
			return x
		}
	}
	return w
}

// hunk is a run of words of each side between two words they share.
type hunk struct{ a, b []string }

// diff aligns a and b on their longest common subsequence and returns the
// runs that differ and the length of the subsequence.
func diff(a, b []string) ([]hunk, int) {
	// t[i][j] is the LCS length of a[i:] and b[j:].
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var hunks []hunk
	var cur hunk
	flush := func() {
		if len(cur.a)+len(cur.b) > 0 {
			hunks = append(hunks, cur)
		}
		cur = hunk{}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			flush()
			i, j = i+1, j+1
		case j == len(b) || (i < len(a) && t[i+1][j] >= t[i][j+1]):
			cur.a = append(cur.a, a[i])
			i++
		default:
			cur.b = append(cur.b, b[j])
			j++
		}
	}
	flush()
	return hunks, t[0][0]
}

// novel returns the words of ws that other neither has nor spells
// another way (one a prefix of the other: "Postgres" and "PostgreSQL",
// "nightly" and "night").
func novel(ws, other []string) []string {
	var out []string
	for _, w := range ws {
		if !slices.ContainsFunc(other, func(o string) bool { return variant(w, o) }) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func variant(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || (len(a) >= 4 && strings.HasPrefix(b, a))
}

// contentWords are the words of a text that say something, each reduced
// to a crude stem so that an inflection ("pooled", "pool") is no
// difference, less the function words and the negations (which negated
// counts: they change what a sentence says).
func contentWords(text string) []string {
	var out []string
	for _, w := range words(text) {
		if functionWords()[w] || negations()[w] {
			continue // negations are counted apart (negated)
		}
		out = append(out, stem(w))
	}
	return out
}

// functionWords are the words whose presence changes nothing a memory
// says (built on first use).
var functionWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on at by for from with as is are be
		been was were it its this that these those we our us use uses used using now instead all
		into onto per than then so do does did has have had will would should must can may just
		also only every each any some our their they them how what when which who why where`) {
		m[w] = true
	}
	return m
})

// negations are the words that turn a statement around.
var negations = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`no not never neither nor none nothing nobody noone nowhere
		without cannot t don doesn didn isn aren wasn weren hasn haven hadn wouldn shouldn couldn
		mustn banned forbidden`) {
		m[w] = true
	}
	return m
})

// negated reports whether an odd number of the words (as written, not
// stemmed) are negations.
func negated(ws []string) bool {
	n := 0
	for _, w := range ws {
		if negations()[w] {
			n++
		}
	}
	return n%2 == 1
}

// stem cuts the commonest English inflections off a word, enough for
// "pooled", "pooling" and "pools" to be "pool"; short words are kept. It
// is crude on purpose: a form it misses is a difference in one place, and
// a change needs a difference on both sides in the same place.
func stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	if len(w) > 4 && strings.HasSuffix(w, "ies") {
		return strings.TrimSuffix(w, "ies") + "y"
	}
	for _, suf := range []string{"sses", "shes", "ches", "xes", "zes"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, "es")
		}
	}
	for _, suf := range []string{"ing", "ed", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, suf)
			break
		}
	}
	// A silent e goes too: "name", "names" and "named" are one word.
	if len(w) > 3 && strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee") {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}

// irregular are the forms of common verbs that no suffix rule reaches.
var irregular = map[string]string{
	"kept": "keep", "ran": "run", "wrote": "write", "written": "write", "built": "build",
	"made": "make", "went": "go", "gone": "go", "sent": "send", "held": "hold", "chose": "choose",
	"chosen": "choose", "got": "get", "gotten": "get", "left": "leave", "brought": "bring",
	"took": "take", "taken": "take", "gave": "give", "given": "give", "found": "find",
}
