package chunker

import (
	"maps"
	"slices"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// A misspelled node kind in a spec would silently never match, so every
// kind the specs name must exist in its grammar.
func TestSpecsUseRealNodeKinds(t *testing.T) {
	for _, lang := range slices.Sorted(maps.Keys(specs())) {
		s := specs()[lang]
		l := sitter.NewLanguage(s.grammar())
		if l.IdForNodeKind("no_such_kind", true) != 0 {
			t.Fatalf("%s: IdForNodeKind finds a bogus kind; the check below is vacuous", lang)
		}
		var kinds []string
		kinds = slices.AppendSeq(kinds, maps.Keys(s.decls))
		kinds = slices.AppendSeq(kinds, maps.Keys(s.wrappers))
		kinds = slices.AppendSeq(kinds, maps.Keys(s.transparent))
		kinds = slices.AppendSeq(kinds, maps.Keys(s.prefixes))
		for _, k := range kinds {
			if l.IdForNodeKind(k, true) == 0 {
				t.Errorf("%s: no named node kind %q in the grammar", lang, k)
			}
		}
		for _, f := range []string{"name", "body"} {
			if l.FieldIdForName(f) == 0 {
				t.Errorf("%s: no field %q in the grammar", lang, f)
			}
		}
	}
}

// Every language Language can return for code has a spec, and vice versa.
func TestEveryCodeLanguageHasASpec(t *testing.T) {
	seen := map[string]bool{}
	for _, lang := range extLanguages() {
		if lang == "text" || lang == "markdown" {
			continue
		}
		seen[lang] = true
		if specs()[lang] == nil {
			t.Errorf("extension maps to %q, which has no spec", lang)
		}
	}
	for lang := range specs() {
		if !seen[lang] {
			t.Errorf("spec %q is reachable from no extension", lang)
		}
	}
}
