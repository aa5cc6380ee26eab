package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// Reservation records how much of one item holds stock for one order line.
// The reserve effect writes them, release deletes them, ship consumes them;
// the sum over a line equals the line's allocated_quantity and the sum over
// an item equals the item's reserved_quantity.
type Reservation struct{ ent.Schema }

func (Reservation) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Reservation), timeMixin{}}
}

func (Reservation) Fields() []ent.Field {
	return []ent.Field{
		field.String("order_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Immutable(),
		field.String("order_line_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Immutable(),
		field.String("item_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Immutable(),
		quantity("quantity", "QUANTITY", true, "How much of the item the line holds reserved."),
	}
}

func (Reservation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("order_id"), index.Fields("order_line_id"), index.Fields("item_id")}
}

func (Reservation) Annotations() []schema.Annotation { return internalOnly() }
