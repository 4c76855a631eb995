package hooks

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRegularRefusesAGlobalConfigThatIsNotAFile: git config writes
// by renaming a new file over the old, so a global config that is a
// device (GIT_CONFIG_GLOBAL=/dev/null) or a folder is never written.
func TestCheckRegularRefusesAGlobalConfigThatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(file, []byte("[user]\n\tname = Ada\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		refused bool
	}{
		{"a file that does not exist yet", filepath.Join(dir, "none"), false},
		{"a regular file", file, false},
		{"a device", os.DevNull, true},
		{"a folder", dir, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkRegular(tt.path); (err != nil) != tt.refused {
				t.Errorf("checkRegular(%s) = %v, want refused %v", tt.path, err, tt.refused)
			}
		})
	}
}

// TestRegisterKeepsAGlobalConfigCreatedMeanwhile: a global config file
// that another process creates after install found none, but before
// install creates it, is the user's: install adds its keys to it, leaves
// what is there, and does not mark it as its own (uninstall would
// delete it once only the marker was left).
func TestRegisterKeepsAGlobalConfigCreatedMeanwhile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", file)
	const theirs = "[user]\n\tname = Ada\n"
	beforeCreate = func() {
		if err := os.WriteFile(file, []byte(theirs), 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { beforeCreate = nil })
	if err := RegisterGlobalMergeDriver(context.Background(), t.TempDir(), false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, theirs) || strings.Contains(got, createdMarker) || !strings.Contains(got, mergeDriverName) {
		t.Errorf("the global config reads:\n%s", got)
	}
}

// TestExportedFunctionsAreDocumented: every exported function and method
// of the package (an exported type's Error included) has a doc comment.
func TestExportedFunctionsAreDocumented(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || fn.Doc != nil {
				continue
			}
			if fn.Recv != nil && !ast.IsExported(receiverType(fn.Recv.List[0].Type)) {
				continue
			}
			t.Errorf("%s: %s has no doc comment", fset.Position(fn.Pos()), fn.Name.Name)
		}
	}
}

// receiverType is the name of a method's receiver type.
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
