// Package capture turns an agent's session into memory without a model of
// its own. The agent has the model; contextfs has the files. Recall finds
// the few memories relevant to each prompt, within a small budget and
// never twice in a session; Unrecorded reads the session's transcript for
// decisions, fixes, preferences and progress that were said after the
// last save, so that the agent's Stop hook can ask the agent, once, to
// save them with the tools. What is saved so is an ordinary memory file,
// marked captured (memory.Source), that a person reviews like code.
// docs/AGENTS.md ("Capture") describes the hooks that use it.
package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxTranscript is how much of a transcript is read: its last bytes. A
// transcript grows with the session; what a Stop hook looks for is said
// since the last save, near the end, and the hook must stay fast.
const MaxTranscript = 8 << 20

// Message is one message of a transcript: a person's prompt or the
// agent's reply, with the tools the reply called.
type Message struct {
	Role  string // "user" or "assistant"
	Text  string
	Tools []ToolUse
}

// ToolUse is a tool call in an agent's reply.
type ToolUse struct {
	Name  string
	Input map[string]any
}

// Transcript is the conversation of a session, as the client recorded it.
type Transcript struct {
	Messages []Message
}

// ReadTranscript reads a Claude Code transcript: JSON Lines, one event a
// line, of which the "user" and "assistant" events carry the messages
// (message.content is a string or a list of text, tool_use and
// tool_result blocks). Only the last MaxTranscript bytes are read. Lines
// that are not JSON, events of other types, tool results, messages of
// sub-agents (isSidechain) and those the client wrote itself (isMeta,
// hook feedback, command output) are passed over: a client's format
// grows, and a hook must not fail on what it does not know.
func ReadTranscript(path string) (*Transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("transcript: %s is not a regular file", path)
	}
	cut := fi.Size() > MaxTranscript
	if cut {
		if _, err := f.Seek(-MaxTranscript, io.SeekEnd); err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxTranscript))
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	if cut { // the first line is a part of one
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		}
	}
	return ParseTranscript(raw), nil
}

// event is the part of a transcript line that ParseTranscript reads.
type event struct {
	Type      string `json:"type"`
	IsMeta    bool   `json:"isMeta"`
	Sidechain bool   `json:"isSidechain"`
	Message   struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type block struct {
	Type  string         `json:"type"`
	Text  string         `json:"text"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// ParseTranscript parses transcript lines (see ReadTranscript).
func ParseTranscript(raw []byte) *Transcript {
	t := &Transcript{}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev event
		if json.Unmarshal(line, &ev) != nil || ev.IsMeta || ev.Sidechain {
			continue
		}
		if ev.Type != "user" && ev.Type != "assistant" {
			continue
		}
		m := Message{Role: ev.Type}
		var s string
		var blocks []block
		switch {
		case json.Unmarshal(ev.Message.Content, &s) == nil:
			m.Text = s
		case json.Unmarshal(ev.Message.Content, &blocks) == nil:
			var texts []string
			for _, b := range blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "tool_use":
					if m.Role == "assistant" {
						m.Tools = append(m.Tools, ToolUse{Name: b.Name, Input: b.Input})
					}
				}
			}
			m.Text = strings.Join(texts, "\n")
		}
		if m.Role == "user" && clientWritten(m.Text) {
			continue
		}
		if strings.TrimSpace(m.Text) == "" && len(m.Tools) == 0 {
			continue // a tool result
		}
		t.Messages = append(t.Messages, m)
	}
	return t
}

// clientWritten reports whether a user message is one the client wrote
// (a slash command's wrapper or output, a hook's feedback, the summary
// that continues a compacted conversation), not the person.
func clientWritten(text string) bool {
	s := strings.TrimSpace(text)
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>",
		"Stop hook feedback:", "This session is being continued from a previous conversation", "Caveat: The messages below"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Prompts are the person's prompts in t, in order.
func (t *Transcript) Prompts() []string {
	var out []string
	for _, m := range t.Messages {
		if m.Role == "user" && strings.TrimSpace(m.Text) != "" {
			out = append(out, m.Text)
		}
	}
	return out
}
