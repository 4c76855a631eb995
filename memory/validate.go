package memory

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Issue is one problem with a memory, found by Validate or ValidateData.
type Issue struct {
	// Field locates the problem: a frontmatter key such as "type", an
	// element such as "tags[2]", or a path into the data such as
	// "data.status" or "data.steps[0]". It is empty for a problem with the
	// memory as a whole.
	Field string `json:"field"`
	// Message says what is wrong, for people: "must be one of ...; got ...".
	Message string `json:"message"`
}

// String returns the issue as "field: message", the form the CLI and the
// hooks print.
func (i Issue) String() string {
	if i.Field == "" {
		return i.Message
	}
	return i.Field + ": " + i.Message
}

// Validate checks everything about m that can be checked without looking at
// other memories: a well-formed ID, a known type, a title, well-formed tags,
// links and supersedes (neither naming the memory itself), sensible times,
// and data that matches the type's schema. It returns nil if m is valid.
// Issues come in a stable order, so that output is reproducible and
// diffable.
//
// Validate accepts a type given by alias; files hold the canonical name, but
// a memory being built from user input may not yet.
func Validate(m *Memory) []Issue {
	return ValidateWith(m, Limits{})
}

// ValidateWith is Validate with the given limits (zero fields are the
// defaults), for repositories that configure their own.
func ValidateWith(m *Memory, limits Limits) []Issue {
	if m == nil {
		return []Issue{{Message: "no memory"}}
	}
	var issues []Issue
	add := func(field, format string, args ...any) {
		issues = append(issues, Issue{Field: field, Message: fmt.Sprintf(format, args...)})
	}

	switch {
	case m.ID == "":
		add("id", "is required")
	case !ValidID(m.ID):
		add("id", "must be 4 to 64 characters of a-z, 0-9, %q or %q; got %s", "-", "_", quote(m.ID))
	}

	typ := -1
	if strings.TrimSpace(m.Type) == "" {
		add("type", "is required")
	} else if i, ok := lookup(m.Type); ok {
		typ = i
	} else {
		_, err := CanonicalType(m.Type)
		add("type", "%v", err)
	}

	switch {
	case strings.TrimSpace(m.Title) == "":
		add("title", "is required")
	case strings.ContainsAny(m.Title, "\r\n"):
		// Titles are listed one per line and become file names.
		add("title", "must be a single line")
	}
	// Control characters make git take the file for binary and reach the
	// terminal of whoever lists it (an escape sequence can rewrite what
	// the screen shows): only tab and the line ends are text.
	for _, f := range []struct{ name, text string }{{"title", m.Title}, {"summary", m.Summary}, {"body", m.Body}} {
		if i := strings.IndexFunc(f.text, isControl); i >= 0 {
			r, _ := utf8.DecodeRuneInString(f.text[i:])
			add(f.name, "must not contain control characters; found U+%04X on line %d", r, 1+strings.Count(f.text[:i], "\n"))
		}
	}

	// Tags compare case-insensitively (see HasTag), so "Go" repeats "go".
	seen := make(map[string]int, len(m.Tags))
	for i, t := range m.Tags {
		f := fmt.Sprintf("tags[%d]", i)
		switch {
		case t == "":
			add(f, "must not be empty")
		case strings.IndexFunc(t, unicode.IsSpace) >= 0:
			add(f, "must not contain spaces; got %s", quote(t))
		default:
			k := strings.ToLower(t)
			if j, dup := seen[k]; dup {
				add(f, "repeats tags[%d] (%s)", j, quote(m.Tags[j]))
			} else {
				seen[k] = i
			}
		}
	}

	seenLink := make(map[Link]int, len(m.Links))
	for i, l := range m.Links {
		f := fmt.Sprintf("links[%d]", i)
		switch {
		case strings.TrimSpace(l.ID) == "":
			add(f, "must not be empty")
		case strings.TrimSpace(l.ID) != l.ID:
			add(f, "must not start or end with spaces; got %s", quote(l.ID))
		case !ValidRel(l.Rel):
			add(f, "relation must be one of %s; got %s", strings.Join(relations, ", "), quote(l.Rel))
		case l.ID == m.ID:
			// link refuses it too: an edge to itself says nothing, and
			// the graph would draw it as a loop.
			add(f, "must not be the memory's own ID")
		default:
			if j, dup := seenLink[l]; dup {
				add(f, "repeats links[%d]", j)
			} else {
				seenLink[l] = i
			}
		}
	}

	clear(seen)
	for i, s := range m.Supersedes {
		f := fmt.Sprintf("supersedes[%d]", i)
		switch {
		case !ValidID(s):
			add(f, "must be a memory ID: 4 to 64 characters of a-z, 0-9, %q or %q; got %s", "-", "_", quote(s))
		case s == m.ID:
			add(f, "must not be the memory's own ID")
		default:
			if j, dup := seen[s]; dup {
				add(f, "repeats supersedes[%d]", j)
			} else {
				seen[s] = i
			}
		}
	}

	clear(seen)
	for i, p := range m.Paths {
		f := fmt.Sprintf("paths[%d]", i)
		if err := CheckPathGlob(p); err != nil {
			add(f, "%v", err)
		} else if j, dup := seen[p]; dup {
			add(f, "repeats paths[%d]", j)
		} else {
			seen[p] = i
		}
	}

	if m.Source != nil {
		for _, kv := range [][2]string{{"tool", m.Source.Tool}, {"model", m.Source.Model}} {
			if strings.ContainsAny(kv[1], "\r\n") || strings.TrimSpace(kv[1]) != kv[1] {
				add("source."+kv[0], "must be one line without surrounding spaces; got %s", quote(kv[1]))
			}
		}
		if s := m.Source.Session; s != "" && !ValidID(s) {
			add("source.session", "must be a session ID: 4 to 64 characters of a-z, 0-9, %q or %q; got %s", "-", "_", quote(s))
		}
	}
	if m.Session != "" && !ValidID(m.Session) {
		add("session", "must be a session ID: 4 to 64 characters of a-z, 0-9, %q or %q; got %s", "-", "_", quote(m.Session))
	}
	if m.Reason != "" && !slices.Contains(reasons, m.Reason) {
		add("reason", "must be one of %s; got %s", strings.Join(reasons, ", "), quote(m.Reason))
	}

	if m.Created.IsZero() {
		add("created", "is required")
	}
	switch {
	case m.Updated.IsZero():
		add("updated", "is required")
	case !m.Created.IsZero() && m.Updated.Before(m.Created):
		add("updated", "must not be before created (%s); got %s",
			m.Created.Format(time.RFC3339), m.Updated.Format(time.RFC3339))
	}

	over := limits.Check(m)
	issues = append(issues, over...)
	if typ >= 0 && len(over) == 0 {
		issues = append(issues, validateData(typ, m.Data)...)
	}
	return issues
}

// CheckPathGlob reports why p is not a usable `paths:` glob: it must be
// relative to the repository root, use forward slashes, stay inside the
// repository and be a valid path.Match pattern in every segment ("**"
// stands for any number of folders).
func CheckPathGlob(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("must not be empty")
	case strings.TrimSpace(p) != p || strings.ContainsAny(p, "\r\n"):
		return fmt.Errorf("must be one line without surrounding spaces; got %s", quote(p))
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("must be relative to the repository root; got %s", quote(p))
	case strings.Contains(p, "\\"):
		return fmt.Errorf("must use forward slashes; got %s", quote(p))
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		switch seg {
		case "", ".", "..":
			return fmt.Errorf("must not have empty, . or .. segments; got %s", quote(p))
		case "**":
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("is not a valid glob (%v); got %s", err, quote(p))
		}
	}
	return nil
}

// ValidateData checks data against the schema of the type called typ
// (canonical name or alias). Issues' fields start with "data", as in
// Validate, so that both read the same. An unknown type is reported as an
// issue with the field "type". Data is normalised first (see NormalizeData),
// so it may come straight from a YAML or JSON decoder or from Go code.
func ValidateData(typ string, data map[string]any) []Issue {
	i, ok := lookup(typ)
	if !ok {
		msg := "is required"
		if strings.TrimSpace(typ) != "" {
			_, err := CanonicalType(typ)
			msg = err.Error()
		}
		return []Issue{{Field: "type", Message: msg}}
	}
	return validateData(i, data)
}

// validateData checks data against the schema of the i'th type.
func validateData(i int, data map[string]any) []Issue {
	v := NormalizeData(data)
	if v == nil {
		v = map[string]any{}
	}
	return compiled(i).check(v)
}

// compiled returns the compiled schema of the i'th type of the registry,
// compiling it on first use: a save validates one type, and compiling
// all of them cost it the decoding of every schema.
func compiled(i int) *schema {
	return compilers()[i]()
}

// compilers holds one compile-once function per type.
var compilers = sync.OnceValue(func() []func() *schema {
	r := types()
	out := make([]func() *schema, len(r.types))
	for i, t := range r.types {
		out[i] = sync.OnceValue(func() *schema {
			_, doc := schemaOf(i)
			s, err := compileSchema(doc)
			if err != nil {
				// The schemas are part of the program; tests compile each.
				panic(fmt.Sprintf("memory: schema of %s: %v", t.Name, err))
			}
			return s
		})
	}
	return out
})

// article returns a JSON type name with its indefinite article.
func article(t string) string {
	switch t {
	case "integer":
		return "an integer"
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "null":
		return "null"
	}
	return "a " + t
}

// oneOf lists the allowed values of an enum: "x" for one value, "one of
// x, y, z" for more. Strings are written bare, as users type them in YAML.
func oneOf(values []any) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = plain(v)
	}
	if len(s) == 1 {
		return s[0]
	}
	return "one of " + strings.Join(s, ", ")
}

// plain writes a schema value (a string bare, anything else as JSON).
func plain(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// describe writes an instance value for "got ...": scalars in full (long
// strings cut short), containers by kind, so one message stays one line.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return quote(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// quote quotes s for a message, cutting it to a readable length.
func quote(s string) string {
	const limit = 60
	if utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		return strconv.Quote(string(r[:limit])) + "…"
	}
	return strconv.Quote(s)
}

// ratString writes a schema bound as a plain number.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// formatMessage says what a string of the given format looks like.
func formatMessage(format string) string {
	switch format {
	case "date":
		return "must be a date like 2024-05-01"
	case "date-time":
		return "must be a date and time like 2024-05-01T10:30:00Z"
	case "uri":
		return "must be an absolute URL like https://example.com/page"
	case "uri-reference":
		return "must be a URL or a path"
	case "email":
		return "must be an email address"
	}
	return "must be a valid " + format
}

// NormalizeData returns a copy of data holding only the values JSON can
// hold, in one representation each, so that data decoded from YAML, from
// JSON and built in Go compare equal and validate the same way:
//
//   - maps become map[string]any (non-string keys are formatted) and
//     slices and arrays become []any;
//   - integers of every Go type, and floats with no fractional part that a
//     float64 holds exactly, become int64 (JSON does not tell 3 from 3.0,
//     and YAML does); other floats become float64; json.Number becomes
//     whichever of the two fits;
//   - time.Time (YAML reads an unquoted 2024-05-01 as a timestamp) becomes
//     a string: "2006-01-02" when it is midnight UTC, else RFC 3339;
//   - named types with a String kind become string, []byte becomes
//     base64 as encoding/json writes it, and any other value goes through
//     encoding/json.
//
// NaN and infinities stay float64 (for Validate to report); a value
// encoding/json cannot marshal is kept as it is. NormalizeData(nil) is nil.
func NormalizeData(data map[string]any) map[string]any {
	if data == nil {
		return nil
	}
	out := make(map[string]any, len(data))
	for k, v := range data {
		out[k] = normalize(v)
	}
	return out
}

// maxExact is the largest magnitude below which every integer has an exact
// float64.
const maxExact = 1 << 53

// normalize returns v in the representation NormalizeData describes.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return v
	case int:
		return int64(x)
	case float64:
		return normalizeFloat(x)
	case map[string]any:
		return NormalizeData(x)
	case []any:
		if x == nil {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case []string:
		if x == nil {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case time.Time:
		return formatDataTime(x)
	case *time.Time:
		if x == nil {
			return nil
		}
		return formatDataTime(*x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return normalizeFloat(f)
		}
		return x.String()
	case []byte:
		if x == nil {
			return nil
		}
		return base64.StdEncoding.EncodeToString(x)
	case json.Marshaler, encoding.TextMarshaler:
		return viaJSON(v)
	}

	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return normalize(rv.Elem().Interface())
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return u // too big for int64; the validator takes uint64 as a number
		}
		return int64(u)
	case reflect.Float32, reflect.Float64:
		return normalizeFloat(rv.Float())
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalize(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.IsNil() {
			return nil
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			k := it.Key()
			var ks string
			if k.Kind() == reflect.String {
				ks = k.String()
			} else {
				ks = fmt.Sprint(k.Interface())
			}
			out[ks] = normalize(it.Value().Interface())
		}
		return out
	}
	return viaJSON(v)
}

// normalizeFloat turns floats that are whole numbers into int64.
func normalizeFloat(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) <= maxExact {
		return int64(f)
	}
	return f
}

// viaJSON normalises v through its JSON encoding: structs, and types that
// marshal themselves.
func viaJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return v
	}
	return normalize(out)
}

// formatDataTime writes a timestamp found in data: a bare date when it is
// midnight UTC (YAML's reading of an unquoted 2024-05-01), else RFC 3339 in
// the time's own offset, so no information is lost.
func formatDataTime(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

// isControl reports a C0 control character other than tab, line feed and
// carriage return, DEL, or a C1 control character.
func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r < 0xa0
}
