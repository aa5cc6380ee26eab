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
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
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
	fmt.Fprintln(w, "usage: logistics [command] [flags]   (command defaults to serve; add --help for its flags)")
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
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

// openApp loads the configuration shared by every subcommand and opens the app.
// extra registers the subcommand's own flags.
func openApp(ctx context.Context, name string, args []string, getenv func(string) string, stderr io.Writer, extra ...func(*flag.FlagSet)) (*app.App, []string, error) {
	cfg := app.Defaults()
	rest, err := cfg.Load(name, args, getenv, extra...)
	if err != nil {
		return nil, nil, err
	}
	log := newLogger(cfg.LogFormat, stderr)
	a, err := app.Open(ctx, cfg, log, app.Options{})
	if err != nil {
		return nil, nil, err
	}
	return a, rest, nil
}

// serve runs the HTTP server until ctx is cancelled, then drains it.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	a, rest, err := openApp(ctx, "serve", args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	defer a.Close()
	if len(rest) > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", rest)
	}
	runtimeSettings := a.Config.ApplyRuntime()
	a.StartWebhooks()
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       a.Config.ReadTimeout,
		WriteTimeout:      a.Config.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	a.Log.Info("starting", append(append([]any{"version", a.Version, "listen", ln.Addr().String()}, a.Config.Masked()...), runtimeSettings...)...)
	for _, env := range a.Envs.All() {
		a.Log.Info("environment ready", "environment", env.Name, "base_url", env.BaseURL.String(),
			"graphql", env.URL("/graphql"), "playground", env.URL("/playground"), "database", env.DB.Source)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.Log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	a.Log.Info("stopped")
	return nil
}
