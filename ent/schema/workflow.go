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
		field.String("key").NotEmpty().MaxLen(64).Immutable().Annotations(entgql.OrderField("KEY")),
		field.String("name").NotEmpty().MaxLen(200).Annotations(entgql.OrderField("NAME")),
		field.Int("version").Positive().Immutable().Annotations(entgql.OrderField("VERSION")),
		field.Bool("latest").Default(true).Comment("True on the newest version of each key."),
		field.Bool("built_in").Default(false).Immutable(),
		field.JSON("states", []string{}).Immutable(),
		field.String("initial_state").NotEmpty().MaxLen(64).Immutable(),
		field.JSON("transitions", []workflowdef.Transition{}).Immutable().
			Annotations(entgql.Type("[WorkflowTransition!]")),
	}
}

func (Workflow) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("orders", Order.Type).Annotations(entgql.RelayConnection()),
	}
}

func (Workflow) Indexes() []ent.Index {
	return []ent.Index{index.Fields("key", "version").Unique(), index.Fields("latest")}
}

func (Workflow) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.QueryField("workflows"), entgql.RelayConnection(), entgql.MultiOrder()}
}
