package chunker

import (
	"strings"
	"sync"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsbash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// A spec is what the chunker knows about one tree-sitter language: which
// node kinds are declarations and how to name them. Node kinds come from
// each grammar's src/node-types.json; TestSpecsUseRealNodeKinds checks them.
type spec struct {
	grammar func() unsafe.Pointer
	// decls maps node kinds to functions that recognize declarations.
	decls map[string]declFunc
	// wrappers are nodes that add to a declaration inside them (export,
	// template<>, decorators, declare) and take its identity.
	wrappers set
	// transparent nodes are always opened and their children laid out in
	// their place: they hold declarations without being one
	// (preprocessor conditionals, extern "C", class << self).
	transparent set
	// prefixes, besides comments, attach to the declaration directly
	// below them (Rust attributes, TypeScript member decorators).
	prefixes set
}

// A decl is a recognized declaration.
type decl struct {
	ident
	// inner is the node whose children a split lays out: the declaration
	// itself, or the declaration inside a wrapper.
	inner *sitter.Node
	// body names inner's field whose children are the declaration's
	// members; "" means "body".
	body string
	// container declarations are always split (namespaces, modules).
	container bool
	// scope marks a bodiless namespace ("namespace Foo;"): not a chunk of
	// its own, but the Parent of the declarations after it.
	scope bool
}

// A declFunc recognizes a declaration node of one kind and names it;
// ok is false if the node is not a declaration after all.
type declFunc func(n *sitter.Node, src []byte) (d decl, ok bool)

// set is a set of node kinds.
type set map[string]bool

func setOf(kinds ...string) set {
	s := make(set, len(kinds))
	for _, k := range kinds {
		s[k] = true
	}
	return s
}

// typeKinds are the kinds whose nested functions are methods.
var typeKinds = sync.OnceValue(func() set {
	return setOf("class", "struct", "interface", "trait", "impl", "enum", "union")
})

// mergeable are the kinds whose tiny chunks merge with their neighbours.
var mergeable = sync.OnceValue(func() set {
	return setOf("block", "const", "var")
})

// specs holds every tree-sitter language, by the names Language returns.
var specs = sync.OnceValue(func() map[string]*spec {
	return map[string]*spec{
		"go": {
			grammar: tsgo.Language,
			decls: map[string]declFunc{
				"function_declaration": named("function"),
				"method_declaration":   goMethod,
				"type_declaration":     goTypeDecl,
				"type_spec":            goTypeSpec,
				"type_alias":           goTypeSpec,
				"const_declaration":    goValues("const"),
				"var_declaration":      goValues("var"),
			},
		},
		"python": {
			grammar: tspython.Language,
			decls: map[string]declFunc{
				"function_definition": named("function"),
				"class_definition":    named("class"),
			},
			wrappers: setOf("decorated_definition"),
		},
		"javascript": {
			grammar:  tsjs.Language,
			decls:    jsDecls(),
			wrappers: setOf("export_statement"),
			prefixes: setOf("decorator"),
		},
		"typescript": {
			grammar:  tsts.LanguageTypescript,
			decls:    tsDecls(),
			wrappers: setOf("export_statement", "ambient_declaration"),
			prefixes: setOf("decorator"),
		},
		"tsx": {
			grammar:  tsts.LanguageTSX,
			decls:    tsDecls(),
			wrappers: setOf("export_statement", "ambient_declaration"),
			prefixes: setOf("decorator"),
		},
		"rust": {
			grammar: tsrust.Language,
			decls: map[string]declFunc{
				"function_item":    named("function"),
				"struct_item":      named("struct"),
				"enum_item":        named("enum"),
				"union_item":       named("union"),
				"trait_item":       named("trait"),
				"impl_item":        rustImpl,
				"type_item":        named("type"),
				"mod_item":         withBody(container(named("module"))),
				"macro_definition": named("macro"),
				"const_item":       named("const"),
				"static_item":      named("var"),
			},
			prefixes: setOf("attribute_item"),
		},
		"java": {
			grammar: tsjava.Language,
			decls: map[string]declFunc{
				"class_declaration":           named("class"),
				"record_declaration":          named("class"),
				"interface_declaration":       named("interface"),
				"annotation_type_declaration": named("interface"),
				"enum_declaration":            named("enum"),
				"method_declaration":          named("method"),
				"constructor_declaration":     named("method"),
			},
		},
		"c": {
			grammar:     tsc.Language,
			decls:       cDecls(),
			transparent: cPreproc(),
		},
		"cpp": {
			grammar: tscpp.Language,
			decls: merge(cDecls(), map[string]declFunc{
				"class_specifier":      withBody(named("class")),
				"namespace_definition": container(named("module")),
			}),
			wrappers:    setOf("template_declaration"),
			transparent: cPreproc(),
		},
		"ruby": {
			grammar: tsruby.Language,
			decls: map[string]declFunc{
				"class":  named("class"),
				"module": container(named("module")),
				// Every Ruby def defines a method, even at top level.
				"method":           named("method"),
				"singleton_method": named("method"),
			},
			transparent: setOf("singleton_class"),
		},
		"csharp": {
			grammar: tscsharp.Language,
			decls: map[string]declFunc{
				"class_declaration":                 named("class"),
				"record_declaration":                named("class"),
				"struct_declaration":                named("struct"),
				"interface_declaration":             named("interface"),
				"enum_declaration":                  named("enum"),
				"delegate_declaration":              named("type"),
				"method_declaration":                named("method"),
				"constructor_declaration":           named("method"),
				"destructor_declaration":            named("method"),
				"local_function_statement":          named("function"),
				"namespace_declaration":             container(named("module")),
				"file_scoped_namespace_declaration": scoping(named("module")),
			},
			transparent: setOf("preproc_if", "preproc_elif", "preproc_else", "preproc_region"),
		},
		"php": {
			grammar: tsphp.LanguagePHP,
			decls: map[string]declFunc{
				"class_declaration":     named("class"),
				"interface_declaration": named("interface"),
				"trait_declaration":     named("trait"),
				"enum_declaration":      named("enum"),
				"function_definition":   named("function"),
				"method_declaration":    named("method"),
				"namespace_definition":  phpNamespace,
			},
		},
		"bash": {
			grammar: tsbash.Language,
			decls: map[string]declFunc{
				"function_definition": named("function"),
			},
		},
	}
})

var jsDecls = sync.OnceValue(func() map[string]declFunc {
	return map[string]declFunc{
		"class_declaration":              named("class"),
		"function_declaration":           named("function"),
		"generator_function_declaration": named("function"),
		"method_definition":              named("method"),
		"lexical_declaration":            jsBinding,
		"variable_declaration":           jsBinding,
	}
})

var tsDecls = sync.OnceValue(func() map[string]declFunc {
	return merge(jsDecls(), map[string]declFunc{
		"abstract_class_declaration": named("class"),
		"interface_declaration":      named("interface"),
		"type_alias_declaration":     named("type"),
		"enum_declaration":           named("enum"),
		"internal_module":            container(named("module")), // namespace N {}
		"module":                     container(named("module")), // module N {}, declare module "m" {}
	})
})

var cDecls = sync.OnceValue(func() map[string]declFunc {
	return map[string]declFunc{
		"function_definition": cFunction,
		"type_definition":     cTypedef,
		"struct_specifier":    withBody(named("struct")),
		"union_specifier":     withBody(named("union")),
		"enum_specifier":      withBody(named("enum")),
	}
})

var cPreproc = sync.OnceValue(func() set {
	return setOf("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
		"preproc_elifdef", "linkage_specification")
})

// merge returns the union of a and b; b wins.
func merge(a, b map[string]declFunc) map[string]declFunc {
	m := make(map[string]declFunc, len(a)+len(b))
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// nodeText returns the source of n, or "" for a nil node.
func nodeText(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	return clean(n.Utf8Text(src))
}

// named recognizes a declaration whose "name" field is its symbol.
func named(kind string) declFunc {
	return func(n *sitter.Node, src []byte) (decl, bool) {
		name := nodeText(n.ChildByFieldName("name"), src)
		return decl{ident: ident{kind: kind, symbol: strings.Trim(name, `"'`)}}, true
	}
}

// withBody accepts only declarations with a body, so that "struct s;" or
// "mod m;" are not taken for definitions.
func withBody(f declFunc) declFunc {
	return func(n *sitter.Node, src []byte) (decl, bool) {
		if n.ChildByFieldName("body") == nil {
			return decl{}, false
		}
		return f(n, src)
	}
}

// container marks declarations that are always split.
func container(f declFunc) declFunc {
	return func(n *sitter.Node, src []byte) (decl, bool) {
		d, ok := f(n, src)
		d.container = true
		return d, ok
	}
}

// scoping marks bodiless namespaces.
func scoping(f declFunc) declFunc {
	return func(n *sitter.Node, src []byte) (decl, bool) {
		d, ok := f(n, src)
		d.scope = true
		return d, ok
	}
}

// phpNamespace is "namespace N { ... }" or, more often, "namespace N;".
func phpNamespace(n *sitter.Node, src []byte) (decl, bool) {
	if n.ChildByFieldName("body") == nil {
		return scoping(named("module"))(n, src)
	}
	return container(named("module"))(n, src)
}

// firstOfKind returns the first node of the given kind in n's subtree,
// depth first, or nil.
func firstOfKind(n *sitter.Node, kind string) *sitter.Node {
	if n == nil {
		return nil
	}
	if n.Kind() == kind {
		return n
	}
	for i := range n.NamedChildCount() {
		if f := firstOfKind(n.NamedChild(i), kind); f != nil {
			return f
		}
	}
	return nil
}

// goMethod names a method by its receiver's base type: Parent "Server"
// for (s *Server), "List" for (l List[T]).
func goMethod(n *sitter.Node, src []byte) (decl, bool) {
	recv := firstOfKind(n.ChildByFieldName("receiver"), "type_identifier")
	return decl{ident: ident{
		kind:   "method",
		symbol: nodeText(n.ChildByFieldName("name"), src),
		parent: nodeText(recv, src),
	}}, true
}

// goTypeDecl is "type T ..." or a group "type ( A ...; B ... )". A lone
// spec names the chunk; a group is one chunk of Kind "type" that splits
// into its specs.
func goTypeDecl(n *sitter.Node, src []byte) (decl, bool) {
	var specs []*sitter.Node
	for i := range n.NamedChildCount() {
		if c := n.NamedChild(i); c.Kind() == "type_spec" || c.Kind() == "type_alias" {
			specs = append(specs, c)
		}
	}
	if len(specs) != 1 {
		return decl{ident: ident{kind: "type"}}, true
	}
	d, _ := goTypeSpec(specs[0], src)
	return d, true
}

// goTypeSpec names one type by its kind: struct, interface or type.
func goTypeSpec(n *sitter.Node, src []byte) (decl, bool) {
	kind := "type"
	if t := n.ChildByFieldName("type"); t != nil {
		switch t.Kind() {
		case "struct_type":
			kind = "struct"
		case "interface_type":
			kind = "interface"
		}
	}
	return decl{
		ident: ident{kind: kind, symbol: nodeText(n.ChildByFieldName("name"), src)},
		inner: n,
		body:  "type",
	}, true
}

// goValues recognizes const and var declarations; only a declaration of
// a single name has a symbol.
func goValues(kind string) declFunc {
	return func(n *sitter.Node, src []byte) (decl, bool) {
		var names []*sitter.Node
		var collect func(n *sitter.Node)
		collect = func(n *sitter.Node) {
			for i := range n.ChildCount() {
				c := n.Child(i)
				switch {
				case c.Kind() == "var_spec_list":
					collect(c)
				case c.Kind() == "const_spec" || c.Kind() == "var_spec":
					for j := range c.ChildCount() {
						if c.FieldNameForChild(uint32(j)) == "name" {
							names = append(names, c.Child(j))
						}
					}
				}
			}
		}
		collect(n)
		d := decl{ident: ident{kind: kind}}
		if len(names) == 1 {
			d.symbol = nodeText(names[0], src)
		}
		return d, true
	}
}

// jsBinding recognizes "const f = () => ...", "let f = function ...", and
// "const C = class ...": a single binding of a function or class.
func jsBinding(n *sitter.Node, src []byte) (decl, bool) {
	if n.NamedChildCount() != 1 {
		return decl{}, false
	}
	v := n.NamedChild(0)
	if v.Kind() != "variable_declarator" {
		return decl{}, false
	}
	kind := ""
	switch val := v.ChildByFieldName("value"); {
	case val == nil:
	case val.Kind() == "class":
		kind = "class"
	case strings.Contains(val.Kind(), "function"): // arrow_function, function_expression, generator_function
		kind = "function"
	}
	name := v.ChildByFieldName("name")
	if kind == "" || name == nil || name.Kind() != "identifier" {
		return decl{}, false
	}
	return decl{ident: ident{kind: kind, symbol: nodeText(name, src)}}, true
}

// rustImpl names "impl [Trait for] Type" by Type, without generics, so
// that methods in every impl of a type share its name as their Parent.
func rustImpl(n *sitter.Node, src []byte) (decl, bool) {
	t := n.ChildByFieldName("type")
	name := nodeText(firstOfKind(t, "type_identifier"), src)
	if name == "" {
		name = nodeText(t, src)
	}
	return decl{ident: ident{kind: "impl", symbol: name}}, true
}

// cFunction names a C or C++ function definition from its declarator;
// an out-of-line C++ method "Foo::bar" has Parent "Foo".
func cFunction(n *sitter.Node, src []byte) (decl, bool) {
	d := n.ChildByFieldName("declarator")
	// Unwrap pointer, reference and parenthesized declarators until the
	// function declarator; bounded in case of malformed trees.
	for range 16 {
		if d == nil || d.Kind() == "function_declarator" {
			break
		}
		if next := d.ChildByFieldName("declarator"); next != nil {
			d = next
		} else {
			d = d.NamedChild(0)
		}
	}
	if d == nil {
		return decl{ident: ident{kind: "function"}}, true
	}
	name := d.ChildByFieldName("declarator")
	parent := ""
	for name != nil && name.Kind() == "qualified_identifier" {
		scope := name.ChildByFieldName("scope")
		if scope != nil && scope.Kind() == "template_type" {
			scope = scope.ChildByFieldName("name")
		}
		parent = nodeText(scope, src)
		name = name.ChildByFieldName("name")
	}
	if name != nil && name.Kind() == "template_function" {
		name = name.ChildByFieldName("name")
	}
	kind := "function"
	if parent != "" {
		kind = "method"
	}
	return decl{ident: ident{kind: kind, symbol: nodeText(name, src), parent: parent}}, true
}

// cTypedef names "typedef ... Name;" by Name; a typedef of a struct,
// union or enum body takes that kind.
func cTypedef(n *sitter.Node, src []byte) (decl, bool) {
	kind := "type"
	if t := n.ChildByFieldName("type"); t != nil && t.ChildByFieldName("body") != nil {
		switch t.Kind() {
		case "struct_specifier", "class_specifier":
			kind = "struct"
		case "union_specifier":
			kind = "union"
		case "enum_specifier":
			kind = "enum"
		}
	}
	name := nodeText(firstOfKind(n.ChildByFieldName("declarator"), "type_identifier"), src)
	return decl{ident: ident{kind: kind, symbol: name}, body: "type"}, true
}
