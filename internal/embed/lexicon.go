package embed

import (
	"fmt"
	"github.com/contextfs/contextfs/internal/porter"
	"slices"
	"strings"
	"sync"
)

// lexEntry is what the built-in embedder knows about one stem.
type lexEntry struct {
	word     uint64   // hash of the canonical stem: synonyms share it
	stop     bool     // function word
	neg      bool     // negation: "no", "not", "never"
	rank     int      // frequency rank among common words; 0 if not common
	concepts []uint64 // hashes of the concepts the word belongs to
}

// lexiconTable maps word forms to what the embedder knows about them. It is
// built once from the lists in lexicon_data.go and never modified, so it is
// shared by every embedder without locking.
type lexiconTable struct {
	irregular map[string]string // irregular inflection -> base form
	index     map[string]int32  // stem -> entries index
	entries   []lexEntry
}

// lexicon returns the table, loaded on first use rather than at package
// initialisation, since most commands (a save without checks, status,
// list, the hooks) never embed text. It is loaded from lexicon_table.go,
// which is generated from the word lists (buildLexicon) by
// TestLexiconTableIsCurrent: parsing and stemming the lists in every
// process cost 0.85 ms and 595 KB of allocations (4,610 of them) at each
// command's first embedding; loading the generated arrays builds two maps.
var lexicon = sync.OnceValue(loadLexicon)

// loadLexicon makes the table of the generated arrays: the entries are
// used in place, and the maps index them.
func loadLexicon() *lexiconTable {
	t := &lexiconTable{
		irregular: make(map[string]string, len(lexIrregular)/2),
		index:     make(map[string]int32, len(lexStems)),
		entries:   lexEntries[:],
	}
	for i := 0; i+1 < len(lexIrregular); i += 2 {
		t.irregular[lexIrregular[i]] = lexIrregular[i+1]
	}
	for i, s := range lexStems {
		t.index[s] = int32(i)
	}
	return t
}

//go:generate go test -run TestLexiconTableIsCurrent . -args -update-lexicon

// buildLexicon parses the word lists. Every word is reduced with the same
// steps as text at embedding time (irregular form, then stem), so that
// lookups by stem find it whatever inflection the list or the text uses.
func buildLexicon() (*lexiconTable, error) {
	t := &lexiconTable{irregular: make(map[string]string), index: make(map[string]int32)}

	forms := strings.Fields(irregularList)
	if len(forms)%2 != 0 {
		return nil, fmt.Errorf("irregular list has an odd number of words")
	}
	for i := 0; i < len(forms); i += 2 {
		t.irregular[forms[i]] = forms[i+1]
	}

	var buf []byte
	key := func(word string) string {
		if base, ok := t.irregular[word]; ok {
			word = base
		}
		buf = append(buf[:0], word...)
		return string(porter.Stem(buf))
	}

	// canon maps a stem to the stem of its canonical synonym.
	canon := make(map[string]string)
	lines, err := parseGroups(synonymList)
	if err != nil {
		return nil, fmt.Errorf("synonyms: %w", err)
	}
	for _, g := range lines {
		c := key(g.head)
		for _, v := range g.words {
			k := key(v)
			if prev, ok := canon[k]; ok && prev != c {
				return nil, fmt.Errorf("synonyms: %q is under both %q and %q", v, prev, c)
			}
			canon[k] = c
		}
	}
	canonOf := func(word string) string {
		k := key(word)
		if c, ok := canon[k]; ok {
			return c
		}
		return k
	}

	type attrs struct {
		stop     bool
		neg      bool
		rank     int
		concepts []string
	}
	byCanon := make(map[string]*attrs)
	get := func(c string) *attrs {
		a := byCanon[c]
		if a == nil {
			a = &attrs{}
			byCanon[c] = a
		}
		return a
	}
	for _, w := range strings.Fields(stopWordList) {
		get(canonOf(w)).stop = true
	}
	for _, w := range strings.Fields(negationList) {
		a := get(canonOf(w))
		a.stop, a.neg = true, true
	}
	for i, w := range strings.Fields(commonWordList) {
		if a := get(canonOf(w)); a.rank == 0 {
			a.rank = i + 1
		}
	}
	groups, err := parseGroups(conceptList)
	if err != nil {
		return nil, fmt.Errorf("concepts: %w", err)
	}
	for _, g := range groups {
		for _, w := range g.words {
			a := get(canonOf(w))
			if !slices.Contains(a.concepts, g.head) {
				a.concepts = append(a.concepts, g.head)
			}
		}
	}
	for c := range canon {
		get(canon[c])
	}

	// Every known stem, canonical or variant, gets an entry carrying its
	// canonical word's attributes.
	add := func(k, c string) {
		if _, ok := t.index[k]; ok {
			return
		}
		a := get(c)
		e := lexEntry{word: hashString(seedWord, c), stop: a.stop, neg: a.neg, rank: a.rank}
		for _, name := range a.concepts {
			e.concepts = append(e.concepts, hashString(seedConcept, name))
		}
		t.index[k] = int32(len(t.entries))
		t.entries = append(t.entries, e)
	}
	for k, c := range canon {
		add(k, c)
	}
	for c := range byCanon {
		add(c, c)
	}
	return t, nil
}

// group is one line of a grouped list: a head and the words under it.
type group struct {
	head  string
	words []string
}

// parseGroups parses lines of the form "head: word word ...".
func parseGroups(list string) ([]group, error) {
	var gs []group
	for i, line := range strings.Split(list, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		head, rest, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(head) == "" {
			return nil, fmt.Errorf("line %d: %q is not \"head: words\"", i+1, line)
		}
		gs = append(gs, group{head: strings.TrimSpace(head), words: strings.Fields(rest)})
	}
	return gs, nil
}
