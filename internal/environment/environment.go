// Package environment routes each request to production or the sandbox. Each
// environment has its own base address and its own database; data never
// crosses between them.
package environment

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"logistics/ent"
	"logistics/internal/database"
	"logistics/internal/eventlog"
)

// Name is an environment's name.
type Name string

// The two environments.
const (
	Production Name = "production"
	Sandbox    Name = "sandbox"
)

// KeyPrefix is the prefix of the API keys that belong to the environment.
func (n Name) KeyPrefix() string {
	if n == Sandbox {
		return "lsk_test_"
	}
	return "lsk_live_"
}

// Env is one environment: its base address and its database.
type Env struct {
	Name    Name
	BaseURL *url.URL // e.g. http://127.0.0.1:8080/sandbox
	DB      *database.DB
	// Events wakes the environment's event waiters when events commit
	// (nil: nobody is woken; readers still poll).
	Events *eventlog.Log
	// Clock is the environment's clock for occurred_at: the sandbox's test
	// clock (internal/sandbox); nil in production, which runs on real time.
	Clock eventlog.Clock
}

// Path returns the absolute path of p ("/graphql") under the base address.
func (e *Env) Path(p string) string { return strings.TrimSuffix(e.BaseURL.Path, "/") + p }

// URL returns the absolute URL of p under the base address.
func (e *Env) URL(p string) string {
	return strings.TrimSuffix(e.BaseURL.String(), "/") + p
}

// Set holds the environments and routes requests to them.
type Set struct {
	envs       []*Env // longest base path first
	byHost     bool   // the base addresses differ by host: route by Host
	production *Env
}

// NewSet validates the base addresses: both environments present, and their
// addresses distinct by host or by path.
func NewSet(envs ...*Env) (*Set, error) {
	s := &Set{}
	hosts := map[string]bool{}
	for _, e := range envs {
		if e.BaseURL == nil || e.BaseURL.Scheme == "" || e.BaseURL.Host == "" {
			return nil, fmt.Errorf("environment %s: base URL must be absolute, e.g. http://127.0.0.1:8080", e.Name)
		}
		if e.BaseURL.RawQuery != "" || e.BaseURL.Fragment != "" {
			return nil, fmt.Errorf("environment %s: base URL must not have a query or fragment", e.Name)
		}
		e.BaseURL.Path = strings.TrimSuffix(e.BaseURL.Path, "/")
		hosts[strings.ToLower(e.BaseURL.Host)] = true
		if e.Name == Production {
			s.production = e
		}
		s.envs = append(s.envs, e)
	}
	s.byHost = len(hosts) > 1
	sort.SliceStable(s.envs, func(i, j int) bool { return len(s.envs[i].BaseURL.Path) > len(s.envs[j].BaseURL.Path) })
	for i, a := range s.envs {
		for _, b := range s.envs[i+1:] {
			if a.BaseURL.Path == b.BaseURL.Path && (!s.byHost || strings.EqualFold(a.BaseURL.Host, b.BaseURL.Host)) {
				return nil, fmt.Errorf("environments %s and %s have the same base address %s", a.Name, b.Name, a.BaseURL)
			}
		}
	}
	return s, nil
}

// All returns the environments.
func (s *Set) All() []*Env { return s.envs }

// Get returns the environment with the given name, or nil.
func (s *Set) Get(n Name) *Env {
	for _, e := range s.envs {
		if e.Name == n {
			return e
		}
	}
	return nil
}

// Production returns the production environment, whose database also holds
// the console's users and sessions and every API token.
func (s *Set) Production() *Env { return s.production }

// Match finds the environment whose base address the request falls under and
// returns the request path relative to it ("/v1/status"). When the two base
// addresses differ by host, the Host header decides; when they share a host,
// the longest matching path prefix does (so 127.0.0.1 and localhost both work
// locally).
func (s *Set) Match(r *http.Request) (*Env, string, bool) {
	for _, e := range s.envs {
		if s.byHost && !strings.EqualFold(hostOnly(r.Host), hostOnly(e.BaseURL.Host)) {
			continue
		}
		base := e.BaseURL.Path
		p := r.URL.Path
		if base == "" {
			return e, p, true
		}
		if p == base {
			return e, "/", true
		}
		if strings.HasPrefix(p, base+"/") {
			return e, p[len(base):], true
		}
	}
	return nil, "", false
}

func hostOnly(h string) string {
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
		return h[:i]
	}
	return h
}

type ctxKey struct{}

// NewContext returns ctx carrying env and its ent client (ent.FromContext).
func NewContext(ctx context.Context, env *Env) context.Context {
	ctx = context.WithValue(ctx, ctxKey{}, env)
	if env.Events != nil {
		ctx = eventlog.NewContext(ctx, env.Events)
	}
	ctx = eventlog.NewClockContext(ctx, env.Clock)
	return ent.NewContext(ctx, env.DB.Client)
}

// FromContext returns the request's environment, or nil outside a request.
func FromContext(ctx context.Context) *Env {
	e, _ := ctx.Value(ctxKey{}).(*Env)
	return e
}
