// Package worldset is the evaluation set of issue 33 (docs/EMBEDDER.md):
// memories of a made-up team with world-knowledge questions that share no
// content word with the memory answering them, paraphrase queries,
// negated questions and labelled duplicate pairs. The bench
// (cmd/contextfs-bench, make bench-quality) and the tests of search and
// dedup read it.
package worldset

import (
	_ "embed" // the set
	"encoding/json"
	"fmt"
)

//go:embed world.json
var raw []byte

// Memory is one memory of the set.
type Memory struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Text string `json:"text"`
}

// Query is a query and the ID of the memory that answers it.
type Query struct {
	Q      string `json:"q"`
	Target string `json:"target"`
}

// Pair is two memory texts of the same type and whether they say the same.
type Pair struct {
	A   string `json:"a"`
	B   string `json:"b"`
	Dup bool   `json:"dup"`
}

// Set is the whole set.
type Set struct {
	Memories   []Memory `json:"memories"`
	World      []Query  `json:"world"`
	Paraphrase []Query  `json:"paraphrase"`
	Negated    []Query  `json:"negated"`
	// HeldOutWorld and HeldOutParaphrase were written later, before any
	// ranking of them was looked at, to check what was tuned on the
	// others: an assistant's task-like questions ("... for the new
	// feature?") and paraphrases that reword more of their memory.
	HeldOutWorld      []Query `json:"heldout_world"`
	HeldOutParaphrase []Query `json:"heldout_paraphrase"`
	Pairs             []Pair  `json:"pairs"`
}

// Load parses the embedded set and checks that every query names a memory.
func Load() (*Set, error) {
	var s Set
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("worldset: world.json: %w", err)
	}
	ids := map[string]bool{}
	for _, m := range s.Memories {
		ids[m.ID] = true
	}
	for _, qs := range [][]Query{s.World, s.Paraphrase, s.Negated, s.HeldOutWorld, s.HeldOutParaphrase} {
		for _, q := range qs {
			if !ids[q.Target] {
				return nil, fmt.Errorf("worldset: world.json: query %q names no memory %q", q.Q, q.Target)
			}
		}
	}
	return &s, nil
}

// Title is the title a memory is saved under: its text (they are one
// sentence each).
func (m Memory) Title() string { return m.Text }
