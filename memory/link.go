package memory

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Link is one typed edge from a memory to another memory (or to a URL).
// A file may write a link as a bare ID, which means Rel "related", or as
// {id: X, rel: R}; the canonical form is the bare ID for "related" and the
// mapping otherwise, so untyped links written before typed ones existed
// never change.
type Link struct {
	ID  string `json:"id"`
	Rel string `json:"rel"`
}

// RelRelated is the relation of a link written as a bare ID.
const RelRelated = "related"

// RelSupersedes is the relation of a link that says what a supersedes:
// entry says: this memory replaces the one it names.
const RelSupersedes = "supersedes"

// SupersededIDs returns the IDs of the memories m supersedes, whichever
// way it says so: its supersedes: entries, then the memories its links of
// rel supersedes name that are not among them. Both hide what they name
// from list and search, and both count for lineage and for cycles.
func (m *Memory) SupersededIDs() []string {
	out := slices.Clone(m.Supersedes)
	for _, l := range m.Links {
		if l.Rel == RelSupersedes && l.IsMemory() && !slices.Contains(out, l.ID) {
			out = append(out, l.ID)
		}
	}
	return out
}

// Relations is the vocabulary of link relations, taken from the
// knowledge-graph literature the project follows. Relations outside it are
// refused so that a typo does not become a new edge kind.
var relations = []string{
	"related", "references", "depends_on", "contradicts", "supersedes",
	"derived_from", "part_of", "implements", "extends", "example_of", "caused_by", "fixes",
}

// ErrRel is a relation outside the vocabulary.
var ErrRel = errors.New("unknown relation")

// reasons are why a memory is evolved into a new version: something was
// observed, inferred, corrected, or went out of date.
var reasons = []string{"observation", "inference", "correction", "decay"}

// Reasons returns the reasons a memory may give for superseding another.
func Reasons() []string { return slices.Clone(reasons) }

// Relations returns the relation vocabulary, in documentation order.
func Relations() []string { return slices.Clone(relations) }

// ValidRel reports whether rel is in the relation vocabulary.
func ValidRel(rel string) bool { return slices.Contains(relations, rel) }

// String writes the link as the CLI accepts it: the bare ID for a related
// link, "rel:ID" otherwise.
func (l Link) String() string {
	if l.Rel == "" || l.Rel == RelRelated {
		return l.ID
	}
	return l.Rel + ":" + l.ID
}

// IsMemory reports whether the link names a memory rather than a URL or a
// path: it is shaped like an ID. Only such links must resolve.
func (l Link) IsMemory() bool { return ValidID(l.ID) }

// ParseLink reads a link as the CLI writes it: "ID", "rel:ID" where rel is
// in the vocabulary, or a URL (kept whole, relation "related"). A word
// before an ID-shaped target ("bogus:k3x9") can only be meant as a
// relation, so one outside the vocabulary is an ErrRel: kept whole it
// would be an opaque link that nothing checks. A URL does not look like
// that: its scheme is followed by "//" or by characters an ID never has
// ("mailto:a@b.c", "urn:isbn:0451450523").
func ParseLink(s string) (Link, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Link{}, fmt.Errorf("empty link")
	}
	if word, target, ok := strings.Cut(s, ":"); ok {
		word, target = strings.TrimSpace(word), strings.TrimSpace(target)
		switch {
		case ValidRel(word) && target == "":
			return Link{}, fmt.Errorf("link %q names no target", s)
		case ValidRel(word):
			return Link{ID: target, Rel: word}, nil
		case relationShaped(word) && ValidID(target):
			return Link{}, fmt.Errorf("link %q: %w %q: use one of %s", s, ErrRel, word, strings.Join(relations, ", "))
		}
	}
	return Link{ID: s, Rel: RelRelated}, nil
}

// relationShaped reports whether w could be a misspelt relation: a letter,
// then letters, digits, '_' or '-', in any case.
func relationShaped(w string) bool {
	for i, c := range w {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return w != ""
}

// LinkIDs returns the targets of links, in order.
func LinkIDs(links []Link) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.ID
	}
	return out
}

// DanglingLinks returns an issue for every link of m that names a memory
// (see Link.IsMemory) for which exists reports false. Fields are
// "links[i]", as Validate writes them, so callers locate them the same way.
// It is pure: the pre-commit hook runs it on staged content.
func DanglingLinks(m *Memory, exists func(id string) bool) []Issue {
	var out []Issue
	for i, l := range m.Links {
		if l.IsMemory() && !exists(l.ID) {
			out = append(out, Issue{Field: fmt.Sprintf("links[%d]", i),
				Message: fmt.Sprintf("links to %s, which is not a memory in this repository", l.ID)})
		}
	}
	return out
}

// CleanList splits comma-separated values (tags, IDs, types as people
// type them), trims them and drops empty ones and repeats, keeping the
// first of each.
func CleanList(xs []string) []string {
	var out []string
	for _, x := range xs {
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// CleanLinks trims links, gives a link with no relation "related", and
// drops repeats of the same (ID, relation), keeping the first.
func CleanLinks(links []Link) []Link {
	var out []Link
	for _, l := range links {
		l.ID, l.Rel = strings.TrimSpace(l.ID), strings.TrimSpace(l.Rel)
		if l.Rel == "" {
			l.Rel = RelRelated
		}
		if l.ID != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// ParseLinks reads links as the CLI and SaveRequest write them (see
// ParseLink); an item may hold several, separated by commas.
func ParseLinks(items []string) ([]Link, error) {
	var out []Link
	for _, it := range items {
		for _, p := range strings.Split(it, ",") {
			if strings.TrimSpace(p) == "" {
				continue
			}
			l, err := ParseLink(p)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
	}
	return CleanLinks(out), nil
}
