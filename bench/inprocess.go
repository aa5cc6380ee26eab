package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// statement is one SQL statement seen by the recording driver.
type statement struct {
	Query string
	Args  []any
}

// recorder counts the SQL statements sent through the ent drivers it wraps
// (with apptest.WrapDriver, as apptest.StatementCounter does) and, while
// capturing, keeps them with their arguments.
type recorder struct {
	n       atomic.Int64
	mu      sync.Mutex
	capture bool
	seen    []statement
}

func (r *recorder) Wrap(d dialect.Driver) dialect.Driver {
	return apptest.WrapDriver(d, func(q string, args any, _ bool) { r.add(q, args) })
}

func (r *recorder) reset(capture bool) {
	r.n.Store(0)
	r.mu.Lock()
	r.capture, r.seen = capture, nil
	r.mu.Unlock()
}

func (r *recorder) add(q string, args any) {
	r.n.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.capture {
		a, _ := args.([]any)
		r.seen = append(r.seen, statement{q, append([]any(nil), a...)})
	}
}

func (r *recorder) statements() []statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]statement(nil), r.seen...)
}

// inProcess is the service and the floor in this process, on the same
// databases as the child processes, for counting SQL statements per request.
type inProcess struct {
	App     *app.App
	handler http.Handler
	rec     *recorder
	floor   *floor
	floorH  http.Handler
	db      *sql.DB // the sandbox database
	dialect string
	base    string // the sandbox base path, e.g. /sandbox
}

// openInProcess opens the service with the server's flags (serverArgs, the
// same --db/--sandbox-db and extra flags as the child process).
func openInProcess(ctx context.Context, serverArgs []string, getenv func(string) string) (*inProcess, error) {
	cfg := app.Defaults()
	if _, err := cfg.Load("bench", serverArgs, getenv); err != nil {
		return nil, fmt.Errorf("server flags: %w", err)
	}
	rec := &recorder{}
	a, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler), app.Options{Driver: rec.Wrap})
	if err != nil {
		return nil, err
	}
	sb := a.Envs.Get(environment.Sandbox)
	f := newFloor(sb.DB)
	return &inProcess{App: a, handler: a.Handler(), rec: rec, floor: f, floorH: f.Handler(), db: sb.DB.SQL, dialect: sb.DB.Dialect, base: sb.Path("")}, nil
}

func (p *inProcess) Close() error { return p.App.Close() }

// do serves req in process and returns the status, the body and the number
// of SQL statements it took.
func (p *inProcess) do(req request, iface string, capture bool) (int, []byte, int64, []statement) {
	var h http.Handler = p.handler
	if isFloor(iface) {
		h = p.floorH
		p.floor.statements.Store(0)
	}
	p.rec.reset(capture)
	p.floor.trace = nil
	if isFloor(iface) && capture {
		p.floor.trace = func(q string, args []any) {
			p.rec.mu.Lock()
			p.rec.seen = append(p.rec.seen, statement{q, args})
			p.rec.mu.Unlock()
		}
	}
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	r := httptest.NewRequest(req.Method, req.Path, body)
	for k, v := range req.Header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	n := p.rec.n.Load()
	if isFloor(iface) {
		n = p.floor.statements.Load()
	}
	return w.Code, w.Body.Bytes(), n, p.rec.statements()
}

// explain returns the database's plan for a captured SELECT.
func (p *inProcess) explain(ctx context.Context, st statement) (string, error) {
	if !strings.HasPrefix(strings.TrimSpace(strings.ToUpper(st.Query)), "SELECT") {
		return "", nil
	}
	prefix := "EXPLAIN QUERY PLAN "
	if p.dialect == dialect.Postgres {
		prefix = "EXPLAIN (ANALYZE, BUFFERS) "
	}
	rows, err := p.db.QueryContext(ctx, prefix+st.Query, st.Args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		if p.dialect == dialect.Postgres {
			fmt.Fprintf(&b, "%v\n", vals[0])
			continue
		}
		// SQLite: id, parent, notused, detail.
		fmt.Fprintf(&b, "%v\n", vals[len(vals)-1])
	}
	return b.String(), rows.Err()
}
