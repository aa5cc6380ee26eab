package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// TrustedDocument is a GraphQL document an operator registered for the
// environment (internal/documents, docs/graphql.md: Trusted documents): a
// client may send its hash alone, and enforcement refuses what is not one.
// Each environment keeps its own in its own database. The GraphQL types are
// hand-written (graph/schema/documents.graphqls), like the webhooks'.
type TrustedDocument struct{ ent.Schema }

func (TrustedDocument) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Document), timeMixin{}}
}

func (TrustedDocument) Fields() []ent.Field {
	return []ent.Field{
		field.String("hash").NotEmpty().MaxLen(64).Immutable().
			Comment("Lower-case hex SHA-256 of the document's bytes, as graphql-codegen and Apollo compute it."),
		field.Text("body").NotEmpty().Immutable().Comment("The document's text, byte for byte as hashed."),
		field.String("operation_name").Default("").MaxLen(200).Comment("The name of its first named operation."),
		field.String("client_name").Default("").MaxLen(100).Comment("The app it belongs to."),
		field.String("client_version").Default("").MaxLen(100).Comment("The app's version that registered it."),
		field.String("alias").Default("").MaxLen(100).
			Comment("Another id the client sends for it (a Relay persisted-query id, md5 by default); empty when none."),
		field.Time("retired_at").Optional().Nillable().Comment("When it stopped being trusted; null while it is."),
	}
}

func (TrustedDocument) Indexes() []ent.Index {
	return []ent.Index{index.Fields("hash").Unique(), index.Fields("alias"), index.Fields("client_name")}
}

func (TrustedDocument) Annotations() []schema.Annotation { return internalOnly() }
