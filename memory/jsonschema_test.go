package memory

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// mustCompile compiles the schema written in JSON.
func mustCompile(t testing.TB, src string) *schema {
	t.Helper()
	doc, err := decodeSchema([]byte(src))
	if err != nil {
		t.Fatalf("decodeSchema(%s): %v", src, err)
	}
	s, err := compileSchema(doc)
	if err != nil {
		t.Fatalf("compileSchema(%s): %v", src, err)
	}
	return s
}

func TestSchemaKeywords(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		value  any
		want   []Issue // nil: valid
	}{
		// Boolean schemas.
		{"true accepts anything", `true`, map[string]any{"a": []any{nil}}, nil},
		{"true accepts even NaN", `true`, math.NaN(), nil},
		{"false accepts nothing", `false`, "x",
			[]Issue{{"data", "is not allowed"}}},
		{"empty schema accepts anything", `{}`, []any{1, "a"}, nil},

		// type
		{"type string accepts a string", `{"type": "string"}`, "s", nil},
		{"type string rejects a number", `{"type": "string"}`, 3,
			[]Issue{{"data", "must be a string; got 3"}}},
		{"type null accepts null", `{"type": "null"}`, nil, nil},
		{"type null rejects false", `{"type": "null"}`, false,
			[]Issue{{"data", "must be null; got false"}}},
		{"type boolean rejects a string", `{"type": "boolean"}`, "true",
			[]Issue{{"data", `must be a boolean; got "true"`}}},
		{"type object rejects an array", `{"type": "object"}`, []any{},
			[]Issue{{"data", "must be an object; got an array"}}},
		{"type array rejects an object", `{"type": "array"}`, map[string]any{},
			[]Issue{{"data", "must be an array; got an object"}}},
		{"type integer accepts a whole float", `{"type": "integer"}`, 2.0, nil},
		{"type integer accepts a huge whole float", `{"type": "integer"}`, 1e300, nil},
		{"type integer accepts a uint64 beyond int64", `{"type": "integer"}`, uint64(math.MaxUint64), nil},
		{"type integer rejects a fraction", `{"type": "integer"}`, 2.5,
			[]Issue{{"data", "must be an integer; got 2.5"}}},
		{"type number accepts an integer", `{"type": "number"}`, 7, nil},
		{"type number accepts a fraction", `{"type": "number"}`, 0.25, nil},
		{"type list accepts any of its types", `{"type": ["string", "integer"]}`, 4, nil},
		{"type list names its types in a fixed order", `{"type": ["string", "number", "boolean"]}`, nil,
			[]Issue{{"data", "must be a boolean, a number or a string; got null"}}},

		// enum
		{"enum accepts a listed string", `{"enum": ["a", "b"]}`, "b", nil},
		{"enum rejects an unlisted string", `{"enum": ["a", "b"]}`, "c",
			[]Issue{{"data", `must be one of a, b; got "c"`}}},
		{"enum of one value names it alone", `{"enum": ["a"]}`, "c",
			[]Issue{{"data", `must be a; got "c"`}}},
		{"enum compares numbers by value", `{"enum": [1, 2.5]}`, 1.0, nil},
		{"enum compares fractions by value", `{"enum": [1, 2.5]}`, 2.5, nil},
		{"enum tells a number from a string", `{"enum": [1]}`, "1",
			[]Issue{{"data", `must be 1; got "1"`}}},
		{"enum accepts null when listed", `{"enum": [null, true]}`, nil, nil},
		{"enum compares arrays and objects deeply", `{"enum": [[1, {"a": "b"}]]}`, []any{1, map[string]any{"a": "b"}}, nil},
		{"enum rejects a different object", `{"enum": [{"a": "b"}]}`, map[string]any{"a": "c"},
			[]Issue{{"data", `must be {"a":"b"}; got an object`}}},

		// format
		{"date accepts a date", `{"format": "date"}`, "2024-02-29", nil},
		{"date rejects an impossible date", `{"format": "date"}`, "2023-02-29",
			[]Issue{{"data", `must be a date like 2024-05-01; got "2023-02-29"`}}},
		{"date rejects a date and time", `{"format": "date"}`, "2024-05-01T10:00:00Z",
			[]Issue{{"data", `must be a date like 2024-05-01; got "2024-05-01T10:00:00Z"`}}},
		{"date-time accepts UTC", `{"format": "date-time"}`, "2024-05-01T10:30:00Z", nil},
		{"date-time accepts an offset and fractions", `{"format": "date-time"}`, "2024-05-01T10:30:00.25+02:00", nil},
		{"date-time accepts a bare date", `{"format": "date-time"}`, "2024-05-01", nil},
		{"date-time rejects a space for T", `{"format": "date-time"}`, "2024-05-01 10:30:00Z",
			[]Issue{{"data", `must be a date and time like 2024-05-01T10:30:00Z; got "2024-05-01 10:30:00Z"`}}},
		{"date-time rejects a missing zone", `{"format": "date-time"}`, "2024-05-01T10:30:00",
			[]Issue{{"data", `must be a date and time like 2024-05-01T10:30:00Z; got "2024-05-01T10:30:00"`}}},
		{"uri accepts an absolute URL", `{"format": "uri"}`, "https://example.com/a?b#c", nil},
		{"uri accepts a URN", `{"format": "uri"}`, "urn:isbn:0451450523", nil},
		{"uri accepts a bracketed IPv6 host", `{"format": "uri"}`, "http://[::1]:8080/", nil},
		{"uri rejects a relative reference", `{"format": "uri"}`, "example.com/1",
			[]Issue{{"data", `must be an absolute URL like https://example.com/page; got "example.com/1"`}}},
		{"uri rejects an IPv6 host without brackets", `{"format": "uri"}`, "http://::1/",
			[]Issue{{"data", `must be an absolute URL like https://example.com/page; got "http://::1/"`}}},
		{"uri rejects an IPv6 zone", `{"format": "uri"}`, "http://[fe80::1%25en0]/",
			[]Issue{{"data", `must be an absolute URL like https://example.com/page; got "http://[fe80::1%25en0]/"`}}},
		{"uri-reference accepts a path", `{"format": "uri-reference"}`, "docs/guide.md", nil},
		{"uri-reference accepts a URL", `{"format": "uri-reference"}`, "https://go.dev/doc", nil},
		{"uri-reference rejects a backslash", `{"format": "uri-reference"}`, `docs\guide.md`,
			[]Issue{{"data", `must be a URL or a path; got "docs\\guide.md"`}}},
		{"uri-reference rejects a bad escape", `{"format": "uri-reference"}`, "a%zz",
			[]Issue{{"data", `must be a URL or a path; got "a%zz"`}}},
		{"format ignores values that are not strings", `{"format": "date"}`, 20240501, nil},

		// pattern
		{"pattern accepts a match", `{"pattern": "^[0-9a-f]{7,}$"}`, "abcdef0", nil},
		{"pattern searches anywhere unless anchored", `{"pattern": "b"}`, "abc", nil},
		{"pattern rejects a string that does not match", `{"pattern": "^[0-9a-f]{7,}$"}`, "xyz",
			[]Issue{{"data", `must match the pattern ^[0-9a-f]{7,}$; got "xyz"`}}},
		{"pattern ignores values that are not strings", `{"pattern": "^a$"}`, 3, nil},

		// minimum and maximum
		{"minimum is inclusive", `{"minimum": 1}`, 1, nil},
		{"minimum rejects less", `{"minimum": 1}`, 0,
			[]Issue{{"data", "must be at least 1; got 0"}}},
		{"maximum is inclusive", `{"maximum": 1}`, 1.0, nil},
		{"maximum rejects more", `{"maximum": 1}`, 1.5,
			[]Issue{{"data", "must be at most 1; got 1.5"}}},
		{"bounds compare decimals exactly", `{"minimum": 0.1, "maximum": 0.1}`, 0.1, nil},
		{"bounds write fractions plainly", `{"minimum": 0.25}`, 0.2,
			[]Issue{{"data", "must be at least 0.25; got 0.2"}}},
		{"bounds compare a uint64 beyond int64", `{"maximum": 9223372036854775807}`, uint64(math.MaxUint64),
			[]Issue{{"data", "must be at most 9223372036854775807; got 18446744073709551615"}}},
		{"both bounds report together", `{"minimum": 5, "maximum": 1}`, 3,
			[]Issue{{"data", "must be at least 5; got 3"}, {"data", "must be at most 1; got 3"}}},
		{"bounds ignore values that are not numbers", `{"minimum": 1}`, "0", nil},

		// properties, additionalProperties, required, dependentRequired
		{"properties validate their values", `{"properties": {"a": {"type": "string"}}}`, map[string]any{"a": 1},
			[]Issue{{"data.a", "must be a string; got 1"}}},
		{"properties locate nested values", `{"properties": {"a": {"properties": {"b": {"type": "integer"}}}}}`,
			map[string]any{"a": map[string]any{"b": "x"}},
			[]Issue{{"data.a.b", `must be an integer; got "x"`}}},
		{"properties need not be present", `{"properties": {"a": {"type": "string"}}}`, map[string]any{}, nil},
		{"properties ignore values that are not objects", `{"properties": {"a": false}}`, "a", nil},
		{"additional properties are allowed by default", `{"properties": {"a": true}}`, map[string]any{"b": math.NaN()}, nil},
		{"additionalProperties false rejects unnamed properties", `{"properties": {"a": true}, "additionalProperties": false}`,
			map[string]any{"a": 1, "b": 2, "c": 3},
			[]Issue{{"data.b", "is not allowed"}, {"data.c", "is not allowed"}}},
		{"additionalProperties validates unnamed properties", `{"properties": {"a": true}, "additionalProperties": {"type": "string"}}`,
			map[string]any{"a": 1, "b": 2},
			[]Issue{{"data.b", "must be a string; got 2"}}},
		{"required reports each missing property", `{"required": ["a", "b", "c"]}`, map[string]any{"b": nil},
			[]Issue{{"data.a", "is required"}, {"data.c", "is required"}}},
		{"required counts null as present", `{"required": ["a"]}`, map[string]any{"a": nil}, nil},
		{"required ignores values that are not objects", `{"required": ["a"]}`, []any{}, nil},
		{"dependentRequired applies when its property is set", `{"dependentRequired": {"v": ["k"]}}`, map[string]any{"v": 1},
			[]Issue{{"data.k", `is required when "v" is set`}}},
		{"dependentRequired is quiet when its property is not set", `{"dependentRequired": {"v": ["k"]}}`, map[string]any{"x": 1}, nil},
		{"dependentRequired is satisfied", `{"dependentRequired": {"v": ["k"]}}`, map[string]any{"v": 1, "k": 2}, nil},

		// items
		{"items validate every element", `{"items": {"type": "string"}}`, []any{"a", 2, "c", true},
			[]Issue{{"data[1]", "must be a string; got 2"}, {"data[3]", "must be a string; got true"}}},
		{"items locate nested elements", `{"properties": {"l": {"items": {"properties": {"x": {"type": "string"}}}}}}`,
			map[string]any{"l": []any{map[string]any{"x": "ok"}, map[string]any{"x": 1}}},
			[]Issue{{"data.l[1].x", "must be a string; got 1"}}},
		{"items accept an empty array", `{"items": false}`, []any{}, nil},
		{"items ignore values that are not arrays", `{"items": false}`, "abc", nil},

		// x-message
		{"x-message words a pattern failure", `{"pattern": "^a", "x-message": "must start with a"}`, "b",
			[]Issue{{"data", `must start with a; got "b"`}}},
		{"x-message words a type failure", `{"type": "string", "x-message": "must be a name"}`, 1,
			[]Issue{{"data", "must be a name; got 1"}}},
		{"x-message does not word the failures of properties",
			`{"required": ["a"], "properties": {"b": {"type": "string"}}, "x-message": "must be a thing"}`,
			map[string]any{"b": 1},
			[]Issue{{"data.a", "is required"}, {"data.b", "must be a string; got 1"}}},

		// Values that are not JSON.
		{"NaN is not a number", `{"type": "number"}`, math.NaN(),
			[]Issue{{"data", "must be a finite number; got NaN"}}},
		{"infinity is not a number", `{}`, math.Inf(-1),
			[]Issue{{"data", "must be a finite number; got -Inf"}}},
		{"Go values are not JSON", `{}`, make(chan int),
			[]Issue{{"data", "must be a JSON value; got a Go chan int"}}},

		// How failures combine.
		{"a type failure hides the rest", `{"type": "string", "enum": ["a"], "pattern": "^b"}`, 1,
			[]Issue{{"data", "must be a string; got 1"}}},
		{"an enum failure hides the format", `{"enum": ["x"], "format": "date"}`, "y",
			[]Issue{{"data", `must be x; got "y"`}}},
		{"a format failure hides the pattern", `{"format": "date", "pattern": "^9"}`, "y",
			[]Issue{{"data", `must be a date like 2024-05-01; got "y"`}}},
		{"every property's failure is reported, sorted", `{"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["c"]}`,
			map[string]any{"b": 1, "a": 2},
			[]Issue{{"data.a", "must be a string; got 2"}, {"data.b", "must be a string; got 1"}, {"data.c", "is required"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			got := s.check(normalize(tt.value))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("check(%#v) =\n%q\nwant\n%q", tt.value, got, tt.want)
			}
		})
	}
}

func TestCompileSchemaRejectsWhatItCannotEnforce(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string // the whole error
	}{
		{"a keyword it does not know", `{"anyOf": [{"type": "string"}]}`,
			`#: keyword "anyOf" is not supported by contextfs's validator`},
		{"oneOf", `{"properties": {"a": {"oneOf": []}}}`,
			`#/properties/a: keyword "oneOf" is not supported by contextfs's validator`},
		{"not", `{"items": {"not": {}}}`,
			`#/items: keyword "not" is not supported by contextfs's validator`},
		{"$ref", `{"$ref": "#/$defs/x"}`,
			`#: keyword "$ref" is not supported by contextfs's validator`},
		{"a misspelt keyword", `{"propertys": {}}`,
			`#: keyword "propertys" is not supported by contextfs's validator`},
		{"a schema that is neither object nor boolean", `{"properties": {"a": 1}}`,
			`#/properties/a: a schema must be an object or a boolean; got 1`},
		{"an unknown type", `{"type": "float"}`,
			`#/type: must name types among null, boolean, number, integer, string, array, object; got "float"`},
		{"a repeated type", `{"type": ["string", "string"]}`, `#/type: names string twice`},
		{"no type", `{"type": []}`, `#/type: must name at least one type`},
		{"a type that is not a name", `{"type": 1}`, `#/type: must be a type name or a list of them; got 1`},
		{"an empty enum", `{"enum": []}`, `#/enum: must be a non-empty list; got an array`},
		{"an enum that is not a list", `{"enum": "a"}`, `#/enum: must be a non-empty list; got "a"`},
		{"an enum number beyond float64", `{"enum": [1e400]}`, `#/enum: [0] must be a number a float64 holds; got 1e400`},
		{"an unknown format", `{"format": "email"}`,
			`#/format: must be one of date, date-time, uri, uri-reference; got "email"`},
		{"a bad pattern", `{"pattern": "("}`,
			"#/pattern: must be a regular expression: error parsing regexp: missing closing ): `(`"},
		{"a pattern that is not a string", `{"pattern": 1}`, `#/pattern: must be a regular expression; got 1`},
		{"a minimum that is not a number", `{"minimum": "1"}`, `#/minimum: must be a finite number; got "1"`},
		{"a maximum that is not a number", `{"maximum": null}`, `#/maximum: must be a finite number; got null`},
		{"required that is not a list", `{"required": "a"}`, `#/required: must be a list of property names; got "a"`},
		{"required naming a non-string", `{"required": [1]}`, `#/required: [0] must be a property name; got 1`},
		{"required repeating a name", `{"required": ["a", "a"]}`, `#/required: [1] repeats "a"`},
		{"dependentRequired that is not an object", `{"dependentRequired": []}`,
			`#/dependentRequired: must be an object; got an array`},
		{"dependentRequired with a bad list", `{"dependentRequired": {"a/b": "c"}}`,
			`#/dependentRequired/a~1b: must be a list of property names; got "c"`},
		{"properties that are not an object", `{"properties": []}`, `#/properties: must be an object; got an array`},
		{"items as a list", `{"items": [{}]}`,
			`#/items: must be a schema (a list of schemas is prefixItems, which is not supported)`},
		{"a bad additionalProperties", `{"additionalProperties": "no"}`,
			`#/additionalProperties: a schema must be an object or a boolean; got "no"`},
		{"$schema below the root", `{"properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}}`,
			`#/properties/a/$schema: "$schema" is allowed only at the root`},
		{"another draft", `{"$schema": "http://json-schema.org/draft-07/schema#"}`,
			`#/$schema: must be "https://json-schema.org/draft/2020-12/schema" (draft 2020-12); got "http://json-schema.org/draft-07/schema#"`},
		{"an empty x-message", `{"x-message": ""}`, `#/x-message: must be a non-empty string; got ""`},
		{"pointers escape ~ and /", `{"properties": {"a~b/c": {"items": {"type": "x"}}}}`,
			`#/properties/a~0b~1c/items/type: must name types among null, boolean, number, integer, string, array, object; got "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := decodeSchema([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			s, err := compileSchema(doc)
			if err == nil {
				t.Fatalf("compileSchema(%s) = %+v, want an error", tt.schema, s)
			}
			if err.Error() != tt.want {
				t.Errorf("compileSchema(%s) error\n got %s\nwant %s", tt.schema, err, tt.want)
			}
		})
	}
}

func TestCompileSchemaAcceptsAnnotations(t *testing.T) {
	mustCompile(t, `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$comment": "c", "title": "t", "description": "d", "examples": [1],
		"default": {}, "deprecated": false, "readOnly": true, "writeOnly": false
	}`)
}

func TestCompileSchemaReportsTheFirstFaultInKeywordOrder(t *testing.T) {
	const src = `{"type": "x", "enum": [], "properties": {"b": {"pattern": "("}, "a": {"format": "?"}}}`
	const want = `#/enum: must be a non-empty list; got an array`
	for range 20 { // compileSchema visits keywords in map order
		doc, err := decodeSchema([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := compileSchema(doc); err == nil || err.Error() != want {
			t.Fatalf("compileSchema error = %v, want %s", err, want)
		}
	}
}

func TestDecodeSchema(t *testing.T) {
	doc, err := decodeSchema([]byte(`{"minimum": 0.1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.(map[string]any)["minimum"]; got != json.Number("0.1") {
		t.Errorf("minimum decoded as %#v, want json.Number", got)
	}
	for _, bad := range []string{``, `{`, `{} {}`, `{}x`} {
		if _, err := decodeSchema([]byte(bad)); err == nil {
			t.Errorf("decodeSchema(%q) succeeded", bad)
		}
	}
}

// FuzzValidateData checks that data of any shape, as JSON or YAML decode it,
// validates without panicking against every type, with issues that locate
// their field, read as sentences, come sorted, once each, and the same every
// time.
func FuzzValidateData(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"status": "done", "alternatives": "none", "date": "soon", "decision": 1}`,
		`{"sha": "xyz", "files_changed": [1, {"a": []}]}`,
		`{"confidence": 1.5, "category": ["a"]}`,
		`{"preference_value": null, "scope": "world"}`,
		`{"started": "2024-05-01T10:00:00+02:00", "finished": "yesterday"}`,
		`{"url": "http://[::1", "pr": 1e400, "order": 18446744073709551616}`,
		"date: 2024-05-01\nsteps: [a, {b: c}]\nconfidence: .nan\n",
		"occurrences: .inf\nstart_line: -0\n",
	} {
		f.Add([]byte(seed))
	}
	names := typeNames()
	f.Fuzz(func(t *testing.T, src []byte) {
		var inputs []map[string]any
		var fromJSON map[string]any
		dec := json.NewDecoder(strings.NewReader(string(src)))
		dec.UseNumber()
		if dec.Decode(&fromJSON) == nil {
			inputs = append(inputs, fromJSON)
		}
		var fromYAML map[string]any
		if yaml.Unmarshal(src, &fromYAML) == nil {
			inputs = append(inputs, fromYAML)
		}
		for _, data := range inputs {
			for _, typ := range names {
				issues := ValidateData(typ, data)
				for i, is := range issues {
					if is.Field != "data" && !strings.HasPrefix(is.Field, "data.") && !strings.HasPrefix(is.Field, "data[") {
						t.Errorf("%s: issue %q does not locate a field of data", typ, is)
					}
					if is.Message == "" || strings.ContainsAny(is.Message, "\n") {
						t.Errorf("%s: issue %q is not one line", typ, is)
					}
					if i > 0 && !issueLess(issues[i-1], is) {
						t.Errorf("%s: issues out of order or repeated: %q", typ, issues)
					}
				}
				if again := ValidateData(typ, data); !slices.Equal(again, issues) {
					t.Errorf("%s: second validation %q differs from first %q", typ, again, issues)
				}
			}
		}
	})
}

// issueLess reports whether a sorts strictly before b in the order Validate
// returns issues in.
func issueLess(a, b Issue) bool {
	return a.Field < b.Field || a.Field == b.Field && a.Message < b.Message
}

// FuzzCompileSchema checks that any schema document either fails to compile
// with an error naming where, or validates any data without panicking.
func FuzzCompileSchema(f *testing.F) {
	f.Add([]byte(`{"type": "object", "properties": {"a": {"type": ["string", "null"], "pattern": "^a"}}, "required": ["a"]}`), []byte(`{"a": "b"}`))
	f.Add([]byte(`{"items": {"enum": [1, "x", null, [true]]}, "minimum": 0.5}`), []byte(`[1, 2]`))
	f.Add([]byte(`{"dependentRequired": {"a": ["b"]}, "additionalProperties": false, "x-message": "m"}`), []byte(`{"a": 1e5}`))
	f.Add([]byte(`{"format": "uri", "maximum": 1}`), []byte(`"http://[::1]"`))
	f.Fuzz(func(t *testing.T, schemaSrc, dataSrc []byte) {
		doc, err := decodeSchema(schemaSrc)
		if err != nil {
			return
		}
		s, err := compileSchema(doc)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "#") {
				t.Errorf("compile error %q does not start with a pointer", err)
			}
			return
		}
		dec := json.NewDecoder(strings.NewReader(string(dataSrc)))
		dec.UseNumber()
		var data any
		if dec.Decode(&data) != nil {
			return
		}
		for _, is := range s.check(normalize(data)) {
			if !strings.HasPrefix(is.Field, "data") || is.Message == "" {
				t.Errorf("bad issue %q", is)
			}
		}
	})
}

func BenchmarkCompileEveryType(b *testing.B) {
	var docs []any
	for i := range types().types {
		_, doc := schemaOf(i)
		docs = append(docs, doc)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, doc := range docs {
			if _, err := compileSchema(doc); err != nil {
				b.Fatal(err)
			}
		}
	}
}
