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
		field.String("sku").Unique().NotEmpty().MaxLen(64).Validate(validSKU).
			Comment("Stock keeping unit: the part's unique code, e.g. BLT-000123.").
			Annotations(entgql.OrderField("SKU")),
		field.String("part_name").NotEmpty().MaxLen(200).Comment("Name of the part, e.g. Hex bolt M8x40, steel.").
			Annotations(entgql.OrderField("PART_NAME")),
		field.String("description").Default("").MaxLen(4000).Comment("Free text about the part (up to 4,000 characters)."),
		field.Enum("unit").Values(partUnits.Names()...).Default("ea").
			Comment("The unit that quantities of this part count in.").
			Annotations(partUnits, entgql.OrderField("UNIT")),
		quantity("unit_weight_kg", "UNIT_WEIGHT_KG", false, "Weight of one unit in kilograms (exact, 3 decimals)."),
		field.Bool("hazardous").Default(false).Comment("true: dangerous goods that need special handling."),
	}
}

var partUnits = enumValues(
	"ea", "Each: counted in pieces.",
	"kg", "Kilograms.",
	"g", "Grams.",
	"m", "Metres.",
	"l", "Litres.",
	"box", "Boxes.",
	"pallet", "Pallets.",
)

func (Part) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("items", Item.Type).Comment("Stock of this part, at every hub.").
			Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		edge.To("order_lines", OrderLine.Type).Comment("Order lines that ask for this part (at most --graphql-max-list; query orderLines with where: for more).").
			Annotations(entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
	}
}

func (Part) Indexes() []ent.Index {
	return []ent.Index{index.Fields("part_name"), index.Fields("unit"), index.Fields("unit_weight_kg"), index.Fields("hazardous")}
}

func (Part) Annotations() []schema.Annotation {
	return resource("parts",
		"A catalogue entry: what a unit of stock is, named by its SKU.",
		"Parts, as a Relay connection: filter with where:, order with orderBy:, page with first/after. Needs parts:read.")
}
