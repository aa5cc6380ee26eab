package eventlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/resourceid"
	"logistics/internal/tracing"
	"logistics/internal/view"
)

// Why the sequence is assigned at commit, not at insert: two transactions on
// two instances may take numbers 7 and 8 and commit 8 first. A reader that
// saw 8 and moved its cursor past it would never see 7. Here the events of a
// transaction are written in its commit hook, after an
// UPDATE … SET last_value = last_value + k RETURNING last_value on the one
// counter row of the database (one database per environment): that row lock
// is held until the commit, so a later transaction gets its numbers only
// after the earlier one is visible. Commit order is sequence order, and a
// reader that sees number n sees every number below it. SQLite serialises
// writers anyway (write transactions take the lock up front).

// counterTable holds the one counter row (id 1) of a database.
const counterTable = "event_counter"

// Change is one event being recorded in the current transaction.
type Change struct {
	Type      string
	SubjectID resourceid.ID
	Actor     string
	// Object is the resource's REST representation after the change (for a
	// deletion, the last one before it).
	Object any
	// Previous is previous_attributes: the changed fields' former values.
	Previous map[string]any
	// Extra holds type-specific keys of data (order.transitioned: "transition").
	Extra map[string]any
}

type batchKey struct{}

// batch collects a transaction's events until its commit.
type batch struct {
	mu     sync.Mutex
	rows   []*ent.EventCreate
	notify *Log // may be nil (tests, tools)
	tx     *ent.Tx
	clock  Clock // nil: real time
	// occurred is the transaction's occurred_at, read from clock once (or
	// set by SetOccurred); nil until then.
	occurred *time.Time
}

// Begin prepares tx to record events: it returns the context to run the
// transaction's work with and registers the commit hook that numbers and
// writes them. Every transaction that may record events must be started
// through it (service.WithTx and the GraphQL transactioner are).
func Begin(ctx context.Context, tx *ent.Tx) context.Context {
	b := &batch{notify: FromContext(ctx), tx: tx, clock: ClockFromContext(ctx)}
	tx.OnCommit(b.hook)
	return context.WithValue(ctx, batchKey{}, b)
}

// Record adds an event to the transaction of ctx; it is written, numbered,
// when the transaction commits, and never if it rolls back.
func Record(ctx context.Context, c Change) error {
	b, _ := ctx.Value(batchKey{}).(*batch)
	if b == nil {
		return errors.New("eventlog: Record outside a transaction started with eventlog.Begin")
	}
	data := make(map[string]any, 2+len(c.Extra))
	for k, v := range c.Extra {
		data[k] = v
	}
	data[keyObject] = c.Object
	if c.Object == nil {
		data[keyObject] = map[string]any{}
	}
	if len(c.Previous) > 0 {
		data[keyPrevious] = c.Previous
	}
	now := time.Now().UTC()
	occurred, err := b.occurredAt(ctx, now)
	if err != nil {
		return err
	}
	row := b.tx.Event.Create().
		SetType(c.Type).
		SetSubjectID(string(c.SubjectID)).
		SetActor(c.Actor).
		SetData(data).
		SetCreatedAt(now).
		SetUpdatedAt(now).
		SetOccurredAt(occurred)
	if tp := tracing.TraceParent(ctx); tp != nil {
		// The trace of the change continues in the event's webhook attempts
		// and subscription messages, whichever instance sends them.
		row.SetTraceParent(*tp)
	}
	b.mu.Lock()
	b.rows = append(b.rows, row)
	b.mu.Unlock()
	return nil
}

func (b *batch) hook(next ent.Committer) ent.Committer {
	return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
		b.mu.Lock()
		rows := b.rows
		b.rows = nil
		b.mu.Unlock()
		if len(rows) == 0 {
			return next.Commit(ctx, tx)
		}
		seq := b.notify.sequencer()
		last, err := write(ctx, tx.Client(), rows, seq != nil, b.notify)
		if err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("eventlog: %w", err)
		}
		if err := next.Commit(ctx, tx); err != nil {
			return err
		}
		switch {
		case seq != nil:
			seq.await(ctx) // numbered by the sequencer, which wakes the waiters
		case b.notify != nil:
			b.notify.committed(last)
		}
		return nil
	})
}

// write inserts a transaction's events at its commit. With a sequencer
// (PostgreSQL, serving: sequencer.go) it leaves them unnumbered, each with
// its pending_order, in one statement of its own SQL (insertPending), and
// returns 0: no lock is shared with other writers.
// Otherwise it numbers them from the counter and, on PostgreSQL, queues a
// NOTIFY that is delivered on commit.
//
// Numbering here holds the counter row's lock from the numbering until the
// commit ends, and every event-writing transaction of the environment waits
// for it, so the statements run under it are kept to one on PostgreSQL: the
// events are inserted first, unnumbered (their ent hooks — the webhook
// fan-out — run then, outside the lock), and one statement takes the
// numbers, sets them and notifies. SQLite serialises whole write
// transactions anyway: there the numbers are taken first and inserted with
// the rows, one statement fewer, by the log's own INSERT (insertNumbered)
// when the transaction has a Log to call the listeners of, by ent's
// otherwise.
//
// The statement that takes the numbers (SQLite) or inserts the events with
// their pending orders (PostgreSQL with the sequencer) also reads the
// endpoints' stamp (stamp.go), which the inserts' hooks and listeners find in
// their context; the counter path on PostgreSQL, which numbers after
// inserting, reads it in a statement of its own.
func write(ctx context.Context, c *ent.Client, rows []*ent.EventCreate, deferred bool, notify *Log) (int64, error) {
	drv := c.Driver()
	if drv.Dialect() != dialect.Postgres {
		var last int64
		var stamp sql.NullInt64
		if err := counterRow(ctx, drv, reserveStampStmt, []any{len(rows)}, &last, &stamp); err != nil {
			return 0, err
		}
		first := last - int64(len(rows)) + 1
		for i, r := range rows {
			r.SetSequence(int(first + int64(i)))
		}
		ctx = withStamp(ctx, stamp)
		if notify != nil {
			return last, insertNumbered(ctx, c, rows, notify)
		}
		return last, insert(ctx, c, rows)
	}
	if deferred {
		return 0, insertPending(ctx, c, rows, notify)
	}
	stamp, err := readStamp(ctx, drv)
	if err != nil {
		return 0, err
	}
	ctx = withStamp(ctx, stamp)
	ids := make([]string, len(rows))
	for i, r := range rows {
		id, ok := r.Mutation().ID()
		if !ok {
			id = resourceid.New(resourceid.Event)
			r.SetID(id)
		}
		ids[i] = string(id)
	}
	if err := insert(ctx, c, rows); err != nil {
		return 0, err
	}
	return numberPG(ctx, drv, ids)
}

// reserveStampStmt is Reserve's statement on SQLite, also returning the
// endpoints' stamp.
const reserveStampStmt = "UPDATE " + counterTable + " SET last_value = last_value + ? WHERE id = 1 RETURNING last_value, " + stampSQL

// insertPending inserts rows unnumbered on PostgreSQL, each taking its
// pending_order from the sequence in the INSERT itself (the rows of a VALUES
// list are evaluated in order), and reads the endpoints' stamp in the same
// statement: one round trip where ent's insert needed a statement before it
// for the orders and the stamp. ent's hooks do not run on these rows, so it
// calls the Log's insert listeners (OnInsert) with them, in the transaction,
// with the stamp in their context. It checks the values as ent's builders
// would (the same generated validators).
func insertPending(ctx context.Context, c *ent.Client, rows []*ent.EventCreate, l *Log) error {
	drv := c.Driver()
	var stamp sql.NullInt64
	inserted, err := insertChunks(rows, pendingInsert, pendingArgs,
		func(q *strings.Builder, args []any, v row, _ *ent.EventCreate) ([]any, error) {
			q.WriteByte('(')
			view.WritePlaceholders(q, dialect.Postgres, len(args)+1, pendingArgs, ", ")
			q.WriteString(", " + PendingOrderSQL + ")")
			return append(args, string(v.id), v.created, v.updated, v.typ, v.subject, v.actor, v.data, v.traceParent, v.occurred), nil
		},
		func(stmt string, args []any, k int, first bool) error {
			q := stmt + " RETURNING " + stampSQL
			s, err := insertedStamp(ctx, drv, q, args, k)
			if first {
				stamp = s // one stamp for the transaction's fan-out: the first statement's
			}
			return err
		})
	if err != nil {
		return err
	}
	return l.inserted(withStamp(ctx, stamp), c, inserted)
}

// insertChunks runs the event log's own INSERT of rows, one statement per
// insertChunk rows: head, then each row's values as value writes them
// (argsPerRow arguments each), run by run with the chunk's size. It
// returns the events inserted.
func insertChunks(rows []*ent.EventCreate, head string, argsPerRow int,
	value func(q *strings.Builder, args []any, v row, r *ent.EventCreate) ([]any, error),
	run func(stmt string, args []any, k int, first bool) error) ([]Inserted, error) {
	inserted := make([]Inserted, 0, len(rows))
	for lo := 0; lo < len(rows); lo += insertChunk {
		chunk := rows[lo:min(lo+insertChunk, len(rows))]
		var q strings.Builder
		q.WriteString(head)
		args := make([]any, 0, argsPerRow*len(chunk))
		for i, r := range chunk {
			v, err := valuesOf(r)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				q.WriteString(", ")
			}
			if args, err = value(&q, args, v, r); err != nil {
				return nil, err
			}
			inserted = append(inserted, Inserted{ID: v.id, Type: v.typ, SubjectID: v.subject})
		}
		if err := run(q.String(), args, len(chunk), lo == 0); err != nil {
			return nil, err
		}
	}
	return inserted, nil
}

// pendingInsert begins insertPending's statement; each row has pendingArgs
// arguments, then its pending_order.
const pendingInsert = "INSERT INTO " + event.Table + " (" + event.FieldID + ", " + event.FieldCreatedAt + ", " + event.FieldUpdatedAt + ", " +
	event.FieldType + ", " + event.FieldSubjectID + ", " + event.FieldActor + ", " + event.FieldData + ", " + event.FieldTraceParent + ", " + event.FieldOccurredAt + ", " + event.FieldPendingOrder + ") VALUES "

const pendingArgs = 9

// row is an event's columns as the event log's own INSERTs write them.
type row struct {
	id                  resourceid.ID
	typ, subject, actor string
	data                []byte
	created, updated    time.Time
	// traceParent is the column's argument: a string, or an untyped nil
	// (NULL: tracing off, or no span), which database/sql passes on without
	// the reflection a nil *string takes.
	traceParent any
	// occurred is occurred_at's argument: a time, or an untyped nil (NULL).
	occurred any
}

// valuesOf reads r's columns and checks them as ent's builder would (the
// same generated validators).
func valuesOf(r *ent.EventCreate) (row, error) {
	m := r.Mutation()
	var v row
	var ok bool
	if v.id, ok = m.ID(); !ok {
		v.id = event.DefaultID()
	}
	v.typ, _ = m.GetType()
	v.subject, _ = m.SubjectID()
	v.actor, _ = m.Actor()
	v.created, _ = m.CreatedAt()
	v.updated, _ = m.UpdatedAt()
	if t, ok := m.OccurredAt(); ok {
		v.occurred = t
	}
	if tp, ok := m.TraceParent(); ok {
		if err := event.TraceParentValidator(tp); err != nil {
			return v, fmt.Errorf("event %s: %w", v.typ, err)
		}
		v.traceParent = tp
	}
	for _, err := range []error{event.IDValidator(string(v.id)), event.TypeValidator(v.typ), event.SubjectIDValidator(v.subject), event.ActorValidator(v.actor)} {
		if err != nil {
			return v, fmt.Errorf("event %s: %w", v.typ, err)
		}
	}
	data, _ := m.Data()
	js, err := marshalData(data)
	if err != nil {
		return v, fmt.Errorf("event %s: %w", v.typ, err)
	}
	v.data = js
	return v, nil
}

// insertNumbered inserts numbered rows on SQLite with the event log's own
// statement (one per insertChunk rows), as insertPending does on
// PostgreSQL: ent's INSERT of an event built its statement and arguments
// through the generic create spec, asked for the ids back (RETURNING, a
// query and its rows) and ran the Event hooks, all under SQLite's one
// write lock. Without ent's hooks, it calls the Log's insert listeners with
// the events (the webhook fan-out), in the transaction, with the stamp in
// ctx.
func insertNumbered(ctx context.Context, c *ent.Client, rows []*ent.EventCreate, l *Log) error {
	drv := c.Driver()
	inserted, err := insertChunks(rows, numberedInsert, numberedArgs,
		func(q *strings.Builder, args []any, v row, r *ent.EventCreate) ([]any, error) {
			seq, ok := r.Mutation().Sequence()
			if !ok {
				return nil, fmt.Errorf("event %s: not numbered", v.typ)
			}
			q.WriteString(numberedValues)
			return append(args, string(v.id), v.created, v.updated, v.typ, v.subject, v.actor, v.data, v.traceParent, v.occurred, seq), nil
		},
		func(stmt string, args []any, _ int, _ bool) error { return drv.Exec(ctx, stmt, args, nil) })
	if err != nil {
		return err
	}
	return l.inserted(ctx, c, inserted)
}

// numberedInsert begins insertNumbered's statement; each row is
// numberedValues, with numberedArgs arguments.
const (
	numberedInsert = "INSERT INTO " + event.Table + " (" + event.FieldID + ", " + event.FieldCreatedAt + ", " + event.FieldUpdatedAt + ", " +
		event.FieldType + ", " + event.FieldSubjectID + ", " + event.FieldActor + ", " + event.FieldData + ", " + event.FieldTraceParent + ", " + event.FieldOccurredAt + ", " + event.FieldSequence + ") VALUES "
	numberedValues = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	numberedArgs   = 10
)

// insertedStamp runs insertPending's statement and returns the stamp its k
// rows returned.
func insertedStamp(ctx context.Context, drv dialect.Driver, stmt string, args []any, k int) (sql.NullInt64, error) {
	var stamp sql.NullInt64
	var rows entsql.Rows
	if err := drv.Query(ctx, stmt, args, &rows); err != nil {
		return stamp, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if err := rows.Scan(&stamp); err != nil {
			return stamp, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return stamp, err
	}
	if n != k {
		return stamp, fmt.Errorf("%d events inserted for %d", n, k)
	}
	return stamp, rows.Close()
}

// insert writes rows in chunks: one INSERT must stay under PostgreSQL's
// 65,535 parameters.
func insert(ctx context.Context, c *ent.Client, rows []*ent.EventCreate) error {
	for lo := 0; lo < len(rows); lo += insertChunk {
		if err := c.Event.CreateBulk(rows[lo:min(lo+insertChunk, len(rows))]...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// numberStmt takes len(ids) numbers from the counter, gives them to the
// events ids in order and notifies the last: one round trip under the lock.
const numberStmt = `WITH c AS (
	UPDATE ` + counterTable + ` SET last_value = last_value + cardinality($1::text[]) WHERE id = 1 RETURNING last_value
), numbered AS (
	UPDATE ` + event.Table + ` e SET ` + event.FieldSequence + ` = c.last_value - cardinality($1::text[]) + v.n
	FROM c, unnest($1::text[]) WITH ORDINALITY AS v(id, n) WHERE e.id = v.id
)
SELECT c.last_value, pg_notify($2, c.last_value::text)::text FROM c`

// numberPG runs numberStmt.
func numberPG(ctx context.Context, drv dialect.Driver, ids []string) (int64, error) {
	var last int64
	var notified string // pg_notify's void, as text
	err := counterRow(ctx, drv, numberStmt, []any{ids, Channel}, &last, &notified)
	return last, err
}

// counterRow runs a statement that returns the counter's one row and scans
// it into dest.
func counterRow(ctx context.Context, q querier, stmt string, args []any, dest ...any) error {
	var rows entsql.Rows
	if err := q.Query(ctx, stmt, args, &rows); err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sequence: %w", err)
		}
		return errors.New("sequence: no counter row (database not migrated)")
	}
	if err := rows.Scan(dest...); err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	return rows.Close()
}

// insertChunk is how many events one INSERT writes at most.
const insertChunk = 1000

// querier is what Reserve needs: an ent driver or transaction.
type querier interface {
	Query(ctx context.Context, query string, args, v any) error
	Dialect() string
}

// Reserve takes k sequence numbers from the counter row and returns the
// last; the caller's transaction holds the row lock until it ends. Call it
// only at commit time (as Begin's hook does), so the lock is short.
func Reserve(ctx context.Context, q querier, k int) (int64, error) {
	stmt := "UPDATE " + counterTable + " SET last_value = last_value + ? WHERE id = 1 RETURNING last_value"
	if q.Dialect() == dialect.Postgres {
		stmt = "UPDATE " + counterTable + " SET last_value = last_value + $1 WHERE id = 1 RETURNING last_value"
	}
	var last int64
	err := counterRow(ctx, q, stmt, []any{k}, &last)
	return last, err
}

// ReserveSQL is Reserve for a database/sql transaction (bulk loaders).
func ReserveSQL(ctx context.Context, tx *sql.Tx, dia string, k int) (int64, error) {
	return Reserve(ctx, sqlQuerier{tx, dia}, k)
}

type sqlQuerier struct {
	tx  *sql.Tx
	dia string
}

func (s sqlQuerier) Dialect() string { return s.dia }

func (s sqlQuerier) Query(ctx context.Context, query string, args, v any) error {
	rows, err := s.tx.QueryContext(ctx, query, args.([]any)...)
	if err != nil {
		return err
	}
	*v.(*entsql.Rows) = entsql.Rows{ColumnScanner: rows}
	return nil
}
