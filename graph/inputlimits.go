package graph

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"

	"logistics/internal/apperr"
	"logistics/internal/documents"
	"logistics/internal/filter"
)

// Limits on the input values of one operation: the arguments written in the
// document and the variables, checked before anything executes (so the fast
// path, which runs later inside AroundRootFields, sees only checked input).
// A where: argument has the REST filter's limits (internal/filter), so that
// no filter reaches a database that would refuse it ("LIKE or GLOB pattern
// too complex", "too many SQL variables", "Expression tree is too large",
// PostgreSQL's 65,535 parameters): the same input is the same
// BAD_USER_INPUT on SQLite and PostgreSQL.
const (
	MaxInputString = 10_000 // characters of any string argument (the longest field, a description, holds 4,000)
	MaxInputList   = 1_000  // elements of any list argument
	MaxWhereDepth  = 8      // where inputs nested in one another through and/or/not/has…With
	MaxWhereFields = 256    // fields set in one where: argument, at every level together
)

// inputLimits is the gqlgen extension that enforces the limits above.
type inputLimits struct{ schema *ast.Schema }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = (*inputLimits)(nil)

func (*inputLimits) ExtensionName() string { return "InputLimits" }

func (l *inputLimits) Validate(s graphql.ExecutableSchema) error {
	l.schema = s.Schema()
	return nil
}

func (l *inputLimits) MutateOperationContext(_ context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	if rc.Operation == nil {
		return nil
	}
	if err := checkEscapes(rc.RawQuery); err != nil {
		return err
	}
	w := inputWalker{schema: l.schema, vars: rc.Variables, frags: rc.Doc.Fragments, seen: map[string]bool{}}
	return w.selections(rc.Operation.SelectionSet, "")
}

type inputWalker struct {
	schema *ast.Schema
	vars   map[string]any
	frags  ast.FragmentDefinitionList
	seen   map[string]bool // fragments already checked

	whereFields int // fields set in the where: argument being checked
}

func (w *inputWalker) selections(set ast.SelectionSet, prefix string) *gqlerror.Error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			name := prefix + s.Alias
			for _, arg := range s.Arguments {
				if s.Definition == nil {
					continue
				}
				def := s.Definition.Arguments.ForName(arg.Name)
				if def == nil {
					continue
				}
				v, err := arg.Value.Value(w.vars)
				if err != nil {
					continue // not a value of its type: validation reports it
				}
				w.whereFields = 0
				if err := w.value(v, def.Type, name+"."+arg.Name, 0); err != nil {
					return err
				}
			}
			if err := w.selections(s.SelectionSet, name+"."); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := w.selections(s.SelectionSet, prefix); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if w.seen[s.Name] {
				continue
			}
			w.seen[s.Name] = true
			if f := w.frags.ForName(s.Name); f != nil {
				if err := w.selections(f.SelectionSet, prefix); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// value checks one input value of type t at path; whereDepth counts the
// where inputs it is nested in.
func (w *inputWalker) value(v any, t *ast.Type, path string, whereDepth int) *gqlerror.Error {
	if v == nil || t == nil {
		return nil
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return w.value(v, t.Elem, path, whereDepth) // a single value coerces to a list of one
		}
		max := MaxInputList
		if whereDepth > 0 {
			max = filter.MaxValues
		}
		if len(list) > max {
			return inputError(path, fmt.Sprintf("at most %d values in one list", max))
		}
		for i, e := range list {
			if err := w.value(e, t.Elem, path+"["+strconv.Itoa(i)+"]", whereDepth); err != nil {
				return err
			}
		}
		return nil
	}
	def := w.schema.Types[t.NamedType]
	if def == nil {
		return nil
	}
	switch def.Kind {
	case ast.InputObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if strings.HasSuffix(def.Name, "WhereInput") {
			whereDepth++
			if whereDepth > MaxWhereDepth {
				return inputError(path, fmt.Sprintf("where inputs are nested at most %d levels deep", MaxWhereDepth))
			}
			w.whereFields += len(obj)
			if w.whereFields > MaxWhereFields {
				return inputError(path, fmt.Sprintf("a where argument sets at most %d fields at all levels together", MaxWhereFields))
			}
		}
		for _, f := range def.Fields { // in schema order: the first error is stable
			if fv, ok := obj[f.Name]; ok {
				if err := w.value(fv, f.Type, path+"."+f.Name, whereDepth); err != nil {
					return err
				}
			}
		}
	case ast.Scalar, ast.Enum:
		s, ok := v.(string)
		if !ok {
			return nil
		}
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			e := inputError(path, "must be valid UTF-8 text without NUL characters")
			e.Extensions["code"] = "INVALID_TEXT"
			return e
		}
		max := MaxInputString
		if t.NamedType == "Manifest" { // trusted documents' manifest: its own bound
			max = documents.MaxManifestBytes
		}
		if whereDepth > 0 {
			max = filter.MaxValueLength
		}
		if len(s) > max && utf8.RuneCountInString(s) > max {
			if whereDepth > 0 {
				return inputError(path, fmt.Sprintf("a filter value has at most %d characters", max))
			}
			return inputError(path, fmt.Sprintf("has at most %d characters", max))
		}
	}
	return nil
}

// checkEscapes refuses a \u escape of a UTF-16 surrogate in a string of the
// document: the GraphQL parser would turn it into U+FFFD, storing a
// replacement character where the client meant something else.
func checkEscapes(doc string) *gqlerror.Error {
	if !strings.Contains(doc, `\u`) {
		return nil
	}
	lx := lexer.New(&ast.Source{Input: doc})
	for {
		tok, err := lx.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return nil
		}
		if tok.Kind != lexer.String {
			continue
		}
		if hex, ok := surrogateEscape(doc[tok.Pos.Start:tok.Pos.End]); ok {
			e := inputError("query", fmt.Sprintf(`the string at line %d holds the escape \u%s, half of a UTF-16 surrogate pair: write the character itself`, tok.Pos.Line, hex))
			e.Extensions["code"] = "INVALID_TEXT"
			e.Locations = []gqlerror.Location{{Line: tok.Pos.Line, Column: tok.Pos.Column}}
			return e
		}
	}
}

// surrogateEscape finds a \uD800–\uDFFF escape in a string token's source.
func surrogateEscape(raw string) (string, bool) {
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] == 'u' && i+6 <= len(raw) {
			if n, err := strconv.ParseUint(raw[i+2:i+6], 16, 32); err == nil && n >= 0xD800 && n <= 0xDFFF {
				return raw[i+2 : i+6], true
			}
		}
		i++ // skip the escaped character ("\\u" is a backslash and a u)
	}
	return "", false
}

func inputError(path, msg string) *gqlerror.Error {
	return &gqlerror.Error{
		Message: path + ": " + msg,
		Extensions: map[string]any{
			"code":   "INPUT_LIMIT_EXCEEDED",
			"fields": []apperr.FieldError{{Field: path, Message: msg}},
		},
	}
}
