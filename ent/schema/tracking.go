package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// TrackingEntry is one carrier scan or status of a shipment of an order.
type TrackingEntry struct{ ent.Schema }

func (TrackingEntry) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.TrackingEntry), timeMixin{}, revisionMixin{}}
}

func (TrackingEntry) Fields() []ent.Field {
	return []ent.Field{
		fk("order_id", "The id of the order the shipment belongs to."),
		field.String("tracking_number").NotEmpty().MaxLen(64).Comment("The carrier's tracking number of the shipment.").
			Annotations(entgql.OrderField("TRACKING_NUMBER")),
		field.String("carrier").NotEmpty().MaxLen(64).Comment("The carrier, e.g. DHL, UPS, PostNL.").
			Annotations(entgql.OrderField("CARRIER")),
		field.Enum("status").Values(trackingStatuses.Names()...).
			Comment("Where the shipment stands. A delivered entry moves a shipped order to delivered.").
			Annotations(trackingStatuses, entgql.OrderField("STATUS")),
		optionalFK("hub_id", "The id of the hub where it happened; null when not at a hub."),
		field.String("location").Default("").MaxLen(200).Comment("Where it happened, as the carrier reports it (e.g. a city)."),
		field.String("description").Default("").MaxLen(1000).Comment("The carrier's text for the event."),
		field.Time("occurred_at").Default(func() time.Time { return time.Now().UTC() }).
			Comment("When it happened (default: when it was recorded).").Annotations(entgql.OrderField("OCCURRED_AT"), RangeKeyset{}),
	}
}

var trackingStatuses = enumValues(
	"label_created", "A shipping label exists; the carrier does not have the parcel yet (written by the ship transition).",
	"in_transit", "The carrier is moving the parcel.",
	"out_for_delivery", "On the vehicle for the last mile.",
	"delivered", "Handed to the recipient.",
	"exception", "Something went wrong (damage, wrong address, customs, missed delivery): needs attention.",
	"returned", "On its way back, or back, to the sender.",
)

func (TrackingEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", Order.Type).Ref("tracking_entries").Field("order_id").Unique().Required().Comment("The order the shipment belongs to."),
		edge.From("hub", Hub.Type).Ref("tracking_entries").Field("hub_id").Unique().Comment("The hub where it happened, if any."),
	}
}

func (TrackingEntry) Indexes() []ent.Index {
	return []ent.Index{
		// "The latest entries of an order" (ORDER BY occurred_at DESC, id
		// LIMIT n: REST's latest_tracking, and GraphQL's nested
		// trackingEntries, whose pager breaks ties by id ascending) is read
		// in index order, with no sort of all the order's entries.
		index.Fields("order_id", "occurred_at", "id").Annotations(entsql.DescColumns("occurred_at")),
		index.Fields("tracking_number"),
		index.Fields("carrier"),
		index.Fields("status"),
		index.Fields("hub_id"),
		index.Fields("location"),
		// The sorts by occurred_at, as orders' by due_at (RangeKeyset).
		index.Fields("occurred_at", "id"),
		index.Fields("occurred_at", "id").Annotations(entsql.DescColumns("occurred_at")).StorageKey("trackingentry_occurred_at_desc_id"),
	}
}

func (TrackingEntry) Annotations() []schema.Annotation {
	return resource("trackingEntries",
		"One carrier scan or status of an order's shipment.",
		"Tracking entries of every order, as a Relay connection: filter with where: (e.g. status: exception, occurredAtGTE: …), order with orderBy:, page with first/after. Needs tracking:read.")
}
