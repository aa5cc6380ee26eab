package database

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/internal/postgres"
)

// Reads that may leave the primary. With a read replica (Options.ReadDSN)
// the ent client's driver is a router: every write, every transaction and
// every read goes to the primary, except a read outside a transaction
// whose context accepts staleness (AcceptStale, or ReadReplica from the
// client), is in no write's request (PrimaryOnly), and finds the replica
// within its lag bound and past the client's last write (the WAL position
// of WithReadPreference). A read the replica fails is asked of the
// primary. docs/design/0029-read-replicas.md tells why.

// ReadPreference is what the client asked of a request's reads.
type ReadPreference int

// The read preferences (the Prefer: read=… header).
const (
	ReadDefault ReadPreference = iota // the route decides: aggregates and exports accept staleness
	ReadReplica                       // every read of the request accepts staleness
	ReadPrimary                       // every read of the request goes to the primary
)

type readKey struct{}

// readRoute is what a context says of where its reads may go.
type readRoute struct {
	pref    ReadPreference
	stale   bool         // the route accepts staleness (AcceptStale)
	primary bool         // a write's request (PrimaryOnly)
	after   postgres.LSN // the client's last write: a replica must have replayed it
	writes  *Writes
}

func routeOf(ctx context.Context) readRoute {
	r, _ := ctx.Value(readKey{}).(readRoute)
	return r
}

func withRoute(ctx context.Context, f func(*readRoute)) context.Context {
	r := routeOf(ctx)
	f(&r)
	return context.WithValue(ctx, readKey{}, r)
}

// WithReadPreference returns ctx with the client's read preference and
// the WAL position of its last write (0: none known), which a replica must
// have replayed to serve the request.
func WithReadPreference(ctx context.Context, p ReadPreference, after postgres.LSN) context.Context {
	return withRoute(ctx, func(r *readRoute) { r.pref, r.after = p, max(r.after, after) })
}

// AcceptStale marks the reads under ctx as accepting a replica's
// staleness unless the client asked for the primary: the route's default
// (aggregates and exports).
func AcceptStale(ctx context.Context) context.Context {
	return withRoute(ctx, func(r *readRoute) { r.stale = true })
}

// PrimaryOnly sends every read under ctx to the primary: the request
// writes (a REST write, a GraphQL mutation or subscription).
func PrimaryOnly(ctx context.Context) context.Context {
	return withRoute(ctx, func(r *readRoute) { r.primary = true })
}

// TrackWrites returns ctx with a Writes that learns the primary's WAL
// position after each write committed under ctx; primary is the primary's
// pool, which Replayed asks.
func TrackWrites(ctx context.Context, primary *sql.DB) (context.Context, *Writes) {
	w := &Writes{primary: primary}
	return withRoute(ctx, func(r *readRoute) { r.writes = w }), w
}

// Replayed notes in ctx's Writes the primary's WAL position now, for a
// request that answers for a write committed before it (an idempotent
// replay): the position is past that write, so the client that lost the
// first answer still reads its own write.
func Replayed(ctx context.Context) {
	w := routeOf(ctx).writes
	if w == nil || w.primary == nil {
		return
	}
	if lsn, err := postgres.CurrentLSN(context.WithoutCancel(ctx), w.primary); err == nil {
		w.note(lsn)
	}
}

// Writes is the WAL position of a request's last committed write.
type Writes struct {
	lsn     atomic.Uint64
	primary *sql.DB
}

// LSN is the primary's WAL position after the request's last write; ok is
// false when it wrote nothing.
func (w *Writes) LSN() (lsn postgres.LSN, ok bool) {
	v := w.lsn.Load()
	return postgres.LSN(v), v != 0
}

func (w *Writes) note(l postgres.LSN) {
	for {
		old := w.lsn.Load()
		if uint64(l) <= old || w.lsn.CompareAndSwap(old, uint64(l)) {
			return
		}
	}
}

// router is the ent driver of a primary with a read replica.
type router struct {
	primary dialect.Driver // ent's driver over pdb
	replica dialect.Driver // ent's driver over r.SQL
	pdb     *sql.DB
	r       *postgres.Replica
}

func (d *router) Dialect() string { return d.primary.Dialect() }

// Close closes the primary's driver; DB.Close closes the replica.
func (d *router) Close() error { return d.primary.Close() }

// onReplica reports whether a read with ctx goes to the replica.
func (d *router) onReplica(ctx context.Context) bool {
	r := routeOf(ctx)
	if r.primary || r.pref == ReadPrimary || (r.pref != ReadReplica && !r.stale) {
		return false
	}
	return ent.TxFromContext(ctx) == nil && d.r.Usable(r.after)
}

func (d *router) Query(ctx context.Context, query string, args, v any) error {
	write := writes(query)
	if !write && d.onReplica(ctx) {
		err := d.replica.Query(ctx, query, args, v)
		if err == nil || ctx.Err() != nil {
			return err
		}
		// Stopped, cut off, or a statement cancelled by a conflict with
		// replay: the primary answers instead, and a replica that is gone
		// serves nothing more until a check finds it back.
		d.r.Failed(err)
	}
	err := d.primary.Query(ctx, query, args, v)
	if err == nil && write {
		d.wrote(ctx)
	}
	return err
}

func (d *router) Exec(ctx context.Context, query string, args, v any) error {
	err := d.primary.Exec(ctx, query, args, v)
	if err == nil {
		d.wrote(ctx)
	}
	return err
}

func (d *router) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.primary.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return &routedTx{Tx: tx, d: d, ctx: ctx}, nil
}

// BeginTx begins a transaction with options on the primary (ent's
// Client.BeginTx).
func (d *router) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	b, ok := d.primary.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	})
	if !ok {
		return d.Tx(ctx)
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &routedTx{Tx: tx, d: d, ctx: ctx}, nil
}

// ExecContext and QueryContext (ent's Client.ExecContext and
// QueryContext, for statements of their own) run on the primary.
func (d *router) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := d.pdb.ExecContext(ctx, query, args...)
	if err == nil {
		d.wrote(ctx)
	}
	return res, err
}

func (d *router) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return d.pdb.QueryContext(ctx, query, args...)
}

// DBFor is the pool a read with ctx may batch its statements on
// (internal/view's pipeline): the primary's, or nil when the read goes to
// the replica, whose statements then go one by one through Query, each
// asked of the primary if the replica fails it.
func (d *router) DBFor(ctx context.Context) *sql.DB {
	if d.onReplica(ctx) {
		return nil
	}
	return d.pdb
}

// wrote notes the primary's WAL position in the request's Writes, after a
// write under ctx committed.
func (d *router) wrote(ctx context.Context) {
	w := routeOf(ctx).writes
	if w == nil {
		return
	}
	if lsn, err := postgres.CurrentLSN(context.WithoutCancel(ctx), d.pdb); err == nil {
		w.note(lsn)
	}
}

// writes reports whether a statement sent through Query writes (an
// INSERT … RETURNING of ent's creates).
func writes(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	if len(q) < 6 {
		return false
	}
	switch strings.ToUpper(q[:6]) {
	case "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}

// routedTx is a transaction on the primary that notes its commit's WAL
// position.
type routedTx struct {
	dialect.Tx
	d   *router
	ctx context.Context
}

func (t *routedTx) Commit() error {
	err := t.Tx.Commit()
	if err == nil {
		t.d.wrote(t.ctx)
	}
	return err
}

// ExecContext and QueryContext pass database/sql's own calls through (ent's
// Tx.ExecContext asserts them).
func (t *routedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.Tx.(interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}).ExecContext(ctx, query, args...)
}

func (t *routedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.Tx.(interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}).QueryContext(ctx, query, args...)
}
