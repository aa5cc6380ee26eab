package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"

	"logistics/internal/decimal"
	"logistics/internal/resourceid"
)

// IDPrefix is the annotation that records a type's id prefix; the entc
// template "idprefix" turns it into the prefix → table map behind node(id:).
type IDPrefix struct{ Prefix string }

// Name implements schema.Annotation.
func (IDPrefix) Name() string { return "IDPrefix" }

// RangeKeyset marks an order field whose pages internal/nullsort reads: a
// nullable one with the nulls last (the rows with a value, then those
// without, each a range of the index on (field, id)); a NOT NULL one in one
// segment, whose cursor predicate starts a range of that index instead of
// filtering it from its first entry. Each needs the indexes (field, id) and
// (field DESC, id).
type RangeKeyset struct{}

// Name implements schema.Annotation.
func (RangeKeyset) Name() string { return "RangeKeyset" }

// EnumValues describes each value of an enum field, for the GraphQL Docs
// explorer (internal/gqlcodegen.Describe reads it by its name):
//
//	var hubKinds = enumValues("warehouse", "Holds stock …", "port", "…")
//	field.Enum("kind").Values(hubKinds.Names()...).Annotations(hubKinds)
type EnumValues struct {
	Values map[string]string
	names  []string
}

// Name implements schema.Annotation.
func (EnumValues) Name() string { return "EnumValues" }

// Names are the values in the order they were given.
func (e EnumValues) Names() []string { return e.names }

// enumValues takes value, description, value, description, ….
func enumValues(pairs ...string) EnumValues {
	if len(pairs)%2 != 0 {
		panic("enumValues: a value without a description")
	}
	e := EnumValues{Values: map[string]string{}}
	for i := 0; i < len(pairs); i += 2 {
		e.names = append(e.names, pairs[i])
		e.Values[pairs[i]] = pairs[i+1]
	}
	return e
}

// idMixin gives a type a prefixed string id ("hub_01J…").
type idMixin struct {
	mixin.Schema
	prefix string
}

func withID(prefix string) idMixin { return idMixin{prefix: prefix} }

func (m idMixin) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").
			GoType(resourceid.ID("")).
			DefaultFunc(func() resourceid.ID { return resourceid.New(m.prefix) }).
			Immutable().
			MaxLen(40).
			Comment("Opaque id, prefixed by type (`" + m.prefix + "_…`); the same in GraphQL and REST."),
	}
}

func (m idMixin) Annotations() []schema.Annotation {
	return []schema.Annotation{IDPrefix{Prefix: m.prefix}}
}

// timeMixin adds created_at and updated_at, both orderable and filterable.
type timeMixin struct{ mixin.Schema }

func (timeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").
			Default(func() time.Time { return time.Now().UTC() }).
			Immutable().
			Comment("When the record was created (RFC 3339, UTC).").
			Annotations(entgql.OrderField("CREATED_AT"), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
		field.Time("updated_at").
			Default(func() time.Time { return time.Now().UTC() }).
			UpdateDefault(func() time.Time { return time.Now().UTC() }).
			Comment("When the record last changed (RFC 3339, UTC).").
			Annotations(entgql.OrderField("UPDATED_AT"), entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
	}
}

func (timeMixin) Indexes() []ent.Index {
	return []ent.Index{index.Fields("created_at"), index.Fields("updated_at")}
}

// revisionMixin adds the optimistic-concurrency counter behind ETag/If-Match.
type revisionMixin struct{ mixin.Schema }

func (revisionMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Int("revision").
			Default(1).
			Positive().
			Comment("Incremented by every update; the ETag of REST responses.").
			Annotations(entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput, entgql.SkipWhereInput)),
	}
}

// quantity declares an exact, non-negative decimal field stored in
// thousandths, defaulting to zero. A readOnly one is kept by the service
// (reservations, allocations) and is absent from mutation inputs.
func quantity(name, order string, readOnly bool, comment string) ent.Field {
	ann := []schema.Annotation{entgql.Type("Decimal"), entgql.OrderField(order)}
	if readOnly {
		ann = append(ann, entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput))
	}
	return field.Int64(name).
		GoType(decimal.Decimal(0)).
		Default(0).
		Min(0).
		Max(int64(decimal.Max)).
		Comment(comment).
		Annotations(ann...)
}

// fk declares a foreign-key field holding a prefixed id; the edge that uses
// it is declared beside it with .Field(name).
func fk(name, comment string) ent.Field {
	return field.String(name).GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Comment(comment)
}

// optionalFK is fk for an optional edge.
func optionalFK(name, comment string) ent.Field {
	return field.String(name).GoType(resourceid.ID("")).MaxLen(40).Optional().Nillable().Comment(comment)
}

// resource collects the annotations of a type exposed as a Relay connection
// with where/orderBy inputs and create/update mutations. comment describes
// the type and list the Query field, in the GraphQL schema.
func resource(queryField, comment, list string) []schema.Annotation {
	return []schema.Annotation{
		schema.Comment(comment),
		entgql.QueryField(queryField).Description(list),
		entgql.RelayConnection(),
		entgql.MultiOrder(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

// internalOnly hides a type from GraphQL entirely (auth bookkeeping).
func internalOnly() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
