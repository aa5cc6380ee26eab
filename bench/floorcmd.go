package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"logistics/internal/database"
	"logistics/internal/sqlite"
)

// runFloor serves the floor on its own (`bench floor --addr … --sandbox-db …`),
// as a child process measured like the server.
func runFloor(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8090", "address to listen on")
	dsn := fs.String("sandbox-db", "", "database: SQLite path or postgres:// DSN")
	pprofAddr := fs.String("pprof-addr", "", "serve net/http/pprof on this loopback address")
	sqliteMemory := fs.Int("sqlite-memory", sqlite.DefaultMemory>>20, "soft bound in MiB on SQLite's memory, as the server's --sqlite-memory (0: none)")
	sqliteSync := fs.String("sqlite-synchronous", sqlite.SynchronousFull, "SQLite's synchronous mode, as the server's --sqlite-synchronous: full or normal")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dsn == "" {
		return fmt.Errorf("floor: --sandbox-db is required")
	}
	// database.Open sets the same SQLite options and pool size as the server.
	mem := int64(*sqliteMemory) << 20
	if *sqliteMemory == 0 {
		mem = -1
	}
	db, err := database.Open(ctx, *dsn, database.Options{SQLiteMemory: mem, Synchronous: *sqliteSync})
	if err != nil {
		return err
	}
	defer db.Close()
	if *pprofAddr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		ps := &http.Server{Addr: *pprofAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = ps.ListenAndServe() }()
		defer ps.Close()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fl := newFloor(db)
	fl.sequence(ctx)
	srv := &http.Server{Handler: fl.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "floor listening on http://%s\n", ln.Addr())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
