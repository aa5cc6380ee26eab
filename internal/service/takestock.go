package service

import (
	"context"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// An allocation reserves stock from an item with a conditional UPDATE and
// records item.updated with the item as the change left it. The UPDATE
// returns that row (RETURNING, which SQLite has too), so the event renders
// it without reading the item back: the read-back was one statement per
// line inside the write transaction (on SQLite the one write lock, on
// PostgreSQL while the item's row lock is held), three of W4's 37.

// takeStockTexts are the statement's texts by dialect: set updated_at, add
// to reserved_quantity and revision where the item is available and has
// the amount, return every column (timestamps through view.Time).
var takeStockTexts = map[string]string{
	dialect.SQLite:   buildTakeStock(dialect.SQLite),
	dialect.Postgres: buildTakeStock(dialect.Postgres),
}

func buildTakeStock(name string) string {
	ph := func(n int) string { return view.Placeholder(name, n) }
	ts := view.TimeColumns(name)
	cols := []string{
		item.FieldID, ts(item.FieldCreatedAt), ts(item.FieldUpdatedAt), item.FieldRevision,
		item.FieldPartID, item.FieldHubID, item.FieldQuantity, item.FieldReservedQuantity,
		item.FieldLot, item.FieldSerial, item.FieldStatus, ts(item.FieldExpiresAt),
	}
	return `UPDATE ` + item.Table + ` SET ` + item.FieldUpdatedAt + ` = ` + ph(1) + `, ` +
		item.FieldReservedQuantity + ` = ` + item.FieldReservedQuantity + ` + ` + ph(2) + `, ` +
		item.FieldRevision + ` = ` + item.FieldRevision + ` + 1` +
		// IN (?) rather than = ?: the same plan, but SQLite would prepare the
		// statement again at each use (go-sqlite3 clears its bindings).
		` WHERE ` + item.FieldID + ` IN (` + ph(3) + `) AND ` + item.FieldStatus + ` = ` + ph(4) +
		` AND ` + item.FieldQuantity + ` - ` + item.FieldReservedQuantity + ` >= ` + ph(5) +
		` RETURNING ` + strings.Join(cols, ", ")
}

// takeStock reserves take of item id if it is still available with that
// much unreserved, and returns the item after the change; nil when it was
// not (someone reserved from it or changed it meanwhile).
func takeStock(ctx context.Context, id resourceid.ID, take decimal.Decimal, now time.Time) (*ent.Item, error) {
	drv := client(ctx).Driver()
	rows := &entsql.Rows{}
	args := []any{now, int64(take), id, string(item.StatusAvailable), int64(take)}
	if err := drv.Query(ctx, takeStockTexts[drv.Dialect()], args, rows); err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	it := new(ent.Item)
	err := rows.Scan((*string)(&it.ID), view.Time{T: &it.CreatedAt}, view.Time{T: &it.UpdatedAt}, &it.Revision,
		(*string)(&it.PartID), (*string)(&it.HubID), (*int64)(&it.Quantity), (*int64)(&it.ReservedQuantity),
		&it.Lot, &it.Serial, (*string)(&it.Status), view.NullTime{T: &it.ExpiresAt})
	if err != nil {
		return nil, err
	}
	return it, rows.Close()
}

// stockTaken records item.updated for it, the item as takeStock left it
// (take more reserved), rendered from the row with its part's sku from the
// line and its hub's code from the order (the snapshot's edges). Without
// those edges, or without a row renderer, the item is read back
// (stockChanged).
func (s *Service) stockTaken(ctx context.Context, it *ent.Item, take decimal.Decimal, o *ent.Order, l *ent.OrderLine, effect string) error {
	p, h := l.Edges.Part, o.Edges.Hub
	if p == nil || p.ID != it.PartID || h == nil || h.ID != it.HubID {
		return s.stockChanged(ctx, it.ID, 0, take, o.ID, effect)
	}
	it.Edges.Part = &ent.Part{ID: p.ID, Sku: p.Sku}
	it.Edges.Hub = &ent.Hub{ID: h.ID, Code: h.Code}
	obj, ok, err := s.objectFrom(ctx, it.ID, it)
	if err != nil {
		return err
	}
	if !ok {
		return s.stockChanged(ctx, it.ID, 0, take, o.ID, effect)
	}
	return s.recordEffect(ctx, "item.updated", it.ID, obj, previousStock(it.Quantity, it.ReservedQuantity, 0, take), o.ID, effect)
}
