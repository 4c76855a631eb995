package memory

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file is the JSON Schema validator for memory data. It implements
// the part of draft 2020-12 that the type schemas in schemas/ use, and
// nothing more. The general validators considered either cost every
// command of the CLI and every git hook milliseconds at start-up (compiling
// all the drafts' metaschemas in package initialisation), or stop at the
// first problem, ignore "format" and describe failures only as text, where
// we report every problem, where it is, in words for people. A schema that
// uses any other keyword does not compile, so that no rule in a schema file
// can be silently ignored: adding a keyword to a schema means adding it here.
//
// Supported: the boolean schemas, "type", "enum", "format" (date,
// date-time, uri, uri-reference; always asserted), "pattern", "minimum",
// "maximum", "properties", "additionalProperties", "items", "required",
// "dependentRequired", our own "x-message", and the annotations "$schema"
// (at the root, naming draft 2020-12), "$comment", "title", "description",
// "examples", "default", "deprecated", "readOnly" and "writeOnly".

// schemaDialect is the one "$schema" a type schema may name.
const schemaDialect = "https://json-schema.org/draft/2020-12/schema"

// jsonType is a set of the types the "type" keyword names.
type jsonType uint8

// The JSON Schema types, in the order messages list them.
const (
	typeNull jsonType = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

// jsonTypeNames are the types' names, in the order of the constants.
var jsonTypeNames = [...]string{"null", "boolean", "number", "integer", "string", "array", "object"}

// parseJSONType returns the type called name.
func parseJSONType(name string) (jsonType, bool) {
	for i, n := range jsonTypeNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// names returns the types in t, in the order of the constants.
func (t jsonType) names() []string {
	var out []string
	for i, n := range jsonTypeNames {
		if t&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// schema is a compiled schema. A nil *schema is the schema true, which
// accepts everything; the schema false has never set. Compiled schemas are
// never modified, so one may validate in many goroutines at once.
type schema struct {
	never bool // the schema false

	types    jsonType          // "type"; 0 when absent
	enum     []any             // "enum", normalised as data is
	format   string            // "format"
	isFormat func(string) bool // the check of format
	pattern  *regexp.Regexp    // "pattern"
	minimum  *big.Rat          // "minimum"
	maximum  *big.Rat          // "maximum"

	properties        map[string]*schema // "properties"
	additional        *schema            // "additionalProperties"; nil accepts all
	items             *schema            // "items"; nil accepts all
	required          []string           // "required"
	dependentRequired []dependency       // "dependentRequired", by property name

	// message is the schema's "x-message": its own wording of what a value
	// must be, for rules such as patterns that mean nothing to a reader when
	// quoted. It replaces the message of every failure of the value itself
	// (not of the properties of an object, which have their own schemas).
	message string
}

// dependency is one entry of "dependentRequired": when the property prop
// is present, the properties required must be too.
type dependency struct {
	prop     string
	required []string
}

// decodeSchema decodes a schema file, keeping numbers as json.Number so
// that bounds such as 0.1 stay exact.
func decodeSchema(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("decoding JSON: more data after the schema")
	}
	return doc, nil
}

// compileSchema compiles a decoded schema document: JSON as encoding/json
// decodes it into an any, with numbers as json.Number or float64. Errors
// name the JSON pointer, as a URI fragment ("#/properties/sha/pattern"), of
// the part of the document at fault.
func compileSchema(doc any) (*schema, error) {
	return compileAt(doc, nil, true)
}

// pointer is the JSON pointer of a part of a schema document: a list linked
// back to the root, written out only for an error. A nil pointer is the
// root.
type pointer struct {
	parent *pointer
	token  string
}

// String writes the pointer as a URI fragment: "#/properties/sha/pattern".
func (p *pointer) String() string {
	var b strings.Builder
	p.write(&b)
	return b.String()
}

// write writes p to b, the root's part first.
func (p *pointer) write(b *strings.Builder) {
	if p == nil {
		b.WriteString("#")
		return
	}
	p.parent.write(b)
	b.WriteString("/")
	b.WriteString(escapePointer(p.token))
}

// escapePointer escapes a name for use as a JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// firstFault keeps, of the errors met compiling the members of an object
// in map order, the one of the member whose name sorts first, so that a
// schema with several faults always reports the same one.
type firstFault struct {
	name string
	err  error
}

func (f *firstFault) add(name string, err error) {
	if err != nil && (f.err == nil || name < f.name) {
		f.name, f.err = name, err
	}
}

// compileAt compiles the schema doc found at the pointer at.
func compileAt(doc any, at *pointer, root bool) (*schema, error) {
	var obj map[string]any
	switch d := doc.(type) {
	case bool:
		if d {
			return nil, nil
		}
		return &schema{never: true}, nil
	case map[string]any:
		obj = d
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean; got %s", at, describe(d))
	}
	s := new(schema)
	var fault firstFault
	for k, v := range obj {
		fault.add(k, s.compileKeyword(k, v, at, root))
	}
	if fault.err != nil {
		return nil, fault.err
	}
	return s, nil
}

// compileKeyword compiles the keyword k, of value v, of the schema at the
// pointer at into s.
func (s *schema) compileKeyword(k string, v any, at *pointer, root bool) error {
	var err error
	switch k {
	case "$schema":
		if !root {
			err = errors.New(`"$schema" is allowed only at the root`)
		} else if v != schemaDialect {
			err = fmt.Errorf("must be %q (draft 2020-12); got %s", schemaDialect, describe(v))
		}
	case "$comment", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly":
		// Annotations: they say nothing about validity.
	case "x-message":
		var ok bool
		if s.message, ok = v.(string); !ok || s.message == "" {
			err = fmt.Errorf("must be a non-empty string; got %s", describe(v))
		}
	case "type":
		s.types, err = compileType(v)
	case "enum":
		s.enum, err = compileEnum(v)
	case "format":
		s.format, s.isFormat, err = compileFormat(v)
	case "pattern":
		s.pattern, err = compilePattern(v)
	case "minimum":
		s.minimum, err = compileNumber(v)
	case "maximum":
		s.maximum, err = compileNumber(v)
	case "required":
		s.required, err = compileNames(v)
	// The keywords holding schemas or objects report their own pointers.
	case "dependentRequired":
		s.dependentRequired, err = compileDependencies(v, &pointer{at, k})
		return err
	case "properties":
		s.properties, err = compileProperties(v, &pointer{at, k})
		return err
	case "additionalProperties":
		s.additional, err = compileAt(v, &pointer{at, k}, false)
		return err
	case "items":
		if _, isList := v.([]any); isList {
			// Draft 2019-09's tuple form; 2020-12 calls it prefixItems.
			err = errors.New("must be a schema (a list of schemas is prefixItems, which is not supported)")
			break
		}
		s.items, err = compileAt(v, &pointer{at, k}, false)
		return err
	default:
		return fmt.Errorf("%s: keyword %q is not supported by contextfs's validator", at, k)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", &pointer{at, k}, err)
	}
	return nil
}

// compileType compiles the value of "type": a type name or a non-empty
// list of distinct ones.
func compileType(v any) (jsonType, error) {
	var names []any
	switch x := v.(type) {
	case string:
		names = []any{x}
	case []any:
		if len(x) == 0 {
			return 0, errors.New("must name at least one type")
		}
		names = x
	default:
		return 0, fmt.Errorf("must be a type name or a list of them; got %s", describe(v))
	}
	var types jsonType
	for _, n := range names {
		s, _ := n.(string)
		t, ok := parseJSONType(s)
		if !ok {
			return 0, fmt.Errorf("must name types among %s; got %s", strings.Join(jsonTypeNames[:], ", "), describe(n))
		}
		if types&t != 0 {
			return 0, fmt.Errorf("names %s twice", s)
		}
		types |= t
	}
	return types, nil
}

// compileEnum compiles the value of "enum": a non-empty list of values,
// normalised as data is so that they compare equal to data.
func compileEnum(v any) ([]any, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("must be a non-empty list; got %s", describe(v))
	}
	out := make([]any, len(list))
	for i, e := range list {
		if n, ok := e.(json.Number); ok {
			if _, err := n.Float64(); err != nil {
				// normalize would keep it as a string.
				return nil, fmt.Errorf("[%d] must be a number a float64 holds; got %s", i, n)
			}
		}
		out[i] = normalize(e)
		if _, ok := jsonTypeOf(out[i]); !ok {
			return nil, fmt.Errorf("[%d] must be a finite JSON value", i)
		}
	}
	return out, nil
}

// compileFormat returns the name of the format v and its check.
func compileFormat(v any) (string, func(string) bool, error) {
	name, _ := v.(string)
	switch name {
	case "date":
		return name, isDate, nil
	case "date-time":
		return name, isDateTime, nil
	case "uri":
		return name, isURI, nil
	case "uri-reference":
		return name, isURIReference, nil
	}
	return "", nil, fmt.Errorf("must be one of date, date-time, uri, uri-reference; got %s", describe(v))
}

// compilePattern compiles the value of "pattern". Go's regular expressions
// (RE2) stand in for ECMA-262's; the two agree on the patterns schemas use,
// and RE2 runs in linear time whatever the input.
func compilePattern(v any) (*regexp.Regexp, error) {
	expr, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("must be a regular expression; got %s", describe(v))
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("must be a regular expression: %w", err)
	}
	return re, nil
}

// compileNumber compiles a bound, exactly.
func compileNumber(v any) (*big.Rat, error) {
	r, ok := ratOf(v)
	if !ok {
		return nil, fmt.Errorf("must be a finite number; got %s", describe(v))
	}
	return r, nil
}

// compileNames compiles a list of distinct property names.
func compileNames(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of property names; got %s", describe(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("[%d] must be a property name; got %s", i, describe(e))
		}
		if slices.Contains(out[:i], s) {
			return nil, fmt.Errorf("[%d] repeats %q", i, s)
		}
		out[i] = s
	}
	return out, nil
}

// compileDependencies compiles the value of "dependentRequired", found at
// the pointer at.
func compileDependencies(v any, at *pointer) ([]dependency, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be an object; got %s", at, describe(v))
	}
	out := make([]dependency, 0, len(obj))
	var fault firstFault
	for k, e := range obj {
		names, err := compileNames(e)
		if err != nil {
			fault.add(k, fmt.Errorf("%s: %w", &pointer{at, k}, err))
		}
		out = append(out, dependency{prop: k, required: names})
	}
	if fault.err != nil {
		return nil, fault.err
	}
	slices.SortFunc(out, func(a, b dependency) int { return strings.Compare(a.prop, b.prop) })
	return out, nil
}

// compileProperties compiles the value of "properties", found at the
// pointer at.
func compileProperties(v any, at *pointer) (map[string]*schema, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be an object; got %s", at, describe(v))
	}
	out := make(map[string]*schema, len(obj))
	var fault firstFault
	for k, e := range obj {
		s, err := compileAt(e, &pointer{at, k}, false)
		fault.add(k, err)
		out[k] = s
	}
	if fault.err != nil {
		return nil, fault.err
	}
	return out, nil
}

// validation is the state of one validation: where in the data it is, and
// what it found.
type validation struct {
	// path leads from the top of the data to the value being validated.
	// The validator pushes a step as it descends into a value and pops it
	// on the way back, so that a valid value costs no allocation: a field
	// name is only written out for an issue.
	path   []step
	issues []Issue
}

// step is one step of a path: into an object's property, or into an
// array's element.
type step struct {
	key   string // the property name, when index is -1
	index int
}

// field writes the current path as Issue.Field does:
// "data.steps[0].name".
func (vd *validation) field() string {
	var b strings.Builder
	b.WriteString("data")
	for _, st := range vd.path {
		if st.index >= 0 {
			b.WriteString("[")
			b.WriteString(strconv.Itoa(st.index))
			b.WriteString("]")
		} else {
			b.WriteString(".")
			b.WriteString(st.key)
		}
	}
	return b.String()
}

// check returns the issues of the normalised value v under s, in a stable
// order (by field, then message), or nil if v is valid.
func (s *schema) check(v any) []Issue {
	vd := validation{path: make([]step, 0, 8)}
	s.validate(v, &vd)
	// Objects are walked in map order; sort for stable output.
	slices.SortFunc(vd.issues, func(a, b Issue) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(vd.issues)
}

// validate records in vd one issue for each way v, at vd's path, fails s.
// v must be normalised (see NormalizeData).
//
// As in the draft, a value of the wrong type, outside the enum or of the
// wrong format fails once, for that reason alone: "must be a string" says
// all there is to say. The rules for objects, arrays, strings and numbers
// then all apply, so that every problem in the data is reported at once.
func (s *schema) validate(v any, vd *validation) {
	if s == nil {
		return
	}
	if s.never {
		s.fail(vd, v, "is not allowed")
		return
	}
	t, ok := jsonTypeOf(v)
	if !ok {
		if f, isFloat := v.(float64); isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
			s.fail(vd, v, "must be a finite number; got "+describe(v))
		} else {
			s.fail(vd, v, fmt.Sprintf("must be a JSON value; got a Go %T", v))
		}
		return
	}
	if s.types != 0 && s.types&t == 0 && !(t == typeInteger && s.types&typeNumber != 0) {
		want := s.types.names()
		for i, w := range want {
			want[i] = article(w)
		}
		s.fail(vd, v, "must be "+orList(want)+"; got "+describe(v))
		return
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return jsonEqual(v, e) }) {
		s.fail(vd, v, "must be "+oneOf(s.enum)+"; got "+describe(v))
		return
	}
	if str, isString := v.(string); isString && s.isFormat != nil && !s.isFormat(str) {
		s.fail(vd, v, formatMessage(s.format)+"; got "+describe(v))
		return
	}

	switch x := v.(type) {
	case map[string]any:
		s.validateObject(x, vd)
	case []any:
		if s.items == nil {
			break
		}
		for i, e := range x {
			vd.path = append(vd.path, step{index: i})
			s.items.validate(e, vd)
			vd.path = vd.path[:len(vd.path)-1]
		}
	case string:
		if s.pattern != nil && !s.pattern.MatchString(x) {
			s.fail(vd, v, "must match the pattern "+s.pattern.String()+"; got "+describe(v))
		}
	case int64, uint64, float64:
		if s.minimum == nil && s.maximum == nil {
			break
		}
		n, _ := ratOf(v)
		if s.minimum != nil && n.Cmp(s.minimum) < 0 {
			s.fail(vd, v, "must be at least "+ratString(s.minimum)+"; got "+describe(v))
		}
		if s.maximum != nil && n.Cmp(s.maximum) > 0 {
			s.fail(vd, v, "must be at most "+ratString(s.maximum)+"; got "+describe(v))
		}
	}
}

// validateObject applies the object keywords of s to obj.
func (s *schema) validateObject(obj map[string]any, vd *validation) {
	missing := func(names []string, msg string) {
		for _, n := range names {
			if _, ok := obj[n]; !ok {
				vd.path = append(vd.path, step{key: n, index: -1})
				vd.issues = append(vd.issues, Issue{Field: vd.field(), Message: msg})
				vd.path = vd.path[:len(vd.path)-1]
			}
		}
	}
	missing(s.required, "is required")
	for _, d := range s.dependentRequired {
		if _, ok := obj[d.prop]; ok {
			missing(d.required, fmt.Sprintf("is required when %q is set", d.prop))
		}
	}
	for k, e := range obj {
		ps, named := s.properties[k]
		if !named {
			ps = s.additional
		}
		if ps == nil {
			continue
		}
		vd.path = append(vd.path, step{key: k, index: -1})
		ps.validate(e, vd)
		vd.path = vd.path[:len(vd.path)-1]
	}
}

// fail records an issue for the value v at vd's path, worded msg unless
// the schema words its own.
func (s *schema) fail(vd *validation, v any, msg string) {
	if s.message != "" {
		msg = s.message + "; got " + describe(v)
	}
	vd.issues = append(vd.issues, Issue{Field: vd.field(), Message: msg})
}

// jsonTypeOf returns the type of a normalised value, with numbers that are
// whole typed integer. It reports false for a value JSON cannot hold: NaN,
// an infinity, or a Go value NormalizeData could not convert.
func jsonTypeOf(v any) (jsonType, bool) {
	switch x := v.(type) {
	case nil:
		return typeNull, true
	case bool:
		return typeBoolean, true
	case int64, uint64:
		return typeInteger, true
	case float64:
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return 0, false
		case x == math.Trunc(x):
			return typeInteger, true
		}
		return typeNumber, true
	case string:
		return typeString, true
	case []any:
		return typeArray, true
	case map[string]any:
		return typeObject, true
	}
	return 0, false
}

// ratOf returns the number v exactly: a float64 as the decimal it is
// written as, so that 0.1 equals a bound of 0.1.
func ratOf(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case uint64:
		return new(big.Rat).SetUint64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	case json.Number:
		return new(big.Rat).SetString(x.String())
	}
	return nil, false
}

// jsonEqual reports whether two normalised values are equal as JSON values
// are: numbers by value, whatever their representation.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64, uint64, float64:
		if y, ok := b.(int64); ok {
			if x, ok := x.(int64); ok {
				return x == y
			}
		}
		ra, okA := ratOf(a)
		rb, okB := ratOf(b)
		return okA && okB && ra.Cmp(rb) == 0
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, jsonEqual)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// isDate reports whether s is an RFC 3339 full-date, such as 2024-05-01.
func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// isDateTime accepts an RFC 3339 date and time, as "date-time" does, and
// also a bare date. YAML reads "2024-05-01T00:00:00Z" as a timestamp that
// NormalizeData cannot tell from the date "2024-05-01", so refusing dates
// would reject a time written at midnight UTC.
func isDateTime(s string) bool {
	if isDate(s) {
		return true
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// isURI reports whether s is an absolute URI, with a scheme.
func isURI(s string) bool {
	u, ok := parseURL(s)
	return ok && u.IsAbs()
}

// isURIReference reports whether s is a URI or a relative reference, such
// as a path.
func isURIReference(s string) bool {
	if strings.Contains(s, `\`) {
		return false
	}
	_, ok := parseURL(s)
	return ok
}

// parseURL parses s as a URL, requiring an IPv6 host to be a bracketed
// address, which net/url does not check.
func parseURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, false
		}
		addr, err := netip.ParseAddr(host)
		if err != nil || addr.Zone() != "" {
			return nil, false
		}
	}
	return u, true
}
