package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// The event rule of the policy: an event of type T is visible only to a
// caller holding T's read scope (EventTypeScopes), wherever the event goes —
// GET /v1/events (and its long poll, exports and aggregates), GraphQL events,
// node and eventAggregate, the events subscription, and webhook delivery,
// where the key that registers, changes or resends on an endpoint must hold
// the read scope of every type the endpoint receives (RequireEventTypes).
// T's read scope comes from the noun of T (the part before its first dot)
// and the Events of the policy table; a type whose noun the table does not
// name needs every read scope.

// crossEvents are the event nouns whose data describes several resources:
// reading them needs the read scope of each (demo_data.loaded counts hubs,
// parts, items and orders; sandbox.reset tells that those were erased and
// loaded again: the sandbox row of the policy table has no read scope).
var crossEvents = map[string][]string{
	"demo_data": {"hubs", "parts", "items", "orders"},
	"sandbox":   {"hubs", "parts", "items", "orders"},
}

// eventNoun is the noun of an event type or pattern: "order" for
// order.created and order.*; "*" for "*".
func eventNoun(typ string) string {
	noun, _, _ := strings.Cut(typ, ".")
	return noun
}

// EventTypeScopes returns the read scopes that seeing an event of type typ
// needs (a slice shared by every caller: do not change it). typ may be a
// pattern of a webhook endpoint or a subscription: a family ("order.*")
// needs what its types need; "*" (and "") every read scope, as does a type
// of a noun the policy does not know.
func EventTypeScopes(typ string) []string {
	t := eventScopeTable()
	if scopes, ok := t.byNoun[eventNoun(typ)]; ok {
		return scopes
	}
	return t.all
}

// eventScopeTable is EventTypeScopes' answer for every noun, built once from
// the policy table: a subscription asks for every event it sees.
var eventScopeTable = sync.OnceValue(func() (t struct {
	byNoun map[string][]string
	all    []string
}) {
	t.byNoun = map[string][]string{}
	for _, r := range Policy {
		for _, noun := range r.Events {
			t.byNoun[noun] = []string{r.Read()}
		}
	}
	for noun, names := range crossEvents {
		for _, n := range names {
			t.byNoun[noun] = append(t.byNoun[noun], n+":read")
		}
	}
	t.all = ReadScopes()
	return t
})

// CanReadEvent reports whether p may see events of type typ.
func CanReadEvent(p *Principal, typ string) bool {
	for _, s := range EventTypeScopes(typ) {
		if !p.Has(s) {
			return false
		}
	}
	return p != nil
}

// RequireEventType is Require for what an event of type (or pattern) typ
// needs: 403 insufficient_scope naming the first scope missing, and the type.
func RequireEventType(ctx context.Context, typ string) error {
	p := FromContext(ctx)
	if p == nil {
		return ErrMissing()
	}
	for _, s := range EventTypeScopes(typ) {
		if !p.Has(s) {
			what := "event type " + quoteType(typ)
			if typ == "" || typ == "*" {
				what = "every event type"
			}
			return apperr.Forbidden("insufficient_scope", "this %s lacks the scope %s, which %s needs", p.Kind, s, what).
				WithDetail("scope", s).
				WithHeader("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, error="insufficient_scope", scope=%q`, Realm, s))
		}
	}
	return nil
}

// RequireEventTypes requires what receiving events of every type in types
// needs, for a webhook endpoint's event_types: none (every type) needs
// every read scope.
func RequireEventTypes(ctx context.Context, types []string) error {
	if len(types) == 0 {
		return RequireEventType(ctx, "*")
	}
	for _, t := range types {
		if err := RequireEventType(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

func quoteType(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// VisibleEvents returns the nouns of the event types p may see, and all =
// true when p may see every event (it holds every read scope).
func VisibleEvents(p *Principal) (nouns []string, all bool) {
	if p == nil {
		return nil, false
	}
	all = true
	for _, s := range eventScopeTable().all {
		if !p.Has(s) {
			all = false
		}
	}
	if all {
		return nil, true
	}
	for _, r := range Policy {
		if p.Has(r.Read()) {
			nouns = append(nouns, r.Events...)
		}
	}
	for noun := range crossEvents {
		if CanReadEvent(p, noun+".") {
			nouns = append(nouns, noun)
		}
	}
	slices.Sort(nouns)
	return nouns, false
}

// ScopeEventWhere is the event rule for a filter of the event log (a REST
// query string, a GraphQL where:): a type the filter asks for explicitly
// (type or typeIn, at its top level or in and:) that the caller may not see
// is 403 naming the scope; the result selects what where selects, narrowed
// to the types the caller may see.
func ScopeEventWhere(ctx context.Context, where *ent.EventWhereInput) (*ent.EventWhereInput, error) {
	p := FromContext(ctx)
	if p == nil {
		return nil, ErrMissing()
	}
	if err := requireAskedTypes(ctx, where, 0); err != nil {
		return nil, err
	}
	nouns, all := VisibleEvents(p)
	if all {
		return where, nil
	}
	vis := &ent.EventWhereInput{}
	if len(nouns) == 0 {
		none := resourceid.ID("") // no event has an empty id
		vis.ID = &none
	}
	for _, n := range nouns {
		prefix := n + "."
		vis.Or = append(vis.Or, &ent.EventWhereInput{TypeHasPrefix: &prefix})
	}
	if where == nil {
		return vis, nil
	}
	if _, err := where.P(); errors.Is(err, ent.ErrEmptyEventWhereInput) {
		return vis, nil
	}
	return &ent.EventWhereInput{And: []*ent.EventWhereInput{where, vis}}, nil
}

// requireAskedTypes applies RequireEventType to the types where names with
// type and typeIn, at its top level and in and: (what every event it selects
// has); other conditions on the type are narrowed silently.
func requireAskedTypes(ctx context.Context, where *ent.EventWhereInput, depth int) error {
	if where == nil || depth > 16 {
		return nil
	}
	if where.Type != nil {
		if err := RequireEventType(ctx, *where.Type); err != nil {
			return err
		}
	}
	for _, t := range where.TypeIn {
		if err := RequireEventType(ctx, t); err != nil {
			return err
		}
	}
	for _, a := range where.And {
		if err := requireAskedTypes(ctx, a, depth+1); err != nil {
			return err
		}
	}
	return nil
}
