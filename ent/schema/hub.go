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
			Comment("Short unique code, e.g. AMS1: upper-case letters, digits, - or _. Items and orders name their hub by it.").
			Annotations(entgql.OrderField("CODE")),
		field.String("name").NotEmpty().MaxLen(200).Comment("Display name, e.g. Amsterdam warehouse.").
			Annotations(entgql.OrderField("NAME")),
		field.Enum("kind").Values(hubKinds.Names()...).Default("warehouse").
			Comment("What the hub is: warehouse, cross_dock, store or port.").
			Annotations(hubKinds, entgql.OrderField("KIND")),
		field.String("address_line1").Default("").MaxLen(200).Comment("Street and number."),
		field.String("city").Default("").MaxLen(100).Comment("City of the address.").
			Annotations(entgql.OrderField("CITY")),
		field.String("postal_code").Default("").MaxLen(20).Comment("Postal code of the address."),
		field.String("country").MaxLen(2).Validate(validCountry).
			Comment("Country of the address, ISO 3166-1 alpha-2 (NL, DE, US).").
			Annotations(entgql.OrderField("COUNTRY")),
		field.Float("latitude").Optional().Nillable().Min(-90).Max(90).Comment("Latitude in decimal degrees (WGS 84), -90 to 90."),
		field.Float("longitude").Optional().Nillable().Min(-180).Max(180).Comment("Longitude in decimal degrees (WGS 84), -180 to 180."),
		field.String("timezone").Default("UTC").MaxLen(64).Validate(validTimezone).
			Comment("IANA time zone of the hub, e.g. Europe/Amsterdam."),
		field.Bool("active").Default(true).Comment("false: the hub is closed; its records stay readable."),
	}
}

var hubKinds = enumValues(
	"warehouse", "Stores stock and ships orders.",
	"cross_dock", "Transfers goods between inbound and outbound transport with little or no storage.",
	"store", "A shop or outlet that holds stock for sale.",
	"port", "A seaport or airport terminal where goods change carrier.",
)

func (Hub) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("items", Item.Type).Comment("The stock held at this hub.").
			Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		edge.To("orders", Order.Type).Comment("The orders shipped from this hub (their origin).").
			Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		edge.To("tracking_entries", TrackingEntry.Type).Comment("Tracking events recorded at this hub.").
			Annotations(entgql.RelayConnection(), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
	}
}

func (Hub) Indexes() []ent.Index {
	return []ent.Index{index.Fields("name"), index.Fields("kind"), index.Fields("address_line1"), index.Fields("city"), index.Fields("postal_code"),
		index.Fields("country"), index.Fields("latitude"), index.Fields("longitude"), index.Fields("timezone"), index.Fields("active"),
	}
}

func (Hub) Annotations() []schema.Annotation {
	return resource("hubs",
		"A place where stock is held or passes through: a warehouse, cross-dock, store or port, named by its code.",
		"Hubs, as a Relay connection: filter with where:, order with orderBy:, page with first/after. Needs hubs:read.")
}
