package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// SandboxClock is the sandbox's test clock (internal/sandbox, docs/sandbox.md):
// one row, absent until the clock is first moved. Running, the simulated
// time is the real time plus offset_us; frozen, it is frozen_at. Every
// instance reads the same row, so they all tell the same time. The GraphQL
// type is hand-written (graph/schema/sandbox.graphqls).
type SandboxClock struct{ ent.Schema }

func (SandboxClock) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Clock), timeMixin{}}
}

func (SandboxClock) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Default("sandbox").NotEmpty().MaxLen(20).Immutable().
			Comment("Always sandbox: the unique key that keeps the clock to one row."),
		field.Int64("offset_us").Default(0).NonNegative().
			Comment("While running: how far ahead of real time the clock is, in microseconds (never negative: the clock never goes back)."),
		field.Time("frozen_at").Optional().Nillable().
			Comment("While frozen: the simulated time; null while the clock runs."),
	}
}

func (SandboxClock) Indexes() []ent.Index { return []ent.Index{index.Fields("name").Unique()} }

func (SandboxClock) Annotations() []schema.Annotation { return internalOnly() }

// SimulatedScan is a tracking entry a simulated carrier will write when the
// sandbox's clock reaches due_at: shipping an order in the sandbox with a test
// tracking number (internal/sandbox: the carriers' table) schedules its whole
// history, and the runner writes each through the service's
// CreateTrackingEntry, deleting the row in the same transaction. Kept in the
// database, the schedule survives a restart and is shared by every instance.
type SimulatedScan struct{ ent.Schema }

func (SimulatedScan) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.SimScan), timeMixin{}}
}

func (SimulatedScan) Fields() []ent.Field {
	return []ent.Field{
		field.String("order_id").GoType(resourceid.ID("")).NotEmpty().MaxLen(40).Comment("The order shipped."),
		field.String("tracking_number").NotEmpty().MaxLen(64),
		field.String("carrier").NotEmpty().MaxLen(64),
		field.Enum("status").Values(trackingStatuses.Names()...).Comment("The status of the entry to write."),
		field.String("hub_id").GoType(resourceid.ID("")).Optional().Nillable().MaxLen(40).Comment("The hub of the entry, if any."),
		field.String("location").Default("").MaxLen(200),
		field.String("description").Default("").MaxLen(1000),
		field.Time("due_at").Comment("The simulated time at which the entry is written (its occurred_at)."),
		field.Int("step").Default(0).NonNegative().Comment("Its place in the outcome's schedule: ties of due_at are written in this order."),
	}
}

func (SimulatedScan) Indexes() []ent.Index {
	return []ent.Index{index.Fields("due_at", "step"), index.Fields("order_id")}
}

func (SimulatedScan) Annotations() []schema.Annotation { return internalOnly() }
