package capture

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/contextblock"
)

// DefaultPromptBudget is the size, in estimated tokens, of what Recall
// adds to a prompt when context.prompt_budget is not set: a few memories,
// on every prompt, so small.
const DefaultPromptBudget = 300

// Relevance floors, chosen on the labelled set of recall_test.go
// (TestRecallFloorOnTheLabelledSet; docs/AGENTS.md gives the figures). A
// memory is recalled only when its meaning is close to the prompt's
// (cosine at least MinCosine) and some word of the prompt is in it
// (a keyword score at all), or its meaning alone is very close
// (StrongCosine). Keyword scores are scaled to the query's best match, so
// they say nothing of absolute relevance: a prompt about the weather
// whose one word matches one memory scores 1.
const (
	MinCosine    = 0.25
	StrongCosine = 0.5
)

// recallCandidates is how many search results Recall looks at.
const recallCandidates = 8

// minPromptWords is the fewest words a prompt needs to be searched for:
// "yes", "go on" and "thanks" are about nothing recallable.
const minPromptWords = 3

// RecallOptions describe a recall for one prompt.
type RecallOptions struct {
	Prompt string
	// Budget is the most estimated tokens of Recalled.Text; <= 0 means
	// DefaultPromptBudget.
	Budget int
	// Shown are memories the session was already given: left out.
	Shown []string
}

// RecallItem is one memory recalled.
type RecallItem struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	Title   string  `json:"title"`
	Snippet string  `json:"snippet,omitempty"`
	Score   float64 `json:"score"`
}

// Recalled is what Recall found: the items and the text for the agent,
// "" when nothing is relevant.
type Recalled struct {
	Items  []RecallItem `json:"items"`
	Text   string       `json:"text"`
	Tokens int          `json:"tokens"`
}

// Recall returns the few memories of st relevant to a prompt that the
// session was not already shown, as a short text within the budget:
// each cites its ID for recall. Session summaries (episodic) are left
// out: the context block gives the last one, and they match every
// prompt a little.
func Recall(ctx context.Context, st *contextfs.Store, o RecallOptions) (*Recalled, error) {
	out := &Recalled{Items: []RecallItem{}}
	if len(strings.Fields(o.Prompt)) < minPromptWords {
		return out, nil
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultPromptBudget
	}
	res, err := st.Search(ctx, contextfs.Query{Text: o.Prompt, Kinds: []string{"memory"}, Limit: recallCandidates, Literal: true})
	if err != nil {
		return nil, err
	}
	const head = "Memories relevant to this prompt (contextfs; `git contextfs recall ID` or recall_memory gives one whole):\n"
	text := head
	for _, r := range res {
		if r.Kind != "memory" || r.Type == "episodic" || slices.Contains(o.Shown, r.ID) || !Relevant(r) {
			continue
		}
		it := RecallItem{ID: r.ID, Type: r.Type, Title: oneLine(r.Title), Score: r.Score}
		// A body that starts with its title (the CLI derives titles so)
		// would say it twice.
		snip := strings.TrimLeft(strings.TrimPrefix(oneLine(r.Snippet), strings.TrimSuffix(it.Title, ".")), ". ")
		it.Snippet = cut(snip, 160)
		line := fmt.Sprintf("- %s [%s] %s", it.ID, it.Type, it.Title)
		if it.Snippet != "" && !strings.EqualFold(it.Snippet, it.Title) {
			line += ": " + it.Snippet
		}
		line += "\n"
		if contextblock.EstimateTokens(text+line) > budget {
			// Without its snippet it may still fit.
			line = fmt.Sprintf("- %s [%s] %s\n", it.ID, it.Type, it.Title)
			if contextblock.EstimateTokens(text+line) > budget {
				continue
			}
			it.Snippet = ""
		}
		text += line
		out.Items = append(out.Items, it)
	}
	if len(out.Items) == 0 {
		return out, nil
	}
	out.Text = strings.TrimRight(text, "\n")
	out.Tokens = contextblock.EstimateTokens(out.Text)
	return out, nil
}

// Relevant reports whether a search result passes the relevance floor
// (see MinCosine).
func Relevant(r contextfs.Result) bool {
	return r.Semantic >= StrongCosine || r.Semantic >= MinCosine && r.Keyword > 0
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
