package auth

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"logistics/internal/apperr"
	"logistics/internal/environment"
)

// Realm is the realm of every WWW-Authenticate challenge.
const Realm = "logistics"

// Policy is THE scope table: each resource, the scopes that guard it, the
// GraphQL object types that belong to it and the events that describe it.
// The REST route table (Need), the GraphQL schema (@hasScope, and the type
// guard in graph/) and every door of the event log (events.go) read it.
var Policy = []Resource{
	{Name: "hubs", GraphQLTypes: []string{"Hub"}, Events: []string{"hub"}},
	{Name: "parts", GraphQLTypes: []string{"Part"}, Events: []string{"part"}},
	{Name: "items", GraphQLTypes: []string{"Item"}, Events: []string{"item", "items"}},
	{Name: "orders", GraphQLTypes: []string{"Order", "OrderLine", "OrderEvent"}, Events: []string{"order", "order_line"}},
	{Name: "tracking", GraphQLTypes: []string{"TrackingEntry"}, Events: []string{"tracking_entry"}},
	{Name: "workflows", GraphQLTypes: []string{"Workflow"}, Events: []string{"workflow"}},
	{Name: "webhooks", GraphQLTypes: []string{"WebhookEndpoint", "WebhookDelivery"}, Events: []string{"webhook_endpoint", "webhook"}},
	// Trusted documents (internal/documents): reading them shows the
	// operations an app sends, so it has its own read scope.
	{Name: "documents", GraphQLTypes: []string{"TrustedDocument"}},
	// graphql:adhoc lets a key or user send any GraphQL document where the
	// environment runs only trusted ones (docs/graphql.md: Trusted
	// documents). It guards no data: no read scope, no types.
	{Name: "graphql", Only: []string{"graphql:adhoc"}},
	// sandbox:write drives the sandbox's own machinery (reset, test clock); production answers 404 for it.
	{Name: "sandbox", Only: []string{"sandbox:write"}},
}

// Resource is one row of the policy table.
type Resource struct {
	Name         string   // "hubs": its scopes are hubs:read and hubs:write
	GraphQLTypes []string // object types readable with Name:read
	// Events are the nouns of the event types that describe the resource
	// (the part before the first dot: "order" for order.created): an event
	// of such a type is visible to a caller holding Name:read.
	Events []string
	// Only, when set, are the row's scopes instead of Name:read and
	// Name:write (a permission that is not about reading or writing data).
	Only []string
}

// Read is the resource's read scope.
func (r Resource) Read() string { return r.Name + ":read" }

// Write is the resource's write scope.
func (r Resource) Write() string { return r.Name + ":write" }

// AllScopes lists every scope, in the order of the table.
func AllScopes() []string {
	var out []string
	for _, r := range Policy {
		if r.Only != nil {
			out = append(out, r.Only...)
			continue
		}
		out = append(out, r.Read(), r.Write())
	}
	return out
}

// ReadScopes lists every read scope.
func ReadScopes() []string {
	var out []string
	for _, r := range Policy {
		if r.Only == nil {
			out = append(out, r.Read())
		}
	}
	return out
}

// TypeScopes returns the scopes needed to read a GraphQL object of the named
// type ("Hub", "HubConnection", "HubEdge", "HubGroup"), and whether the type
// is guarded.
// Domain events (Event) are guarded row by row, by their type
// (EventTypeScopes): the type itself needs no scope, and every door of the
// event log shows a caller only the events it may read.
func TypeScopes(typeName string) ([]string, bool) {
	typeScopesOnce.Do(buildTypeScopes)
	scopes, ok := typeScopes[typeName]
	return scopes, ok
}

// RequireType requires what reading an object of the named GraphQL type
// needs: its read scopes when the type is guarded, nothing otherwise (scalars,
// PageInfo…). Both of graph's executors apply it to every object field.
func RequireType(ctx context.Context, typeName string) error {
	if scopes, ok := TypeScopes(typeName); ok {
		return RequireAll(ctx, scopes)
	}
	return nil
}

// typeScopes is TypeScopes' answer for every guarded type name, built once:
// the GraphQL field middleware asks for every field of every response.
var (
	typeScopes     map[string][]string
	typeScopesOnce sync.Once
)

func buildTypeScopes() {
	typeScopes = map[string][]string{}
	// <T>Group: a group of the aggregates of T (internal/aggregate) shows
	// what T's rows hold, so it needs what reading T needs.
	add := func(base string, scopes []string) {
		for _, suffix := range []string{"", "Connection", "Edge", "Group"} {
			typeScopes[base+suffix] = scopes
		}
	}
	for _, r := range Policy {
		for _, t := range r.GraphQLTypes {
			add(t, []string{r.Read()})
		}
	}
	add("Event", []string{})
}

// ParseScopes checks a list of scopes; "all" stands for every scope and
// "read" for every read scope. The result is sorted in table order, without
// duplicates.
func ParseScopes(in []string) ([]string, error) {
	want := map[string]bool{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		switch s {
		case "":
			continue
		case "all":
			for _, a := range AllScopes() {
				want[a] = true
			}
			continue
		case "read":
			for _, a := range ReadScopes() {
				want[a] = true
			}
			continue
		}
		if !slices.Contains(AllScopes(), s) {
			return nil, apperr.Invalid("scopes", "unknown scope %q (known: %s, or all)", s, strings.Join(AllScopes(), ", "))
		}
		want[s] = true
	}
	if len(want) == 0 {
		return nil, apperr.Invalid("scopes", "give at least one scope")
	}
	var out []string
	for _, a := range AllScopes() {
		if want[a] {
			out = append(out, a)
		}
	}
	return out, nil
}

// RoleScopes is what a console session of a user with the role may do:
// viewers read, everyone else reads and writes; owners and admins may also
// send any GraphQL document (graphql:adhoc) where an environment runs only
// trusted ones for sessions, members may not: they use the apps.
func RoleScopes(role string) []string {
	switch role {
	case "viewer":
		return ReadScopes()
	case "owner", "admin":
		return AllScopes()
	}
	return slices.DeleteFunc(AllScopes(), func(s string) bool { return s == adhocScope })
}

// adhocScope is documents.AdhocScope (auth imports no domain package).
const adhocScope = "graphql:adhoc"

// SandboxScope guards the sandbox-only doors (a reset, the test clock):
// outside the sandbox they do not exist, so Require answers NOT_FOUND (404)
// for it there, to every caller, before looking at credentials.
const SandboxScope = "sandbox:write"

// ErrSandboxOnly is the answer of a sandbox-only door outside the sandbox.
func ErrSandboxOnly() *apperr.Error {
	return apperr.NotFound("not found: this is for the sandbox only")
}

// Require checks that the request's caller holds scope ("" = any valid
// caller). It fails with UNAUTHENTICATED (401) when there is no caller and
// FORBIDDEN (403, insufficient_scope) when the scope is missing; for
// SandboxScope outside the sandbox, with NOT_FOUND (404).
func Require(ctx context.Context, scope string) error {
	if scope == SandboxScope {
		if env := environment.FromContext(ctx); env == nil || env.Name != environment.Sandbox {
			return ErrSandboxOnly()
		}
	}
	p, _ := ctx.Value(ctxKey{}).(*Principal)
	if p == nil {
		return ErrMissing()
	}
	if !p.Has(scope) {
		return apperr.Forbidden("insufficient_scope", "this %s lacks the scope %s", p.Kind, scope).
			WithDetail("scope", scope).
			WithHeader("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, error="insufficient_scope", scope=%q`, Realm, scope))
	}
	return nil
}

// RequireAll is Require for each scope.
func RequireAll(ctx context.Context, scopes []string) error {
	for _, s := range scopes {
		if err := Require(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// Need wraps a REST handler with a scope check ("" = any valid caller):
//
//	mux.Handle("POST /v1/orders", auth.Need("orders:write", handleCreateOrder(svc)))
func Need(scope string, h http.Handler) http.Handler {
	if scope != "" && !slices.Contains(AllScopes(), scope) {
		panic("auth.Need: unknown scope " + scope)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := Require(r.Context(), scope); err != nil {
			apperr.Write(w, r, nil, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ErrMissing is the 401 for a request without credentials.
func ErrMissing() *apperr.Error {
	return apperr.Unauthenticated("missing_credentials",
		"send an API key as Authorization: Bearer <key>, or sign in to the console").
		WithHeader("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q`, Realm))
}

// errInvalid is the 401 for credentials that are wrong, revoked or expired.
func errInvalid(format string, a ...any) *apperr.Error {
	return apperr.Unauthenticated("invalid_token", format, a...).
		WithHeader("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, error="invalid_token", error_description=%q`, Realm, fmt.Sprintf(format, a...)))
}
