package lineage

import "testing"

func TestArticleReadsAsSpoken(t *testing.T) {
	for typ, want := range map[string]string{
		"error": "an error", "episodic": "an episodic", "architecture": "an architecture",
		"fact": "a fact", "decision": "a decision", "user": "a user",
	} {
		if got := article(typ); got != want {
			t.Errorf("article(%q) = %q, want %q", typ, got, want)
		}
	}
}
