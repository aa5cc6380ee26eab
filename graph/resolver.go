// Package graph is the GraphQL interface: the schema in schema/*.graphqls,
// resolvers of a few lines each over the service layer, and the HTTP handler
// that serves GraphQL over HTTP.
package graph

import (
	"log/slog"
	"time"

	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/eventstream"
	"logistics/internal/service"
)

// Resolver is the root of dependency injection for the resolvers. It holds no
// database client: resolvers read the environment's client (or the current
// transaction) from the request context.
type Resolver struct {
	Service   *service.Service
	Auth      *auth.Store         // users and API tokens, in the production database
	Streams   *eventstream.Broker // live subscriptions; nil: subscriptions refused
	Recheck   time.Duration       // how often a subscription checks its caller's credentials again
	OutBuffer int                 // messages waiting for a subscription's client before it is closed as too slow
	Log       *slog.Logger
}

// Page sizes of connections: the default when neither first nor last is
// given, and the most one page may hold.
const (
	DefaultPageSize = 50
	MaxPageSize     = 500
)

// pageSize applies the default and the maximum to a connection's first/last.
func pageSize(first, last *int) (*int, *int, error) {
	for _, p := range []struct {
		name string
		v    *int
	}{{"first", first}, {"last", last}} {
		if p.v != nil && (*p.v < 0 || *p.v > MaxPageSize) {
			return nil, nil, apperr.Invalid(p.name, "must be between 0 and %d", MaxPageSize)
		}
	}
	if first == nil && last == nil {
		n := DefaultPageSize
		first = &n
	}
	return first, last, nil
}
