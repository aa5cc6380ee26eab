package service

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/ent/orderline"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/decimal"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// object renders id for an event, as a JSON object (what readers get back),
// after a change: the row is kept for the request's view.Renderings.
func (s *Service) object(ctx context.Context, id resourceid.ID) (map[string]any, error) {
	_, m, err := s.objectRow(ctx, id)
	return m, err
}

// objectRow is object, with the row it rendered.
func (s *Service) objectRow(ctx context.Context, id resourceid.ID) (any, map[string]any, error) {
	row, m, err := s.render(ctx, id)
	if err == nil && row != nil {
		view.Keep(ctx, id, row)
	}
	return row, m, err
}

// render returns the row id was read from and its JSON object.
func (s *Service) render(ctx context.Context, id resourceid.ID) (any, map[string]any, error) {
	row, v, err := view.Represent(ctx, id)
	if err != nil {
		return nil, nil, apperr.From(err)
	}
	m, err := asMap(v)
	return row, m, err
}

// asMap turns a representation into its JSON object: one entry per
// top-level field, whose value is that field's JSON text (view.JSONText, as
// encoding/json writes it: the event log appends it as it is).
// Nothing below the top level is decoded: previous_attributes compare the
// texts (one encoder renders both sides, so equal values are equal texts),
// decimals are parsed from their text (decimalField), and the event's data
// is written out again from the texts as they are. Decoding every object
// into maps and encoding them again took 7% of an allocation's CPU, inside
// the write transaction.
func asMap(v any) (map[string]any, error) {
	b, err := view.Marshal(v)
	if err != nil {
		return nil, apperr.Internal(fmt.Errorf("event object: %w", err))
	}
	if m, ok := members(b); ok {
		return m, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, apperr.Internal(fmt.Errorf("event object: %w", err))
	}
	m := make(map[string]any, len(raw))
	for k, v := range raw {
		m[k] = view.JSONText(v) // a member of b, as encoding/json wrote it
	}
	return m, nil
}

// members splits b, a JSON object as encoding/json writes it (compact,
// valid), into its members, each value a view.JSONText sharing b's bytes;
// ok is false for anything else (asMap then decodes it the slow way).
func members(b []byte) (m map[string]any, ok bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, false
	}
	m = make(map[string]any, 24)
	i := 1
	if b[i] == '}' {
		return m, i == len(b)-1
	}
	for {
		if b[i] != '"' {
			return nil, false
		}
		end, esc := stringEnd(b, i)
		if end < 0 || esc || end+1 >= len(b) || b[end+1] != ':' {
			return nil, false // an escaped key is left to encoding/json
		}
		key := string(b[i+1 : end])
		i = end + 2
		j := valueEnd(b, i)
		if j <= i || j >= len(b) {
			return nil, false // no value, or no end
		}
		m[key] = view.JSONText(b[i:j:j])
		switch b[j] {
		case ',':
			i = j + 1
		case '}':
			return m, j == len(b)-1
		default:
			return nil, false
		}
	}
}

// stringEnd returns the index of the quote that closes the string opening
// at b[i], and whether the string holds an escape; -1 if it does not close.
func stringEnd(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			return j, esc
		}
	}
	return -1, esc
}

// valueEnd returns the index just past the JSON value starting at b[i]
// (the ',' or '}' that follows it in an object); -1 if it does not end.
func valueEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, _ := stringEnd(b, j)
			if end < 0 {
				return -1
			}
			j = end
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j
			}
			depth--
		case ',':
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// snapshot locks the resource's row (PostgreSQL; SQLite write transactions
// hold the database lock already) and renders it: the "before" of an update
// or the last state of a deletion. Locking first makes previous_attributes
// exact even beside a concurrent change of the same row. The lock is the one
// the UPDATE itself would take (FOR NO KEY UPDATE), only earlier: inserts
// that merely refer to the row (an item at a hub) are not held up by it.
func (s *Service) snapshot(ctx context.Context, id resourceid.ID) (map[string]any, error) {
	_, m, err := s.snapshotRow(ctx, id)
	return m, err
}

// snapshotRow is snapshot, with the row it rendered (nil when the resource
// does not exist).
func (s *Service) snapshotRow(ctx context.Context, id resourceid.ID) (any, map[string]any, error) {
	if id.Prefix() == resourceid.Order && client(ctx).Driver().Dialect() == dialect.Postgres {
		// The order's first read takes the lock (view.ForUpdate): one
		// statement fewer. A rendering that did not read it through
		// view's order read took none: lock, and render again.
		lctx, lock := view.ForUpdate(ctx)
		row, m, err := s.renderFound(lctx, id)
		if err != nil || lock.Taken() {
			return row, m, err
		}
	}
	if found, err := lockRow(ctx, id); err != nil || !found {
		return nil, nil, err
	}
	return s.renderFound(ctx, id)
}

// renderFound is render, with nothing (no error) for a resource that is
// not there.
func (s *Service) renderFound(ctx context.Context, id resourceid.ID) (any, map[string]any, error) {
	row, m, err := s.render(ctx, id)
	if err != nil && apperr.From(err).Kind == apperr.KindNotFound {
		return nil, nil, nil
	}
	return row, m, err
}

// lockRow takes on PostgreSQL the lock an UPDATE of the row would take (FOR
// NO KEY UPDATE), until the transaction ends, and reports whether the row
// exists; on SQLite, whose write transactions hold the database lock
// already, it does nothing and reports true.
func lockRow(ctx context.Context, id resourceid.ID) (bool, error) {
	drv := client(ctx).Driver()
	if drv.Dialect() != dialect.Postgres {
		return true, nil
	}
	table, err := ent.IDToTable(ctx, id)
	if err != nil {
		return false, apperr.Internal(fmt.Errorf("lock: no table for %s", id))
	}
	var rows entsql.Rows
	if err := drv.Query(ctx, `SELECT 1 FROM "`+table+`" WHERE id = $1 FOR NO KEY UPDATE`, []any{string(id)}, &rows); err != nil {
		return false, apperr.From(err)
	}
	defer rows.Close()
	return rows.Next(), nil
}

// changed returns previous_attributes: the top-level fields of after whose
// value differs in before, with before's value.
func changed(before, after map[string]any) map[string]any {
	if before == nil {
		return nil
	}
	prev := map[string]any{}
	for k, v := range before {
		if w, ok := after[k]; !ok || !reflect.DeepEqual(v, w) {
			prev[k] = v
		}
	}
	return prev
}

// emitCreatedFrom is emitCreated for a row the service built from its
// create (rendered by view.RenderRow, not read back); a nil row, or one
// RenderRow does not render, is read back instead.
func (s *Service) emitCreatedFrom(ctx context.Context, typ string, id resourceid.ID, extra map[string]any, row any) error {
	if row == nil {
		return s.emitCreated(ctx, typ, id, extra)
	}
	obj, ok, err := s.objectFrom(ctx, id, row)
	if err != nil {
		return err
	}
	if !ok {
		return s.emitCreated(ctx, typ, id, extra)
	}
	return s.record(ctx, typ, id, obj, nil, extra)
}

// emitCreated records typ for a resource just created.
func (s *Service) emitCreated(ctx context.Context, typ string, id resourceid.ID, extra map[string]any) error {
	obj, err := s.object(ctx, id)
	if err != nil {
		return err
	}
	return s.record(ctx, typ, id, obj, nil, extra)
}

// emitUpdated records typ for a resource changed from before (a snapshot).
func (s *Service) emitUpdated(ctx context.Context, typ string, id resourceid.ID, before map[string]any, extra map[string]any) error {
	_, err := s.emitUpdatedRow(ctx, typ, id, before, extra)
	return err
}

// emitUpdatedRow is emitUpdated, returning the row the event's object was
// rendered from.
func (s *Service) emitUpdatedRow(ctx context.Context, typ string, id resourceid.ID, before map[string]any, extra map[string]any) (any, error) {
	row, obj, err := s.objectRow(ctx, id)
	if err != nil {
		return nil, err
	}
	return row, s.record(ctx, typ, id, obj, changed(before, obj), extra)
}

// emitUpdatedFrom is emitUpdatedRow for a row the service built from the
// change it has just made (the resource as the transaction leaves it), not
// read back; a row view.RenderRow does not render is read back instead.
func (s *Service) emitUpdatedFrom(ctx context.Context, typ string, id resourceid.ID, before, extra map[string]any, row any) (any, error) {
	obj, ok, err := s.objectFrom(ctx, id, row)
	if err != nil {
		return nil, err
	}
	if !ok {
		return s.emitUpdatedRow(ctx, typ, id, before, extra)
	}
	return row, s.record(ctx, typ, id, obj, changed(before, obj), extra)
}

// objectFrom is objectRow for a row the service built from its change
// rather than read: rendered by view.RenderRow and kept for the request's
// view.Renderings. ok is false when RenderRow does not render the row's type.
func (s *Service) objectFrom(ctx context.Context, id resourceid.ID, row any) (map[string]any, bool, error) {
	v, ok := view.RenderRow(row)
	if !ok {
		return nil, false, nil
	}
	obj, err := asMap(v)
	if err != nil {
		return nil, false, err
	}
	view.Keep(ctx, id, row)
	return obj, true, nil
}

// emitDeleted records typ for a deleted resource with its last state.
func (s *Service) emitDeleted(ctx context.Context, typ string, id resourceid.ID, last map[string]any) error {
	if last == nil {
		last = map[string]any{"id": id}
	}
	last["deleted"] = true
	return s.record(ctx, typ, id, last, nil, nil)
}

func (s *Service) record(ctx context.Context, typ string, id resourceid.ID, obj, prev, extra map[string]any) error {
	if err := eventlog.Record(ctx, eventlog.Change{
		Type: typ, SubjectID: id, Actor: auth.Actor(ctx), Object: obj, Previous: prev, Extra: extra,
	}); err != nil {
		return apperr.Internal(err)
	}
	return nil
}

// emitEffect records typ (item.updated, order_line.updated) for a row that an
// order's stock effect has just changed, and whose lock that change holds:
// prev holds the changed fields' former values, worked out from the change
// itself, so they are exact without reading the row first. The revision
// went up by one. data.cause says which order and effect did it.
func (s *Service) emitEffect(ctx context.Context, typ string, id resourceid.ID, prev map[string]any, orderID resourceid.ID, effect string) error {
	obj, err := s.object(ctx, id)
	if err != nil {
		return err
	}
	return s.recordEffect(ctx, typ, id, obj, prev, orderID, effect)
}

// lineChanged sets line l's allocated and shipped quantities (an effect's
// change; l is the line as this transaction read it, under its order's
// lock) and records order_line.updated. The event's object is the line as
// the change left it, rendered from l and the change rather than read back:
// the revision goes up by one and updated_at is the time written here, to
// the microsecond PostgreSQL keeps.
func (s *Service) lineChanged(ctx context.Context, l *ent.OrderLine, allocated, shipped decimal.Decimal, prev map[string]any, orderID resourceid.ID, effect string) error {
	now := writeNow()
	// Update, not UpdateOneID: ent reads an updated-one row back (one more
	// statement). The quantities move by their differences, as the line's
	// own values in the database stand.
	if err := client(ctx).OrderLine.Update().Where(orderline.ID(l.ID)).
		AddAllocatedQuantity(allocated - l.AllocatedQuantity).
		AddShippedQuantity(shipped - l.ShippedQuantity).
		AddRevision(1).
		SetUpdatedAt(now).
		Exec(ctx); err != nil {
		return apperr.From(err)
	}
	// l itself moves too: it may be a line of the order's snapshot row, from
	// which the transition renders the order after the change.
	l.AllocatedQuantity, l.ShippedQuantity = allocated, shipped
	l.Revision, l.UpdatedAt = l.Revision+1, now
	after := *l
	after.Edges = ent.OrderLineEdges{}
	obj, ok, err := s.objectFrom(ctx, l.ID, &after)
	if err != nil {
		return err
	}
	if !ok {
		return s.emitEffect(ctx, "order_line.updated", l.ID, prev, orderID, effect)
	}
	return s.recordEffect(ctx, "order_line.updated", l.ID, obj, prev, orderID, effect)
}

// recordEffect is emitEffect with the object already rendered.
func (s *Service) recordEffect(ctx context.Context, typ string, id resourceid.ID, obj, prev map[string]any, orderID resourceid.ID, effect string) error {
	pm, err := asMap(prev)
	if err != nil {
		return err
	}
	if r, ok := obj["revision"].(view.JSONText); ok {
		if n, err := strconv.ParseInt(string(r), 10, 64); err == nil {
			pm["revision"] = n - 1
		}
	}
	return s.record(ctx, typ, id, obj, pm, map[string]any{"cause": map[string]any{"order_id": orderID, "effect": effect}})
}

// stockChanged records item.updated for an item whose quantity and reserved
// quantity an effect has just changed by dq and dr. The former values are
// worked out from the rendered item (exact: its numbers are kept as text),
// which the change's row lock holds; only without a representation (the
// service alone) is the item read for them.
func (s *Service) stockChanged(ctx context.Context, itemID resourceid.ID, dq, dr decimal.Decimal, orderID resourceid.ID, effect string) error {
	obj, err := s.object(ctx, itemID)
	if err != nil {
		return err
	}
	q, okq := decimalField(obj, "quantity")
	r, okr := decimalField(obj, "reserved_quantity")
	if !okq || !okr {
		it, err := client(ctx).Item.Query().Where(item.ID(itemID)).Select(item.FieldQuantity, item.FieldReservedQuantity).Only(ctx)
		if err != nil {
			return apperr.From(err)
		}
		q, r = it.Quantity, it.ReservedQuantity
	}
	return s.recordEffect(ctx, "item.updated", itemID, obj, previousStock(q, r, dq, dr), orderID, effect)
}

// previousStock is item.updated's previous_attributes for an item whose
// quantity q and reserved quantity r were moved by dq and dr.
func previousStock(q, r, dq, dr decimal.Decimal) map[string]any {
	q, r = q-dq, r-dr
	prev := map[string]any{"reserved_quantity": r, "available_quantity": q - r}
	if dq != 0 {
		prev["quantity"] = q
	}
	return prev
}

// decimalField reads a decimal number of a rendered object.
func decimalField(obj map[string]any, name string) (decimal.Decimal, bool) {
	n, ok := obj[name].(view.JSONText) // asMap's member text
	if !ok {
		return 0, false
	}
	d, err := decimal.Parse(string(n))
	return d, err == nil
}
