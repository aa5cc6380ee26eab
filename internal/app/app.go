package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/sqlgraph"
	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"

	"logistics/graph"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/console"
	"logistics/internal/database"
	"logistics/internal/demodata"
	"logistics/internal/documents"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/eventstream"
	"logistics/internal/favicon"
	"logistics/internal/metrics"
	"logistics/internal/playground"
	"logistics/internal/postgres"
	"logistics/internal/requestlog"
	"logistics/internal/sandbox"
	"logistics/internal/schedturns"
	"logistics/internal/service"
	"logistics/internal/sqlite"
	"logistics/internal/tracing"
	"logistics/internal/webhooks"
	"logistics/rest"
)

// App is the assembled service.
type App struct {
	Config  Config
	Log     *slog.Logger
	Envs    *environment.Set
	Service *service.Service
	Version string
	Metrics *metrics.Registry
	routes  map[*environment.Env]*metrics.Routes // the request metrics' routes (Handler)
	// statements time each environment's SQL statements (metrics.Statements).
	statements []*metrics.Statements
	// FastPath counts the GraphQL root query fields served by the fast path
	// and those it left to gqlgen (graph/fastpath.go), in every environment.
	FastPath graph.FastPathCounts
	Auth     *auth.Authenticator // authenticate + rate limit; Auth.Store holds users and tokens
	Login    *auth.LoginGuard    // sign-in attempts per account and per address
	// Origins are the browser origins trusted with credentials: the CORS
	// answers and the session checks (Auth.Origins) share them.
	Origins *auth.Origins
	Cookies auth.CookieOptions
	docs    fs.FS // README.md and docs/*.md (Options.Docs); nil: not served

	// Documents keeps every environment's trusted documents (documents.go).
	Documents *documents.Store
	// Parses counts the GraphQL documents parsed and validated (query-cache
	// misses), in every environment.
	Parses      atomic.Int64
	trustedOnce sync.Once
	untrusted   *prometheus.CounterVec

	faults Options           // HoldAfterCommit, HoldBeforeCommit: test-only faults
	redis  *auth.RedisLimits // nil without --redis-url

	// Streams feeds the GraphQL subscriptions of both environments; call
	// its Shutdown before the HTTP server's (see server.go).
	Streams *eventstream.Broker

	stopListen context.CancelFunc // ends the event notification listeners
	listening  sync.WaitGroup
	// Webhooks manages endpoints and sends deliveries (internal/webhooks);
	// its dispatcher runs from StartWebhooks until Close.
	Webhooks    *webhooks.Manager
	stopWebhook func()
	// Sandbox is the sandbox's test clock and simulated carriers
	// (internal/sandbox); its runner writes the entries that fall due from
	// StartWebhooks until Close.
	Sandbox *sandbox.Clock
	// Tracing is the OpenTelemetry tracer provider, nil when tracing is
	// off (no OTEL_* endpoint: internal/tracing.Start).
	Tracing *tracing.Provider
}

// Options adjust how an App opens its databases (tests count statements).
type Options struct {
	Driver func(dialect.Driver) dialect.Driver
	// PasswordCost overrides the bcrypt cost (tests use bcrypt.MinCost).
	PasswordCost int
	// Docs holds README.md and docs/*.md, served under each base address's
	// /docs/ and linked from its landing page.
	Docs fs.FS
	// HoldAfterCommit is the test-only fault of rest.Deps.HoldAfterCommit
	// (server.go reads it from LOGISTICS_TEST_HOLD_AFTER_COMMIT).
	HoldAfterCommit string
	// HoldBeforeCommit: see rest.Deps.HoldBeforeCommit (LOGISTICS_TEST_HOLD_BEFORE_COMMIT).
	HoldBeforeCommit string
	// Now and Jitter replace the webhook dispatcher's clock and retry jitter
	// (tests of the back-off).
	Now    func() time.Time
	Jitter func(time.Duration) time.Duration
	// Env is read for the OTEL_* variables of tracing (internal/tracing);
	// nil: tracing off (the subcommands other than serve).
	Env func(string) string
}

// Open opens and migrates both environments' databases and prepares them
// (built-in workflows). Close releases them.
func Open(ctx context.Context, cfg Config, log *slog.Logger, opt Options) (*App, error) {
	if err := cfg.DeriveAddresses(cfg.Addr); err != nil {
		return nil, err
	}
	tp, err := tracing.Start(opt.Env, Version())
	if err != nil {
		return nil, err
	}
	if tp != nil {
		log = slog.New(tracing.LogHandler(log.Handler())) // a request's lines carry its trace_id
		log.Info("tracing on: OpenTelemetry spans exported over OTLP/HTTP", "endpoint", tp.Endpoint, "sampler", tp.Sampler)
	}
	a, err := open(ctx, cfg, log, opt, tp)
	if err != nil {
		_ = tp.Shutdown(context.Background())
	}
	return a, err
}

func open(ctx context.Context, cfg Config, log *slog.Logger, opt Options, tp *tracing.Provider) (*App, error) {
	a := &App{Config: cfg, Log: log, Service: service.New(log), Version: Version(), Metrics: metrics.New(), faults: opt, docs: opt.Docs, Tracing: tp}
	if opt.HoldAfterCommit != "" || opt.HoldBeforeCommit != "" {
		log.Warn("fault injection on: a POST with this Idempotency-Key will never be answered (LOGISTICS_TEST_HOLD_*_COMMIT; for tests only)",
			"after_commit", opt.HoldAfterCommit, "before_commit", opt.HoldBeforeCommit)
	}
	schedule, _ := cfg.WebhookRetrySchedule() // checked by Validate
	a.Webhooks = webhooks.New(webhooks.Options{
		AllowPrivate: cfg.WebhookAllowPrivate, Schedule: schedule, Timeout: cfg.WebhookTimeout,
		Workers: cfg.WebhookWorkers, Poll: cfg.WebhookPoll, SecretGrace: cfg.WebhookSecretGrace,
		Now: opt.Now, Jitter: opt.Jitter, Tracer: tp.Tracer(),
	}, log)
	a.Service.Shipped = sandbox.Schedule
	a.Sandbox = &sandbox.Clock{Svc: a.Service, Hasten: a.Webhooks.Hasten}
	var envs []*environment.Env
	for _, e := range []struct {
		name           environment.Name
		dsn, url, read string
	}{
		{environment.Production, cfg.DB, cfg.BaseURL, cfg.ReadDB},
		{environment.Sandbox, cfg.SandboxDB, cfg.SandboxURL, cfg.SandboxReadDB},
	} {
		u, err := url.Parse(e.url)
		if err != nil {
			a.closeEnvs(envs)
			return nil, fmt.Errorf("%s base URL: %w", e.name, err)
		}
		// Statements are timed below the caller's wrapper (tests count
		// statements through it), right over the database's own driver.
		stmts := a.Metrics.Statements(string(e.name))
		a.statements = append(a.statements, stmts)
		wrap := func(d dialect.Driver) dialect.Driver {
			d = stmts.Wrap(d)
			if opt.Driver != nil {
				d = opt.Driver(d)
			}
			return d
		}
		db, err := database.Open(ctx, e.dsn, database.Options{Driver: wrap, SQLiteMemory: cfg.SQLiteMemoryBytes(), Synchronous: cfg.SQLiteSync, Tracing: tp,
			ReadDSN: e.read, ReadMaxLag: cfg.ReadMaxLag, ReadCheckInterval: cfg.ReadCheck})
		if err != nil {
			a.closeEnvs(envs)
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		if r := db.Replica; r != nil {
			s := r.Status()
			log.Info("database: read replica", "environment", e.name, "replica", r.Source, "state", s.State, "lag", s.Lag, "max_lag", r.MaxLag, "err", s.Err)
		}
		// Every endpoint change gives the endpoints' stamp a new value in its
		// transaction: the webhook fan-out's cache is checked against it.
		db.Client.WebhookEndpoint.Use(eventlog.StampEndpoints)
		if w := db.Durability.Warning; w != "" {
			log.Warn("database: commits are not power-safe: "+w, "environment", e.name, "database", db.Source, "durability", db.Durability.Mode)
		}
		a.Metrics.DBStats(string(e.name), db.SQL)
		env := &environment.Env{Name: e.name, BaseURL: u, DB: db, Events: eventlog.New(string(e.name), log)}
		if e.name == environment.Sandbox {
			env.Clock = sandbox.Now // occurred_at follows the test clock
		}
		envs = append(envs, env)
		a.Webhooks.Register(env) // before anything writes an event
		if err := db.Migrate(ctx); err != nil {
			a.closeEnvs(envs)
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		if err := a.Service.EnsureBuiltins(environment.NewContext(ctx, env)); err != nil {
			a.closeEnvs(envs)
			return nil, fmt.Errorf("%s: built-in workflows: %w", e.name, err)
		}
		if e.name == environment.Sandbox && !cfg.NoDemoData && cfg.DemoScale > 0 {
			if err := a.fillDemoData(ctx, env); err != nil {
				a.closeEnvs(envs)
				return nil, fmt.Errorf("%s: demo data: %w", e.name, err)
			}
		}
	}
	set, err := environment.NewSet(envs...)
	if err != nil {
		a.closeEnvs(envs)
		return nil, err
	}
	a.Envs = set
	a.registerMetrics()
	a.listen()
	store := auth.NewStore(set.Production().DB.Client, log)
	store.TokenCacheTTL = cfg.AuthCacheTTL
	if opt.PasswordCost != 0 {
		store.PasswordCost = opt.PasswordCost
	}
	var limits auth.Limits = auth.MemoryLimits{}
	if cfg.RedisURL != "" {
		rl, err := auth.NewRedisLimits(cfg.RedisURL, cfg.RedisPrefix, log)
		if err != nil {
			a.closeEnvs(envs)
			return nil, err
		}
		if err := rl.Ping(ctx); err != nil {
			log.Warn("rate limits: Redis does not answer: limiting in this instance's memory until it does", "err", err)
		}
		a.redis, limits = rl, rl
	}
	entries, err := auth.ParseOriginList(cfg.CORSOrigins)
	if err != nil {
		a.closeEnvs(envs)
		return nil, err
	}
	var bases []*url.URL
	for _, env := range set.All() {
		bases = append(bases, env.BaseURL)
	}
	a.Origins = auth.NewOrigins(bases, entries)
	a.Cookies = auth.CookieOptions{Secure: set.Production().BaseURL.Scheme == "https", SameSite: sameSite(cfg.CookieSameSite)}
	a.Auth = &auth.Authenticator{Store: store, Envs: set, Log: log, Origins: a.Origins}
	if cfg.RateLimit > 0 {
		a.Auth.Limiter = limits.New("api", cfg.RateLimit, cfg.RateBurst)
	}
	a.Login = auth.NewLoginGuardWith(limits)
	a.registerRedisMetrics()
	a.Streams = eventstream.New(eventstream.Options{PerKey: cfg.SubscriptionLimit, Buffer: cfg.SubscriptionBuffer, Log: log, Tracer: tp.Tracer()})
	if err := store.EnsureAdmin(ctx, cfg.AdminEmail, cfg.AdminPassword); err != nil {
		a.closeEnvs(envs)
		a.closeRedis()
		return nil, fmt.Errorf("first console user: %w", err)
	}
	return a, nil
}

// StartWebhooks runs the webhook dispatcher, and the sandbox's runner of
// simulated carriers, until Close. serve starts them (the other subcommands
// open the app without sending webhooks); so do tests.
func (a *App) StartWebhooks() {
	if a.stopWebhook != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Webhooks.Run(ctx, a.Envs.All())
	}()
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		a.Sandbox.Run(ctx, a.Envs.Get(environment.Sandbox), time.Second, a.Log)
	}()
	a.stopWebhook = func() { cancel(); <-done; <-ran }
}

// registerMetrics exposes each environment's connection pool at /metrics,
// and the GraphQL fast path's counts.
func (a *App) registerMetrics() {
	a.Metrics.Counter("logistics_graphql_fast_path_fields_total",
		"GraphQL root query fields the generated fast path served, or declined (gqlgen executed them).",
		[]string{"outcome"}, func() []metrics.Sample {
			return []metrics.Sample{
				{Labels: []string{"served"}, Value: float64(a.FastPath.Served.Load())},
				{Labels: []string{"declined"}, Value: float64(a.FastPath.Declined.Load())},
			}
		})
	a.Metrics.Counter("logistics_webhook_attempts_total",
		"Webhook delivery attempts this instance made, by outcome (delivered: a 2xx answer).",
		[]string{"outcome"}, func() []metrics.Sample {
			attempts, delivered := a.Webhooks.Counts()
			return []metrics.Sample{
				{Labels: []string{"delivered"}, Value: float64(delivered)},
				{Labels: []string{"failed"}, Value: float64(attempts - delivered)},
			}
		})
	a.Metrics.Gauge("logistics_subscriptions_open", "GraphQL subscriptions open on this instance, by transport (websocket, sse).",
		[]string{"environment", "transport"}, func() []metrics.Sample {
			if a.Streams == nil {
				return nil
			}
			var out []metrics.Sample
			for k, n := range a.Streams.Open() {
				out = append(out, metrics.Sample{Labels: []string{string(k.Environment), k.Transport}, Value: float64(n)})
			}
			return out
		})
	// The webhook queue is read from each database at scrape time: it is
	// shared by every instance, so any instance reports all of it (sum
	// across instances counts it once per instance: use max). One
	// statement per database serves both families (queueReader).
	q := &queueReader{a: a}
	for _, g := range []struct {
		name, help string
		read       func(queueFigures) float64
	}{
		{"logistics_webhook_queue_depth", "Webhook deliveries pending (due now or waiting for a retry), every instance's: the same at every instance sharing the database.",
			func(f queueFigures) float64 { return float64(f.depth) }},
		{"logistics_webhook_oldest_pending_age_seconds", "Age of the oldest pending webhook delivery (0: none pending), every instance's.",
			func(f queueFigures) float64 {
				if f.oldest.IsZero() {
					return 0
				}
				return max(f.at.Sub(f.oldest).Seconds(), 0)
			}},
	} {
		a.Metrics.Gauge(g.name, g.help, []string{"environment"}, func() []metrics.Sample {
			var out []metrics.Sample
			for _, f := range q.read() {
				if f.err != nil {
					continue // left out rather than reported as 0 (queueReader logs it)
				}
				out = append(out, metrics.Sample{Labels: []string{string(f.env.Name)}, Value: g.read(f)})
			}
			return out
		})
	}
	for _, g := range []struct {
		name, help string
		read       func(last, published int64, lag time.Duration) (float64, bool)
	}{
		{"logistics_event_log_sequence", "The last event sequence this instance knows committed (its own commits, and other instances' by notification on PostgreSQL).",
			func(last, _ int64, _ time.Duration) (float64, bool) { return float64(last), true }},
		{"logistics_event_log_published_sequence", "The last event sequence this instance's subscription reader handed to its subscribers (absent while no subscriber is open here).",
			func(_, pub int64, _ time.Duration) (float64, bool) { return float64(pub), pub >= 0 }},
		{"logistics_event_log_lag_seconds", "How long committed events have waited for this instance's subscription reader: 0 when it has handed out every event known committed (or no subscriber is open); otherwise the time since the newest known event first passed the last handed out.",
			func(_, _ int64, lag time.Duration) (float64, bool) { return lag.Seconds(), true }},
	} {
		a.Metrics.Gauge(g.name, g.help, []string{"environment"}, func() []metrics.Sample {
			var out []metrics.Sample
			now := time.Now()
			for _, env := range a.Envs.All() {
				if v, ok := g.read(env.Events.Lag(now)); ok {
					out = append(out, metrics.Sample{Labels: []string{string(env.Name)}, Value: v})
				}
			}
			return out
		})
	}
	for _, c := range []struct {
		name, help string
		read       func(sqlite.WriteLock) float64
	}{
		{"logistics_sqlite_write_transactions_total", "SQLite write transactions this process let in at its write gate (one writer at a time).",
			func(w sqlite.WriteLock) float64 { return float64(w.Entries) }},
		{"logistics_sqlite_write_commits_total", "COMMITs of SQLite write transactions: consecutive transactions share one under load (group commit), so transactions over commits is the mean group's size.",
			func(w sqlite.WriteLock) float64 { return float64(w.Commits) }},
		{"logistics_sqlite_write_lock_wait_seconds_total", "Time SQLite writers waited at the write gate (cumulative).",
			func(w sqlite.WriteLock) float64 { return w.Wait.Seconds() }},
		{"logistics_sqlite_write_lock_held_seconds_total", "Time the write gate was held, BEGIN to COMMIT (cumulative): its rate near 1 means writes are bound by SQLite's one writer.",
			func(w sqlite.WriteLock) float64 { return w.Held.Seconds() }},
	} {
		a.Metrics.Counter(c.name, c.help, []string{"environment"}, func() []metrics.Sample {
			var out []metrics.Sample
			for _, env := range a.Envs.All() {
				if w, ok := env.DB.WriteLock(); ok {
					out = append(out, metrics.Sample{Labels: []string{string(env.Name)}, Value: c.read(w)})
				}
			}
			return out
		})
	}
	onSQLite := false
	for _, env := range a.Envs.All() {
		onSQLite = onSQLite || env.DB.Dialect == dialect.SQLite
	}
	for _, g := range []struct {
		name, help string
		read       func(sqlite.Memory) float64
	}{
		{"logistics_sqlite_memory_bytes", "Memory SQLite holds in this process (page caches of every connection, statements), all databases together.",
			func(m sqlite.Memory) float64 { return float64(m.Used) }},
		{"logistics_sqlite_memory_highwater_bytes", "The most memory SQLite has held in this process since it started.",
			func(m sqlite.Memory) float64 { return float64(m.Highwater) }},
		{"logistics_sqlite_memory_limit_bytes", "SQLite's soft bound on its memory in this process (--sqlite-memory; 0: none).",
			func(m sqlite.Memory) float64 { return float64(m.Limit) }},
	} {
		if !onSQLite {
			break // the figures are SQLite's allocator's: none on PostgreSQL
		}
		a.Metrics.Gauge(g.name, g.help, nil, func() []metrics.Sample {
			return []metrics.Sample{{Value: g.read(sqlite.ReadMemory())}}
		})
	}
	for _, g := range []struct {
		name, help string
		read       func(sql.DBStats) float64
	}{
		{"logistics_db_open_connections", "Open database connections.", func(s sql.DBStats) float64 { return float64(s.OpenConnections) }},
		{"logistics_db_in_use_connections", "Database connections in use.", func(s sql.DBStats) float64 { return float64(s.InUse) }},
		{"logistics_db_wait_count", "Waits for a free database connection (cumulative).", func(s sql.DBStats) float64 { return float64(s.WaitCount) }},
		{"logistics_db_wait_seconds", "Time spent waiting for a free connection (cumulative).", func(s sql.DBStats) float64 { return s.WaitDuration.Seconds() }},
	} {
		a.Metrics.Gauge(g.name, g.help, []string{"environment"}, func() []metrics.Sample {
			var out []metrics.Sample
			for _, env := range a.Envs.All() {
				out = append(out, metrics.Sample{Labels: []string{string(env.Name)}, Value: g.read(env.DB.SQL.Stats())})
			}
			return out
		})
	}
}

// queueFigures is one environment's webhook queue as read for a scrape.
type queueFigures struct {
	env    *environment.Env
	depth  int
	oldest time.Time // zero: none pending
	at     time.Time // when it was read
	err    error
}

// queueReader reads every environment's webhook queue once per scrape for
// both of its families: the registry collects families concurrently, so
// the first to ask reads (every database at once, 2 s at most) and the
// other takes the same figures, kept for a second.
type queueReader struct {
	a       *App
	mu      sync.Mutex
	figures []queueFigures
}

// queueFresh is how long one read of the queue serves the scrapes.
const queueFresh = time.Second

func (q *queueReader) read() []queueFigures {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.figures) > 0 && time.Since(q.figures[0].at) < queueFresh {
		return q.figures
	}
	envs := q.a.Envs.All()
	out := make([]queueFigures, len(envs))
	var wg sync.WaitGroup
	for i, env := range envs {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			depth, oldest, err := q.a.Webhooks.Queue(ctx, env)
			out[i] = queueFigures{env: env, depth: depth, oldest: oldest, at: time.Now(), err: err}
			if err != nil {
				q.a.Log.Warn("metrics: reading the webhook queue", "environment", env.Name, "error", err)
			}
		})
	}
	wg.Wait()
	q.figures = out
	return out
}

// fillDemoData loads the small demo dataset into an empty sandbox, so a first
// start has something to explore. Another instance doing the same at the
// same moment makes the second load fail on a unique key: that is fine.
func (a *App) fillDemoData(ctx context.Context, env *environment.Env) error {
	n, err := env.DB.Client.Hub.Query().Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	start := time.Now()
	counts, err := demodata.Load(ctx, env.DB, a.Config.DemoScale)
	if errors.Is(err, demodata.ErrNotEmpty) || sqlgraph.IsUniqueConstraintError(err) {
		return nil
	}
	if err != nil {
		return err
	}
	a.Log.Info("filled the empty sandbox with demo data (disable with --no-demo-data)", "scale", a.Config.DemoScale,
		"hubs", counts.Hubs, "parts", counts.Parts, "items", counts.Items, "orders", counts.Orders, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

func (a *App) closeEnvs(envs []*environment.Env) {
	for _, e := range envs {
		_ = e.DB.Close()
	}
}

// listen relays other instances' event commits to this one's waiters
// (PostgreSQL LISTEN/NOTIFY) and runs each environment's event sequencer
// (PostgreSQL; eventlog.Log.Sequence). Nothing to do on SQLite.
func (a *App) listen() {
	ctx, cancel := context.WithCancel(context.Background())
	a.stopListen = cancel
	for _, env := range a.Envs.All() {
		a.listening.Add(2)
		go func() {
			defer a.listening.Done()
			env.Events.Listen(ctx, env.DB.SQL, env.DB.Dialect)
		}()
		go func() {
			defer a.listening.Done()
			env.Events.Sequence(ctx, env.DB.SQL, env.DB.Dialect)
		}()
	}
}

// registerRedisMetrics counts the rate-limit decisions that fell back to
// memory because Redis failed (only with --redis-url).
func (a *App) registerRedisMetrics() {
	if a.redis == nil {
		return
	}
	a.Metrics.Counter("logistics_rate_limit_redis_errors_total",
		"Rate-limit decisions taken in this instance's memory because Redis failed.",
		nil, func() []metrics.Sample { return []metrics.Sample{{Value: float64(a.redis.Errors())}} })
}

func (a *App) closeRedis() {
	if a.redis != nil {
		_ = a.redis.Close()
	}
}

// Close stops the webhook dispatcher (attempts in flight finish) and the
// listeners, and closes both databases and the Redis connections.
func (a *App) Close() error {
	if a.stopWebhook != nil {
		a.stopWebhook()
	}
	if a.stopListen != nil {
		a.stopListen()
		a.listening.Wait()
	}
	a.closeRedis()
	var errs []error
	for _, e := range a.Envs.All() {
		errs = append(errs, e.DB.Close())
	}
	// Last: the spans of the dispatcher's last attempts are queued by now.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errs = append(errs, a.Tracing.Shutdown(ctx))
	return errors.Join(errs...)
}

// sameSite maps --cookie-samesite (validated) to the cookie attribute.
func sameSite(s string) http.SameSite {
	switch s {
	case "strict":
		return http.SameSiteStrictMode
	case "none":
		return http.SameSiteNoneMode
	}
	return http.SameSiteLaxMode
}

// Handler returns the whole HTTP interface. The middleware chain, in order:
// request id + log + recover → environment → CORS → authenticate → rate
// limit → routes (authenticate and rate limit guard /graphql and /v1 only:
// see envRoutes; CORS answers every route of an environment, preflights
// included, before authentication).
func (a *App) Handler() http.Handler {
	muxes := map[*environment.Env]http.Handler{}
	cors := auth.CORS(a.Origins, a.Log)
	a.routes = map[*environment.Env]*metrics.Routes{}
	for _, env := range a.Envs.All() {
		a.routes[env] = a.Metrics.Routes(string(env.Name), env.BaseURL.Path)
	}
	for _, s := range a.statements {
		s.TimeRows() // the migration is done: see TimeRows
	}
	for _, env := range a.Envs.All() {
		muxes[env] = cors(a.route(a.envRoutes(env)))
	}
	root := http.NewServeMux()
	root.HandleFunc("GET /healthz", a.healthz)
	root.HandleFunc("GET /readyz", a.readyz)
	root.Handle("GET /metrics", a.Metrics.Handler())
	root.Handle("GET "+apperr.ProblemsPath, apperr.DocsHandler()) // the pages problem type URIs name
	root.Handle("GET "+favicon.Path, favicon.Handler())           // where browsers look for it
	root.Handle("/", a.routeEnvironment(muxes))
	h := requestlog.Middleware(a.Log, func(w http.ResponseWriter, r *http.Request) {
		apperr.Write(w, r, nil, apperr.Internal(errors.New("panic")))
	})(schedturns.Middleware(a.Config.SchedTurns)(a.route(root)))
	if a.Tracing != nil {
		// Outermost, so that the request's log line (requestlog) is logged
		// within its span and carries its trace_id. Only when tracing is on:
		// otelhttp wraps each request's writer and body even when it makes
		// no span.
		h = a.Tracing.Middleware(h)
	}
	return h
}

// route names the request's span after the pattern mux matched
// (tracing.Route), when tracing is on; mux itself otherwise.
func (a *App) route(mux http.Handler) http.Handler {
	if a.Tracing == nil {
		return mux
	}
	return tracing.Route(mux)
}

// envRoutes is every route of one environment, at its full path. The API
// (/graphql and everything under /v1) sits behind authenticate → rate
// limit; the playground page, the console and its sign-in do not.
func (a *App) envRoutes(env *environment.Env) http.Handler {
	notFound := func(w http.ResponseWriter, r *http.Request) {
		apperr.Write(w, r, a.Log, apperr.NotFound("no resource at %s", r.URL.Path))
	}
	api := http.NewServeMux()
	gql := graph.NewHandler(a.Service, graph.Options{
		MaxDepth: a.Config.MaxDepth, MaxComplexity: a.Config.MaxComplexity,
		MaxFields: a.Config.MaxFields, MaxListLength: a.Config.MaxListLength,
		MaxResponseBytes: a.Config.MaxRespBytes, MaxExecutionTime: a.Config.MaxExecTime,
		MaxBodyBytes: a.Config.MaxBodyBytes, Logger: a.Log, Auth: a.Auth.Store, NoFastPath: a.Config.NoFastPath,
		FastPathCounts: &a.FastPath, Webhooks: a.Webhooks, Sandbox: a.Sandbox,
		Streams: a.Streams, Authenticator: a.Auth, KeepAlive: a.Config.SubscriptionKeepAlive, Recheck: a.Config.AuthCacheTTL,
		OutBuffer: min(a.Config.SubscriptionBuffer, 256), AllowOrigin: a.Origins.Allowed,
		Extensions: []graphql.HandlerExtension{metrics.GraphQLOperations{}},
		Tracer:     a.Tracing.Tracer(),
		Trusted:    a.trustedOptions(env), Parses: &a.Parses,
	})
	api.Handle(env.Path("/graphql"), gql)
	rest.Mount(api, env.Path(""), rest.Deps{Service: a.Service, Webhooks: a.Webhooks, Sandbox: a.Sandbox, Documents: a.Documents, Log: a.Log, Version: a.Version, MaxBodyBytes: a.Config.MaxBodyBytes,
		Commit: BuildInfo().Commit, BuildDate: BuildInfo().Date,
		WriteTimeout: a.Config.WriteTimeout, HoldAfterCommit: a.faults.HoldAfterCommit, HoldBeforeCommit: a.faults.HoldBeforeCommit,
		Servers: []rest.Server{
			{URL: a.Envs.Production().BaseURL.String(), Description: "production"},
			{URL: a.Envs.Get(environment.Sandbox).BaseURL.String(), Description: "sandbox"},
		}})
	api.HandleFunc("/", notFound)
	var routes http.Handler = a.route(a.markRoute(env, api))
	if env.DB.Replica != nil {
		// After authentication: the key, session and scope checks read the
		// primary whatever the client prefers.
		routes = a.routeReads(env, routes)
	}
	routes = a.boundedPrefer(routes)
	protected := a.Auth.Authenticate(a.Auth.RateLimit(routes))

	mux := http.NewServeMux()
	mux.Handle(env.Path("/graphql"), auth.GraphQLErrors(protected))
	mux.Handle(env.Path("/v1"), protected)
	mux.Handle(env.Path("/v1/"), protected)
	// The API's description reveals no data: served without a key.
	mux.Handle("GET "+env.Path(rest.PublicPath), api)
	// The SDL with the cost directives, as public as the OpenAPI document.
	mux.Handle("GET "+env.Path(graph.SDLPath), graph.SDLHandler(a.Config.MaxListLength))
	a.mountLanding(mux, env)
	// The pages link the icon under their own base address too (a base
	// address with a path may be all a proxy forwards).
	mux.Handle("GET "+env.Path(favicon.Path), favicon.Handler())
	pg := playground.Handler(env.Path("/playground"), env.Path("/graphql"), playground.Config{
		Title: "Logistics " + string(env.Name), Environment: string(env.Name), BaseURL: env.URL(""),
		SignIn: a.Envs.Production().URL("/console"), Favicon: env.Path(favicon.Path),
	})
	mux.Handle(env.Path("/playground"), pg)
	mux.Handle(env.Path("/playground/"), pg)
	prod := a.Envs.Production()
	cd := console.Deps{Prefix: env.Path("/console"), GraphQL: env.Path("/graphql"),
		Playground: prod.URL("/playground"), SandboxPlayground: a.Envs.Get(environment.Sandbox).URL("/playground"),
		Store: a.Auth.Store, Guard: a.Login, Log: a.Log, Auth: a.Auth, Origins: a.Origins, Cookies: a.Cookies,
		Favicon: env.Path(favicon.Path)}
	if env == prod {
		sandboxGraphQL := ""
		if sb := a.Envs.Get(environment.Sandbox); strings.EqualFold(sb.BaseURL.Host, env.BaseURL.Host) {
			sandboxGraphQL = sb.Path("/graphql")
		}
		cd.SandboxGraphQL, cd.BaseURL = sandboxGraphQL, env.BaseURL
		console.Mount(mux, cd)
	} else {
		// The session endpoints answer under every base address (an app
		// may sign in where it calls GraphQL); the pages live once.
		console.MountAPI(mux, cd)
		// One console for both environments (users are shared and tokens
		// name their environment): the sandbox's address sends you there.
		toConsole := func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, prod.URL("/console"), http.StatusFound)
		}
		mux.HandleFunc(env.Path("/console"), toConsole)
		mux.HandleFunc(env.Path("/console/"), toConsole)
	}
	mux.HandleFunc("/", notFound)
	return mux
}

// routeEnvironment picks the environment from the request's address and puts
// it, with its ent client, in the request context.
func (a *App) routeEnvironment(muxes map[*environment.Env]http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env, _, ok := a.Envs.Match(r)
		if !ok {
			apperr.Write(w, r, a.Log, apperr.NotFound("no environment serves %s%s: use %s or %s", r.Host, r.URL.Path,
				a.Envs.Get(environment.Production).BaseURL, a.Envs.Get(environment.Sandbox).BaseURL))
			return
		}
		done := a.Metrics.InFlight()
		defer done()
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		ctx := environment.NewContext(r.Context(), env)
		if strings.HasSuffix(r.URL.Path, "/graphql") {
			if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
				// A WebSocket's operations are its connection's: the
				// request lasts as long as the socket.
				sw.req.SetOperation(metrics.OpWebSocket)
			} else {
				// GraphQLOperations records the operation type here
				// (one allocation, on GraphQL requests only).
				ctx = metrics.WithRequest(ctx, &sw.req)
			}
		}
		r = r.WithContext(ctx)
		muxes[env].ServeHTTP(sw, r)
		rt := sw.route
		if rt == nil {
			// The environment's own mux set the pattern it matched on r
			// (REST routes are marked more precisely below it: markRoute).
			rt = a.routes[env].Pattern(r.Pattern)
		}
		a.Metrics.Observe(rt, r.Method, sw.status, sw.req.Operation(), time.Since(start))
	})
}

// markRoute serves h, an http.ServeMux below the environment's (the API's),
// and then tells the request's statusWriter the pattern h matched: without
// it the request would count under the outer mux's "/v1/". The catch-all
// "/" (no such resource) keeps the outer pattern.
func (a *App) markRoute(env *environment.Env, h *http.ServeMux) http.Handler {
	routes := a.routes[env]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Pattern == "" || r.Pattern == "/" {
			return
		}
		for w != nil {
			if sw, ok := w.(*statusWriter); ok {
				sw.route = routes.Pattern(r.Pattern)
				return
			}
			u, ok := w.(interface{ Unwrap() http.ResponseWriter })
			if !ok {
				return
			}
			w = u.Unwrap()
		}
	})
}

// statusWriter remembers the status code written, and what the metrics
// learn of the request on the way (its route, its GraphQL operation).
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
	route  *metrics.Route // set by markRoute; nil: the environment mux's pattern
	req    metrics.Request
	// writes is the request's last write (readroute.go), answered with the
	// header; readCookie the cookie that carries it to a browser.
	writes     *database.Writes
	readCookie *http.Cookie
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.answerWrites()
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.answerWrites()
	}
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (a *App) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}

// durabilityJSON is an environment's member of /readyz's durability: the
// database's settings and whether a commit that was answered survives a
// power cut (read at start: database.Durability).
type durabilityJSON struct {
	Mode      string `json:"mode"`
	PowerSafe bool   `json:"power_safe"`
	Warning   string `json:"warning,omitempty"`
}

// replicaJSON is an environment's member of /readyz's replicas: what the
// last background check found of its read replica. A replica that is not
// "ok" serves nothing (the primary does) and leaves the service ready.
type replicaJSON struct {
	State      postgres.ReplicaState `json:"state"`
	Serving    bool                  `json:"serving"`
	LagSeconds float64               `json:"lag_seconds"`
	MaxLag     float64               `json:"max_lag_seconds"`
	Replayed   string                `json:"replayed_lsn,omitempty"`
	CheckedAt  *time.Time            `json:"checked_at,omitempty"`
	Error      string                `json:"error,omitempty"`
}

func (a *App) readyz(w http.ResponseWriter, r *http.Request) {
	status, body := http.StatusOK, map[string]string{}
	durability := map[string]durabilityJSON{}
	replicas := map[string]replicaJSON{}
	for _, env := range a.Envs.All() {
		if rp := env.DB.Replica; rp != nil {
			s := rp.Status()
			j := replicaJSON{State: s.State, Serving: s.State == postgres.ReplicaOK, LagSeconds: s.Lag.Seconds(), MaxLag: rp.MaxLag.Seconds(), Error: s.Err}
			if s.Replayed != 0 {
				j.Replayed = s.Replayed.String()
			}
			if !s.CheckedAt.IsZero() {
				at := s.CheckedAt.UTC()
				j.CheckedAt = &at
			}
			replicas[string(env.Name)] = j
		}
		d := env.DB.Durability
		durability[string(env.Name)] = durabilityJSON{Mode: d.Mode, PowerSafe: d.PowerSafe, Warning: d.Warning}
		if err := env.DB.Ping(r.Context()); err != nil {
			status, body[string(env.Name)] = http.StatusServiceUnavailable, "unreachable"
			a.Log.WarnContext(r.Context(), "readyz: database unreachable", "environment", env.Name, "err", err)
		} else {
			body[string(env.Name)] = "ok"
		}
	}
	out := map[string]any{"ready": status == http.StatusOK, "databases": body, "durability": durability}
	if len(replicas) > 0 {
		out["replicas"] = replicas
	}
	rest.WriteJSON(w, status, out)
}
