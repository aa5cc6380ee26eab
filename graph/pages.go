package graph

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// pageLimits gives every connection field, at any depth, a page size: a
// connection selected without first/last gets first: DefaultPageSize written
// into the document, so that eager loading (which reads the document) and
// the resolvers agree, and no nested connection can return a whole table.
// first/last above MaxPageSize are refused before anything runs.
//
// Parsed documents are cached and shared between requests, so the one-time
// rewrite happens under a lock; it is idempotent (a rewritten field has a
// first argument and is left alone).
type pageLimits struct{ mu *sync.Mutex }

func (pageLimits) ExtensionName() string                   { return "PageLimits" }
func (pageLimits) Validate(graphql.ExecutableSchema) error { return nil }

func (p pageLimits) MutateOperationContext(_ context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	if rc.Operation == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return walkPages(rc.Operation.SelectionSet, rc.Doc.Fragments, rc.Variables, map[string]bool{})
}

func walkPages(set ast.SelectionSet, frags ast.FragmentDefinitionList, vars map[string]any, seen map[string]bool) *gqlerror.Error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if err := limitPage(s, vars); err != nil {
				return err
			}
			if err := walkPages(s.SelectionSet, frags, vars, seen); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := walkPages(s.SelectionSet, frags, vars, seen); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			if f := frags.ForName(s.Name); f != nil {
				if err := walkPages(f.SelectionSet, frags, vars, seen); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func limitPage(f *ast.Field, vars map[string]any) *gqlerror.Error {
	def := f.Definition
	if def == nil || def.Type == nil || !strings.HasSuffix(def.Type.Name(), "Connection") ||
		def.Arguments.ForName("first") == nil || def.Arguments.ForName("last") == nil {
		return nil
	}
	first, last := f.Arguments.ForName("first"), f.Arguments.ForName("last")
	given := false
	for _, a := range []*ast.Argument{first, last} {
		if a == nil {
			continue
		}
		v, err := a.Value.Value(vars)
		if err != nil || v == nil {
			continue
		}
		given = true
		n, ok := asInt(v)
		if !ok || n < 0 || n > MaxPageSize {
			return &gqlerror.Error{
				Message:    fmt.Sprintf("%s.%s must be between 0 and %d", f.Alias, a.Name, MaxPageSize),
				Path:       nil,
				Extensions: map[string]any{"code": "BAD_USER_INPUT", "reason": "page_size"},
			}
		}
	}
	if !given && first == nil {
		f.Arguments = append(f.Arguments, &ast.Argument{
			Name:     "first",
			Value:    &ast.Value{Kind: ast.IntValue, Raw: strconv.Itoa(DefaultPageSize)},
			Position: f.Position,
		})
	}
	return nil
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), float64(int64(n)) == n
	case interface{ Int64() (int64, error) }:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}
