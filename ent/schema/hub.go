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

// Hub is a place where stock is held or passes through.
type Hub struct{ ent.Schema }

func (Hub) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Hub), timeMixin{}, revisionMixin{}}
}

func (Hub) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").Unique().NotEmpty().MaxLen(16).Validate(validCode).
			Comment("Short unique code, e.g. AMS1.").
			Annotations(entgql.OrderField("CODE")),
		field.String("name").NotEmpty().MaxLen(200).Annotations(entgql.OrderField("NAME")),
		field.Enum("kind").Values("warehouse", "cross_dock", "store", "port").Default("warehouse").
			Annotations(entgql.OrderField("KIND")),
		field.String("address_line1").Default("").MaxLen(200),
		field.String("city").Default("").MaxLen(100).Annotations(entgql.OrderField("CITY")),
		field.String("postal_code").Default("").MaxLen(20),
		field.String("country").MaxLen(2).Validate(validCountry).Comment("ISO 3166-1 alpha-2.").
			Annotations(entgql.OrderField("COUNTRY")),
		field.Float("latitude").Optional().Nillable().Min(-90).Max(90),
		field.Float("longitude").Optional().Nillable().Min(-180).Max(180),
		field.String("timezone").Default("UTC").MaxLen(64).Validate(validTimezone).Comment("IANA time zone."),
		field.Bool("active").Default(true),
	}
}

func (Hub) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("items", Item.Type).Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		edge.To("orders", Order.Type).Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		edge.To("tracking_entries", TrackingEntry.Type).Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
	}
}

func (Hub) Indexes() []ent.Index {
	return []ent.Index{index.Fields("name"), index.Fields("kind"), index.Fields("address_line1"), index.Fields("city"), index.Fields("postal_code"),
		index.Fields("country"), index.Fields("latitude"), index.Fields("longitude"), index.Fields("timezone"), index.Fields("active"),
	}
}

func (Hub) Annotations() []schema.Annotation { return resource("hubs") }
