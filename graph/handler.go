package graph

import (
	"context"
	"log/slog"
	"net/http"
	"sync"

	"database/sql/driver"
	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/ent"
	"logistics/graph/generated"
	"logistics/internal/auth"
	"logistics/internal/service"
	"logistics/internal/webhooks"
)

// Options configure the GraphQL endpoint.
type Options struct {
	MaxDepth      int   // deepest selection allowed (introspection excepted)
	MaxComplexity int   // largest query cost allowed; connections cost first × their children
	MaxBodyBytes  int64 // largest request body
	Logger        *slog.Logger
	Auth          *auth.Store // users and API tokens (the production database)
	// NoFastPath executes every query through gqlgen alone (see fastpath.go);
	// tests use it to compare the two.
	NoFastPath     bool
	FastPathCounts *FastPathCounts // counted here when set
	Webhooks       *webhooks.Manager
}

// DefaultOptions are the limits used unless configured otherwise.
var DefaultOptions = Options{MaxDepth: 12, MaxComplexity: 50_000, MaxBodyBytes: 1 << 20}

// NewHandler returns the GraphQL-over-HTTP endpoint. It expects the
// environment middleware to have put the environment's ent client into the
// request context. Every mutation operation runs in one transaction.
func NewHandler(svc *service.Service, opt Options) http.Handler {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	cfg := generated.Config{Resolvers: &Resolver{Service: svc, Auth: opt.Auth, Webhooks: opt.Webhooks}}
	cfg.Directives.HasScope = hasScope
	costConnections(&cfg.Complexity)
	schema := generated.NewExecutableSchema(cfg)
	srv := handler.New(schema)
	srv.AddTransport(transport{maxBody: opt.MaxBodyBytes})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	srv.Use(depthLimit{max: opt.MaxDepth})
	srv.Use(pageLimits{mu: &sync.Mutex{}})
	srv.Use(extension.FixedComplexityLimit(opt.MaxComplexity))
	srv.Use(entgql.Transactioner{TxOpener: entgql.TxOpenerFunc(openTx)})
	srv.AroundFields(scopeGuard)
	if !opt.NoFastPath {
		srv.AroundRootFields(fastQueryFields(generated.NewFastPath(schema, allowType), opt.FastPathCounts))
	}
	srv.SetErrorPresenter(presenter(opt.Logger))
	srv.SetRecoverFunc(recoverer(opt.Logger))
	return srv
}

// openTx starts a transaction on the request's environment database and
// makes it the client that resolvers and the service layer see.
func openTx(ctx context.Context) (context.Context, driver.Tx, error) {
	tx, err := ent.FromContext(ctx).Tx(ctx)
	if err != nil {
		return nil, nil, err
	}
	ctx = ent.NewTxContext(ctx, tx)
	return ent.NewContext(ctx, tx.Client()), tx, nil
}

var _ graphql.HandlerExtension = depthLimit{}
