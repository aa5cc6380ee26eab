package graph

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"database/sql/driver"
	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"go.opentelemetry.io/otel/trace"

	"logistics/ent"
	"logistics/graph/generated"
	"logistics/internal/auth"
	"logistics/internal/documents"
	"logistics/internal/eventlog"
	"logistics/internal/eventstream"
	"logistics/internal/sandbox"
	"logistics/internal/service"
	"logistics/internal/webhooks"
)

// Options configure the GraphQL endpoint.
type Options struct {
	MaxDepth      int   // deepest selection allowed (__Type.ofType not counted)
	MaxComplexity int   // largest operation cost allowed (cost.go: the model)
	MaxBodyBytes  int64 // largest request body
	// MaxFields is the most fields a document may spell out (aliases and
	// repetitions included), checked before validation with the other
	// counts of doclimits.go.
	MaxFields int
	// MaxListLength is the most elements a plain list of objects (not a
	// connection) may have; it is also what such a list costs.
	MaxListLength    int
	MaxResponseBytes int           // largest response body (data, errors, extensions); 0: no limit
	MaxExecutionTime time.Duration // longest execution of one request; 0: no limit
	Logger           *slog.Logger
	Auth             *auth.Store // users and API tokens (the production database)
	// NoFastPath executes every query through gqlgen alone (see fastpath.go);
	// tests use it to compare the two.
	NoFastPath     bool
	FastPathCounts *FastPathCounts // counted here when set

	// Subscriptions (docs/subscriptions.md).
	Streams       *eventstream.Broker      // nil: subscriptions are refused
	Authenticator *auth.Authenticator      // authenticates a WebSocket's connection_init payload
	AllowOrigin   func(origin string) bool // more browser origins a WebSocket may come from than the environment's own
	KeepAlive     time.Duration            // WebSocket ping and SSE comment interval (0: 15 s)
	OutBuffer     int                      // messages waiting for a subscriber's connection before it is closed as too slow (0: 256)
	Recheck       time.Duration            // how often a subscription re-checks its credentials (0: 2 s)
	// Webhooks manages webhook endpoints (the same code as REST).
	Webhooks *webhooks.Manager
	// Sandbox is the sandbox's test clock (the same code as REST).
	Sandbox *sandbox.Clock
	// Extensions are added before the handler's own (the request metrics'
	// operation type: it must see operations that a limit refuses).
	Extensions []graphql.HandlerExtension
	// Tracer makes a span per query and mutation (tracing.go); nil: none.
	Tracer trace.Tracer
	// Trusted documents (trusted.go).
	Trusted TrustedOptions
	// Parses counts the documents parsed and validated (gqlgen's query
	// cache misses) when set.
	Parses *atomic.Int64
}

// DefaultOptions are the limits used unless configured otherwise.
var DefaultOptions = Options{
	MaxDepth: 12, MaxComplexity: 60_000, MaxBodyBytes: 1 << 20, MaxFields: 500, MaxListLength: 100,
	MaxResponseBytes: 16 << 20, MaxExecutionTime: 10 * time.Second,
}

// NewHandler returns the GraphQL-over-HTTP endpoint. It expects the
// environment middleware to have put the environment's ent client into the
// request context. Every mutation operation runs in one transaction.
func NewHandler(svc *service.Service, opt Options) http.Handler {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.KeepAlive <= 0 {
		opt.KeepAlive = 15 * time.Second
	}
	if opt.OutBuffer <= 0 {
		opt.OutBuffer = 256
	}
	if opt.Trusted.Store == nil {
		opt.Trusted.Store = documents.NewStore(0)
	}
	if opt.Recheck <= 0 {
		opt.Recheck = 2 * time.Second
	}
	cfg := generated.Config{Resolvers: &Resolver{Service: svc, Auth: opt.Auth, Documents: opt.Trusted.Store, Streams: opt.Streams, Recheck: opt.Recheck, OutBuffer: opt.OutBuffer, Log: opt.Logger, Webhooks: opt.Webhooks, Sandbox: opt.Sandbox}}
	cfg.Directives.HasScope = hasScope
	schema := generated.NewExecutableSchema(cfg)
	cost := newCostLimits(schema.Schema(), opt)
	srv := handler.New(schema)
	// Subscriptions: graphql-transport-ws over WebSocket, and GraphQL over
	// Server-Sent Events (POST with Accept: text/event-stream); then
	// queries and mutations over HTTP. The first transport that supports a
	// request serves it.
	srv.AddTransport(newWSTransport(opt))
	srv.AddTransport(sseTransport{SSE: gqltransport.SSE{KeepAlivePingInterval: opt.KeepAlive}, broker: opt.Streams})
	srv.AddTransport(transport{maxBody: opt.MaxBodyBytes, costLimit: opt.MaxComplexity})
	var parsed graphql.Cache[*ast.QueryDocument] = lru.New[*ast.QueryDocument](1000)
	if opt.Parses != nil {
		parsed = parseCounter{Cache: parsed, n: opt.Parses}
	}
	srv.SetQueryCache(parsed)
	srv.SetValidationRulesFn(boundedRules)
	for _, e := range opt.Extensions {
		srv.Use(e)
	}
	srv.Use(responseLimits{maxBytes: opt.MaxResponseBytes}) // first of the handler's own: the outermost, it sees every response last
	if opt.Tracer != nil {
		srv.Use(operationSpans{tracer: opt.Tracer}) // around everything that executes the operation
	}
	srv.Use(extension.Introspection{})
	srv.Use(trustedLookup{store: opt.Trusted.Store, log: opt.Logger}) // before APQ: a trusted hash is the database's, on every instance
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	srv.Use(trustedGate{store: opt.Trusted.Store, policy: opt.Trusted.Policy, untrusted: opt.Trusted.Untrusted, log: opt.Logger})
	srv.Use(newDocumentLimits(opt.MaxFields, parsed)) // after the persisted query's document is in place
	srv.Use(streamMutations{})
	srv.Use(&inputLimits{})
	srv.Use(depthLimit{max: opt.MaxDepth})
	srv.Use(pageLimits{mu: &sync.Mutex{}})
	srv.Use(cost)
	srv.Use(readRouting{})                                // a mutation's reads on the primary, before anything reads
	srv.Use(txOpenErrors{present: presenter(opt.Logger)}) // outside the Transactioner
	srv.Use(entgql.Transactioner{TxOpener: entgql.TxOpenerFunc(openTx)})
	srv.AroundFields(cost.plan.fieldPolicy)
	if !opt.NoFastPath {
		fast := generated.NewFastPath(schema, allowType, allowArgs)
		fast.MaxList = opt.MaxListLength
		fast.AllowNode = allowNode
		srv.AroundRootFields(fastQueryFields(fast, opt.FastPathCounts))
	}
	srv.SetErrorPresenter(presenter(opt.Logger))
	srv.SetRecoverFunc(recoverer(opt.Logger))
	return srv
}

// openTx starts a transaction on the request's environment database and
// makes it the client that resolvers and the service layer see.
func openTx(ctx context.Context) (context.Context, driver.Tx, error) {
	outside := ent.FromContext(ctx)
	tx, err := outside.Tx(ctx)
	if err != nil {
		keepTxOpenError(ctx, err)
		return nil, nil, err
	}
	ctx = ent.NewTxContext(ctx, tx)
	// Events recorded by the mutation are numbered and written at commit.
	ctx = eventlog.Begin(ctx, tx)
	if oneRootField(graphql.GetOperationContext(ctx).Operation) {
		// Its one service call fails the operation when it fails: the
		// service may check references after a failed write (refs.go).
		ctx = service.SingleCall(ctx, outside)
	}
	return ent.NewContext(ctx, tx.Client()), tx, nil
}

// oneRootField reports whether op selects exactly one field at its root
// (fragments there count as more: what they hold is not looked at).
func oneRootField(op *ast.OperationDefinition) bool {
	if op == nil || len(op.SelectionSet) != 1 {
		return false
	}
	_, ok := op.SelectionSet[0].(*ast.Field)
	return ok
}

var _ graphql.HandlerExtension = depthLimit{}
