package view

import (
	"context"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/part"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// One item, as GET /v1/items/{id} and every item event render it (W4 renders
// each item a reservation changes), is read in one statement scanned by
// hand: the item joined with its part's sku and name and its hub's code.
// ent's eager loads took three (item, part, hub). The text is built once per
// dialect, and compares the id with "IN (?)", which SQLite, unlike "= ?",
// does not prepare again at every use; TestItemLoadMatchesEnt holds it to what ent reads.
var ItemLoadStatement = map[string]string{
	dialect.SQLite:   buildItemStatement(dialect.SQLite),
	dialect.Postgres: buildItemStatement(dialect.Postgres),
}

func buildItemStatement(name string) string {
	b := sql.Dialect(name)
	i, p, h := b.Table(item.Table).As("i"), b.Table(part.Table).As("p"), b.Table(hub.Table).As("h")
	ts := TimeColumns(name)
	q, _ := b.Select(
		i.C(item.FieldID), ts(i.C(item.FieldCreatedAt)), ts(i.C(item.FieldUpdatedAt)), i.C(item.FieldRevision),
		i.C(item.FieldPartID), i.C(item.FieldHubID), i.C(item.FieldQuantity), i.C(item.FieldReservedQuantity),
		i.C(item.FieldLot), i.C(item.FieldSerial), i.C(item.FieldStatus), ts(i.C(item.FieldExpiresAt)),
		p.C(part.FieldSku), p.C(part.FieldPartName), h.C(hub.FieldCode),
	).From(i).
		Join(p).On(i.C(item.FieldPartID), p.C(part.FieldID)).
		Join(h).On(i.C(item.FieldHubID), h.C(hub.FieldID)).
		Where(sql.In(i.C(item.FieldID), "")).Query()
	return q
}

// LoadItem reads item id with its part (id, sku, name) and hub (id, code).
func LoadItem(ctx context.Context, id resourceid.ID) (*ent.Item, error) {
	drv := ent.FromContext(ctx).Driver()
	rows := &sql.Rows{}
	if err := drv.Query(ctx, ItemLoadStatement[drv.Dialect()], []any{id}, rows); err != nil {
		return nil, apperr.From(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, apperr.From(err)
		}
		return nil, apperr.NotFound("item %s not found", id)
	}
	it, p, h := new(ent.Item), new(ent.Part), new(ent.Hub)
	err := rows.Scan((*string)(&it.ID), Time{T: &it.CreatedAt}, Time{T: &it.UpdatedAt}, &it.Revision,
		(*string)(&it.PartID), (*string)(&it.HubID), (*int64)(&it.Quantity), (*int64)(&it.ReservedQuantity),
		&it.Lot, &it.Serial, (*string)(&it.Status), NullTime{T: &it.ExpiresAt},
		&p.Sku, &p.PartName, &h.Code)
	if err == nil {
		err = rows.Close()
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	p.ID, h.ID = it.PartID, it.HubID
	it.Edges.Part, it.Edges.Hub = p, h
	return it, nil
}
