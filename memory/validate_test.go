package memory

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// validMemory returns a decision memory that passes Validate.
func validMemory() *Memory {
	created := time.Date(2024, 5, 1, 10, 30, 0, 0, time.UTC)
	return &Memory{
		ID:         "k3v9x2m7qa",
		Type:       "decision",
		Title:      "Store memories as Markdown files",
		Summary:    "One file per memory, under .contextfs/",
		Tags:       []string{"storage", "git"},
		Links:      []Link{{"https://example.com/rfc/12", RelRelated}, {"a1b2c3d4e5", "depends_on"}},
		Supersedes: []string{"old0decision"},
		Created:    created,
		Updated:    created.Add(time.Hour),
		Author:     "ada",
		Data: map[string]any{
			"decision":     "Store memories as Markdown files with YAML frontmatter",
			"rationale":    "Files diff, merge and review like code",
			"alternatives": []any{"SQLite database", "JSON lines"},
			"status":       "accepted",
			"decided_by":   "core team",
			"date":         "2024-05-01",
		},
		Body: "We chose files.\n",
	}
}

func TestValidateAcceptsAValidMemory(t *testing.T) {
	if issues := Validate(validMemory()); issues != nil {
		t.Errorf("Validate(valid) = %v", issues)
	}
}

func TestValidateAcceptsMinimalMemoryOfEveryType(t *testing.T) {
	// Only commit cannot do without data.
	for _, typ := range Types() {
		m := validMemory()
		m.Type, m.Data = typ.Name, nil
		issues := Validate(m)
		if typ.Name == "commit" {
			want := []Issue{{Field: "data.sha", Message: "is required"}}
			if !reflect.DeepEqual(issues, want) {
				t.Errorf("commit without data: %v, want %v", issues, want)
			}
			continue
		}
		if issues != nil {
			t.Errorf("%s without data: %v", typ.Name, issues)
		}
	}
}

func TestValidateAcceptsTypeAliases(t *testing.T) {
	m := validMemory()
	m.Type = "ADR"
	if issues := Validate(m); issues != nil {
		t.Errorf("Validate(type ADR) = %v", issues)
	}
}

func TestValidateReportsNilMemory(t *testing.T) {
	if issues := Validate(nil); len(issues) != 1 {
		t.Errorf("Validate(nil) = %v, want one issue", issues)
	}
}

func TestValidateReportsStructuralProblems(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *Memory)
		want   Issue
	}{
		{"missing ID", func(m *Memory) { m.ID = "" },
			Issue{"id", "is required"}},
		{"malformed ID", func(m *Memory) { m.ID = "Not An ID" },
			Issue{"id", `must be 4 to 64 characters of a-z, 0-9, "-" or "_"; got "Not An ID"`}},
		{"short ID", func(m *Memory) { m.ID = "abc" },
			Issue{"id", `must be 4 to 64 characters of a-z, 0-9, "-" or "_"; got "abc"`}},
		{"missing type", func(m *Memory) { m.Type = "" },
			Issue{"type", "is required"}},
		{"unknown type", func(m *Memory) { m.Type = "decison" },
			Issue{"type", `unknown type "decison"; did you mean "decision"?`}},
		{"missing title", func(m *Memory) { m.Title = "" },
			Issue{"title", "is required"}},
		{"blank title", func(m *Memory) { m.Title = " \t" },
			Issue{"title", "is required"}},
		{"multi-line title", func(m *Memory) { m.Title = "one\ntwo" },
			Issue{"title", "must be a single line"}},
		{"an escape sequence in the title", func(m *Memory) { m.Title = "Red \x1b[31malert" },
			Issue{"title", "must not contain control characters; found U+001B on line 1"}},
		{"a NUL in the body", func(m *Memory) { m.Body = "line one\nline\x00two\n" },
			Issue{"body", "must not contain control characters; found U+0000 on line 2"}},
		{"a bell in the summary", func(m *Memory) { m.Summary = "ding\a" },
			Issue{"summary", "must not contain control characters; found U+0007 on line 1"}},
		{"a C1 control in the body", func(m *Memory) { m.Body = "a\u009bb\n" },
			Issue{"body", "must not contain control characters; found U+009B on line 1"}},
		{"empty tag", func(m *Memory) { m.Tags = []string{"go", ""} },
			Issue{"tags[1]", "must not be empty"}},
		{"tag with a space", func(m *Memory) { m.Tags = []string{"go lang"} },
			Issue{"tags[0]", `must not contain spaces; got "go lang"`}},
		{"tag with a tab", func(m *Memory) { m.Tags = []string{"go\tlang"} },
			Issue{"tags[0]", `must not contain spaces; got "go\tlang"`}},
		{"repeated tag", func(m *Memory) { m.Tags = []string{"go", "sql", "go"} },
			Issue{"tags[2]", `repeats tags[0] ("go")`}},
		{"tag repeated in other case", func(m *Memory) { m.Tags = []string{"Go", "go"} },
			Issue{"tags[1]", `repeats tags[0] ("Go")`}},
		{"empty link", func(m *Memory) { m.Links = []Link{{"", RelRelated}} },
			Issue{"links[0]", "must not be empty"}},
		{"blank link", func(m *Memory) { m.Links = []Link{{"  ", RelRelated}} },
			Issue{"links[0]", "must not be empty"}},
		{"link with surrounding space", func(m *Memory) { m.Links = []Link{{" abcd", RelRelated}} },
			Issue{"links[0]", `must not start or end with spaces; got " abcd"`}},
		{"repeated link", func(m *Memory) { m.Links = []Link{{"abcd", RelRelated}, {"efgh", RelRelated}, {"abcd", RelRelated}} },
			Issue{"links[2]", "repeats links[0]"}},
		{"same target with another relation is a second link", func(m *Memory) {
			m.Links = []Link{{"abcd", RelRelated}, {"abcd", "depends_on"}, {"abcd", "depends_on"}}
		}, Issue{"links[2]", "repeats links[1]"}},
		{"unknown relation", func(m *Memory) { m.Links = []Link{{"abcd", "likes"}} },
			Issue{"links[0]", `relation must be one of related, references, depends_on, contradicts, supersedes, derived_from, part_of, implements, extends, example_of, caused_by, fixes; got "likes"`}},
		{"linking itself", func(m *Memory) { m.Links = []Link{{"abcd", RelRelated}, {m.ID, RelRelated}} },
			Issue{"links[1]", "must not be the memory's own ID"}},
		{"linking itself with a relation", func(m *Memory) { m.Links = []Link{{m.ID, "depends_on"}} },
			Issue{"links[0]", "must not be the memory's own ID"}},
		{"superseding a malformed ID", func(m *Memory) { m.Supersedes = []string{"Bad"} },
			Issue{"supersedes[0]", `must be a memory ID: 4 to 64 characters of a-z, 0-9, "-" or "_"; got "Bad"`}},
		{"superseding itself", func(m *Memory) { m.Supersedes = []string{"abcd", m.ID} },
			Issue{"supersedes[1]", "must not be the memory's own ID"}},
		{"superseding twice", func(m *Memory) { m.Supersedes = []string{"abcd", "abcd"} },
			Issue{"supersedes[1]", "repeats supersedes[0]"}},
		{"zero created", func(m *Memory) { m.Created = time.Time{} },
			Issue{"created", "is required"}},
		{"zero updated", func(m *Memory) { m.Updated = time.Time{} },
			Issue{"updated", "is required"}},
		{"updated before created", func(m *Memory) { m.Updated = m.Created.Add(-time.Second) },
			Issue{"updated", "must not be before created (2024-05-01T10:30:00Z); got 2024-05-01T10:29:59Z"}},
		{"invalid data", func(m *Memory) { m.Data["status"] = "done" },
			Issue{"data.status", `must be one of proposed, accepted, deprecated, superseded; got "done"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validMemory()
			tt.change(m)
			got := Validate(m)
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("Validate = %q\nwant [%q]", got, tt.want)
			}
		})
	}
}

func TestValidateEqualTimesAreFine(t *testing.T) {
	m := validMemory()
	m.Updated = m.Created.In(time.FixedZone("CEST", 2*3600)) // same instant
	if issues := Validate(m); issues != nil {
		t.Errorf("Validate(updated == created) = %v", issues)
	}
}

func TestValidateReportsEveryProblemInAStableOrder(t *testing.T) {
	m := &Memory{
		Type: "decision",
		Tags: []string{"a b"},
		Data: map[string]any{"status": "done", "alternatives": "none", "date": "soon", "decision": 1},
	}
	want := []string{
		"id: is required",
		"title: is required",
		`tags[0]: must not contain spaces; got "a b"`,
		"created: is required",
		"updated: is required",
		`data.alternatives: must be an array; got "none"`,
		`data.date: must be a date like 2024-05-01; got "soon"`,
		"data.decision: must be a string; got 1",
		`data.status: must be one of proposed, accepted, deprecated, superseded; got "done"`,
	}
	for range 20 { // the validator visits properties in map order
		var got []string
		for _, is := range Validate(m) {
			got = append(got, is.String())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Validate =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestValidateDataAcceptsValidData(t *testing.T) {
	tests := []struct {
		typ  string
		data map[string]any
	}{
		{"decision", map[string]any{"decision": "Use Go", "rationale": "one binary", "alternatives": []string{"Rust"}, "status": "proposed"}},
		{"decision", map[string]any{"status": "superseded", "date": time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}},
		{"fact", map[string]any{"category": "infra", "confidence": 0, "source": "ops"}},
		{"fact", map[string]any{"confidence": 1}},
		{"fact", map[string]any{"confidence": 0.25}},
		{"procedural", map[string]any{"steps": []any{"a", "b"}, "prerequisites": []any{}}},
		{"episodic", map[string]any{"session_type": "debugging", "outcome": "partial", "tool": "cursor"}},
		{"user", map[string]any{"preference_key": "tabs", "preference_value": true, "scope": "global"}},
		{"user", map[string]any{"preference_key": "width", "preference_value": 100}},
		{"code", map[string]any{"language": "go", "purpose": "ids", "file_path": "memory/id.go", "start_line": 1}},
		{"error", map[string]any{"error_type": "panic", "message": "nil map", "resolution": "make it", "occurrences": 3}},
		{"commit", map[string]any{"sha": "0123456789abcdef0123456789abcdef01234567", "files_changed": []any{"a.go"}}},
		{"commit", map[string]any{"sha": "ABCDEF0"}},
		{"todo", map[string]any{"status": "in_progress", "priority": "critical", "due": "2024-12-31"}},
		{"issue", map[string]any{"status": "resolved", "severity": "low", "url": "https://example.com/1"}},
		{"review", map[string]any{"pr": "https://example.com/pull/1", "verdict": "approved"}},
		{"config", map[string]any{"key": "k", "value": map[string]any{"nested": []any{1, 2}}}},
		{"doc", map[string]any{"url": "docs/guide.md"}},
		{"task", map[string]any{"status": "blocked", "parent": "k3v9x2m7qa"}},
		{"step", map[string]any{"task": "k3v9x2m7qa", "order": 2, "status": "done"}},
		{"agent_run", map[string]any{"status": "running", "started": "2024-05-01T10:00:00+02:00"}},
		{"agent_run", map[string]any{"started": time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}},
		{"learned-pattern", map[string]any{"pattern": "p", "applies_to": []any{"*.go"}}},
		{"error", map[string]any{"user_field": "users may add fields", "extra": []any{1}}},
	}
	for _, tt := range tests {
		if issues := ValidateData(tt.typ, tt.data); issues != nil {
			t.Errorf("ValidateData(%s, %v) = %v", tt.typ, tt.data, issues)
		}
	}
}

func TestValidateDataRejectsInvalidData(t *testing.T) {
	tests := []struct {
		typ  string
		data map[string]any
		want Issue
	}{
		// decision
		{"decision", map[string]any{"status": "done"},
			Issue{"data.status", `must be one of proposed, accepted, deprecated, superseded; got "done"`}},
		{"decision", map[string]any{"alternatives": "none"},
			Issue{"data.alternatives", `must be an array; got "none"`}},
		{"decision", map[string]any{"alternatives": []any{"a", 2}},
			Issue{"data.alternatives[1]", "must be a string; got 2"}},
		{"decision", map[string]any{"rationale": true},
			Issue{"data.rationale", "must be a string; got true"}},
		{"decision", map[string]any{"date": "May 1st"},
			Issue{"data.date", `must be a date like 2024-05-01; got "May 1st"`}},
		{"decision", map[string]any{"date": "2024-05-01T10:00:00Z"},
			Issue{"data.date", `must be a date like 2024-05-01; got "2024-05-01T10:00:00Z"`}},
		// fact
		{"fact", map[string]any{"confidence": "high"},
			Issue{"data.confidence", `must be a number; got "high"`}},
		{"fact", map[string]any{"confidence": 1.5},
			Issue{"data.confidence", "must be at most 1; got 1.5"}},
		{"fact", map[string]any{"confidence": -0.1},
			Issue{"data.confidence", "must be at least 0; got -0.1"}},
		{"fact", map[string]any{"confidence": math.NaN()},
			Issue{"data.confidence", "must be a finite number; got NaN"}},
		{"fact", map[string]any{"category": []any{"a"}},
			Issue{"data.category", "must be a string; got an array"}},
		// procedural
		{"procedural", map[string]any{"steps": "do it"},
			Issue{"data.steps", `must be an array; got "do it"`}},
		{"procedural", map[string]any{"prerequisites": []any{map[string]any{"go": 1}}},
			Issue{"data.prerequisites[0]", "must be a string; got an object"}},
		// episodic
		{"episodic", map[string]any{"outcome": "great"},
			Issue{"data.outcome", `must be one of success, partial, failure, unknown; got "great"`}},
		{"episodic", map[string]any{"tool": 3},
			Issue{"data.tool", "must be a string; got 3"}},
		// user
		{"user", map[string]any{"preference_key": "k", "scope": "world"},
			Issue{"data.scope", `must be one of user, project, team, global; got "world"`}},
		{"user", map[string]any{"preference_key": "k", "preference_value": nil},
			Issue{"data.preference_value", "must be a boolean, a number or a string; got null"}},
		{"user", map[string]any{"preference_value": "tabs"},
			Issue{"data.preference_key", `is required when "preference_value" is set`}},
		// code
		{"code", map[string]any{"file_path": 7},
			Issue{"data.file_path", "must be a string; got 7"}},
		{"code", map[string]any{"start_line": 0},
			Issue{"data.start_line", "must be at least 1; got 0"}},
		// error
		{"error", map[string]any{"occurrences": 2.5},
			Issue{"data.occurrences", "must be an integer; got 2.5"}},
		{"error", map[string]any{"occurrences": "twice"},
			Issue{"data.occurrences", `must be an integer; got "twice"`}},
		{"error", map[string]any{"message": nil},
			Issue{"data.message", "must be a string; got null"}},
		// commit
		{"commit", map[string]any{},
			Issue{"data.sha", "is required"}},
		{"commit", map[string]any{"sha": "xyz1234"},
			Issue{"data.sha", `must be a commit hash of 7 to 64 hexadecimal digits; got "xyz1234"`}},
		{"commit", map[string]any{"sha": "abc12"},
			Issue{"data.sha", `must be a commit hash of 7 to 64 hexadecimal digits; got "abc12"`}},
		{"commit", map[string]any{"sha": "abcdef1", "files_changed": 3},
			Issue{"data.files_changed", "must be an array; got 3"}},
		// the rest
		{"todo", map[string]any{"status": "closed"},
			Issue{"data.status", `must be one of open, in_progress, done, cancelled; got "closed"`}},
		{"todo", map[string]any{"priority": "urgent"},
			Issue{"data.priority", `must be one of low, medium, high, critical; got "urgent"`}},
		{"todo", map[string]any{"due": "tomorrow"},
			Issue{"data.due", `must be a date like 2024-05-01; got "tomorrow"`}},
		{"issue", map[string]any{"url": "example.com/1"},
			Issue{"data.url", `must be an absolute URL like https://example.com/page; got "example.com/1"`}},
		{"issue", map[string]any{"severity": "blocker"},
			Issue{"data.severity", `must be one of low, medium, high, critical; got "blocker"`}},
		{"test", map[string]any{"status": "green"},
			Issue{"data.status", `must be one of passing, failing, flaky, skipped; got "green"`}},
		{"review", map[string]any{"verdict": "lgtm"},
			Issue{"data.verdict", `must be one of approved, changes_requested, commented; got "lgtm"`}},
		{"review", map[string]any{"pr": 1.5},
			Issue{"data.pr", "must be an integer or a string; got 1.5"}},
		{"release", map[string]any{"date": "v1"},
			Issue{"data.date", `must be a date like 2024-05-01; got "v1"`}},
		{"task", map[string]any{"parent": "Task 1"},
			Issue{"data.parent", `must be a memory ID: 4 to 64 characters of a-z, 0-9, "-" or "_"; got "Task 1"`}},
		{"task", map[string]any{"status": "todo"},
			Issue{"data.status", `must be one of open, in_progress, blocked, done, cancelled; got "todo"`}},
		{"step", map[string]any{"order": 0},
			Issue{"data.order", "must be at least 1; got 0"}},
		{"agent_run", map[string]any{"finished": "yesterday"},
			Issue{"data.finished", `must be a date and time like 2024-05-01T10:30:00Z; got "yesterday"`}},
		{"agent_run", map[string]any{"status": "ok"},
			Issue{"data.status", `must be one of running, succeeded, failed, cancelled; got "ok"`}},
		{"project-brief", map[string]any{"goals": "everything"},
			Issue{"data.goals", `must be an array; got "everything"`}},
		{"progress", map[string]any{"next": []any{[]any{}}},
			Issue{"data.next[0]", "must be a string; got an array"}},
		// aliases validate as their type
		{"error-solution", map[string]any{"occurrences": "x"},
			Issue{"data.occurrences", `must be an integer; got "x"`}},
	}
	for _, tt := range tests {
		got := ValidateData(tt.typ, tt.data)
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("ValidateData(%s, %v) =\n%q\nwant [%q]", tt.typ, tt.data, got, tt.want)
		}
	}
}

func TestValidateDataLocatesNestedFields(t *testing.T) {
	got := ValidateData("config", map[string]any{"key": []any{"a", map[string]any{"b": 1}}})
	want := []Issue{{"data.key", "must be a string; got an array"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestValidateDataCutsLongValues(t *testing.T) {
	long := strings.Repeat("x", 500)
	got := ValidateData("decision", map[string]any{"status": long})
	if len(got) != 1 || len(got[0].Message) > 200 || !strings.HasSuffix(got[0].Message, `"…`) {
		t.Errorf("got %q, want one short message ending in an ellipsis", got)
	}
}

func TestValidateDataReportsUnknownType(t *testing.T) {
	tests := []struct {
		typ  string
		want Issue
	}{
		{"", Issue{"type", "is required"}},
		{"decison", Issue{"type", `unknown type "decison"; did you mean "decision"?`}},
	}
	for _, tt := range tests {
		got := ValidateData(tt.typ, nil)
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("ValidateData(%q) = %q, want [%q]", tt.typ, got, tt.want)
		}
	}
}

func TestValidateDataDoesNotChangeItsInput(t *testing.T) {
	data := map[string]any{
		"date":         time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC),
		"alternatives": []string{"a"},
		"n":            3,
	}
	before := map[string]any{
		"date":         data["date"],
		"alternatives": []string{"a"},
		"n":            3,
	}
	ValidateData("decision", data)
	NormalizeData(data)
	if !reflect.DeepEqual(data, before) {
		t.Errorf("data changed to %v", data)
	}
}

func TestYAMLDatesValidateAsDateStrings(t *testing.T) {
	// Unquoted, YAML reads these as timestamps (time.Time), not strings.
	const doc = `
decision: Use files
status: accepted
date: 2024-05-01
`
	var data map[string]any
	if err := yaml.Unmarshal([]byte(doc), &data); err != nil {
		t.Fatal(err)
	}
	if _, ok := data["date"].(time.Time); !ok {
		t.Fatalf("YAML decoded date as %T; the test assumes time.Time", data["date"])
	}
	if issues := ValidateData("decision", data); issues != nil {
		t.Errorf("ValidateData = %v", issues)
	}
	if got := NormalizeData(data)["date"]; got != "2024-05-01" {
		t.Errorf("NormalizeData date = %#v, want \"2024-05-01\"", got)
	}
}

func TestYAMLTimestampsValidateAsDateTimes(t *testing.T) {
	const doc = `
started: 2024-05-01T10:00:00+02:00
finished: 2024-05-02T00:00:00Z
`
	var data map[string]any
	if err := yaml.Unmarshal([]byte(doc), &data); err != nil {
		t.Fatal(err)
	}
	if issues := ValidateData("agent_run", data); issues != nil {
		t.Errorf("ValidateData = %v", issues)
	}
	norm := NormalizeData(data)
	if got := norm["started"]; got != "2024-05-01T10:00:00+02:00" {
		t.Errorf("started = %#v, want the time in its own offset", got)
	}
	// Midnight UTC is indistinguishable from a date; date-time accepts both.
	if got := norm["finished"]; got != "2024-05-02" {
		t.Errorf("finished = %#v, want \"2024-05-02\"", got)
	}
}

func TestNormalizeDataMakesYAMLAndJSONAgree(t *testing.T) {
	const y = `
order: 3
ratio: 0.5
whole: 2.0
ok: true
none: null
list: [a, 1, 2.5]
nested: {when: 2024-05-01, n: 7}
`
	const j = `{"order": 3, "ratio": 0.5, "whole": 2, "ok": true, "none": null,
		"list": ["a", 1, 2.5], "nested": {"when": "2024-05-01", "n": 7}}`
	var fromYAML, fromJSON, fromJSONNumber map[string]any
	if err := yaml.Unmarshal([]byte(y), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(j), &fromJSON); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(j))
	dec.UseNumber()
	if err := dec.Decode(&fromJSONNumber); err != nil {
		t.Fatal(err)
	}
	a, b, c := NormalizeData(fromYAML), NormalizeData(fromJSON), NormalizeData(fromJSONNumber)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(b, c) {
		t.Errorf("normalised data differ:\nYAML        %#v\nJSON        %#v\njson.Number %#v", a, b, c)
	}
}

type level int

type label string

type point struct {
	X int    `json:"x"`
	Y string `json:"y,omitempty"`
}

func TestNormalizeData(t *testing.T) {
	cest := time.FixedZone("CEST", 2*3600)
	ts := time.Date(2024, 5, 1, 10, 30, 0, 0, cest)
	big := uint64(math.MaxUint64)
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"nil", nil, nil},
		{"string", "s", "s"},
		{"bool", true, true},
		{"int", 3, int64(3)},
		{"int8", int8(-3), int64(-3)},
		{"uint32", uint32(3), int64(3)},
		{"uint64 beyond int64", big, big},
		{"named int", level(2), int64(2)},
		{"named string", label("x"), "x"},
		{"whole float", 3.0, int64(3)},
		{"float", 2.5, 2.5},
		{"float32", float32(0.5), 0.5},
		{"huge float", 1e300, 1e300},
		{"json.Number integer", json.Number("12"), int64(12)},
		{"json.Number float", json.Number("1.25"), 1.25},
		{"date", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), "2024-05-01"},
		{"time", ts, "2024-05-01T10:30:00+02:00"},
		{"time with nanoseconds", time.Date(2024, 5, 1, 0, 0, 0, 5, time.UTC), "2024-05-01T00:00:00.000000005Z"},
		{"local midnight is not a date", time.Date(2024, 5, 1, 0, 0, 0, 0, cest), "2024-05-01T00:00:00+02:00"},
		{"pointer to time", &ts, "2024-05-01T10:30:00+02:00"},
		{"nil pointer", (*int)(nil), nil},
		{"pointer", new(7), int64(7)},
		{"[]string", []string{"a", "b"}, []any{"a", "b"}},
		{"nil []string", []string(nil), nil},
		{"[]int", []int{1, 2}, []any{int64(1), int64(2)}},
		{"array", [2]bool{true, false}, []any{true, false}},
		{"[]byte", []byte("hi"), "aGk="},
		{"[]any", []any{1, "a", []any{2.0}}, []any{int64(1), "a", []any{int64(2)}}},
		{"map[string]any", map[string]any{"a": 1}, map[string]any{"a": int64(1)}},
		{"map[any]any", map[any]any{1: "one", "two": 2}, map[string]any{"1": "one", "two": int64(2)}},
		{"map[string]string", map[string]string{"a": "b"}, map[string]any{"a": "b"}},
		{"struct via JSON", point{X: 1}, map[string]any{"x": int64(1)}},
		{"JSON marshaler", json.RawMessage(`{"a":[1,2.5]}`), map[string]any{"a": []any{int64(1), 2.5}}},
		{"duration is an integer", 2 * time.Second, int64(2e9)},
	}
	for _, tt := range tests {
		got := NormalizeData(map[string]any{"v": tt.in})["v"]
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: NormalizeData(%#v) = %#v, want %#v", tt.name, tt.in, got, tt.want)
		}
	}
	if got := NormalizeData(nil); got != nil {
		t.Errorf("NormalizeData(nil) = %#v, want nil", got)
	}
}

func TestNormalizeDataCopiesEveryLevel(t *testing.T) {
	in := map[string]any{"m": map[string]any{"l": []any{"a"}}}
	out := NormalizeData(in)
	out["m"].(map[string]any)["l"].([]any)[0] = "changed"
	out["m"].(map[string]any)["new"] = 1
	if in["m"].(map[string]any)["l"].([]any)[0] != "a" || len(in["m"].(map[string]any)) != 1 {
		t.Errorf("changing the result changed the input: %v", in)
	}
}

func TestIssueString(t *testing.T) {
	tests := []struct {
		in   Issue
		want string
	}{
		{Issue{"data.status", "is required"}, "data.status: is required"},
		{Issue{"", "no memory"}, "no memory"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIssueJSON(t *testing.T) {
	b, err := json.Marshal(Issue{"data.status", "is required"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"field":"data.status","message":"is required"}`; !bytes.Equal(b, []byte(want)) {
		t.Errorf("json = %s, want %s", b, want)
	}
}

func BenchmarkValidate(b *testing.B) {
	m := validMemory()
	if issues := Validate(m); issues != nil {
		b.Fatal(issues)
	}
	b.ReportAllocs()
	for b.Loop() {
		Validate(m)
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	m := validMemory()
	m.Data["status"] = "done"
	b.ReportAllocs()
	for b.Loop() {
		Validate(m)
	}
}

func TestValidateIsSafeForConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			m := validMemory()
			m.Data["status"] = "done"
			for range 50 {
				if got := Validate(m); len(got) != 1 {
					t.Errorf("Validate = %v", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestTabsAndLineEndsAreText(t *testing.T) {
	m := validMemory()
	m.Summary = "a\tb"
	m.Body = "col\tcol\r\nnext line\n\u00e9t\u00e9 \u2014 \U0001F600\n"
	if issues := Validate(m); len(issues) != 0 {
		t.Errorf("Validate = %v, want none", issues)
	}
}
