// Command logistics serves the Logistics Service API: GraphQL and REST /v1
// over one core, in a production and a sandbox environment.
//
//	go run .                 serve (embedded SQLite under ./data)
//	go run . serve --help    every setting, with its environment variable
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"logistics/internal/app"
	"logistics/internal/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "logistics:", err)
		os.Exit(1)
	}
}

// command is a subcommand: `go run . NAME …`.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error
}

// commands lists the subcommands; files named cmd_*.go add theirs in init.
var commands = map[string]command{
	"serve": {"run the API server (the default)", serve},
}

// run dispatches to a subcommand; with none, or a flag first, it serves.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name := "serve"
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		name, args = "version", nil
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		return usage(stdout)
	}
	cmd, ok := commands[name]
	if !ok {
		_ = usage(stderr)
		return fmt.Errorf("unknown command %q", name)
	}
	return cmd.run(ctx, args, getenv, stdout, stderr)
}

func usage(w io.Writer) error {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: logistics [command] [flags]   (command defaults to serve; add --help for its flags; --version is version)")
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	return nil
}

// newLogger returns the structured logger of the configured format.
func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// opened is called with every App a subcommand opens, before it does its
// work: the subcommands' tests look at its connection pools there.
var opened = func(*app.App) {}

// openApp loads the configuration shared by every subcommand and opens the app.
// extra registers the subcommand's own flags.
func openApp(ctx context.Context, name string, args []string, getenv func(string) string, stderr io.Writer, extra ...func(*flag.FlagSet)) (*app.App, []string, error) {
	cfg := app.Defaults()
	rest, err := cfg.Load(name, args, getenv, extra...)
	if err != nil {
		return nil, nil, err
	}
	a, err := app.Open(ctx, cfg, newLogger(cfg.LogFormat, stderr), appOptions(getenv))
	if err != nil {
		return nil, nil, err
	}
	opened(a)
	return a, rest, nil
}

// appOptions are the App's options: the embedded docs, and the test-only
// faults (see rest.Deps.HoldAfterCommit), which are not settings.
func appOptions(getenv func(string) string) app.Options {
	return app.Options{
		Docs:             docsFS,
		HoldAfterCommit:  getenv("LOGISTICS_TEST_HOLD_AFTER_COMMIT"),
		HoldBeforeCommit: getenv("LOGISTICS_TEST_HOLD_BEFORE_COMMIT"),
	}
}

// serve runs the HTTP server until ctx is cancelled, then drains it.
// It listens first, so that base addresses left unset follow the real
// listen address (":0" included).
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg := app.Defaults()
	rest, err := cfg.Load("serve", args, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", rest)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w (choose another with --addr, e.g. --addr 127.0.0.1:8090)", err)
	}
	defer ln.Close()
	if err := cfg.DeriveAddresses(ln.Addr().String()); err != nil {
		return err
	}
	opt := appOptions(getenv)
	opt.Env = getenv // OTEL_*: serving traces when configured (docs/operations.md)
	a, err := app.Open(ctx, cfg, newLogger(cfg.LogFormat, stderr), opt)
	if err != nil {
		return err
	}
	defer a.Close()
	opened(a)
	runtimeSettings := a.Config.ApplyRuntime()
	a.StartWebhooks()
	srv := &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       a.Config.ReadTimeout,
		WriteTimeout:      a.Config.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	a.Log.Info("starting", append(append([]any{"version", a.Version, "commit", app.BuildInfo().Commit, "built", app.BuildInfo().Date, "listen", ln.Addr().String()}, a.Config.Masked()...), runtimeSettings...)...)
	for _, env := range a.Envs.All() {
		a.Log.Info("environment ready", "environment", env.Name, "base_url", env.URL("/"),
			"graphql", env.URL("/graphql"), "playground", env.URL("/playground"), "openapi", env.URL("/v1/openapi.json"), "database", env.DB.Source, "durability", env.DB.Durability.Mode)
	}
	a.Log.Info("console ready", "console", a.Envs.Production().URL("/console"))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// SQLite's high-water mark is worth a line: it is the part of the
	// process's peak RSS that --sqlite-memory bounds (Go's is on /metrics).
	a.Log.Info("shutting down", "sqlite_memory_highwater_bytes", sqlite.ReadMemory().Highwater)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Subscriptions first: their clients are told (WebSocket close 1001, a
	// final SSE error event) and can resume elsewhere; the server's
	// Shutdown neither tells nor waits for hijacked WebSockets.
	streamsCtx, cancelStreams := context.WithTimeout(shutdownCtx, 5*time.Second)
	a.Streams.Shutdown(streamsCtx)
	cancelStreams()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	a.Log.Info("stopped")
	return nil
}
