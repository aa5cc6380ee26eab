package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// Part is a catalogue entry: what a unit of stock is.
type Part struct{ ent.Schema }

func (Part) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Part), timeMixin{}, revisionMixin{}}
}

func (Part) Fields() []ent.Field {
	return []ent.Field{
		field.String("sku").Unique().NotEmpty().MaxLen(64).Validate(validSKU).Annotations(entgql.OrderField("SKU")),
		field.String("part_name").NotEmpty().MaxLen(200).Annotations(entgql.OrderField("PART_NAME")),
		field.String("description").Default("").MaxLen(4000),
		field.Enum("unit").Values("ea", "kg", "g", "m", "l", "box", "pallet").Default("ea").Annotations(entgql.OrderField("UNIT")),
		quantity("unit_weight_kg", "UNIT_WEIGHT_KG", false),
		field.Bool("hazardous").Default(false),
	}
}

func (Part) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("items", Item.Type).Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		edge.To("order_lines", OrderLine.Type).Annotations(entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
	}
}

func (Part) Indexes() []ent.Index {
	return []ent.Index{index.Fields("part_name"), index.Fields("unit"), index.Fields("unit_weight_kg"), index.Fields("hazardous")}
}

func (Part) Annotations() []schema.Annotation { return resource("parts") }
