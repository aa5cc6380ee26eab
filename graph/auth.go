package graph

import (
	"context"
	"reflect"
	"slices"

	"github.com/99designs/gqlgen/graphql"

	"logistics/internal/apperr"
	"logistics/internal/auth"
)

// The scope policy in GraphQL has two halves, both reading auth.Policy:
//
//   - @hasScope(scope: "…") on a field (every hand-written Mutation field
//     carries one) calls auth.Require before the resolver runs;
//   - scopeGuard, a field middleware, requires the read scope of the type a
//     field returns (Hub, HubConnection, [Order!]…) wherever it appears —
//     the entgql Query fields, edges such as order.hub, mutation results —
//     and for node/nodes checks the type of what was actually resolved.

// hasScope implements the @hasScope directive.
func hasScope(ctx context.Context, _ any, next graphql.Resolver, scope string) (any, error) {
	if err := auth.Require(ctx, scope); err != nil {
		return nil, err
	}
	return next(ctx)
}

// scopeGuard is the type half of the policy (see above).
func scopeGuard(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Definition == nil || fc.Field.Definition.Type == nil {
		return next(ctx)
	}
	typ := fc.Field.Definition.Type.Name()
	if err := auth.RequireType(ctx, typ); err != nil {
		return nil, err
	}
	res, err := next(ctx)
	if err != nil || typ != "Node" {
		return res, err
	}
	// node / nodes: the interface hides the type until it is resolved.
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Slice {
		for i := range v.Len() {
			if err := requireNode(ctx, v.Index(i).Interface()); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	if err := requireNode(ctx, res); err != nil {
		return nil, err
	}
	return res, nil
}

func requireNode(ctx context.Context, n any) error {
	if n == nil {
		return nil
	}
	t := reflect.TypeOf(n)
	if t.Kind() == reflect.Pointer {
		if reflect.ValueOf(n).IsNil() {
			return nil
		}
		t = t.Elem()
	}
	scopes, ok := auth.TypeScopes(t.Name())
	if !ok {
		// A node type the policy does not know: refuse rather than leak.
		return apperr.Forbidden("insufficient_scope", "no scope grants access to %s objects", t.Name())
	}
	return auth.RequireAll(ctx, scopes)
}

// consoleSession returns the caller if it is a console session: API keys
// cannot see or make other keys.
func consoleSession(ctx context.Context) (*auth.Principal, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return nil, auth.ErrMissing()
	}
	if p.Kind != auth.KindSession {
		return nil, apperr.Forbidden("session_required", "API tokens are managed from the console, signed in as a user")
	}
	return p, nil
}

// checkGrantable refuses scopes the user could not use themselves (a
// viewer can only make read-only keys).
func checkGrantable(p *auth.Principal, scopes []string) error {
	parsed, err := auth.ParseScopes(scopes)
	if err != nil {
		return err
	}
	for _, s := range parsed {
		if !slices.Contains(p.Scopes, s) {
			return apperr.Forbidden("insufficient_scope", "a %s cannot grant %s", p.Role, s).WithDetail("scope", s)
		}
	}
	return nil
}
