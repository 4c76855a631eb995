package config

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The config is read in two passes. checkShape walks the YAML tree against
// the Go struct first: a key the struct does not know is a warning (a
// teammate on a newer release may have written it, and an older release
// must keep working: issue 36), and a value of the wrong shape (a list
// where a number goes) is an error that names the key in the file's own
// words. Only then is the tree decoded, into values that fit; the YAML
// library's own messages name Go types ("into config.SearchConfig"),
// which mean nothing to someone editing a YAML file.

// shapeError is a value of the wrong shape for its key.
type shapeError struct {
	line int
	key  string
	want string
	got  string
}

func (e *shapeError) Error() string {
	return fmt.Sprintf("line %d: %s must be %s, not %s", e.line, e.key, e.want, e.got)
}

// checkShape walks n (the value at key, "" for the document) against t
// and returns the keys it does not know, in the order they appear, or
// the first value whose shape does not fit.
func checkShape(n *yaml.Node, t reflect.Type, key string) (unknown []string, err error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, nil
		}
		return checkShape(n.Content[0], t, key)
	}
	if n.Kind == yaml.AliasNode {
		return checkShape(n.Alias, t, key)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil // an empty value: the default
	}
	bad := func(want string) error {
		return &shapeError{line: n.Line, key: keyName(key), want: want, got: describe(n)}
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil, bad("a mapping of settings (" + strings.Join(fieldNames(t), ", ") + ")")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := join(key, k.Value)
			f, ok := fieldByKey(t, k.Value)
			if !ok {
				unknown = append(unknown, sub)
				continue
			}
			u, err := checkShape(v, f.Type, sub)
			if err != nil {
				return nil, err
			}
			unknown = append(unknown, u...)
		}
		return unknown, nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil, bad("a list")
		}
		for i, item := range n.Content {
			if _, err := checkShape(item, t.Elem(), fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil, bad("a mapping")
		}
		return nil, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, bad(scalarWant(t.Kind()))
	}
	// The scalar is decoded alone, so that one that does not parse as its
	// kind ("ten" for a number) is named here, by key.
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		return nil, bad(scalarWant(t.Kind()))
	}
	return nil, nil
}

// keyName is key for messages; "" is the file's top level.
func keyName(key string) string {
	if key == "" {
		return "the file"
	}
	return key
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// describe says what a YAML value is, for messages: a scalar is quoted
// (cut when long), a list or mapping is named.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	return fmt.Sprintf("%q", v)
}

// scalarWant names the values of a Go kind in a YAML user's words.
func scalarWant(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a single value"
}

// yamlName is the key of struct field f, or "" when YAML skips it.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name) // the YAML library's default
	}
	return name
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); yamlName(f) == key && key != "" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if n := yamlName(t.Field(i)); n != "" {
			names = append(names, n)
		}
	}
	return names
}
