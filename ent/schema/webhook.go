package schema

import (
	"encoding/json"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// Webhook endpoints and their deliveries live in each environment's own
// database, like the events they carry. They are not exposed by the generated
// GraphQL schema: graph/schema/webhook.graphqls declares hand-written types
// without the secrets (internal/webhooks).

// WebhookEndpoint is a URL that receives the environment's events, signed
// per Standard Webhooks with its secret.
type WebhookEndpoint struct{ ent.Schema }

func (WebhookEndpoint) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Webhook), timeMixin{}}
}

func (WebhookEndpoint) Fields() []ent.Field {
	return []ent.Field{
		field.String("url").NotEmpty().MaxLen(2048),
		field.String("description").Default("").MaxLen(500),
		field.JSON("event_types", []string{}).Optional().Comment("Event types delivered; empty: all."),
		field.JSON("filters", map[string]json.RawMessage{}).Optional().
			Comment("A where filter per resource type (order, item, …) in the GraphQL where grammar; an event of that type is delivered only if its resource matches (internal/filter.EventFilters)."),
		field.Bool("disabled").Default(false),
		field.String("disabled_reason").Default("").MaxLen(300),
		field.String("secret").NotEmpty().Sensitive().Comment("whsec_…; shown once, in the create or rotate response."),
		field.String("previous_secret").Default("").Sensitive().Comment("The secret before the last rotation, still signing until previous_secret_expires_at."),
		field.Time("previous_secret_expires_at").Optional().Nillable(),
	}
}

func (WebhookEndpoint) Edges() []ent.Edge {
	return []ent.Edge{edge.To("deliveries", WebhookDelivery.Type).Annotations(entsql.OnDelete(entsql.Cascade))}
}

func (WebhookEndpoint) Indexes() []ent.Index { return []ent.Index{index.Fields("disabled")} }

func (WebhookEndpoint) Annotations() []schema.Annotation { return internalOnly() }

// WebhookDelivery is one event on its way to one endpoint: the outbox row
// that the dispatcher claims, sends and reschedules until it succeeds or its
// schedule runs out. It is written in the same transaction as its event.
type WebhookDelivery struct{ ent.Schema }

func (WebhookDelivery) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Delivery), timeMixin{}}
}

func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		fk("endpoint_id", "The endpoint the delivery goes to."),
		field.String("event_id").Default("").MaxLen(40).Comment("The event sent; empty for a test delivery."),
		field.String("event_type").NotEmpty().MaxLen(64),
		field.Bytes("payload").Optional().Comment("The body of a test delivery (others render their event at send time)."),
		field.Enum("status").Values("pending", "succeeded", "failed", "skipped").Default("pending").
			Comment("skipped: the endpoint's filter did not match the event's resource; never sent."),
		field.Int("attempts").Default(0).Comment("Attempts started, the one in flight included."),
		field.Time("next_attempt_at").Default(func() time.Time { return time.Now().UTC() }).
			Comment("When a pending delivery is due; while an attempt is in flight, the end of its lease."),
		field.Time("last_attempt_at").Optional().Nillable(),
		field.Int("last_status_code").Default(0),
		field.Int("last_latency_ms").Default(0),
		field.String("last_response").Default("").MaxLen(1024).Comment("The first bytes of the last response body."),
		field.String("last_error").Default("").MaxLen(500),
		field.Time("delivered_at").Optional().Nillable(),
	}
}

func (WebhookDelivery) Edges() []ent.Edge {
	return []ent.Edge{edge.From("endpoint", WebhookEndpoint.Type).Ref("deliveries").Field("endpoint_id").Unique().Required()}
}

func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{index.Fields("status", "next_attempt_at"), index.Fields("endpoint_id", "created_at"), index.Fields("event_id")}
}

func (WebhookDelivery) Annotations() []schema.Annotation { return internalOnly() }
