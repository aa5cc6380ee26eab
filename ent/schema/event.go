package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// Event is a domain event ("order.transitioned", "item.created", …), written
// in the same transaction as the change it describes.
type Event struct{ ent.Schema }

func (Event) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Event), timeMixin{}}
}

func (Event) Fields() []ent.Field {
	return []ent.Field{
		field.String("type").NotEmpty().MaxLen(64).Immutable().Annotations(entgql.OrderField("TYPE")),
		field.String("subject_id").MaxLen(40).Immutable().Comment("The id of the resource that changed."),
		field.String("actor").Default("").MaxLen(120).Immutable(),
		field.JSON("data", map[string]any{}).Optional().Immutable().Annotations(entgql.Type("Map")),
	}
}

func (Event) Indexes() []ent.Index {
	return []ent.Index{index.Fields("type"), index.Fields("subject_id"), index.Fields("actor")}
}

func (Event) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.QueryField("events"), entgql.RelayConnection(), entgql.MultiOrder()}
}
