package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/auth"
)

// TestFieldPolicyAfterTheResolver: what the field middleware checks once a
// field is resolved, which no request can reach through the API (node and
// nodes refuse a forbidden id's prefix first, and the fast path serves
// them): a resolved Node, alone or in a list, of a type the caller may not
// read is refused; one it may read passes; a resolver's unclassified error
// becomes INTERNAL, a classified one keeps its kind.
func TestFieldPolicyAfterTheResolver(t *testing.T) {
	p := &costPlan{capped: map[*ast.FieldDefinition]bool{}}
	ctx := auth.NewContext(context.Background(), &auth.Principal{ID: "tok_test", Kind: auth.KindToken, Scopes: []string{"orders:read"}})
	node := &ast.FieldDefinition{Name: "node", Type: ast.NamedType("Node", nil)}
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Name: "node", Definition: node}}})
	resolve := func(v any, err error) (any, error) {
		return p.fieldPolicy(ctx, func(context.Context) (any, error) { return v, err })
	}
	kind := func(err error) apperr.Kind {
		var e *apperr.Error
		if !errors.As(err, &e) {
			t.Fatalf("%v (%T) is not an apperr.Error", err, err)
		}
		return e.Kind
	}
	if _, err := resolve(&ent.Hub{}, nil); err == nil || kind(err) != apperr.KindForbidden {
		t.Errorf("a Hub resolved for a key with orders:read only: %v, want FORBIDDEN", err)
	}
	if _, err := resolve([]ent.Noder{&ent.Order{}, &ent.Hub{}}, nil); err == nil || kind(err) != apperr.KindForbidden {
		t.Errorf("nodes with a Hub among them: %v, want FORBIDDEN", err)
	}
	if res, err := resolve(&ent.Order{}, nil); err != nil || res == nil {
		t.Errorf("an Order for orders:read: %v, %v", res, err)
	}
	if _, err := resolve(nil, errors.New("too many SQL variables")); err == nil || kind(err) != apperr.KindInternal {
		t.Errorf("an unclassified resolver error: %v, want INTERNAL", err)
	}
	if _, err := resolve(nil, apperr.NotFound("no such order")); err == nil || kind(err) != apperr.KindNotFound {
		t.Errorf("a classified resolver error: %v, want NOT_FOUND kept", err)
	}
}
