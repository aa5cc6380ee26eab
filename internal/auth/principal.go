// Package auth decides who is calling and what they may do: API keys,
// console sessions and the one scope policy that REST and GraphQL share.
package auth

import (
	"context"
	"slices"
)

// Principal is the authenticated caller of a request.
type Principal struct {
	ID     string   // tok_… for an API key, usr_… for a console session
	Kind   string   // KindToken or KindSession
	Scopes []string // what the caller may do

	Environment string // the environment of an API key ("" for a session)
	TokenName   string // the API key's name
	TokenPrefix string // the API key's first characters (lsk_live_ABC123)
	UserID      string // the key's creator, or the session's user
	Email       string // the session's user
	Role        string // the session's user's role
	SessionID   string // ses_… for a console session
}

// The kinds of principal.
const (
	KindToken   = "token"
	KindSession = "session"
)

// Has reports whether the principal holds scope. A write scope implies the
// read scope of the same resource; the empty scope is held by every caller.
func (p *Principal) Has(scope string) bool {
	if p == nil {
		return false
	}
	if scope == "" {
		return true
	}
	if slices.Contains(p.Scopes, scope) {
		return true
	}
	if res, ok := cutSuffix(scope, ":read"); ok {
		return slices.Contains(p.Scopes, res+":write")
	}
	return false
}

// RateKey is the bucket the principal's requests are counted in: the key,
// or the session (not the user: each login has its own allowance).
func (p *Principal) RateKey() string {
	if p.SessionID != "" {
		return p.SessionID
	}
	return p.ID
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
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
