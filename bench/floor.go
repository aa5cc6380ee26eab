package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"

	"logistics/internal/database"
	"logistics/internal/decimal"
	"logistics/internal/eventlog"
)

// floor is the baseline every row is compared with: a minimal handler that answers the three
// workloads with hand-written SQL and encoding/json on the same database as
// the service. It does what a careful hand-written endpoint would do and no
// more: no auth, no filter parser, no ORM, no GraphQL executor.
type floor struct {
	db         *sql.DB
	postgres   bool
	statements atomic.Int64 // SQL statements issued (for the per-request count)
	// trace, when set, sees every statement (in-process runs capture them for
	// EXPLAIN); the floor process leaves it nil.
	trace func(q string, args []any)
	// begin begins a write transaction as the service's begin: on SQLite
	// through the database's own write gate (internal/sqlite/gate.go),
	// which the service's transactions and the log's restarts pass too,
	// grouped with the transactions queued behind it as the service's are
	// (group commit: the same transaction shape, the same number of
	// COMMITs). Without the gate the floor's writers met SQLite's sleeping
	// busy handler and the comparison measured the handler's sleeps. On
	// PostgreSQL database/sql's BeginTx (row locks).
	begin func(context.Context) (database.WriteTx, error)
	// events, on PostgreSQL when sequence started it, numbers the floor's
	// events after their commit as the service's sequencer does
	// (internal/eventlog/sequencer.go); nil: numbered at commit.
	events *eventlog.Log
	// workflows holds the workflows the REST document's orders have read
	// (floorrest.go): workflow id → *floorWorkflow.
	workflows sync.Map
}

func newFloor(db *database.DB) *floor {
	return &floor{db: db.SQL, postgres: db.Dialect == dialect.Postgres, begin: db.BeginWrite}
}

// sequence runs the event sequencer on PostgreSQL until ctx ends, as a
// serving instance does; the floor's writes then leave their events to it.
func (f *floor) sequence(ctx context.Context) {
	if !f.postgres {
		return
	}
	f.events = eventlog.New("floor", nil)
	go f.events.Sequence(ctx, f.db, dialect.Postgres)
	for !f.events.Sequencing() && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

// Handler serves /floor/w1, /floor/w2, /floor/w3, their REST documents
// (/floor/rest/…), the write workloads and /healthz.
func (f *floor) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	mux.HandleFunc("GET /floor/w1", f.serve(f.w1))
	mux.HandleFunc("GET /floor/w2", f.serve(f.w2))
	mux.HandleFunc("GET /floor/w3", func(w http.ResponseWriter, r *http.Request) {
		// W3 (open orders) and W3s (?status=shipped).
		status := r.URL.Query().Get("status")
		if status == "" {
			status = "open"
		}
		f.serve(func(ctx context.Context, limit int) (any, int, string, error) { return f.w3(ctx, status, limit) })(w, r)
	})
	f.restFloorHandlers(mux)
	f.floorWriteHandlers(mux)
	return mux
}

// page is the REST list envelope.
type page struct {
	Data       any     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

func (f *floor) serve(fn func(ctx context.Context, limit int) (any, int, string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit := 50
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 500 {
				http.Error(w, `{"error":"limit"}`, http.StatusBadRequest)
				return
			}
			limit = n
		}
		data, n, last, err := fn(r.Context(), limit+1)
		if err != nil {
			http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
			return
		}
		p := page{Data: data, HasMore: n > limit}
		if p.HasMore {
			p.NextCursor = &last
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p)
	}
}

// query runs q with ? placeholders rewritten to $n on PostgreSQL.
func (f *floor) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	f.statements.Add(1)
	if f.postgres {
		q = dollarPlaceholders(q)
	}
	if f.trace != nil {
		f.trace(q, args)
	}
	return f.db.QueryContext(ctx, q, args...)
}

// dollarTexts holds the floor's statement texts rewritten for PostgreSQL:
// a few dozen texts (an IN list per length) asked for on every request.
var dollarTexts sync.Map // ? text → $n text

// dollarPlaceholders rewrites q's ? placeholders to $1, $2, … (PostgreSQL),
// once per text.
func dollarPlaceholders(q string) string {
	if v, ok := dollarTexts.Load(q); ok {
		return v.(string)
	}
	out := rewriteDollars(q)
	dollarTexts.Store(q, out)
	return out
}

func rewriteDollars(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lookAhead drops the look-ahead row (the limit-th) of a page of orders
// from orders and byID, and returns the page and its ids as a statement's
// arguments.
func lookAhead[T interface{ key() string }](orders []T, byID map[string]T, limit int) ([]T, []any) {
	if len(orders) == limit {
		delete(byID, orders[limit-1].key())
		orders = orders[:limit-1]
	}
	ids := make([]any, len(orders))
	for i, o := range orders {
		ids[i] = o.key()
	}
	return orders, ids
}

// latestTracking is the statement of the 3 latest tracking entries of each
// order whose id is in the list in (placeholders): cols of t, each entry,
// and on PostgreSQL inner, the columns the lateral subquery reads of l.
func (f *floor) latestTracking(cols, inner, in string) string {
	if f.postgres {
		return `SELECT ` + cols + `
FROM orders o CROSS JOIN LATERAL (
  SELECT ` + inner + ` FROM tracking_entries l
  WHERE l.order_id = o.id ORDER BY l.occurred_at DESC, l.id LIMIT 3) t
WHERE o.id IN (` + in + `) ORDER BY t.order_id, t.occurred_at DESC, t.id`
	}
	return `SELECT ` + cols + `
FROM orders o JOIN tracking_entries t ON t.id IN (
  SELECT l.id FROM tracking_entries l WHERE l.order_id = o.id ORDER BY l.occurred_at DESC, l.id LIMIT 3)
WHERE o.id IN (` + in + `) ORDER BY t.order_id, t.occurred_at DESC, t.id`
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

type floorItem struct {
	ID                string          `json:"id"`
	Part              floorPartRef    `json:"part"`
	Hub               string          `json:"hub"`
	Quantity          decimal.Decimal `json:"quantity"`
	ReservedQuantity  decimal.Decimal `json:"reserved_quantity"`
	AvailableQuantity decimal.Decimal `json:"available_quantity"`
	Lot               string          `json:"lot"`
	Serial            string          `json:"serial"`
	Status            string          `json:"status"`
	ExpiresAt         *time.Time      `json:"expires_at"`
	CreatedAt         time.Time       `json:"created_at"`
	UpdatedAt         time.Time       `json:"updated_at"`
}

type floorPartRef struct {
	ID       string `json:"id,omitempty"`
	SKU      string `json:"sku"`
	PartName string `json:"part_name,omitempty"`
}

// w1: items with quantity > 100 at AMS1 or RTM2, by id, with part sku.
//
// The shape matters on SQLite: a JOIN of items, hubs and parts makes it read
// every matching item and sort them (≈ 55 ms at 200,000 items), while EXISTS
// plus per-row lookups lets it walk the id index and stop after the page
// (≈ 0.2 ms) — with or without ANALYZE statistics. Check with --explain.
func (f *floor) w1(ctx context.Context, limit int) (any, int, string, error) {
	rows, err := f.query(ctx, `SELECT i.id, i.part_id,
  (SELECT p.sku FROM parts p WHERE p.id = i.part_id),
  (SELECT h.code FROM hubs h WHERE h.id = i.hub_id),
  i.quantity, i.reserved_quantity, i.lot, i.serial, i.status, i.expires_at, i.created_at, i.updated_at
FROM items i
WHERE i.quantity > ? AND EXISTS (SELECT 1 FROM hubs h WHERE h.id = i.hub_id AND h.code IN (?, ?))
ORDER BY i.id LIMIT ?`, int64(decimal.FromInt(100)), "AMS1", "RTM2", limit)
	if err != nil {
		return nil, 0, "", err
	}
	defer rows.Close()
	out := make([]floorItem, 0, limit)
	for rows.Next() {
		var it floorItem
		var exp sql.NullTime
		if err := rows.Scan(&it.ID, &it.Part.ID, &it.Part.SKU, &it.Hub, &it.Quantity, &it.ReservedQuantity,
			&it.Lot, &it.Serial, &it.Status, &exp, &it.CreatedAt, &it.UpdatedAt); err != nil {
			return nil, 0, "", err
		}
		if exp.Valid {
			it.ExpiresAt = &exp.Time
		}
		it.AvailableQuantity = it.Quantity - it.ReservedQuantity
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	return trimPage(out, limit)
}

// trimPage drops the look-ahead row and returns the page, the number of rows
// read and the last id of the page.
func trimPage[T interface{ key() string }](rows []T, limit int) (any, int, string, error) {
	n := len(rows)
	if n == limit {
		rows = rows[:limit-1]
	}
	last := ""
	if len(rows) > 0 {
		last = rows[len(rows)-1].key()
	}
	return rows, n, last, nil
}

func (it floorItem) key() string { return it.ID }

type floorPart struct {
	ID           string          `json:"id"`
	SKU          string          `json:"sku"`
	PartName     string          `json:"part_name"`
	Description  string          `json:"description"`
	Unit         string          `json:"unit"`
	UnitWeightKg decimal.Decimal `json:"unit_weight_kg"`
	Hazardous    bool            `json:"hazardous"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
}

func (p floorPart) key() string { return p.ID }

// w2: parts whose name contains "bolt", case-insensitively, by id.
func (f *floor) w2(ctx context.Context, limit int) (any, int, string, error) {
	// As the service writes it on both databases: SQLite runs with
	// case-sensitive LIKE (_cslike=1), and PostgreSQL's search index is on
	// lower(part_name).
	cond := "lower(part_name) LIKE ?"
	rows, err := f.query(ctx, `SELECT id, sku, part_name, description, unit, unit_weight_kg, hazardous, created_at, updated_at
FROM parts WHERE `+cond+` ORDER BY id LIMIT ?`, "%bolt%", limit)
	if err != nil {
		return nil, 0, "", err
	}
	defer rows.Close()
	out := make([]floorPart, 0, limit)
	for rows.Next() {
		var p floorPart
		if err := rows.Scan(&p.ID, &p.SKU, &p.PartName, &p.Description, &p.Unit, &p.UnitWeightKg, &p.Hazardous, &p.CreatedAt, &p.UpdatedAt); err != nil {
			return nil, 0, "", err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	return trimPage(out, limit)
}

type floorOrder struct {
	ID              string          `json:"id"`
	Number          string          `json:"number"`
	Status          string          `json:"status"`
	Hub             string          `json:"hub"`
	CustomerRef     string          `json:"customer_ref"`
	Priority        string          `json:"priority"`
	DueAt           *time.Time      `json:"due_at"`
	CreatedAt       time.Time       `json:"created_at"`
	UpdatedAt       time.Time       `json:"updated_at"`
	Lines           []floorLine     `json:"lines"`
	TrackingEntries []floorTracking `json:"tracking_entries"`
}

func (o *floorOrder) key() string { return o.ID }

type floorLine struct {
	ID                string          `json:"id"`
	Part              floorPartRef    `json:"part"`
	Quantity          decimal.Decimal `json:"quantity"`
	AllocatedQuantity decimal.Decimal `json:"allocated_quantity"`
	ShippedQuantity   decimal.Decimal `json:"shipped_quantity"`
}

type floorTracking struct {
	ID             string    `json:"id"`
	TrackingNumber string    `json:"tracking_number"`
	Carrier        string    `json:"carrier"`
	Status         string    `json:"status"`
	Location       string    `json:"location"`
	OccurredAt     time.Time `json:"occurred_at"`
}

// w3: orders in status (open for W3, shipped for W3s) by id, each with its
// lines (part sku and name) and its 3 latest tracking entries: three
// statements whatever the page size.
func (f *floor) w3(ctx context.Context, status string, limit int) (any, int, string, error) {
	rows, err := f.query(ctx, `SELECT o.id, o.number, o.status, h.code, o.customer_ref, o.priority, o.due_at, o.created_at, o.updated_at
FROM orders o JOIN hubs h ON h.id = o.hub_id
WHERE o.status = ? ORDER BY o.id LIMIT ?`, status, limit)
	if err != nil {
		return nil, 0, "", err
	}
	orders := make([]*floorOrder, 0, limit)
	byID := make(map[string]*floorOrder, limit)
	for rows.Next() {
		o := &floorOrder{Lines: []floorLine{}, TrackingEntries: []floorTracking{}}
		var due sql.NullTime
		if err := rows.Scan(&o.ID, &o.Number, &o.Status, &o.Hub, &o.CustomerRef, &o.Priority, &due, &o.CreatedAt, &o.UpdatedAt); err != nil {
			rows.Close()
			return nil, 0, "", err
		}
		if due.Valid {
			o.DueAt = &due.Time
		}
		orders = append(orders, o)
		byID[o.ID] = o
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	n := len(orders)
	orders, ids := lookAhead(orders, byID, limit)
	if len(orders) == 0 {
		return orders, n, "", nil
	}
	in := placeholders(len(ids))

	rows, err = f.query(ctx, `SELECT l.order_id, l.id, p.sku, p.part_name, l.quantity, l.allocated_quantity, l.shipped_quantity
FROM order_lines l JOIN parts p ON p.id = l.part_id
WHERE l.order_id IN (`+in+`) ORDER BY l.order_id, l.id`, ids...)
	if err != nil {
		return nil, 0, "", err
	}
	for rows.Next() {
		var oid string
		var l floorLine
		if err := rows.Scan(&oid, &l.ID, &l.Part.SKU, &l.Part.PartName, &l.Quantity, &l.AllocatedQuantity, &l.ShippedQuantity); err != nil {
			rows.Close()
			return nil, 0, "", err
		}
		if o := byID[oid]; o != nil {
			o.Lines = append(o.Lines, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}

	// The 3 latest entries of each order: an index seek per order that
	// stops after 3 rows (LATERAL on PostgreSQL; SQLite has none, so a join
	// on id IN the same subquery). A ROW_NUMBER window read every entry of
	// every order, and W5 appends hundreds to the shipped ones (W3s).
	rows, err = f.query(ctx, f.latestTracking("t.order_id, t.id, t.tracking_number, t.carrier, t.status, t.location, t.occurred_at",
		"l.order_id, l.id, l.tracking_number, l.carrier, l.status, l.location, l.occurred_at", in), ids...)
	if err != nil {
		return nil, 0, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var oid string
		var t floorTracking
		if err := rows.Scan(&oid, &t.ID, &t.TrackingNumber, &t.Carrier, &t.Status, &t.Location, &t.OccurredAt); err != nil {
			return nil, 0, "", err
		}
		if o := byID[oid]; o != nil {
			o.TrackingEntries = append(o.TrackingEntries, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, "", err
	}
	return orders, n, orders[len(orders)-1].ID, nil
}
