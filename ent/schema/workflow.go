package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
	"logistics/internal/workflowdef"
)

// Workflow is one immutable version of an order workflow. Editing a workflow
// adds a row with the same key and the next version; orders point at the row
// they started with, so they keep their version.
type Workflow struct{ ent.Schema }

func (Workflow) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Workflow), timeMixin{}}
}

func (Workflow) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").NotEmpty().MaxLen(64).Immutable().
			Comment("The workflow's key, shared by all its versions, e.g. fulfilment.").
			Annotations(entgql.OrderField("KEY")),
		field.String("name").NotEmpty().MaxLen(200).Comment("Display name.").Annotations(entgql.OrderField("NAME")),
		field.Int("version").Positive().Immutable().Comment("1 for the first definition of a key, then 2, 3, ….").
			Annotations(entgql.OrderField("VERSION")),
		field.Bool("latest").Default(true).Comment("True on the newest version of each key."),
		field.Bool("built_in").Default(false).Immutable().Comment("True for the built-in fulfilment workflow."),
		field.JSON("states", []string{}).Immutable().Comment("Every state an order of this workflow can be in."),
		field.String("initial_state").NotEmpty().MaxLen(64).Immutable().Comment("The state a new order starts in."),
		field.JSON("transitions", []workflowdef.Transition{}).Immutable().
			Comment("The transitions between states, with their stock effects.").
			Annotations(entgql.Type("[WorkflowTransition!]")),
	}
}

func (Workflow) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("orders", Order.Type).Comment("The orders that follow this version.").Annotations(entgql.RelayConnection()),
	}
}

func (Workflow) Indexes() []ent.Index {
	return []ent.Index{index.Fields("key", "version").Unique(), index.Fields("latest")}
}

func (Workflow) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One immutable version of an order workflow: states, an initial state and transitions with stock effects. Editing a key adds a version; orders keep the version they started with."),
		entgql.QueryField("workflows").Description("Workflow versions, as a Relay connection (where: {latest: true} for the current ones). Needs workflows:read."),
		entgql.RelayConnection(), entgql.MultiOrder(),
	}
}
