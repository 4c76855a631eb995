package memory

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Type describes one memory type. Types are schemas: every memory names a
// type, and the type's JSON Schema says what its structured data may hold.
type Type struct {
	// Name is the canonical name, the one written into files.
	Name string `json:"name"`
	// Description is one line saying what memories of the type hold, for
	// `git contextfs schema` and --help. It is the schema's own
	// "description", so the two cannot drift apart.
	Description string `json:"description"`
	// Aliases are other names accepted for the type: names other memory
	// tools use for the same thing, and common synonyms.
	Aliases []string `json:"aliases,omitempty"`
	// Indexed reports that memories of the type are normally produced by
	// auto-indexing (code, commit) rather than written by hand, so that the
	// CLI can say so; they can still be saved like any other.
	Indexed bool `json:"indexed,omitempty"`
	// Schema is the JSON Schema (draft 2020-12) of the memory's data.
	Schema json.RawMessage `json:"schema"`
}

//go:embed schemas/*.json
var schemaFiles embed.FS

// typeDef is what the Go code says about a type; the rest is in its schema.
type typeDef struct {
	name    string
	aliases []string
	indexed bool
}

// typeDefs lists every type with what its schema file does not say.
// Descriptions live in schemas/<name>.json so that the schema stays the one
// source of truth for users and tools outside this program.
var typeDefs = []typeDef{
	// The 22 types of the system contextfs re-imagines.
	{name: "fact", aliases: []string{"note", "knowledge"}},
	{name: "decision", aliases: []string{"adr"}},
	{name: "procedural", aliases: []string{"procedure", "howto", "how-to", "runbook"}},
	{name: "episodic", aliases: []string{"session-summary", "session", "episode"}},
	{name: "user", aliases: []string{"preference"}},
	{name: "code", indexed: true},
	{name: "error", aliases: []string{"error-solution"}},
	{name: "commit", indexed: true},
	{name: "todo"},
	{name: "issue", aliases: []string{"bug"}},
	{name: "api", aliases: []string{"endpoint"}},
	{name: "schema"},
	{name: "test"},
	{name: "review", aliases: []string{"code-review"}},
	{name: "release"},
	{name: "config", aliases: []string{"project-config", "configuration"}},
	{name: "dependency"},
	{name: "doc", aliases: []string{"docs", "documentation"}},
	{name: "workflow"},
	{name: "task"},
	{name: "step"},
	{name: "agent_run"},
	// Agent-context types that coding assistants already use.
	{name: "project-brief", aliases: []string{"brief"}},
	{name: "architecture"},
	{name: "tech-context", aliases: []string{"tech-stack"}},
	{name: "product-context"},
	{name: "progress"},
	{name: "learned-pattern", aliases: []string{"pattern", "lesson"}},
}

// registry is the table of types, built once from typeDefs and never
// modified afterwards; callers get copies. It holds names only: the
// schemas are read and decoded when something needs them (described,
// compiled), because a save or a search only looks a type's name up, and
// decoding all 40 schemas cost each such process about a millisecond.
type registry struct {
	types []Type         // sorted by Name; Name, Aliases and Indexed only
	index map[string]int // typeKey of every name and alias → index in types
}

// types returns the registry, building it on first use so that programs
// that never look at a type pay nothing.
var types = sync.OnceValue(func() *registry {
	r := &registry{index: make(map[string]int)}
	defs := slices.Clone(typeDefs)
	slices.SortFunc(defs, func(a, b typeDef) int { return strings.Compare(a.name, b.name) })
	for i, d := range defs {
		r.types = append(r.types, Type{Name: d.name, Aliases: d.aliases, Indexed: d.indexed})
		for _, n := range append([]string{d.name}, d.aliases...) {
			k := typeKey(n)
			if j, dup := r.index[k]; dup {
				panic(fmt.Sprintf("memory: %q names both %s and %s", n, defs[j].name, d.name))
			}
			r.index[k] = i
		}
	}
	return r
})

// schemaOf reads and decodes the schema of the i'th type of the registry.
// The schemas are part of the program (tests read each), so a missing or
// broken one is a bug, not an input error.
func schemaOf(i int) (raw []byte, doc any) {
	name := types().types[i].Name
	raw, err := schemaFiles.ReadFile("schemas/" + name + ".json")
	if err != nil {
		panic(fmt.Sprintf("memory: type %s has no schema: %v", name, err))
	}
	if doc, err = decodeSchema(raw); err != nil {
		panic(fmt.Sprintf("memory: schema of %s: %v", name, err))
	}
	return raw, doc
}

// described returns every type whole: with its schema and the schema's
// description, for the commands and tools that list or show types.
var described = sync.OnceValue(func() []Type {
	r := types()
	out := make([]Type, len(r.types))
	for i, t := range r.types {
		raw, doc := schemaOf(i)
		obj, _ := doc.(map[string]any)
		t.Description, _ = obj["description"].(string)
		t.Schema = raw
		out[i] = t
	}
	return out
})

// clone returns a copy of t that shares no memory with the registry.
func (t Type) clone() Type {
	t.Aliases = slices.Clone(t.Aliases)
	t.Schema = bytes.Clone(t.Schema)
	return t
}

// Types returns every memory type, sorted by name. The slice and everything
// in it are fresh copies: changing them changes nothing here.
func Types() []Type {
	all := described()
	out := make([]Type, len(all))
	for i, t := range all {
		out[i] = t.clone()
	}
	return out
}

// LookupType returns the type called name, which may be the canonical name
// or an alias. Case, surrounding space, and '_' against '-' do not matter,
// because people and assistants spell type names every way: "Agent-Run",
// "agent_run" and "agent-run" are the same type.
func LookupType(name string) (Type, bool) {
	i, ok := lookup(name)
	if !ok {
		return Type{}, false
	}
	return described()[i].clone(), true
}

// TypeName returns the canonical name of the type called name (see
// LookupType), without reading its schema, and whether there is one.
func TypeName(name string) (string, bool) {
	i, ok := lookup(name)
	if !ok {
		return "", false
	}
	return types().types[i].Name, true
}

// lookup returns the index of the type called name in the registry.
func lookup(name string) (int, bool) {
	i, ok := types().index[typeKey(name)]
	return i, ok
}

// typeKey folds the differences between spellings of a type name that
// LookupType ignores.
func typeKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

// CanonicalType returns the canonical name of the type called name (see
// LookupType). For an unknown name the error suggests the closest valid
// names, since the usual cause is a typo.
func CanonicalType(name string) (string, error) {
	if i, ok := lookup(name); ok {
		return types().types[i].Name, nil
	}
	if strings.TrimSpace(name) == "" {
		return "", errors.New("no type given; valid types are " + strings.Join(typeNames(), ", "))
	}
	s := suggest(name)
	if len(s) == 0 {
		return "", fmt.Errorf("unknown type %q; valid types are %s", name, strings.Join(typeNames(), ", "))
	}
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return "", fmt.Errorf("unknown type %q; did you mean %s?", name, orList(q))
}

// typeNames returns the canonical names in order.
func typeNames() []string {
	r := types()
	names := make([]string, len(r.types))
	for i, t := range r.types {
		names[i] = t.Name
	}
	return names
}

// maxSuggestions bounds the names an unknown-type error offers: more than a
// few is a list, not a suggestion.
const maxSuggestions = 3

// suggest returns the names and aliases closest to name: those at the
// smallest edit distance if it is small for the name's length, or else those
// that start with name ("arch" for architecture). It returns nil when
// nothing is close.
func suggest(name string) []string {
	key := typeKey(name)
	limit := max(1, min(3, len([]rune(key))/3))
	best := limit + 1
	var near, prefix []string
	for _, t := range types().types {
		for _, n := range append([]string{t.Name}, t.Aliases...) {
			k := typeKey(n)
			if d := distance(key, k); d < best {
				best, near = d, []string{n}
			} else if d == best {
				near = append(near, n)
			}
			if len(key) >= 3 && strings.HasPrefix(k, key) {
				prefix = append(prefix, n)
			}
		}
	}
	if len(near) == 0 {
		near = prefix
	}
	if len(near) > maxSuggestions {
		near = near[:maxSuggestions]
	}
	return near
}

// distance is the optimal-string-alignment edit distance between a and b:
// insertions, deletions, substitutions and swaps of neighbouring characters
// each cost one, because those are the typos people make.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows suffice: a swap looks two rows back.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// orList joins items as English does: "a", "a or b", "a, b or c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
