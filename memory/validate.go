package memory

import (
	"bytes"
	"cmp"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
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
// links and supersedes, sensible times, and data that matches the type's
// schema. It returns nil if m is valid. Issues come in a stable order, so
// that output is reproducible and diffable.
//
// Validate accepts a type given by alias; files hold the canonical name, but
// a memory being built from user input may not yet.
func Validate(m *Memory) []Issue {
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

	clear(seen)
	for i, l := range m.Links {
		f := fmt.Sprintf("links[%d]", i)
		switch {
		case strings.TrimSpace(l) == "":
			add(f, "must not be empty")
		case strings.TrimSpace(l) != l:
			add(f, "must not start or end with spaces; got %s", quote(l))
		default:
			if j, dup := seen[l]; dup {
				add(f, "repeats links[%d]", j)
			} else {
				seen[l] = i
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

	if typ >= 0 {
		issues = append(issues, validateData(typ, m.Data)...)
	}
	return issues
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
	err := compiled()[i].Validate(v)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Issue{{Field: "data", Message: err.Error()}}
	}
	var issues []Issue
	collect(verr, v, types().docs[i], &issues)
	// The validator walks maps in random order; sort for stable output.
	slices.SortFunc(issues, func(a, b Issue) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(issues)
}

// schemaURL is the address a type's schema is compiled under. A URN needs
// neither a loader nor the network.
func schemaURL(name string) string { return "urn:contextfs:schema:" + name }

// compiled returns every type's compiled schema, indexed as types().types.
// Compiling all of them takes a few milliseconds, paid on the first
// validation only.
var compiled = sync.OnceValue(func() []*jsonschema.Schema {
	r := types()
	c := newCompiler()
	out := make([]*jsonschema.Schema, len(r.types))
	for i, t := range r.types {
		if err := c.AddResource(schemaURL(t.Name), r.docs[i]); err != nil {
			panic(fmt.Sprintf("memory: schema of %s: %v", t.Name, err))
		}
	}
	for i, t := range r.types {
		s, err := c.Compile(schemaURL(t.Name))
		if err != nil {
			panic(fmt.Sprintf("memory: schema of %s: %v", t.Name, err))
		}
		out[i] = s
	}
	return out
})

// newCompiler returns a compiler set up as contextfs validates: draft
// 2020-12, with formats asserted (the draft treats them as annotations by
// default, which would let "date: tomorrow" through).
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: validateDateTime})
	return c
}

// validateDateTime accepts an RFC 3339 date and time, as "date-time" does,
// and also a bare date. YAML reads "2024-05-01T00:00:00Z" as a timestamp
// that NormalizeData cannot tell from the date "2024-05-01", so refusing
// dates would reject a time written at midnight UTC.
func validateDateTime(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return nil
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return errors.New("not an RFC 3339 date and time")
	}
	return nil
}

// collect turns the validation error tree under e into issues, one per
// leaf cause: the inner nodes only say "validation failed" and which
// keyword led there, which helps no one fix a file.
func collect(e *jsonschema.ValidationError, data any, doc any, issues *[]Issue) {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		// The branches' own failures describe schemas the author did not
		// pick; say what they have in common instead.
		field, _ := locate(data, e.InstanceLocation)
		msg := "does not match any of the allowed forms"
		if o, ok := k.(*kind.OneOf); ok && o.Subschemas != nil {
			msg = "matches more than one of the allowed forms"
		}
		*issues = append(*issues, Issue{Field: field, Message: msg})
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, data, doc, issues)
		}
		return
	}
	field, v := locate(data, e.InstanceLocation)
	add := func(field, msg string) { *issues = append(*issues, Issue{Field: field, Message: msg}) }
	got := "; got " + describe(v)

	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, p := range k.Missing {
			add(field+"."+p, "is required")
		}
		return
	case *kind.DependentRequired:
		for _, p := range k.Missing {
			add(field+"."+p, fmt.Sprintf("is required when %q is set", k.Prop))
		}
		return
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			add(field+"."+p, "is not allowed")
		}
		return
	}

	// A schema may word its own message, for rules such as patterns that
	// mean nothing to a reader when quoted.
	if msg, ok := customMessage(doc, e.SchemaURL); ok {
		add(field, msg+got)
		return
	}

	var msg string
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = article(w)
		}
		msg = "must be " + orList(want) + got
	case *kind.Enum:
		msg = "must be " + oneOf(k.Want) + got
	case *kind.Const:
		msg = "must be " + plain(k.Want) + got
	case *kind.Format:
		msg = formatMessage(k.Want) + got
	case *kind.Minimum:
		msg = "must be at least " + ratString(k.Want) + got
	case *kind.Maximum:
		msg = "must be at most " + ratString(k.Want) + got
	case *kind.ExclusiveMinimum:
		msg = "must be greater than " + ratString(k.Want) + got
	case *kind.ExclusiveMaximum:
		msg = "must be less than " + ratString(k.Want) + got
	case *kind.MultipleOf:
		msg = "must be a multiple of " + ratString(k.Want) + got
	case *kind.MinLength:
		if k.Want == 1 {
			msg = "must not be empty"
		} else {
			msg = fmt.Sprintf("must be at least %d characters long", k.Want)
		}
	case *kind.MaxLength:
		msg = fmt.Sprintf("must be at most %d characters long; got %d", k.Want, k.Got)
	case *kind.MinItems:
		if k.Want == 1 {
			msg = "must not be empty"
		} else {
			msg = fmt.Sprintf("must have at least %d items; got %d", k.Want, k.Got)
		}
	case *kind.MaxItems:
		msg = fmt.Sprintf("must have at most %d items; got %d", k.Want, k.Got)
	case *kind.UniqueItems:
		msg = fmt.Sprintf("must not repeat items; [%d] and [%d] are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.Pattern:
		msg = fmt.Sprintf("must match the pattern %s%s", k.Want, got)
	case *kind.FalseSchema:
		msg = "is not allowed"
	case *kind.InvalidJsonValue:
		if f, ok := k.Value.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			msg = "must be a finite number" + got
		} else {
			msg = fmt.Sprintf("must be a JSON value; got a Go %T", k.Value)
		}
	default:
		// Rare keywords: name the rule, which the schema's reader can find.
		rule := strings.Join(k.KeywordPath(), "/")
		if rule == "" { // kinds such as Not leave the path out; their type names the keyword
			_, rule, _ = strings.Cut(fmt.Sprintf("%T", k), ".")
			rule = strings.ToLower(rule[:1]) + rule[1:]
		}
		msg = fmt.Sprintf("fails the schema's %q rule", rule)
	}
	add(field, msg)
}

// locate returns the field name of the value at the JSON pointer tokens in
// data, and the value. Arrays are indexed as "steps[0]" rather than
// "steps.0", because that is how people write them.
func locate(data any, tokens []string) (string, any) {
	var b strings.Builder
	b.WriteString("data")
	v := data
	for _, tok := range tokens {
		switch x := v.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			b.WriteString("." + tok)
			v = x[tok]
		default:
			b.WriteString("." + tok)
			v = nil
		}
	}
	return b.String(), v
}

// customMessage returns the "x-message" of the schema object at the
// fragment of the keyword location u, if it has one.
func customMessage(doc any, u string) (string, bool) {
	_, frag, ok := strings.Cut(u, "#")
	if !ok {
		return "", false
	}
	v := doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	obj, _ := v.(map[string]any)
	msg, ok := obj["x-message"].(string)
	return msg, ok
}

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
