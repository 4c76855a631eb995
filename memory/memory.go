// Package memory is the model of contextfs: what a memory is, its types and
// their schemas, and its identity. It depends on nothing else in the module;
// every other package depends on it.
package memory

import (
	"time"
)

// Memory is one typed memory, the parsed form of one Markdown file under
// .contextfs/. The file is the source of truth; a Memory is a view of it.
// Paths are globs, relative to the repository root, of the code the memory
// bears on ("**" spans folders); Source records which tool (and model, and
// session) wrote it, so a reader can weigh what an agent saved; Session is
// the ID of the working session open when it was saved.
type Memory struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Summary    string         `json:"summary,omitempty"`
	Tags       []string       `json:"tags,omitempty"`
	Links      []Link         `json:"links,omitempty"`
	Supersedes []string       `json:"supersedes,omitempty"`
	Reason     string         `json:"reason,omitempty"` // why it replaced what it supersedes: one of Reasons
	Paths      []string       `json:"paths,omitempty"`
	Created    time.Time      `json:"created"`
	Updated    time.Time      `json:"updated"`
	Author     string         `json:"author,omitempty"`
	Source     *Source        `json:"source,omitempty"`
	Session    string         `json:"session,omitempty"`
	Data       map[string]any `json:"data,omitempty"`
	Body       string         `json:"body"`
	// Path is the file's path relative to the repository root, with forward
	// slashes. It is not stored in the file.
	Path string `json:"path,omitempty"`
}

// Source is the provenance of a memory: the tool that wrote it, the
// model behind the tool, and the session it was written in. Any of them
// may be empty; a Source with all of them empty is not written. Captured
// says nobody asked for the memory: a hook prompted the agent to save it,
// or wrote it (a session's summary built without one), so that review
// shows it apart until a person accepts it (docs/AGENTS.md, "Capture").
type Source struct {
	Tool     string `json:"tool,omitempty"`
	Model    string `json:"model,omitempty"`
	Session  string `json:"session,omitempty"`
	Captured bool   `json:"captured,omitempty"`
}

// IsZero reports whether s records nothing.
func (s *Source) IsZero() bool { return s == nil || *s == Source{} }

// Superseded reports whether the memory retires itself through its data
// (a decision whose status is "superseded"; "deprecated" stays visible). Being listed in
// another memory's Supersedes is the other way and needs the whole set.
func (m *Memory) Superseded() bool {
	if m.Data == nil {
		return false
	}
	s, _ := m.Data["status"].(string)
	return s == "superseded"
}

// HasTag reports whether the memory carries tag t (case-insensitive).
func (m *Memory) HasTag(t string) bool {
	for _, x := range m.Tags {
		if equalFold(x, t) {
			return true
		}
	}
	return false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}
