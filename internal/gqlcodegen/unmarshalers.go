package gqlcodegen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
)

// ShareInputUnmarshalers rewrites gqlgen's generated executor (src, the
// file of gqlgen.yml's exec.filename) so that the map of input unmarshalers
// its Exec builds for every operation is built once per process.
//
// gqlgen's Exec starts with graphql.BuildUnmarshalerMap over a method value
// of every input type (ec.unmarshalInputX, bound to the operation's
// execution context) and puts the map in the operation's context, where
// graphql.UnmarshalInputFromContext finds it (ent's field collection and
// graph/auth.go decode `where` arguments through it). For our schema that
// is 53 closures, 53 reflect look-ups and a map: about 5 KB and 110
// allocations for every mutation and every query off the fast path, 4% of
// a tracking-entry mutation's CPU.
//
// The map only differs per operation by the context its methods are bound
// to, and the generated unmarshal methods never read that context: each
// refers to ec only to call another unmarshal method. This function checks
// exactly that in src (an unmarshal method that reads anything else of ec,
// or hands ec on, stops generation with an error, as does an Exec that no
// longer builds the map the way it is matched here), then wraps the
// BuildUnmarshalerMap call in sharedInputUnmarshalers (hand-written,
// graph/generated/unmarshalers.go), which builds it once from an empty
// execution context.
func ShareInputUnmarshalers(src []byte) ([]byte, error) {
	const (
		head = "\tinputUnmarshalMap := graphql.BuildUnmarshalerMap(\n"
		tail = "\n\t)\n"
	)
	if n := bytes.Count(src, []byte(head)); n != 1 {
		return nil, fmt.Errorf("share input unmarshalers: gqlgen's Exec builds its unmarshaler map %d times where 1 was expected; "+
			"update internal/gqlcodegen/unmarshalers.go for this gqlgen version", n)
	}
	if err := unmarshalersStateless(src); err != nil {
		return nil, err
	}
	start := bytes.Index(src, []byte(head))
	end := bytes.Index(src[start:], []byte(tail))
	if end < 0 {
		return nil, errors.New("share input unmarshalers: the end of gqlgen's BuildUnmarshalerMap call was not found")
	}
	end += start
	var out bytes.Buffer
	out.Write(src[:start])
	out.WriteString("\tinputUnmarshalMap := sharedInputUnmarshalers(func(ec *executionContext) inputUnmarshalers {\n\treturn graphql.BuildUnmarshalerMap(\n")
	out.Write(src[start+len(head) : end])
	out.WriteString("\n\t)\n\t})\n")
	out.Write(src[end+len(tail):])
	formatted, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("share input unmarshalers: the rewritten executor does not parse: %w", err)
	}
	return formatted, nil
}

// unmarshalersStateless reports an error unless every unmarshal method of
// the execution context in src uses its receiver only to call other
// unmarshal methods.
func unmarshalersStateless(src []byte) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("share input unmarshalers: %w", err)
	}
	var bad []string
	methods := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "unmarshal") || len(fn.Recv.List) != 1 {
			continue
		}
		recv := fn.Recv.List[0]
		if star, ok := recv.Type.(*ast.StarExpr); !ok || !isIdent(star.X, "executionContext") || len(recv.Names) != 1 {
			continue
		}
		methods++
		name := recv.Names[0].Name
		// Every use of the receiver must be the X of a selector naming an
		// unmarshal method; count the uses that are, and all the uses.
		allowed := map[*ast.Ident]bool{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && strings.HasPrefix(sel.Sel.Name, "unmarshal") {
					allowed[id] = true
				}
			}
			return true
		})
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name && !allowed[id] {
				bad = append(bad, fmt.Sprintf("%s (%s)", fn.Name.Name, fset.Position(id.Pos())))
				return false
			}
			return true
		})
	}
	if methods == 0 {
		return errors.New("share input unmarshalers: no unmarshal method of executionContext found; update internal/gqlcodegen/unmarshalers.go for this gqlgen version")
	}
	if len(bad) > 0 {
		return fmt.Errorf("share input unmarshalers: these unmarshal methods use their execution context for more than calling other unmarshal methods, "+
			"so one map cannot serve every operation: %s", strings.Join(bad, ", "))
	}
	return nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
