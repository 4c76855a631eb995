package capture

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Kinds of Finding: what a memory of each would be.
const (
	Decision   = "decision"
	Fix        = "fix"
	Preference = "preference"
	Progress   = "progress"
)

// Finding is a sentence of a transcript that settles something a memory
// could record.
type Finding struct {
	Message int    `json:"message"` // index in Transcript.Messages
	Role    string `json:"role"`
	Kind    string `json:"kind"`
	Excerpt string `json:"excerpt"`
}

// signal is a phrase that marks a finding, and whose messages it counts
// in: a preference ("always", "never", "prefer") is the person's; an
// agent says "never" of code all day.
type signal struct {
	kind   string
	person bool // only in the person's messages
	re     *regexp.Regexp
}

// signals are compiled on first use, not at every start of the CLI.
var signals = sync.OnceValue(func() []signal {
	mk := func(kind string, person bool, pattern string) signal {
		return signal{kind, person, regexp.MustCompile(`(?i)` + pattern)}
	}
	return []signal{
		mk(Decision, false, `\blet'?s (use|go with|switch to|stick with|keep|adopt|move to)\b`),
		mk(Decision, false, `\bwe(?: have|'ve)? (decided|agreed|chose|settled on|went with|are going with|will use|'ll use)\b`),
		mk(Decision, false, `\b(i|we) decided\b|\bthe decision is\b|\bdecided to\b`),
		mk(Fix, false, `\bfixed (it )?by\b|\bthe fix (is|was)\b|\bfix was to\b`),
		mk(Fix, false, `\bthe (root )?cause (is|was)\b|\broot cause\b|\bcaused by\b`),
		mk(Fix, false, `\bthe (bug|problem|issue|error|failure) (is|was) (that|because|in|due)\b|\bturned out\b`),
		mk(Preference, true, `\b(always|never)\s+\w+`),
		mk(Preference, true, `\bi (prefer|'d rather|would rather)\b|\bprefer\s+\w+\s+(over|to)\b|\bfrom now on\b|\bplease don'?t\b`),
		mk(Progress, false, `\bnext steps?\b|\bleft to do\b|\bstill (need|needs) to\b|\bremaining work\b|\bnot done yet\b`),
	}
})

var (
	cliSave     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bgit[ -]contextfs\s+(save|update|evolve|merge)\b`) })
	sentenceEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.!?;]\s+`) })
)

// maxExcerpt caps an excerpt, in characters.
const maxExcerpt = 140

// Saved reports whether a tool call writes a memory: a contextfs MCP
// tool that saves or updates, the CLI's save or update through a shell,
// or a file written under .contextfs/.
func Saved(u ToolUse) bool {
	name := strings.ToLower(u.Name)
	for _, t := range []string{"save_memory", "update_memory", "evolve_memory", "merge_memories", "supersede"} {
		if strings.HasSuffix(name, t) || strings.Contains(name, "contextfs") && strings.Contains(name, t) {
			return true
		}
	}
	str := func(k string) string { s, _ := u.Input[k].(string); return s }
	switch u.Name {
	case "Bash":
		c := str("command")
		return cliSave().MatchString(c)
	case "Write", "Edit", "MultiEdit":
		p := strings.ReplaceAll(str("file_path"), `\`, "/")
		return strings.Contains("/"+p, "/.contextfs/") && strings.HasSuffix(p, ".md")
	}
	return false
}

// Unrecorded returns the findings of t said after its last save and after
// message index since (what an earlier reminder already covered), in
// order; at most max (0: all).
func Unrecorded(t *Transcript, since, max int) []Finding {
	last := since
	for i, m := range t.Messages {
		for _, u := range m.Tools {
			if Saved(u) && i > last {
				last = i
			}
		}
	}
	var out []Finding
	for i := last + 1; i < len(t.Messages); i++ {
		m := t.Messages[i]
		for _, f := range findings(m) {
			f.Message = i
			out = append(out, f)
			if max > 0 && len(out) == max {
				return out
			}
		}
	}
	return out
}

// findings are the findings of one message: the first sentence of each
// kind that a signal marks.
func findings(m Message) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, sent := range sentences(m.Text) {
		for _, s := range signals() {
			if seen[s.kind] || s.person && m.Role != "user" || !s.re.MatchString(sent) {
				continue
			}
			seen[s.kind] = true
			out = append(out, Finding{Role: m.Role, Kind: s.kind, Excerpt: cut(sent, maxExcerpt)})
		}
	}
	return out
}

// sentences splits prose into sentences, leaving out code blocks (whose
// "never" and "fixed" are code, not talk).
func sentences(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, s := range sentenceEnd().Split(line, -1) {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n])) + "…"
}

// MaxCited is how many findings a reminder quotes.
const MaxCited = 4

// Reminder is the instruction a Stop hook gives the agent for findings:
// short, quoting at most MaxCited of them, and saying it comes once.
func Reminder(fs []Finding) string {
	var b strings.Builder
	b.WriteString("contextfs: this session settled things no memory records yet:\n")
	for i, f := range fs {
		if i == MaxCited {
			fmt.Fprintf(&b, "- … and %d more\n", len(fs)-MaxCited)
			break
		}
		fmt.Fprintf(&b, "- %s: %q\n", f.Kind, f.Excerpt)
	}
	b.WriteString("Save each one worth keeping with save_memory (type decision, error, preference or progress; one memory each, " +
		"with why), or update the memory it changes; skip any that is trivial or already recorded. " +
		"Then finish. This reminder comes once.")
	return b.String()
}
