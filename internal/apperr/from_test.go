package apperr_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"logistics/internal/apperr"
)

// TestFromNil: From(nil) is a nil *Error. Returned as an error it would be
// a non-nil interface holding a nil pointer, which is why every call site
// must only ever pass an error known not to be nil (next test).
func TestFromNil(t *testing.T) {
	if apperr.From(nil) != nil {
		t.Fatal("From(nil) is not nil")
	}
}

// TestFromOnlyGetsErrors walks the module's hand-written Go files: every
// `return …, apperr.From(x)` (the trap: the result becomes an error
// interface) sits inside an if whose condition says x != nil, so a nil error
// never becomes a typed nil *Error inside a non-nil error.
func TestFromOnlyGetsErrors(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "ent", "generated", "node_modules", ".git", "testdata":
				if path != root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "From" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "apperr" {
				return true
			}
			arg, ok := call.Args[0].(*ast.Ident)
			if !ok {
				return true
			}
			if _, ret := stack[len(stack)-2].(*ast.ReturnStmt); !ret {
				return true // used as an *Error, for its kind or fields
			}
			checked++
			if !guarded(stack, arg.Name) {
				t.Errorf("%s: apperr.From(%s) outside an `if %s != nil`", fset.Position(call.Pos()), arg.Name, arg.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("only %d calls found: is the walk right?", checked)
	}
}

// guarded reports whether an enclosing if (or an if of its else-if chain)
// tests name != nil.
func guarded(stack []ast.Node, name string) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		ifs, ok := stack[i].(*ast.IfStmt)
		if !ok {
			continue
		}
		if notNil(ifs.Cond, name) {
			return true
		}
	}
	return false
}

func notNil(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.NEQ {
			return true
		}
		x, ok1 := b.X.(*ast.Ident)
		y, ok2 := b.Y.(*ast.Ident)
		if ok1 && ok2 && x.Name == name && y.Name == "nil" {
			found = true
		}
		return true
	})
	return found
}
