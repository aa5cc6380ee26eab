package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/sqlgraph"

	"logistics/graph"
	"logistics/internal/apperr"
	"logistics/internal/database"
	"logistics/internal/demodata"
	"logistics/internal/environment"
	"logistics/internal/playground"
	"logistics/internal/requestlog"
	"logistics/internal/service"
	"logistics/rest"
)

// App is the assembled service.
type App struct {
	Config  Config
	Log     *slog.Logger
	Envs    *environment.Set
	Service *service.Service
	Version string
}

// Options adjust how an App opens its databases (tests count statements).
type Options struct {
	Driver func(dialect.Driver) dialect.Driver
}

// Open opens and migrates both environments' databases and prepares them
// (built-in workflows). Close releases them.
func Open(ctx context.Context, cfg Config, log *slog.Logger, opt Options) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &App{Config: cfg, Log: log, Service: service.New(log), Version: Version()}
	var envs []*environment.Env
	for _, e := range []struct {
		name     environment.Name
		dsn, url string
	}{
		{environment.Production, cfg.DB, cfg.BaseURL},
		{environment.Sandbox, cfg.SandboxDB, cfg.SandboxURL},
	} {
		u, err := url.Parse(e.url)
		if err != nil {
			a.closeEnvs(envs)
			return nil, fmt.Errorf("%s base URL: %w", e.name, err)
		}
		db, err := database.Open(ctx, e.dsn, database.Options{Driver: opt.Driver})
		if err != nil {
			a.closeEnvs(envs)
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		env := &environment.Env{Name: e.name, BaseURL: u, DB: db}
		envs = append(envs, env)
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
	return a, nil
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

// Close closes both databases.
func (a *App) Close() error {
	var errs []error
	for _, e := range a.Envs.All() {
		errs = append(errs, e.DB.Close())
	}
	return errors.Join(errs...)
}

// Handler returns the whole HTTP interface. The middleware chain, in order:
// request id + log + recover → environment → authenticate → rate limit → routes.
func (a *App) Handler() http.Handler {
	muxes := map[*environment.Env]http.Handler{}
	for _, env := range a.Envs.All() {
		muxes[env] = a.envRoutes(env)
	}
	root := http.NewServeMux()
	root.HandleFunc("GET /healthz", a.healthz)
	root.HandleFunc("GET /readyz", a.readyz)
	root.Handle("/", a.routeEnvironment(muxes))
	return requestlog.Middleware(a.Log, func(w http.ResponseWriter, r *http.Request) {
		apperr.Write(w, r, nil, apperr.Internal(errors.New("panic")))
	})(root)
}

// envRoutes is every route of one environment, at its full path.
func (a *App) envRoutes(env *environment.Env) http.Handler {
	mux := http.NewServeMux()
	gql := graph.NewHandler(a.Service, graph.Options{
		MaxDepth: a.Config.MaxDepth, MaxComplexity: a.Config.MaxComplexity,
		MaxBodyBytes: a.Config.MaxBodyBytes, Logger: a.Log,
	})
	mux.Handle(env.Path("/graphql"), gql)
	pg := playground.Handler(env.Path("/playground"), env.Path("/graphql"), "Logistics "+string(env.Name))
	mux.Handle(env.Path("/playground"), pg)
	mux.Handle(env.Path("/playground/"), pg)
	rest.Mount(mux, env.Path(""), rest.Deps{Service: a.Service, Log: a.Log, Version: a.Version})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apperr.Write(w, r, a.Log, apperr.NotFound("no resource at %s", r.URL.Path))
	})
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
		muxes[env].ServeHTTP(w, r.WithContext(environment.NewContext(r.Context(), env)))
	})
}

func (a *App) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}

func (a *App) readyz(w http.ResponseWriter, r *http.Request) {
	status, body := http.StatusOK, map[string]string{}
	for _, env := range a.Envs.All() {
		if err := env.DB.Ping(r.Context()); err != nil {
			status, body[string(env.Name)] = http.StatusServiceUnavailable, "unreachable"
			a.Log.WarnContext(r.Context(), "readyz: database unreachable", "environment", env.Name, "err", err)
		} else {
			body[string(env.Name)] = "ok"
		}
	}
	rest.WriteJSON(w, status, map[string]any{"ready": status == http.StatusOK, "databases": body})
}
