package agentsetup

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingIsBuiltAtInit holds the package to docs/DESIGN.md
// ("Start-up"): its package-level variables are constant tables only. A
// map literal or a call (other than sync.OnceValue, which defers the
// work to first use) in one runs in the package initialiser, at every
// start of the binary.
func TestNothingIsBuiltAtInit(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					ast.Inspect(v, func(n ast.Node) bool {
						switch n := n.(type) {
						case *ast.FuncLit:
							return false // runs on first use
						case *ast.CompositeLit:
							if _, ok := n.Type.(*ast.MapType); ok {
								t.Errorf("%s: a map literal is built at init; build it on first use (sync.OnceValue) or use a switch", fset.Position(n.Pos()))
							}
						case *ast.CallExpr:
							if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "OnceValue" {
								if x, ok := sel.X.(*ast.Ident); ok && x.Name == "sync" {
									return true
								}
							}
							t.Errorf("%s: a call runs at init; make it on first use (sync.OnceValue)", fset.Position(n.Pos()))
						}
						return true
					})
				}
			}
		}
	}
}
