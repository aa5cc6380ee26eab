package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
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
		fk("order_id"),
		field.String("tracking_number").NotEmpty().MaxLen(64).Annotations(entgql.OrderField("TRACKING_NUMBER")),
		field.String("carrier").NotEmpty().MaxLen(64).Annotations(entgql.OrderField("CARRIER")),
		field.Enum("status").Values("label_created", "in_transit", "out_for_delivery", "delivered", "exception", "returned").
			Annotations(entgql.OrderField("STATUS")),
		optionalFK("hub_id"),
		field.String("location").Default("").MaxLen(200),
		field.String("description").Default("").MaxLen(1000),
		field.Time("occurred_at").Default(func() time.Time { return time.Now().UTC() }).Annotations(entgql.OrderField("OCCURRED_AT")),
	}
}

func (TrackingEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", Order.Type).Ref("tracking_entries").Field("order_id").Unique().Required(),
		edge.From("hub", Hub.Type).Ref("tracking_entries").Field("hub_id").Unique(),
	}
}

func (TrackingEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("order_id", "occurred_at"),
		index.Fields("tracking_number"),
		index.Fields("carrier"),
		index.Fields("status"),
		index.Fields("hub_id"),
		index.Fields("location"),
		index.Fields("occurred_at"),
	}
}

func (TrackingEntry) Annotations() []schema.Annotation { return resource("trackingEntries") }
