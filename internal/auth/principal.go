// Package auth decides who is calling and what they may do: API keys,
// console sessions and the one scope policy that REST and GraphQL share.
package auth

import "context"

// Principal is the authenticated caller of a request.
type Principal struct {
	ID     string   // tok_… for an API key, usr_… for a console session
	Kind   string   // "token" or "session"
	Scopes []string // what the caller may do
}

type ctxKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the caller, or nil when there is none.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(ctxKey{}).(*Principal)
	return p
}

// Actor names the caller for audit records ("system" outside a request).
func Actor(ctx context.Context) string {
	if p := FromContext(ctx); p != nil {
		return p.ID
	}
	return "system"
}
