package graph

import (
	"context"
	"reflect"
	"slices"
	"sync"

	"github.com/99designs/gqlgen/graphql"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/graph/model"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
)

// The scope policy in GraphQL has four rules, all reading auth.Policy:
//
//   - @hasScope(scope: "…") on a field (every hand-written Mutation field
//     carries one) calls auth.Require before the resolver runs;
//   - scopeGuard, in the field middleware (fieldPolicy), requires the read
//     scope of the type a field returns (Hub, HubConnection, [Order!]…)
//     wherever it appears —
//     the entgql Query fields, edges such as order.hub, mutation results —
//     and for node/nodes checks the type of what was actually resolved;
//   - the filter rule, in scopeGuard too: a where: argument (of any field,
//     at any depth) that traverses a relation needs read scope on the
//     related type (auth.RequireFilter, which REST lists call as well);
//   - node/nodes refuse an id whose prefix names a type the caller may not
//     read before looking it up, so FORBIDDEN does not tell an existing id
//     from an unknown one (requireNodeIDs).

// hasScope implements the @hasScope directive.
// Production has no sandbox-only field: auth.Require answers NOT_FOUND for
// auth.SandboxScope there, before any scope check.
func hasScope(ctx context.Context, _ any, next graphql.Resolver, scope string) (any, error) {
	if err := auth.Require(ctx, scope); err != nil {
		return nil, err
	}
	return next(ctx)
}

// scopeGuard is the type half of the policy (see above), before the
// field's resolver runs: it requires the read scope of the type the field
// returns and applies the filter rule to its where: arguments. It returns
// that type's name ("" for a field without a definition), which
// fieldPolicy hands to requireResolved once the field is resolved.
func scopeGuard(ctx context.Context, fc *graphql.FieldContext) (string, error) {
	if fc == nil || fc.Field.Definition == nil || fc.Field.Definition.Type == nil {
		return "", nil
	}
	typ := fc.Field.Definition.Type.Name()
	if err := auth.RequireType(ctx, typ); err != nil {
		return "", err
	}
	return typ, requireFilters(ctx, fc)
}

// requireResolved is scopeGuard's check after a field of type typ is
// resolved: node / nodes (type Node) hide the type until it is resolved.
func requireResolved(ctx context.Context, typ string, res any) error {
	if typ != "Node" {
		return nil
	}
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Slice {
		for i := range v.Len() {
			if err := requireNode(ctx, v.Index(i).Interface()); err != nil {
				return err
			}
		}
		return nil
	}
	return requireNode(ctx, res)
}

// requireFilters applies the filter rule to a field's where input
// arguments (where:, or any argument of a generated <T>WhereInput type).
// gqlgen decodes them into fc.Args when the resolver or method takes them;
// one it leaves raw (a field whose Go method lacks the argument, as
// entgql's nested connections can) is decoded here into the same Go
// type and walked alike, so the rule never depends on how a field is bound.
func requireFilters(ctx context.Context, fc *graphql.FieldContext) error {
	if fc.Field.Field == nil || fc.Field.Definition == nil || len(fc.Field.Definition.Arguments) == 0 {
		return nil
	}
	var raw map[string]any
	for _, a := range fc.Field.Definition.Arguments {
		t, ok := whereTypes()[a.Type.Name()]
		if !ok {
			continue
		}
		v, decoded := fc.Args[a.Name]
		if !decoded {
			if fc.Field.Arguments.ForName(a.Name) == nil {
				continue // not given: no map of raw arguments built for it
			}
			if raw == nil {
				raw = fc.Field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)
			}
			r, ok := raw[a.Name]
			if !ok || r == nil {
				continue
			}
			w := reflect.New(t)
			if err := graphql.UnmarshalInputFromContext(ctx, r, w.Interface()); err != nil {
				return apperr.Invalid(a.Name, "%v", err)
			}
			v = w.Interface()
		}
		if err := auth.RequireFilter(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// whereTypes maps the GraphQL name of every where input type to its Go type
// (ent's <T>WhereInput), from the filter tables, which name one for each
// resource (TestWhereTypesCoverTheSchema keeps them complete).
var whereTypes = sync.OnceValue(func() map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for _, t := range filter.Tables {
		m[t.WhereType.Name()] = t.WhereType
	}
	return m
})

// nodeTypes maps the id prefix of every Node type to its GraphQL type
// (TestNodeTypesCoverTheSchema keeps it complete).
var nodeTypes = map[string]string{
	resourceid.Hub: "Hub", resourceid.Part: "Part", resourceid.Item: "Item",
	resourceid.Order: "Order", resourceid.OrderLine: "OrderLine", resourceid.OrderEvent: "OrderEvent",
	resourceid.TrackingEntry: "TrackingEntry", resourceid.Workflow: "Workflow", resourceid.Event: "Event",
}

// requireNodeIDs refuses, before any lookup, ids whose prefix names a type
// the caller may not read: FORBIDDEN whether or not the id exists. An id
// that names no Node type is NOT_FOUND for every caller alike.
func requireNodeIDs(ctx context.Context, ids ...resourceid.ID) error {
	for _, id := range ids {
		typ, ok := nodeTypes[id.Prefix()]
		if !ok {
			return apperr.NotFound("no node with id %s", id)
		}
		if err := auth.RequireType(ctx, typ); err != nil {
			return err
		}
	}
	return nil
}

func requireNode(ctx context.Context, n any) error {
	if n == nil {
		return nil
	}
	if e, ok := n.(*ent.Event); ok && e != nil {
		// The event rule: an event the caller may not read is as an
		// unknown id (its id does not tell its type).
		typ := e.Type
		if typ == "" {
			// node loads only the fields asked for: the type is read
			// whether or not it was.
			var err error
			if typ, err = ent.FromContext(ctx).Event.Query().Where(event.ID(e.ID)).Select(event.FieldType).String(ctx); err != nil {
				return apperr.From(err)
			}
		}
		if !auth.CanReadEvent(auth.FromContext(ctx), typ) {
			return apperr.NotFound("no node with id %s", e.ID)
		}
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

// redactedNode is n as the event log's doors show it (eventlog.Redacted).
// node loads only the fields a query selects; an event is read whole, as
// its redaction and the event rule go by its type.
func redactedNode(ctx context.Context, n ent.Noder) (ent.Noder, error) {
	e, ok := n.(*ent.Event)
	if !ok || e == nil {
		return n, nil
	}
	if e.Type == "" {
		full, err := ent.FromContext(ctx).Event.Get(ctx, e.ID)
		if err != nil {
			return nil, apperr.From(err)
		}
		e = full
	}
	return eventlog.Redacted(e), nil
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

// viewer describes the caller and the environment answering (Query.viewer).
func viewer(ctx context.Context) (*model.Viewer, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return nil, auth.ErrMissing()
	}
	v := &model.Viewer{Scopes: append([]string{}, p.Scopes...)}
	if env := environment.FromContext(ctx); env != nil {
		v.Environment, v.BaseURL = string(env.Name), env.URL("")
	}
	if p.Kind == auth.KindSession {
		v.Kind, v.Email, v.Role = model.ViewerKindSession, &p.Email, &p.Role
	} else {
		v.Kind, v.KeyName, v.KeyPrefix = model.ViewerKindAPIKey, &p.TokenName, &p.TokenPrefix
	}
	return v, nil
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
