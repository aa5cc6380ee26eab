package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// Event is a domain event ("order.transitioned", "item.created", …), written
// in the same transaction as the change it describes. Its sequence is
// assigned when that transaction commits (SQLite) or right after, by the
// sequencer (PostgreSQL; internal/eventlog), so readers paging by sequence
// never skip an event.
type Event struct{ ent.Schema }

func (Event) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Event), timeMixin{}}
}

func (Event) Fields() []ent.Field {
	return []ent.Field{
		field.String("type").NotEmpty().MaxLen(64).Immutable().
			Comment("What happened, e.g. order.transitioned, item.updated (the catalog: docs/events.md).").
			Annotations(entgql.OrderField("TYPE")),
		field.String("subject_id").MaxLen(40).Immutable().Comment("The id of the resource that changed."),
		field.String("actor").Default("").MaxLen(120).Immutable().
			Comment("Who made the change: tok_… (an API key), usr_… (a console user) or system."),
		field.JSON("data", map[string]any{}).Optional().Immutable().Annotations(entgql.Type("Map")).
			Comment(`{"object": the resource's REST representation after the change, "previous_attributes": changed fields' values before it}`),
		field.Int("sequence").Optional().Nillable().Immutable().
			Comment("Per environment, strictly increasing; given once the event's transaction has committed (internal/eventlog), so a reader paging by sequence never skips an event.").
			Annotations(entgql.OrderField("SEQUENCE"), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		field.Int64("pending_order").Optional().Nillable().Immutable().
			Comment("PostgreSQL: the order in which the sequencer numbers committed events (a database sequence taken at insert; internal/eventlog). Not public.").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.Time("occurred_at").Optional().Nillable().Immutable().
			Comment("When it happened by the environment's clock: the sandbox's test clock (internal/sandbox), real time elsewhere. Null on events written before the column existed (they read as created_at).").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.String("trace_parent").Optional().Nillable().Immutable().MaxLen(55).StructTag(`json:"-"`).
			Comment("The W3C traceparent of the span that recorded the event, when tracing is on (internal/tracing): its webhook attempts and subscription messages continue that trace. Never shown in the API.").
			Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

func (Event) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("type"), index.Fields("subject_id"), index.Fields("actor"), index.Fields("sequence").Unique(),
		// The sequencer's queue: committed events not yet numbered (PostgreSQL).
		index.Fields("pending_order").Annotations(entsql.IndexWhere("sequence IS NULL")),
	}
}

func (Event) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A domain event of this environment's log (order.transitioned, item.updated, …), written in the same transaction as the change it describes."),
		entgql.QueryField("events").Description("The event log, as a Relay connection: page by sequence (orderBy: {field: SEQUENCE}), filter with where: (e.g. type: \"order.transitioned\"). Shows the events whose type the caller may read (order.* needs orders:read); a type asked for by name that it may not read is FORBIDDEN."),
		entgql.RelayConnection(), entgql.MultiOrder(),
	}
}
