// Package dedup finds, before a memory is saved, the memories it repeats
// (similar) and the ones it may replace (may_supersede), with the same
// search and embedder as recall. No language model is involved: the
// thresholds were chosen on labelled data (docs/HYGIENE.md).
package dedup

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/memory"
)

// Policy is what a save does when it repeats an existing memory.
type Policy string

// The policies of --dedup. Skip is the default: an agent that saves a
// known fact is told the existing ID instead of writing a second copy.
const (
	Skip   Policy = "skip"   // write nothing; report the existing memory
	Update Policy = "update" // put the new content into the existing memory
	Error  Policy = "error"  // write nothing and fail
	Allow  Policy = "allow"  // write the new memory anyway (never for identical content)
	// Supersede writes the new memory as the new version of the ones it
	// repeats: newest wins, and they leave the block and search.
	Supersede Policy = "supersede"
	Off       Policy = "off" // do not look: no check at all (bulk imports, benchmarks)
)

// DefaultPolicy is the policy when none is given.
const DefaultPolicy = Skip

// ParsePolicy reads a policy name; "" is the default.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(strings.TrimSpace(s)); p {
	case "":
		return DefaultPolicy, nil
	case Skip, Update, Error, Allow, Supersede, Off:
		return p, nil
	}
	return "", fmt.Errorf("unknown dedup policy %q: use skip, update, error, allow, supersede or off", s)
}

// Thresholds are cosine similarities of the embedder (1 - cosine distance).
type Thresholds struct {
	// General is the least similarity at which a memory repeats another
	// of the same type.
	General float64
	// Structural is the same for the structural types (StructuralTypes),
	// whose memories are long and change a little at a time, so a wider
	// net is wanted.
	Structural float64
	// Subject is the least similarity of two titles, compared without
	// their function words and negations, for two memories to be about
	// the same subject (for may_supersede).
	Subject float64
}

// DefaultThresholds were chosen on the labelled sets in docs/HYGIENE.md
// for the built-in embedder.
var DefaultThresholds = Thresholds{General: 0.70, Structural: 0.60, Subject: 0.70}

// structural lists the types whose duplicates are judged more widely.
var structural = []string{"project-brief", "architecture", "tech-context", "product-context", "config"}

// StructuralTypes returns the types that use Thresholds.Structural.
func StructuralTypes() []string { return slices.Clone(structural) }

// For returns the duplicate threshold of a type.
func (t Thresholds) For(typ string) float64 {
	if slices.Contains(structural, typ) {
		return t.Structural
	}
	return t.General
}

// Match is an existing memory that a new one repeats or may replace.
type Match struct {
	ID         string  `json:"id"`
	Type       string  `json:"type"`
	Title      string  `json:"title"`
	Path       string  `json:"path"`
	Similarity float64 `json:"similarity"`
	// Identical is set when the title and body are the same, whitespace
	// aside: such a save never writes a second file.
	Identical bool `json:"identical,omitempty"`
	// Why says what differs, for may_supersede.
	Why string `json:"why,omitempty"`
	// Settle says the contradiction is plain enough for the newest to
	// win without asking (see restates): Save supersedes it rather than
	// proposing it.
	Settle bool `json:"-"`
}

// Report is what a check found.
type Report struct {
	Similar      []Match `json:"similar"`
	MaySupersede []Match `json:"may_supersede"`
	// Superseded are the contradictions the save settled (Match.Settle):
	// the new memory supersedes them, newest wins. Save fills it; Check
	// leaves it empty.
	Superseded []Match `json:"superseded,omitempty"`
	// Unchecked, when set, says why the memory was compared only for
	// identical content: the embedding server is unavailable
	// (embed.ErrUnavailable), and a save should not wait for it.
	Unchecked string `json:"unchecked,omitempty"`
}

// Candidate is a memory about to be saved.
type Candidate struct {
	Type, Title, Body string
	Data              map[string]any
}

// candidates is how many nearest memories of the same type are compared.
const candidates = 8

// Check compares c with the nearest memories of its type. A memory whose
// text is at least as similar as the type's threshold is Similar. One that
// states a different position (a decision, preference_value or value data
// field) on the same subject (titles at least Thresholds.Subject similar,
// or naming the same thing once the position's words are taken out) may
// be superseded instead, as may one at or above the threshold whose text
// says something the memory does not (change): a change is not a repeat.
func Check(ctx context.Context, s *contextfs.Store, c Candidate, th Thresholds) (*Report, error) {
	typ, err := memory.CanonicalType(c.Type)
	if err != nil {
		return nil, err
	}
	rep := &Report{Similar: []Match{}, MaySupersede: []Match{}}
	// A memory saved without a title gets one from its body: compare it
	// as it will be written, or a second save of it is not identical.
	if strings.TrimSpace(c.Title) == "" {
		c.Title = contextfs.DerivedTitle(c.Body)
	}
	text := Text(c.Title, c.Body)
	if strings.TrimSpace(text) == "" {
		return rep, nil
	}
	hits, unavailable, err := nearest(ctx, s, c, typ, text)
	if err != nil {
		return nil, err
	}
	if unavailable != nil {
		rep.Unchecked = "the embedding server is unavailable: compared for identical content only, with the memories indexed before"
	}
	// The hits' files, read at once (each is a read and a parse, and the
	// check waits for all of them), then every text compared in one call
	// to the embedder: the new text once, each candidate once, not a pair
	// per candidate.
	read := make([]*memory.Memory, len(hits))
	var wg sync.WaitGroup
	for i, h := range hits {
		if h.Kind != "memory" || h.Type != typ {
			continue
		}
		wg.Go(func() {
			if m, err := s.Read(h.Path); err == nil {
				read[i] = m
			} // a broken file is validate's to report
		})
	}
	wg.Wait()
	var found []*memory.Memory
	texts := []string{text}
	for _, m := range read {
		if m != nil {
			found = append(found, m)
			texts = append(texts, Text(m.Title, m.Body))
		}
	}
	if len(found) == 0 {
		return rep, nil
	}
	var vecs [][]float32
	if unavailable == nil {
		vecs, err = embedAll(ctx, s.Embedder(), texts)
	}
	if unavailable != nil || errors.Is(err, embed.ErrUnavailable) {
		if rep.Unchecked == "" {
			rep.Unchecked = "the embedding server is unavailable: compared for identical content only"
		}
		for _, m := range found {
			if same(c.Title, m.Title) && same(c.Body, m.Body) {
				rep.Similar = append(rep.Similar, Match{ID: m.ID, Type: m.Type, Title: m.Title, Path: m.Path, Similarity: 1, Identical: true})
			}
		}
		return rep, nil
	}
	if err != nil {
		return nil, err
	}
	for i, m := range found {
		sim := Cosine(vecs[0], vecs[i+1])
		match := Match{ID: m.ID, Type: m.Type, Title: m.Title, Path: m.Path, Similarity: round(sim)}
		if same(c.Title, m.Title) && same(c.Body, m.Body) {
			match.Identical, match.Similarity = true, 1
			rep.Similar = append(rep.Similar, match)
			continue
		}
		if field, why := differs(c, m); why != "" {
			subj, err := Similarity(ctx, s.Embedder(), about(c.Title), about(m.Title))
			if err != nil {
				return nil, err
			}
			if subj >= th.Subject || sameSubject(c.Title, c.Data[field], m.Title, m.Data[field]) {
				match.Why, match.Settle = why, restates(c, m, field)
				rep.MaySupersede = append(rep.MaySupersede, match)
				continue
			}
		}
		if sim >= th.For(typ) {
			// Near is not the same: a save that swaps a part of the
			// sentence (tabs for spaces) changes the memory, and is
			// written, never skipped as a repeat (change.go).
			if why, slot := change(text, Text(m.Title, m.Body)); why != "" {
				match.Why, match.Settle = why, slot
				rep.MaySupersede = append(rep.MaySupersede, match)
				continue
			}
			rep.Similar = append(rep.Similar, match)
		}
	}
	order := func(a, b Match) int { return -cmpFloat(a.Similarity, b.Similarity) }
	slices.SortStableFunc(rep.Similar, order)
	slices.SortStableFunc(rep.MaySupersede, order)
	return rep, nil
}

// nearest returns the memories of type typ that c is compared with: the
// candidates nearest its text by the embedder's cosine, the measure the
// thresholds are on, found by the semantic ranker alone (exact over the
// type). A candidate that states a position is also looked up by the
// words of its title's subject (keyword ranker): a memory that takes
// another position on the same subject shares the title's words, not
// necessarily enough of its text to rank near it. A keyword ranking of
// the whole text added nothing on the labelled sets (docs/HYGIENE.md) and
// was most of the check's cost at 100K memories: FTS5 walks the postings
// of every word of a body.
//
// With the embedding server unavailable (embed.ErrUnavailable, returned as
// unavailable), the candidates are the keyword ranking's of the text: a
// copy word for word is still found by its words, and Check compares for
// identical content only.
func nearest(ctx context.Context, s *contextfs.Store, c Candidate, typ, text string) (hits []contextfs.Result, unavailable, err error) {
	// Literal: the memory's text is words, whatever operators of the
	// search syntax it seems to hold ("-flag" must not exclude itself).
	hits, err = s.Search(ctx, contextfs.Query{Text: text, Types: []string{typ}, Mode: contextfs.ModeSemantic, Limit: candidates, Literal: true})
	if errors.Is(err, embed.ErrUnavailable) {
		unavailable = err
		hits, err = s.SearchIndexed(ctx, contextfs.Query{Text: text, Types: []string{typ}, Mode: contextfs.ModeKeyword, Limit: candidates, Literal: true})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("dedup: search: %w", err)
	}
	if unavailable != nil || !statesPosition(c) {
		return hits, unavailable, nil
	}
	same, err := s.SearchIndexed(ctx, contextfs.Query{Text: about(c.Title), Types: []string{typ}, Mode: contextfs.ModeKeyword, Limit: candidates, Literal: true})
	if err != nil {
		return nil, nil, fmt.Errorf("dedup: search: %w", err)
	}
	for _, h := range same {
		if !slices.ContainsFunc(hits, func(x contextfs.Result) bool { return x.Path == h.Path }) {
			hits = append(hits, h)
		}
	}
	return hits, nil, nil
}

// statesPosition reports whether c has a position field, which another
// memory on its subject may contradict.
func statesPosition(c Candidate) bool {
	for _, f := range positionFields {
		if v, ok := c.Data[f].(string); ok && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// positionFields are the data fields in which a memory states a position;
// two memories on one subject with different values disagree.
var positionFields = []string{"decision", "preference_value", "value"}

// differs says how an existing memory disagrees with the candidate: the
// position field that differs and a sentence saying so, or "".
func differs(c Candidate, m *memory.Memory) (field, why string) {
	return PositionChange(c.Data, m.Data)
}

// PositionChange says how the data of a newer memory changes the position
// the older one's states (a decision, preference_value or value field):
// the field and a sentence ("decision differs: "Flux", was "Argo CD""),
// or "" when they state none or the same. review shows it beside a memory
// the range supersedes, so that a reviewer sees what a save decided.
func PositionChange(newer, older map[string]any) (field, why string) {
	for _, f := range positionFields {
		a, okA := newer[f].(string)
		b, okB := older[f].(string)
		if okA && okB && !same(a, b) {
			return f, fmt.Sprintf("%s differs: %q, was %q", f, a, b)
		}
	}
	return "", ""
}

// restates reports whether c states its position on exactly the subject
// m states its own on, so that the newer may replace the older without
// anyone confirming it (docs/HYGIENE.md, "Newest wins"): the two titles
// are the same once each one's position words are taken for a slot
// ("Deploy with Flux" / "Flux" and "Deploy with Argo CD" / "Argo CD" are
// both "deploy with _"), or, for preferences, the two name the same
// preference_key. Measured on three labelled sets, it settled no pair that
// is not a change of position, where the looser subject test of
// may_supersede proposes several (another aspect of the same subject:
// "Deploy on weekdays only" against "Deploy with Argo CD").
func restates(c Candidate, m *memory.Memory, field string) bool {
	if field == "preference_value" {
		a, okA := c.Data["preference_key"].(string)
		b, okB := m.Data["preference_key"].(string)
		if okA && okB && strings.TrimSpace(a) != "" && same(strings.ToLower(a), strings.ToLower(b)) {
			return true
		}
	}
	a, b := slotted(c.Title, c.Data[field]), slotted(m.Title, m.Data[field])
	return a != "" && a == b
}

// slotted is title in lower case with each run of its position's words
// replaced by one "_", or "" when nothing but the slot and function words
// is left (a title that is only its position names no subject).
func slotted(title string, pos any) string {
	p, _ := pos.(string)
	drop := map[string]bool{}
	for _, w := range words(p) {
		drop[w] = true
	}
	var out []string
	content := false
	for _, w := range words(title) {
		if drop[w] {
			if len(out) == 0 || out[len(out)-1] != "_" {
				out = append(out, "_")
			}
			continue
		}
		if !ignored()[w] {
			content = true
		}
		out = append(out, w)
	}
	if !content {
		return ""
	}
	return strings.Join(out, " ")
}

// sameSubject reports whether two titles name the same subject once the
// words of each one's position are taken out ("Deploy with Flux" with
// decision "Flux" and "Deploy with Argo CD" with decision "Argo CD" are
// both about deploying): the remaining content words of one include all
// of the other's, and there is at least one.
func sameSubject(titleA string, posA any, titleB string, posB any) bool {
	a, b := subject(titleA, posA), subject(titleB, posB)
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return false
	}
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

// ignored are the words a subject is compared without (built on first
// use: nothing of ours does work at start, docs/DESIGN.md "Start-up"):
//
//   - words that say nothing about a subject ("the", "use", "instead");
//   - negations, the words that only turn a statement around ("not", and
//     what is left of "n't" once a title is split into words). The
//     built-in embedder gives negation a heavy feature of its own, since
//     a negated sentence is no paraphrase of its affirmation; so any two
//     negated titles looked alike ("Memory paths never go through a
//     symbolic link" and "A supersedes entry naming no memory is history,
//     not a problem": 0.79), though what a title is about does not depend
//     on them.
var ignored = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on at by for from with as is are be we our use
		using now instead all` + // function words
		` no not never neither nor none nothing nobody noone nowhere without cannot t don doesn didn isn
		aren wasn weren hasn haven hadn wouldn shouldn couldn mustn`) { // negations
		m[w] = true
	}
	return m
})

// about is what a title's subject is compared on: its words less the
// function words and negations, or the title itself if nothing is left.
func about(title string) string {
	var keep []string
	for _, w := range words(title) {
		if !ignored()[w] {
			keep = append(keep, w)
		}
	}
	if len(keep) == 0 {
		return title
	}
	return strings.Join(keep, " ")
}

// subject is the set of a title's content words less the words of its
// position value.
func subject(title string, pos any) map[string]bool {
	drop := map[string]bool{}
	if p, ok := pos.(string); ok {
		for _, w := range words(p) {
			drop[w] = true
		}
	}
	out := map[string]bool{}
	for _, w := range words(title) {
		if !ignored()[w] && !drop[w] {
			out[w] = true
		}
	}
	return out
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Text is what is compared: the title and the body.
func Text(title, body string) string {
	return strings.TrimSpace(strings.TrimSpace(title) + "\n" + strings.TrimSpace(body))
}

// Similarity is the cosine similarity of two texts' embeddings.
func Similarity(ctx context.Context, emb embed.Embedder, a, b string) (float64, error) {
	vs, err := embedAll(ctx, emb, []string{a, b})
	if err != nil {
		return 0, err
	}
	return Cosine(vs[0], vs[1]), nil
}

// embedAll embeds texts in one call, one vector per text.
func embedAll(ctx context.Context, emb embed.Embedder, texts []string) ([][]float32, error) {
	if emb == nil {
		return nil, errors.New("dedup: no embedder")
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("dedup: embed: %w", err)
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("dedup: embedder returned %d vectors for %d texts", len(vs), len(texts))
	}
	return vs, nil
}

// Cosine is the cosine of two vectors; 0 when either is zero.
func Cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range min(len(a), len(b)) {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

func same(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
