package auth

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"logistics/internal/apperr"
)

// The filter rule of the policy (SPEC §7): a filter that traverses a
// relation needs read scope on the related type. A key that may read hubs
// but not orders must not learn which orders exist through
// hubs(where: {hasOrdersWith: …}) or hasOrders: true.
//
// One walker serves both doorways: it reads the generated ent
// <T>WhereInput structs by reflection — the very values gqlgen decodes a
// where: argument into and internal/filter builds from a REST query string.
// Every has<Edge> and has<Edge>With field is a traversal to the type named
// by has<Edge>With's element (OrderWhereInput → Order), whose scopes come
// from the policy table (TypeScopes); not, and and or are walked too, at any
// depth.

// whereSuffix ends the name of every generated where input type.
const whereSuffix = "WhereInput"

// edgeField is one traversal of a where input type.
type edgeField struct {
	index  int    // the struct field
	name   string // its JSON name: "hasOrdersWith", "hasOrders"
	target string // the GraphQL type of the edge: "Order"
	nested bool   // []*<Target>WhereInput (walked further), else *bool
}

// wherePlan is what the walker needs of one where input type.
type wherePlan struct {
	edges []edgeField
	self  []int // not, and, or: fields of the type itself
}

var wherePlans sync.Map // reflect.Type → *wherePlan

// IsWhereInput reports whether t (or what it points to) is a generated where
// input type.
func IsWhereInput(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && strings.HasSuffix(t.Name(), whereSuffix) && len(t.Name()) > len(whereSuffix)
}

func planOf(t reflect.Type) *wherePlan {
	if p, ok := wherePlans.Load(t); ok {
		return p.(*wherePlan)
	}
	p := &wherePlan{}
	withTarget := map[string]string{} // "Orders" → "Order"
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		edge, ok := strings.CutPrefix(f.Name, "Has")
		if base, with := strings.CutSuffix(edge, "With"); ok && with && f.Type.Kind() == reflect.Slice && IsWhereInput(f.Type.Elem()) {
			el := f.Type.Elem()
			for el.Kind() == reflect.Pointer {
				el = el.Elem()
			}
			withTarget[base] = strings.TrimSuffix(el.Name(), whereSuffix)
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Name == "Not" || f.Name == "And" || f.Name == "Or":
			p.self = append(p.self, i)
		case strings.HasPrefix(f.Name, "Has") && strings.HasSuffix(f.Name, "With") && withTarget[strings.TrimSuffix(strings.TrimPrefix(f.Name, "Has"), "With")] != "":
			p.edges = append(p.edges, edgeField{index: i, name: name, target: withTarget[strings.TrimSuffix(strings.TrimPrefix(f.Name, "Has"), "With")], nested: true})
		case strings.HasPrefix(f.Name, "Has") && withTarget[strings.TrimPrefix(f.Name, "Has")] != "":
			p.edges = append(p.edges, edgeField{index: i, name: name, target: withTarget[strings.TrimPrefix(f.Name, "Has")]})
		}
	}
	wherePlans.Store(t, p)
	return p
}

// FilterNeed is one scope a filter needs, and the first place that needs it.
type FilterNeed struct {
	Scope string // "orders:read"
	Path  string // "hasOrdersWith" or "or[1].hasItemsWith[0].hasPartWith"
	Type  string // the related GraphQL type, "Order"
}

// FilterScopes lists the scopes that the relations a where input traverses
// need (in policy-table order, each once), with the first path needing each.
// where is an ent <T>WhereInput or a pointer to one; anything else (nil
// included) needs nothing. A related type that the policy does not know
// needs a scope no caller has, so the filter is refused rather than leak.
func FilterScopes(where any) []FilterNeed {
	v := reflect.ValueOf(where)
	var out []FilterNeed
	walkWhere(v, "", func(path, target string) {
		scopes, ok := TypeScopes(target)
		if !ok {
			scopes = []string{"unknown:" + target}
		}
		for _, s := range scopes {
			if !slices.ContainsFunc(out, func(n FilterNeed) bool { return n.Scope == s }) {
				out = append(out, FilterNeed{Scope: s, Path: path, Type: target})
			}
		}
	})
	slices.SortStableFunc(out, func(a, b FilterNeed) int { return scopeRank(a.Scope) - scopeRank(b.Scope) })
	return out
}

func scopeRank(s string) int {
	if i := slices.Index(ReadScopes(), s); i >= 0 {
		return i
	}
	return len(Policy)
}

func walkWhere(v reflect.Value, path string, visit func(path, target string)) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if !v.IsValid() || !IsWhereInput(v.Type()) {
		return
	}
	p := planOf(v.Type())
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	for _, e := range p.edges {
		f := v.Field(e.index)
		if e.nested {
			if f.Len() == 0 {
				continue
			}
			visit(join(e.name), e.target)
			for i := range f.Len() {
				walkWhere(f.Index(i), fmt.Sprintf("%s[%d]", join(e.name), i), visit)
			}
			continue
		}
		if !f.IsNil() {
			visit(join(e.name), e.target)
		}
	}
	for _, i := range p.self {
		f := v.Field(i)
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if f.Kind() == reflect.Slice {
			for j := range f.Len() {
				walkWhere(f.Index(j), fmt.Sprintf("%s[%d]", join(name), j), visit)
			}
			continue
		}
		walkWhere(f, join(name), visit)
	}
}

// RequireFilter refuses a where input that traverses a relation to a type the
// caller may not read: FORBIDDEN (403, insufficient_scope) naming the scope
// and the filter path. GraphQL (every where: argument, at any depth, in both
// executors) and REST (every list's query-string filter) both call it.
func RequireFilter(ctx context.Context, where any) error {
	return RequireFilterAt(ctx, where, "")
}

// RequireFilterAt is RequireFilter for a where input found at prefix of its
// input ("filters.order": a webhook endpoint's filter), which the paths it
// names start with.
func RequireFilterAt(ctx context.Context, where any, prefix string) error {
	needs := FilterScopes(where)
	if len(needs) == 0 {
		return nil
	}
	p := FromContext(ctx)
	if p == nil {
		return ErrMissing()
	}
	for _, n := range needs {
		if p.Has(n.Scope) {
			continue
		}
		if prefix != "" {
			n.Path = prefix + "." + n.Path
		}
		return apperr.Forbidden("insufficient_scope", "this %s lacks the scope %s, needed to filter through the relation to %s (%s)", p.Kind, n.Scope, n.Type, n.Path).
			WithDetail("scope", n.Scope).
			WithDetail("filter", n.Path).
			WithHeader("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, error="insufficient_scope", scope=%q`, Realm, n.Scope))
	}
	return nil
}

// EdgeScopes returns the scopes that filtering a where input type (an ent
// <T>WhereInput type) through its edge field named edge ("hasHubWith" or
// "hasHub") needs, for documentation (the OpenAPI document's REST filters).
func EdgeScopes(whereType reflect.Type, edge string) []string {
	for whereType.Kind() == reflect.Pointer {
		whereType = whereType.Elem()
	}
	if !IsWhereInput(whereType) {
		return nil
	}
	for _, e := range planOf(whereType).edges {
		if e.name == edge {
			if s, ok := TypeScopes(e.target); ok {
				return s
			}
			return []string{"unknown:" + e.target}
		}
	}
	return nil
}
