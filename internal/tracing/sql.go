package tracing

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// OpenDB is sql.Open(driverName, dsn), with a span per statement when p is
// not nil: the wrapper sits at the database/sql driver level, under ent and
// under the hand-written SQL alike, so every statement of the pool is seen.
// system is the db.system.name attribute ("sqlite", "postgresql").
//
// A statement makes a span only inside a traced operation (a span in its
// context): the background pollers (webhook claims, the sequencer, the
// subscription hubs, checkpoints) would otherwise start a trace each per
// poll. A statement's span lasts until the driver answers (a query's rows
// are read after it ends).
//
// A connection handed out by sql.Conn.Raw is the wrapper's: Unwrap returns
// the driver's own.
func OpenDB(p *Provider, driverName, dsn, system string) (*sql.DB, error) {
	db, err := sql.Open(driverName, dsn)
	if err != nil || p == nil {
		return db, err
	}
	drv := db.Driver()
	_ = db.Close() // nothing was connected: sql.Open only looked the driver up
	var c driver.Connector = dsnConnector{dsn: dsn, drv: drv}
	if dc, ok := drv.(driver.DriverContext); ok {
		if c, err = dc.OpenConnector(dsn); err != nil {
			return nil, err
		}
	}
	return sql.OpenDB(&connector{Connector: c, tracer: p.tracer, system: attribute.String("db.system.name", system)}), nil
}

// Unwrap returns the driver's connection under a traced one (what
// sql.Conn.Raw hands its function), dc itself otherwise.
func Unwrap(dc any) any {
	if c, ok := dc.(*conn); ok {
		return c.Conn
	}
	return dc
}

type dsnConnector struct {
	dsn string
	drv driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

type connector struct {
	driver.Connector
	tracer trace.Tracer
	system attribute.KeyValue
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Conn: dc, c: c}, nil
}

// start begins a statement's span when ctx is inside a traced operation.
func (c *connector) start(ctx context.Context, query string) (context.Context, trace.Span, bool) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, nil, false
	}
	op := operation(query)
	name := op
	if name == "" {
		name = "sql"
	}
	ctx, span := c.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		c.system, attribute.String("db.query.text", truncate(query, 4096)), attribute.String("db.operation.name", op)))
	return ctx, span, true
}

// end closes a statement's span with its outcome.
func end(span trace.Span, err error) {
	if err != nil && err != driver.ErrSkip {
		span.RecordError(err)
		span.SetStatus(codes.Error, errString(err))
	}
	span.End()
}

// operation is a statement's first keyword, upper-cased (SELECT, INSERT,
// BEGIN…).
func operation(q string) string {
	q = strings.TrimLeft(q, " \t\r\n(")
	i := strings.IndexAny(q, " \t\r\n(;")
	if i < 0 {
		i = len(q)
	}
	return strings.ToUpper(q[:min(i, 32)])
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// conn is a traced connection. It offers every optional interface
// database/sql looks for, passing driver.ErrSkip (or the default) where the
// driver's own connection lacks one, so database/sql behaves as without it.
type conn struct {
	driver.Conn
	c *connector
}

var (
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.StmtExecContext    = (*stmt)(nil)
	_ driver.StmtQueryContext   = (*stmt)(nil)
	_ driver.NamedValueChecker  = (*stmt)(nil)
	_ driver.Connector          = (*connector)(nil)
)

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	//lint:ignore SA1019 the driver offers nothing else
	return c.Conn.Begin()
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var (
		s   driver.Stmt
		err error
	)
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = c.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{Stmt: s, query: query, c: c.c, conn: c.Conn}, nil
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	ctx, span, traced := c.c.start(ctx, query)
	res, err := e.ExecContext(ctx, query, args)
	if traced {
		end(span, err)
	}
	return res, err
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	ctx, span, traced := c.c.start(ctx, query)
	rows, err := q.QueryContext(ctx, query, args)
	if traced {
		end(span, err)
	}
	return rows, err
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.Conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// stmt is a traced prepared statement.
type stmt struct {
	driver.Stmt
	query string
	c     *connector
	conn  driver.Conn // the driver's, whose checker database/sql would ask after the statement's
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ctx, span, traced := s.c.start(ctx, s.query)
	var (
		res driver.Result
		err error
	)
	if e, ok := s.Stmt.(driver.StmtExecContext); ok {
		res, err = e.ExecContext(ctx, args)
	} else {
		var vs []driver.Value
		if vs, err = values(args); err == nil {
			//lint:ignore SA1019 the driver offers nothing else
			res, err = s.Stmt.Exec(vs)
		}
	}
	if traced {
		end(span, err)
	}
	return res, err
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	ctx, span, traced := s.c.start(ctx, s.query)
	var (
		rows driver.Rows
		err  error
	)
	if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
		rows, err = q.QueryContext(ctx, args)
	} else {
		var vs []driver.Value
		if vs, err = values(args); err == nil {
			//lint:ignore SA1019 the driver offers nothing else
			rows, err = s.Stmt.Query(vs)
		}
	}
	if traced {
		end(span, err)
	}
	return rows, err
}

// CheckNamedValue asks the driver's statement, else its connection, as
// database/sql does: the wrapper's statement hides the connection's checker.
// (Neither driver's statement is a ColumnConverter, which is not mirrored.)
func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	if n, ok := s.conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func values(args []driver.NamedValue) ([]driver.Value, error) {
	vs := make([]driver.Value, len(args))
	for i, a := range args {
		if a.Name != "" {
			return nil, driver.ErrSkip
		}
		vs[i] = a.Value
	}
	return vs, nil
}

// StartStatement begins the span of a statement sent outside database/sql
// (a pgx batch on the driver's connection), in the tracer provider of the
// span in ctx; nil when ctx has no recording span (always, with tracing
// off). End it when the statement's answer is read.
func StartStatement(ctx context.Context, system, query string) trace.Span {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return nil
	}
	op := operation(query)
	_, span := parent.TracerProvider().Tracer(Name).Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("db.system.name", system), attribute.String("db.query.text", truncate(query, 4096)), attribute.String("db.operation.name", op)))
	return span
}

// EndStatement ends a span of StartStatement (nil: nothing) with err.
func EndStatement(span trace.Span, err error) {
	if span != nil {
		end(span, err)
	}
}
