package memory

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// wantTypes is every type the design names, in sorted order.
var wantTypes = []string{
	"agent_run", "api", "architecture", "code", "commit", "config", "decision",
	"dependency", "doc", "episodic", "error", "fact", "issue", "learned-pattern",
	"procedural", "product-context", "progress", "project-brief", "release",
	"review", "schema", "step", "task", "tech-context", "test", "todo", "user",
	"workflow",
}

func TestTypesAreTheDesignedOnesSortedByName(t *testing.T) {
	var names []string
	for _, typ := range Types() {
		names = append(names, typ.Name)
	}
	if !slices.Equal(names, wantTypes) {
		t.Errorf("Types() names =\n%q\nwant\n%q", names, wantTypes)
	}
}

func TestTypesIsStableAndReturnsCopies(t *testing.T) {
	a := Types()
	b := Types()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls of Types() differ")
	}
	// Scribble over everything the caller got; the next call must not see it.
	for i := range a {
		a[i].Name = "x"
		a[i].Description = "x"
		for j := range a[i].Aliases {
			a[i].Aliases[j] = "x"
		}
		for j := range a[i].Schema {
			a[i].Schema[j] = 'x'
		}
	}
	if c := Types(); !reflect.DeepEqual(b, c) {
		t.Error("changing the result of Types() changed the next result")
	}
	typ, _ := LookupType("decision")
	typ.Schema[0] = 'x'
	typ.Aliases[0] = "x"
	if again, _ := LookupType("decision"); again.Schema[0] != '{' || again.Aliases[0] != "adr" {
		t.Error("changing the result of LookupType changed the registry")
	}
}

func TestOnlyCodeAndCommitAreIndexed(t *testing.T) {
	for _, typ := range Types() {
		want := typ.Name == "code" || typ.Name == "commit"
		if typ.Indexed != want {
			t.Errorf("%s: Indexed = %v, want %v", typ.Name, typ.Indexed, want)
		}
	}
}

func TestEveryTypeHasADescription(t *testing.T) {
	for _, typ := range Types() {
		if typ.Description == "" || strings.Contains(typ.Description, "\n") {
			t.Errorf("%s: description %q is not one non-empty line", typ.Name, typ.Description)
		}
	}
}

func TestEverySchemaCompilesOnItsOwn(t *testing.T) {
	for _, typ := range Types() {
		t.Run(typ.Name, func(t *testing.T) {
			doc, err := decodeSchema(typ.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := compileSchema(doc); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestEverySchemaIsADocumentedOpenObject(t *testing.T) {
	for _, typ := range Types() {
		t.Run(typ.Name, func(t *testing.T) {
			var s map[string]any
			if err := json.Unmarshal(typ.Schema, &s); err != nil {
				t.Fatal(err)
			}
			if got := s["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
				t.Errorf("$schema = %v, want draft 2020-12", got)
			}
			if s["title"] != typ.Name {
				t.Errorf("title = %v, want %s", s["title"], typ.Name)
			}
			if s["description"] != typ.Description {
				t.Errorf("description = %v, want Type.Description %q", s["description"], typ.Description)
			}
			if s["type"] != "object" {
				t.Errorf("type = %v, want object", s["type"])
			}
			// Users add their own fields; the schema types the named ones.
			if s["additionalProperties"] == false {
				t.Error("additionalProperties is false; users must be able to add fields")
			}
			props, _ := s["properties"].(map[string]any)
			if len(props) == 0 {
				t.Fatal("no properties")
			}
			for name, p := range props {
				p, _ := p.(map[string]any)
				if d, _ := p["description"].(string); d == "" {
					t.Errorf("property %s has no description", name)
				}
			}
			req, _ := s["required"].([]any)
			for _, r := range req {
				if _, ok := props[r.(string)]; !ok {
					t.Errorf("required %v is not a property", r)
				}
			}
		})
	}
}

func TestEverySchemaExampleIsValid(t *testing.T) {
	for _, typ := range Types() {
		var s struct {
			Examples []map[string]any `json:"examples"`
		}
		if err := json.Unmarshal(typ.Schema, &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Examples) == 0 {
			t.Errorf("%s: schema has no example", typ.Name)
		}
		for _, ex := range s.Examples {
			if issues := ValidateData(typ.Name, ex); issues != nil {
				t.Errorf("%s: example %v: %v", typ.Name, ex, issues)
			}
		}
	}
}

func TestEverySchemaFileBelongsToAType(t *testing.T) {
	files, err := fs.Glob(schemaFiles, "schemas/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(wantTypes) {
		t.Errorf("%d schema files, want %d", len(files), len(wantTypes))
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "schemas/"), ".json")
		if typ, ok := LookupType(name); !ok || typ.Name != name {
			t.Errorf("%s is no type's schema", f)
		}
	}
}

func TestLookupTypeResolvesNamesAndAliases(t *testing.T) {
	tests := []struct{ in, want string }{
		{"decision", "decision"},
		{"Decision", "decision"},
		{" decision\n", "decision"},
		{"agent_run", "agent_run"},
		{"agent-run", "agent_run"},
		{"Agent-Run", "agent_run"},
		{"project-brief", "project-brief"},
		{"project_brief", "project-brief"},
		{"PROJECT_BRIEF", "project-brief"},
		{"learned_pattern", "learned-pattern"},
		// The aliases the design names.
		{"error-solution", "error"},
		{"error_solution", "error"},
		{"preference", "user"},
		{"session-summary", "episodic"},
		{"project-config", "config"},
		// Obvious ones.
		{"adr", "decision"},
		{"ADR", "decision"},
		{"howto", "procedural"},
		{"runbook", "procedural"},
		{"note", "fact"},
	}
	for _, tt := range tests {
		typ, ok := LookupType(tt.in)
		if !ok || typ.Name != tt.want {
			t.Errorf("LookupType(%q) = %q, %v; want %q", tt.in, typ.Name, ok, tt.want)
		}
		if got, err := CanonicalType(tt.in); got != tt.want || err != nil {
			t.Errorf("CanonicalType(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestEveryAliasResolvesToItsType(t *testing.T) {
	n := 0
	for _, typ := range Types() {
		for _, a := range typ.Aliases {
			n++
			if got, ok := LookupType(a); !ok || got.Name != typ.Name {
				t.Errorf("alias %q resolves to %q, %v; want %q", a, got.Name, ok, typ.Name)
			}
		}
	}
	// Building the registry panics on a shared name; this checks that none
	// was lost another way.
	if got, want := len(types().index), len(wantTypes)+n; got != want {
		t.Errorf("%d names and aliases indexed, want %d", got, want)
	}
}

func TestLookupTypeRejectsUnknownNames(t *testing.T) {
	for _, in := range []string{"", " ", "decisions", "agent run", "agent--run", "memory"} {
		if typ, ok := LookupType(in); ok {
			t.Errorf("LookupType(%q) = %q, want not found", in, typ.Name)
		}
	}
}

func TestCanonicalTypeSuggestsClosestNames(t *testing.T) {
	tests := []struct {
		in, want string // want is the whole error message
	}{
		{"decison", `unknown type "decison"; did you mean "decision"?`},
		{"decisoin", `unknown type "decisoin"; did you mean "decision"?`},
		{"Desicion", `unknown type "Desicion"; did you mean "decision"?`},
		{"tset", `unknown type "tset"; did you mean "test"?`},
		{"todos", `unknown type "todos"; did you mean "todo"?`},
		{"agent-runs", `unknown type "agent-runs"; did you mean "agent_run"?`},
		{"procedurl", `unknown type "procedurl"; did you mean "procedural" or "procedure"?`},
		{"prefernce", `unknown type "prefernce"; did you mean "preference"?`},
		{"arch", `unknown type "arch"; did you mean "architecture"?`},
		{"learned", `unknown type "learned"; did you mean "learned-pattern"?`},
	}
	for _, tt := range tests {
		got, err := CanonicalType(tt.in)
		if err == nil {
			t.Errorf("CanonicalType(%q) = %q, want an error", tt.in, got)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("CanonicalType(%q) error\n got %s\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestCanonicalTypeListsAllTypesWhenNothingIsClose(t *testing.T) {
	for _, in := range []string{"zzzz", ""} {
		_, err := CanonicalType(in)
		if err == nil {
			t.Fatalf("CanonicalType(%q) succeeded", in)
		}
		if !strings.Contains(err.Error(), "valid types are "+strings.Join(wantTypes, ", ")) {
			t.Errorf("CanonicalType(%q) error %q does not list the types", in, err)
		}
	}
}

func TestDistanceCountsSwapsAsOneEdit(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"abc", "abd", 1},
		{"abc", "ab", 1},
		{"abc", "acb", 1},
		{"tset", "test", 1},
		{"kitten", "sitting", 3},
		{"ça", "ca", 1},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := distance(tt.b, tt.a); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

// TypeName answers what LookupType answers, for every name and alias in
// every spelling LookupType accepts, and for names that are no type.
func TestTypeNameAgreesWithLookupType(t *testing.T) {
	names := []string{"", "  ", "nope", "decisions", "code-reviews"}
	for _, ty := range Types() {
		for _, n := range append([]string{ty.Name}, ty.Aliases...) {
			names = append(names, n, strings.ToUpper(n), " "+strings.ReplaceAll(n, "-", "_")+" ")
		}
	}
	for _, n := range names {
		got, ok := TypeName(n)
		want, wantOK := LookupType(n)
		if ok != wantOK || got != want.Name {
			t.Errorf("TypeName(%q) = %q, %v; LookupType says %q, %v", n, got, ok, want.Name, wantOK)
		}
	}
}
