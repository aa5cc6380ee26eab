package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"logistics/internal/database"
	"logistics/internal/decimal"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
)

// The floor's answers to W4 (create an order, submit it, allocate it), W5
// (append a tracking entry) and W6 (one order with its lines): hand-written
// SQL in the transaction shape of the service (internal/service): the same
// rows written, the same conditional updates, an order event per transition
// and a domain event per write, in one transaction per request. It relies on
// foreign keys where the service checks references first, and knows the
// fulfilment workflow's submit and allocate transitions instead of reading
// their definition. It writes the events table with the columns it has
// today, numbered from the event counter as the service's are (event): a
// change to either must be mirrored here.

// floorWriteHandlers adds the W4–W6 routes to mux.
func (f *floor) floorWriteHandlers(mux *http.ServeMux) {
	mux.HandleFunc("POST /floor/w4/orders", f.w4Create)
	mux.HandleFunc("POST /floor/w4/orders/{id}/transitions", f.w4Transition)
	mux.HandleFunc("POST /floor/w5/tracking-entries", f.w5)
	mux.HandleFunc("GET /floor/w6/orders/{id}", f.w6)
}

// errConflict is a 409 with a code, as the service answers.
type errConflict struct{ code, msg string }

func (e *errConflict) Error() string { return e.code + ": " + e.msg }

func (f *floor) fail(w http.ResponseWriter, err error) {
	var c *errConflict
	status, code := http.StatusInternalServerError, "internal"
	switch {
	case errors.As(err, &c):
		status, code = http.StatusConflict, c.code
	case errors.Is(err, errBadInput):
		status, code = http.StatusBadRequest, "invalid"
	case errors.Is(err, sql.ErrNoRows):
		status, code = http.StatusNotFound, "not_found"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": err.Error()}})
}

var errBadInput = errors.New("bad input")

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// exec runs a statement in tx with ? placeholders rewritten on PostgreSQL.
func (f *floor) exec(ctx context.Context, tx database.WriteTx, q string, args ...any) (int64, error) {
	f.statements.Add(1)
	if f.postgres {
		q = dollarPlaceholders(q)
	}
	if f.trace != nil {
		f.trace(q, args)
	}
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// txQuery is query inside tx.
func (f *floor) txQuery(ctx context.Context, tx database.WriteTx, q string, args ...any) (*sql.Rows, error) {
	f.statements.Add(1)
	if f.postgres {
		q = dollarPlaceholders(q)
	}
	if f.trace != nil {
		f.trace(q, args)
	}
	return tx.QueryContext(ctx, q, args...)
}

// inTx runs fn in a write transaction begun as the service's are
// (database.BeginWrite: on SQLite one at a time through the database's
// write gate, grouped at COMMIT).
func (f *floor) inTx(ctx context.Context, fn func(tx database.WriteTx) error) error {
	tx, err := f.begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if f.events != nil {
		f.events.Numbered(ctx) // as the service's writers wait for theirs
	}
	return nil
}

// event writes the domain event of a write as the service's event log does
// (internal/eventlog): on PostgreSQL with the sequencer running (the floor
// process), unnumbered with its pending_order, in the INSERT itself (the
// service takes it in one more statement), numbered after the commit (inTx
// waits, as the service's writers do); otherwise numbered from the event
// counter, whose row lock is held until the commit. Every floor transaction
// writes its one event last, as here, so the lock is taken where the
// service takes it, at the end. On PostgreSQL without the sequencer the
// numbering, the insert and the NOTIFY are one statement (the service needs
// three: it reads the webhook endpoints' stamp and inserts first, for its
// webhook fan-out hook); on SQLite two, as the service's (which reads the
// stamp in its counter statement).
func (f *floor) event(ctx context.Context, tx database.WriteTx, typ, subject string, data map[string]any, now time.Time) error {
	var js any
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		js = string(b)
	}
	id := string(resourceid.New(resourceid.Event))
	if f.postgres && f.events != nil {
		_, err := f.exec(ctx, tx, `INSERT INTO events (id, created_at, updated_at, type, subject_id, actor, data, pending_order) VALUES (?, ?, ?, ?, ?, ?, ?, `+eventlog.PendingOrderSQL+`)`,
			id, now, now, typ, subject, "floor", js)
		return err
	}
	if f.postgres {
		rows, err := f.txQuery(ctx, tx, `WITH c AS (UPDATE event_counter SET last_value = last_value + 1 WHERE id = 1 RETURNING last_value)
INSERT INTO events (id, created_at, updated_at, type, subject_id, actor, data, sequence)
SELECT ?::text, ?::timestamptz, ?::timestamptz, ?::text, ?::text, ?::text, ?::jsonb, c.last_value FROM c
RETURNING pg_notify('`+eventlog.Channel+`', sequence::text)::text`, id, now, now, typ, subject, "floor", js)
		if err != nil {
			return err
		}
		return drain(rows)
	}
	rows, err := f.txQuery(ctx, tx, `UPDATE event_counter SET last_value = last_value + 1 WHERE id = 1 RETURNING last_value`)
	if err != nil {
		return err
	}
	var seq int64
	if rows.Next() {
		err = rows.Scan(&seq)
	} else {
		err = errors.New("no event counter row")
	}
	rows.Close()
	if err != nil {
		return err
	}
	_, err = f.exec(ctx, tx, `INSERT INTO events (id, created_at, updated_at, type, subject_id, actor, data, sequence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		id, now, now, typ, subject, "floor", js, seq)
	return err
}

// drain reads rows to the end and closes them.
func drain(rows *sql.Rows) error {
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

type floorOrderIn struct {
	HubID       string `json:"hub_id"`
	CustomerRef string `json:"customer_ref"`
	Lines       []struct {
		PartID   string          `json:"part_id"`
		Quantity decimal.Decimal `json:"quantity"`
	} `json:"lines"`
}

// floorWriteOrder is the floor's answer to W4's requests.
type floorWriteOrder struct {
	ID          string           `json:"id"`
	Number      string           `json:"number,omitempty"`
	Status      string           `json:"status"`
	HubID       string           `json:"hub_id,omitempty"`
	CustomerRef string           `json:"customer_ref,omitempty"`
	Lines       []floorWriteLine `json:"lines,omitempty"`
}

type floorWriteLine struct {
	ID                string          `json:"id"`
	PartID            string          `json:"part_id"`
	Quantity          decimal.Decimal `json:"quantity"`
	AllocatedQuantity decimal.Decimal `json:"allocated_quantity"`
}

// w4Create: one transaction — the latest fulfilment workflow, the order in
// its initial state, its lines in one INSERT, the order.created event.
func (f *floor) w4Create(w http.ResponseWriter, r *http.Request) {
	var in floorOrderIn
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil || in.HubID == "" || len(in.Lines) == 0 || len(in.Lines) > 100 {
		f.fail(w, errBadInput)
		return
	}
	ctx := r.Context()
	now := time.Now().UTC()
	id := resourceid.New(resourceid.Order)
	o := floorWriteOrder{ID: string(id), Number: "FLR-" + string(id)[len(resourceid.Order)+1:], HubID: in.HubID, CustomerRef: in.CustomerRef}
	err := f.inTx(ctx, func(tx database.WriteTx) error {
		rows, err := f.txQuery(ctx, tx, `SELECT id, initial_state, version FROM workflows WHERE key = ? ORDER BY version DESC LIMIT 1`, "fulfilment")
		if err != nil {
			return err
		}
		var wfID string
		var version int
		if rows.Next() {
			err = rows.Scan(&wfID, &o.Status, &version)
		} else {
			err = sql.ErrNoRows
		}
		rows.Close()
		if err != nil {
			return err
		}
		if _, err := f.exec(ctx, tx, `INSERT INTO orders (id, created_at, updated_at, revision, number, status, customer_ref, hub_id, workflow_id) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)`,
			o.ID, now, now, o.Number, o.Status, in.CustomerRef, in.HubID, wfID); err != nil {
			return err
		}
		q := `INSERT INTO order_lines (id, created_at, updated_at, revision, quantity, allocated_quantity, shipped_quantity, order_id, part_id) VALUES `
		args := make([]any, 0, 6*len(in.Lines))
		for i, l := range in.Lines {
			if l.Quantity <= 0 || l.PartID == "" {
				return errBadInput
			}
			if i > 0 {
				q += ", "
			}
			q += "(?, ?, ?, 1, ?, 0, 0, ?, ?)"
			lid := string(resourceid.New(resourceid.OrderLine))
			args = append(args, lid, now, now, int64(l.Quantity), o.ID, l.PartID)
			o.Lines = append(o.Lines, floorWriteLine{ID: lid, PartID: l.PartID, Quantity: l.Quantity})
		}
		if _, err := f.exec(ctx, tx, q, args...); err != nil {
			return err
		}
		return f.event(ctx, tx, "order.created", o.ID, map[string]any{"status": o.Status, "workflow": "fulfilment", "workflow_version": version}, now)
	})
	if err != nil {
		f.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, o)
}

// floorTransitions are the fulfilment workflow's transitions W4 takes.
var floorTransitions = map[string]struct {
	from, to string
	reserve  bool
}{
	"submit":   {"draft", "open", false},
	"allocate": {"open", "allocated", true},
}

// w4Transition: one transaction — the conditional state change (it locks the
// order), the reservation of every line's missing quantity (allocate), the
// order event and the order.transitioned event.
func (f *floor) w4Transition(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Transition string `json:"transition"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10)).Decode(&in); err != nil {
		f.fail(w, errBadInput)
		return
	}
	t, ok := floorTransitions[in.Transition]
	if !ok {
		f.fail(w, errBadInput)
		return
	}
	ctx := r.Context()
	now := time.Now().UTC()
	o := floorWriteOrder{ID: r.PathValue("id"), Status: t.to}
	err := f.inTx(ctx, func(tx database.WriteTx) error {
		rows, err := f.txQuery(ctx, tx, `SELECT hub_id FROM orders WHERE id = ?`, o.ID)
		if err != nil {
			return err
		}
		var hubID string
		if rows.Next() {
			err = rows.Scan(&hubID)
		} else {
			err = sql.ErrNoRows
		}
		rows.Close()
		if err != nil {
			return err
		}
		n, err := f.exec(ctx, tx, `UPDATE orders SET status = ?, revision = revision + 1, updated_at = ? WHERE id = ? AND status = ?`, t.to, now, o.ID, t.from)
		if err != nil {
			return err
		}
		if n == 0 {
			return &errConflict{"illegal_transition", fmt.Sprintf("transition %q is not allowed from the order's state", in.Transition)}
		}
		if t.reserve {
			if o.Lines, err = f.reserve(ctx, tx, o.ID, hubID, now); err != nil {
				return err
			}
		}
		if _, err := f.exec(ctx, tx, `INSERT INTO order_events (id, created_at, updated_at, from_state, to_state, transition, actor, occurred_at, order_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			string(resourceid.New(resourceid.OrderEvent)), now, now, t.from, t.to, in.Transition, "floor", now, o.ID); err != nil {
			return err
		}
		return f.event(ctx, tx, "order.transitioned", o.ID, map[string]any{"from": t.from, "to": t.to, "transition": in.Transition}, now)
	})
	if err != nil {
		f.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// reserve reserves what every line lacks at the hub, lines in part order
// and items FEFO, then oldest, then id (the service's lock order), each with
// a conditional UPDATE that cannot oversell; all or nothing.
func (f *floor) reserve(ctx context.Context, tx database.WriteTx, orderID, hubID string, now time.Time) ([]floorWriteLine, error) {
	rows, err := f.txQuery(ctx, tx, `SELECT id, part_id, quantity, allocated_quantity FROM order_lines WHERE order_id = ? ORDER BY part_id, id`, orderID)
	if err != nil {
		return nil, err
	}
	var lines []floorWriteLine
	for rows.Next() {
		var l floorWriteLine
		if err := rows.Scan(&l.ID, &l.PartID, &l.Quantity, &l.AllocatedQuantity); err != nil {
			rows.Close()
			return nil, err
		}
		lines = append(lines, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var short []string
	for i := range lines {
		l := &lines[i]
		need := l.Quantity - l.AllocatedQuantity
		if need <= 0 {
			continue
		}
		got, err := f.reserveLine(ctx, tx, orderID, hubID, l, need, now)
		if err != nil {
			return nil, err
		}
		if got < need {
			short = append(short, fmt.Sprintf("%s needs %s, %s available", l.PartID, need, got))
		}
	}
	if len(short) > 0 {
		return nil, &errConflict{"insufficient_stock", fmt.Sprintf("not enough available stock at the order's hub: %v; nothing was reserved", short)}
	}
	return lines, nil
}

func (f *floor) reserveLine(ctx context.Context, tx database.WriteTx, orderID, hubID string, l *floorWriteLine, need decimal.Decimal, now time.Time) (decimal.Decimal, error) {
	rows, err := f.txQuery(ctx, tx, `SELECT id, quantity, reserved_quantity FROM items
WHERE hub_id = ? AND part_id = ? AND status = 'available' AND quantity - reserved_quantity >= ?
ORDER BY expires_at IS NULL, expires_at, created_at, id`, hubID, l.PartID, int64(decimal.FromInt(1)))
	if err != nil {
		return 0, err
	}
	type stock struct {
		id            string
		qty, reserved decimal.Decimal
	}
	var items []stock
	for rows.Next() {
		var s stock
		if err := rows.Scan(&s.id, &s.qty, &s.reserved); err != nil {
			rows.Close()
			return 0, err
		}
		items = append(items, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var got decimal.Decimal
	for _, it := range items {
		avail := it.qty - it.reserved
		for got < need && avail > 0 {
			take := min(avail, need-got)
			n, err := f.exec(ctx, tx, `UPDATE items SET reserved_quantity = reserved_quantity + ?, revision = revision + 1, updated_at = ?
WHERE id = ? AND status = 'available' AND quantity - reserved_quantity >= ?`, int64(take), now, it.id, int64(take))
			if err != nil {
				return 0, err
			}
			if n == 1 {
				if _, err := f.exec(ctx, tx, `INSERT INTO reservations (id, created_at, updated_at, order_id, order_line_id, item_id, quantity) VALUES (?, ?, ?, ?, ?, ?, ?)`,
					string(resourceid.New(resourceid.Reservation)), now, now, orderID, l.ID, it.id, int64(take)); err != nil {
					return 0, err
				}
				got += take
				break
			}
			// Reserved by someone else meanwhile: read what is left.
			rows, err := f.txQuery(ctx, tx, `SELECT quantity - reserved_quantity, status FROM items WHERE id = ?`, it.id)
			if err != nil {
				return 0, err
			}
			var st string
			avail = 0
			if rows.Next() {
				err = rows.Scan(&avail, &st)
			}
			rows.Close()
			if err != nil {
				return 0, err
			}
			if st != "available" {
				avail = 0
			}
		}
		if got >= need {
			break
		}
	}
	if got > 0 {
		if _, err := f.exec(ctx, tx, `UPDATE order_lines SET allocated_quantity = allocated_quantity + ?, revision = revision + 1, updated_at = ? WHERE id = ?`, int64(got), now, l.ID); err != nil {
			return 0, err
		}
		l.AllocatedQuantity += got
	}
	return got, nil
}

type floorTrackingIn struct {
	OrderID        string `json:"order_id"`
	TrackingNumber string `json:"tracking_number"`
	Carrier        string `json:"carrier"`
	Status         string `json:"status"`
	Location       string `json:"location"`
}

type floorTrackingOut struct {
	ID             string    `json:"id"`
	OrderID        string    `json:"order_id"`
	TrackingNumber string    `json:"tracking_number"`
	Carrier        string    `json:"carrier"`
	Status         string    `json:"status"`
	Location       string    `json:"location"`
	OccurredAt     time.Time `json:"occurred_at"`
}

// w5: one transaction — the tracking entry and its event.
func (f *floor) w5(w http.ResponseWriter, r *http.Request) {
	var in floorTrackingIn
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&in); err != nil || in.OrderID == "" || in.TrackingNumber == "" || in.Carrier == "" || in.Status == "" {
		f.fail(w, errBadInput)
		return
	}
	ctx := r.Context()
	now := time.Now().UTC()
	t := floorTrackingOut{ID: string(resourceid.New(resourceid.TrackingEntry)), OrderID: in.OrderID, TrackingNumber: in.TrackingNumber,
		Carrier: in.Carrier, Status: in.Status, Location: in.Location, OccurredAt: now}
	err := f.inTx(ctx, func(tx database.WriteTx) error {
		if _, err := f.exec(ctx, tx, `INSERT INTO tracking_entries (id, created_at, updated_at, revision, tracking_number, carrier, status, location, occurred_at, order_id) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
			t.ID, now, now, t.TrackingNumber, t.Carrier, t.Status, t.Location, now, t.OrderID); err != nil {
			return err
		}
		return f.event(ctx, tx, "tracking_entry.created", t.ID, map[string]any{"order_id": t.OrderID, "status": t.Status}, now)
	})
	if err != nil {
		f.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, t)
}

// w6: one order with its hub code and its lines (part sku and name): two
// statements.
func (f *floor) w6(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	rows, err := f.query(ctx, `SELECT o.id, o.number, o.status, h.code, o.customer_ref, o.priority, o.due_at, o.created_at, o.updated_at
FROM orders o JOIN hubs h ON h.id = o.hub_id WHERE o.id = ?`, id)
	if err != nil {
		f.fail(w, err)
		return
	}
	o := &floorOrderLines{Lines: []floorLine{}}
	if rows.Next() {
		var due sql.NullTime
		err = rows.Scan(&o.ID, &o.Number, &o.Status, &o.Hub, &o.CustomerRef, &o.Priority, &due, &o.CreatedAt, &o.UpdatedAt)
		if due.Valid {
			o.DueAt = &due.Time
		}
	} else {
		err = sql.ErrNoRows
	}
	rows.Close()
	if err != nil {
		f.fail(w, err)
		return
	}
	rows, err = f.query(ctx, `SELECT l.id, p.sku, p.part_name, l.quantity, l.allocated_quantity, l.shipped_quantity
FROM order_lines l JOIN parts p ON p.id = l.part_id WHERE l.order_id = ? ORDER BY l.id`, id)
	if err != nil {
		f.fail(w, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var l floorLine
		if err := rows.Scan(&l.ID, &l.Part.SKU, &l.Part.PartName, &l.Quantity, &l.AllocatedQuantity, &l.ShippedQuantity); err != nil {
			f.fail(w, err)
			return
		}
		o.Lines = append(o.Lines, l)
	}
	if err := rows.Err(); err != nil {
		f.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// floorOrderLines is W6's answer: an order with its lines.
type floorOrderLines struct {
	ID          string      `json:"id"`
	Number      string      `json:"number"`
	Status      string      `json:"status"`
	Hub         string      `json:"hub"`
	CustomerRef string      `json:"customer_ref"`
	Priority    string      `json:"priority"`
	DueAt       *time.Time  `json:"due_at"`
	CreatedAt   time.Time   `json:"created_at"`
	UpdatedAt   time.Time   `json:"updated_at"`
	Lines       []floorLine `json:"lines"`
}
