package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"logistics/internal/database"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/view"
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
	HubID       string        `json:"hub_id"`
	CustomerRef string        `json:"customer_ref"`
	Lines       []floorLineIn `json:"lines"`
}

type floorLineIn struct {
	PartID   string          `json:"part_id"`
	Quantity decimal.Decimal `json:"quantity"`
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
		hub, parts, err := f.refs(ctx, tx, in.HubID, in.Lines)
		if err != nil {
			return err
		}
		if _, err := f.exec(ctx, tx, `INSERT INTO orders (id, created_at, updated_at, revision, number, status, customer_ref, hub_id, workflow_id) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)`,
			o.ID, now, now, o.Number, o.Status, in.CustomerRef, in.HubID, wfID); err != nil {
			return err
		}
		rep := floorOrderRep{ID: o.ID, Number: o.Number, Status: o.Status, AllowedTransitions: floorAllowed[o.Status],
			CustomerRef: in.CustomerRef, Priority: "normal", Hub: floorHubRef{ID: in.HubID, Code: hub},
			Workflow: floorWorkflowRef{ID: wfID, Key: "fulfilment", Version: version}, LatestTracking: []floorTrackingRep{},
			Revision: 1, CreatedAt: now, UpdatedAt: now}
		q := `INSERT INTO order_lines (id, created_at, updated_at, revision, quantity, allocated_quantity, shipped_quantity, order_id, part_id) VALUES `
		args := make([]any, 0, 6*len(in.Lines))
		for i, l := range in.Lines {
			if i > 0 {
				q += ", "
			}
			q += "(?, ?, ?, 1, ?, 0, 0, ?, ?)"
			lid := string(resourceid.New(resourceid.OrderLine))
			args = append(args, lid, now, now, int64(l.Quantity), o.ID, l.PartID)
			o.Lines = append(o.Lines, floorWriteLine{ID: lid, PartID: l.PartID, Quantity: l.Quantity})
			part := parts[l.PartID]
			rep.Lines = append(rep.Lines, floorLineRep{ID: lid, OrderID: o.ID, PartID: l.PartID, Part: &part,
				Quantity: l.Quantity, Revision: 1, CreatedAt: now, UpdatedAt: now})
		}
		if _, err := f.exec(ctx, tx, q, args...); err != nil {
			return err
		}
		return f.writeEvents(ctx, tx, []floorEvent{{"order.created", o.ID, object(rep, nil, nil)}}, now)
	})
	if err != nil {
		f.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, o)
}

// refs reads the hub's code and the lines' parts (sku, name) in one
// statement, for the order's representation; a missing one is bad input
// (the service checks references before it writes).
func (f *floor) refs(ctx context.Context, tx database.WriteTx, hubID string, lines []floorLineIn) (string, map[string]floorPartRef, error) {
	args := []any{hubID}
	for _, l := range lines {
		if l.Quantity <= 0 || l.PartID == "" {
			return "", nil, errBadInput
		}
		args = append(args, l.PartID)
	}
	rows, err := f.txQuery(ctx, tx, `SELECT 'h', id, code, '' FROM hubs WHERE id = ?
UNION ALL SELECT 'p', id, sku, part_name FROM parts WHERE id IN (`+placeholders(len(lines))+`)`, args...)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	var hub string
	parts := make(map[string]floorPartRef, len(lines))
	for rows.Next() {
		var kind string
		var p floorPartRef
		if err := rows.Scan(&kind, &p.ID, &p.SKU, &p.PartName); err != nil {
			return "", nil, err
		}
		if kind == "h" {
			hub = p.SKU
		} else {
			parts[p.ID] = p
		}
	}
	if err := rows.Err(); err != nil {
		return "", nil, err
	}
	for _, l := range lines {
		if _, ok := parts[l.PartID]; !ok || hub == "" {
			return "", nil, errBadInput
		}
	}
	return hub, parts, nil
}

// floorTransitions are the fulfilment workflow's transitions W4 takes.
var floorTransitions = map[string]struct {
	from, to string
	reserve  bool
}{
	"submit":   {"draft", "open", false},
	"allocate": {"open", "allocated", true},
}

// w4Transition: one transaction — the order's hub and workflow, the
// conditional state change (it locks the order), its lines, the reservation
// of every line's missing quantity (allocate), the order event, and the
// events: per reservation item.updated and order_line.updated, then
// order.transitioned (effects first, as the service records them).
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
		rep := floorOrderRep{ID: o.ID, Status: t.to, AllowedTransitions: floorAllowed[t.to], LatestTracking: []floorTrackingRep{}}
		var was time.Time // updated_at before the change, for previous_attributes
		rows, err := f.txQuery(ctx, tx, `SELECT o.hub_id, h.code, o.workflow_id, w.key, w.version, o.updated_at
FROM orders o JOIN hubs h ON h.id = o.hub_id JOIN workflows w ON w.id = o.workflow_id WHERE o.id = ?`, o.ID)
		if err != nil {
			return err
		}
		if rows.Next() {
			err = rows.Scan(&rep.Hub.ID, &rep.Hub.Code, &rep.Workflow.ID, &rep.Workflow.Key, &rep.Workflow.Version, view.Time{T: &was})
		} else {
			err = sql.ErrNoRows
		}
		rows.Close()
		if err != nil {
			return err
		}
		rows, err = f.txQuery(ctx, tx, `UPDATE orders SET status = ?, revision = revision + 1, updated_at = ? WHERE id = ? AND status = ?
RETURNING number, customer_ref, priority, due_at, ship_to_name, ship_to_line1, ship_to_line2, ship_to_city, ship_to_postal_code, ship_to_country, revision, created_at`,
			t.to, now, o.ID, t.from)
		if err != nil {
			return err
		}
		changed := rows.Next()
		if changed {
			st := &rep.ShipTo
			err = rows.Scan(&rep.Number, &rep.CustomerRef, &rep.Priority, view.NullTime{T: &rep.DueAt},
				&st.Name, &st.Line1, &st.Line2, &st.City, &st.PostalCode, &st.Country, &rep.Revision, view.Time{T: &rep.CreatedAt})
		}
		rows.Close()
		if err != nil {
			return err
		}
		if !changed {
			return &errConflict{"illegal_transition", fmt.Sprintf("transition %q is not allowed from the order's state", in.Transition)}
		}
		rep.UpdatedAt = now
		lines, err := f.orderLines(ctx, tx, o.ID)
		if err != nil {
			return err
		}
		previous := map[string]any{"allowed_transitions": floorAllowed[t.from], "revision": rep.Revision - 1, "status": t.from, "updated_at": was}
		var evs []floorEvent
		if t.reserve {
			before := slices.Clone(lines)
			if evs, err = f.reserve(ctx, tx, o.ID, rep.Hub, lines, now); err != nil {
				return err
			}
			if len(evs) > 0 {
				previous["lines"] = sortedLines(before)
			}
			for _, l := range lines {
				o.Lines = append(o.Lines, floorWriteLine{ID: l.ID, PartID: l.PartID, Quantity: l.Quantity, AllocatedQuantity: l.AllocatedQuantity})
			}
		}
		rep.Lines = sortedLines(lines)
		if _, err := f.exec(ctx, tx, `INSERT INTO order_events (id, created_at, updated_at, from_state, to_state, transition, actor, occurred_at, order_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			string(resourceid.New(resourceid.OrderEvent)), now, now, t.from, t.to, in.Transition, "floor", now, o.ID); err != nil {
			return err
		}
		effect := "none"
		if t.reserve {
			effect = "reserve"
		}
		evs = append(evs, floorEvent{"order.transitioned", o.ID, object(rep, previous, map[string]any{"transition": map[string]any{
			"effect": effect, "from": t.from, "name": in.Transition, "to": t.to, "workflow": rep.Workflow.Key, "workflow_version": rep.Workflow.Version}})})
		return f.writeEvents(ctx, tx, evs, now)
	})
	if err != nil {
		f.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// orderLines reads an order's lines with their parts, in part order (the
// order reservations lock items in).
func (f *floor) orderLines(ctx context.Context, tx database.WriteTx, orderID string) ([]floorLineRep, error) {
	rows, err := f.txQuery(ctx, tx, `SELECT l.id, l.part_id, p.sku, p.part_name, l.quantity, l.allocated_quantity, l.shipped_quantity, l.revision, l.created_at, l.updated_at
FROM order_lines l JOIN parts p ON p.id = l.part_id WHERE l.order_id = ? ORDER BY l.part_id, l.id`, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var lines []floorLineRep
	for rows.Next() {
		l := floorLineRep{OrderID: orderID, Part: &floorPartRef{}}
		if err := rows.Scan(&l.ID, &l.PartID, &l.Part.SKU, &l.Part.PartName, &l.Quantity, &l.AllocatedQuantity, &l.ShippedQuantity,
			&l.Revision, view.Time{T: &l.CreatedAt}, view.Time{T: &l.UpdatedAt}); err != nil {
			return nil, err
		}
		l.Part.ID = l.PartID
		lines = append(lines, l)
	}
	return lines, rows.Err()
}

// sortedLines is lines in id order, as an order's representation lists them.
func sortedLines(lines []floorLineRep) []floorLineRep {
	out := slices.Clone(lines)
	slices.SortFunc(out, func(a, b floorLineRep) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// reserve reserves what every line lacks at the hub, lines in part order
// and items FEFO, then oldest, then id (the service's lock order), each with
// a conditional UPDATE that cannot oversell; all or nothing. It updates
// lines in place and returns the effects' events.
func (f *floor) reserve(ctx context.Context, tx database.WriteTx, orderID string, hub floorHubRef, lines []floorLineRep, now time.Time) ([]floorEvent, error) {
	var short []string
	var evs []floorEvent
	for i := range lines {
		l := &lines[i]
		need := l.Quantity - l.AllocatedQuantity
		if need <= 0 {
			continue
		}
		got, err := f.reserveLine(ctx, tx, orderID, hub, l, need, now, &evs)
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
	return evs, nil
}

func (f *floor) reserveLine(ctx context.Context, tx database.WriteTx, orderID string, hub floorHubRef, l *floorLineRep, need decimal.Decimal, now time.Time, evs *[]floorEvent) (decimal.Decimal, error) {
	rows, err := f.txQuery(ctx, tx, `SELECT id, quantity, reserved_quantity FROM items
WHERE hub_id = ? AND part_id = ? AND status = 'available' AND quantity - reserved_quantity >= ?
ORDER BY expires_at IS NULL, expires_at, created_at, id`, hub.ID, l.PartID, int64(decimal.FromInt(1)))
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
	cause := map[string]any{"effect": "reserve", "order_id": orderID}
	var got decimal.Decimal
	for _, it := range items {
		avail := it.qty - it.reserved
		for got < need && avail > 0 {
			take := min(avail, need-got)
			item, ok, err := f.reserveItem(ctx, tx, it.id, take, now)
			if err != nil {
				return 0, err
			}
			if ok {
				if _, err := f.exec(ctx, tx, `INSERT INTO reservations (id, created_at, updated_at, order_id, order_line_id, item_id, quantity) VALUES (?, ?, ?, ?, ?, ?, ?)`,
					string(resourceid.New(resourceid.Reservation)), now, now, orderID, l.ID, it.id, int64(take)); err != nil {
					return 0, err
				}
				item.Part = floorPartRef{ID: l.PartID, SKU: l.Part.SKU}
				item.Hub = hub
				*evs = append(*evs, floorEvent{"item.updated", item.ID, object(item, map[string]any{
					"available_quantity": item.AvailableQuantity + take, "reserved_quantity": item.ReservedQuantity - take, "revision": item.Revision - 1,
				}, map[string]any{"cause": cause})})
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
		rows, err := f.txQuery(ctx, tx, `UPDATE order_lines SET allocated_quantity = allocated_quantity + ?, revision = revision + 1, updated_at = ? WHERE id = ?
RETURNING allocated_quantity, revision`, int64(got), now, l.ID)
		if err != nil {
			return 0, err
		}
		if rows.Next() {
			err = rows.Scan(&l.AllocatedQuantity, &l.Revision)
		} else {
			err = sql.ErrNoRows
		}
		rows.Close()
		if err != nil {
			return 0, err
		}
		l.UpdatedAt = now
		line := *l
		line.Part = nil
		*evs = append(*evs, floorEvent{"order_line.updated", l.ID, object(line, map[string]any{
			"allocated_quantity": l.AllocatedQuantity - got, "revision": l.Revision - 1,
		}, map[string]any{"cause": cause})})
	}
	return got, nil
}

// reserveItem takes quantity from an available item if it still has it
// (false if not) and returns the item's row after the change.
func (f *floor) reserveItem(ctx context.Context, tx database.WriteTx, id string, take decimal.Decimal, now time.Time) (floorItemRep, bool, error) {
	rows, err := f.txQuery(ctx, tx, `UPDATE items SET reserved_quantity = reserved_quantity + ?, revision = revision + 1, updated_at = ?
WHERE id = ? AND status = 'available' AND quantity - reserved_quantity >= ?
RETURNING id, lot, serial, status, quantity, reserved_quantity, expires_at, revision, created_at`, int64(take), now, id, int64(take))
	if err != nil {
		return floorItemRep{}, false, err
	}
	defer rows.Close()
	var it floorItemRep
	if !rows.Next() {
		return it, false, rows.Err()
	}
	if err := rows.Scan(&it.ID, &it.Lot, &it.Serial, &it.Status, &it.Quantity, &it.ReservedQuantity,
		view.NullTime{T: &it.ExpiresAt}, &it.Revision, view.Time{T: &it.CreatedAt}); err != nil {
		return it, false, err
	}
	it.AvailableQuantity = it.Quantity - it.ReservedQuantity
	it.UpdatedAt = now
	return it, true, rows.Close()
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
		rep := floorTrackingRep{ID: t.ID, OrderID: t.OrderID, TrackingNumber: t.TrackingNumber, Carrier: t.Carrier, Status: t.Status,
			Location: t.Location, OccurredAt: now, Revision: 1, CreatedAt: now, UpdatedAt: now}
		return f.writeEvents(ctx, tx, []floorEvent{{"tracking_entry.created", t.ID, object(rep, nil, nil)}}, now)
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
