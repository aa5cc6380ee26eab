package schema

import (
	"crypto/rand"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// Order is a request to move parts out of a hub, driven by a workflow.
type Order struct{ ent.Schema }

func (Order) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Order), timeMixin{}, revisionMixin{}}
}

var skipInputs = entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)

func (Order) Fields() []ent.Field {
	return []ent.Field{
		field.String("number").Unique().NotEmpty().MaxLen(40).
			DefaultFunc(newOrderNumber).
			Comment("Unique, assigned (ORD-YYYYMMDD-XXXXXX) when not given.").
			Annotations(entgql.OrderField("NUMBER")),
		field.String("status").NotEmpty().MaxLen(64).
			Comment("A state of the order's workflow; changed only by transitions.").
			Annotations(entgql.OrderField("STATUS"), skipInputs),
		field.String("workflow_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Annotations(skipInputs),
		fk("hub_id"),
		field.String("customer_ref").Default("").MaxLen(100).Annotations(entgql.OrderField("CUSTOMER_REF")),
		field.Enum("priority").Values("low", "normal", "high", "urgent").Default("normal").Annotations(entgql.OrderField("PRIORITY")),
		field.String("ship_to_name").Default("").MaxLen(200),
		field.String("ship_to_line1").Default("").MaxLen(200),
		field.String("ship_to_line2").Default("").MaxLen(200),
		field.String("ship_to_city").Default("").MaxLen(100),
		field.String("ship_to_postal_code").Default("").MaxLen(20),
		field.String("ship_to_country").Default("").MaxLen(2).Validate(optionalCountry),
		// Not orderable: entgql's keyset cursors skip rows whose sort value is NULL.
		field.Time("due_at").Optional().Nillable(),
	}
}

func (Order) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("hub", Hub.Type).Ref("orders").Field("hub_id").Unique().Required(),
		edge.From("workflow", Workflow.Type).Ref("orders").Field("workflow_id").Unique().Required().Annotations(skipInputs),
		edge.To("lines", OrderLine.Type).Annotations(skipInputs),
		edge.To("tracking_entries", TrackingEntry.Type).Annotations(skipInputs, entgql.RelayConnection()),
		edge.To("events", OrderEvent.Type).Annotations(skipInputs),
	}
}

func (Order) Indexes() []ent.Index {
	return []ent.Index{
		// (status, id): "open orders, by id, first 50" reads 50 index entries, no sort.
		index.Fields("status", "id"),
		index.Fields("hub_id", "status"),
		index.Fields("workflow_id"),
		index.Fields("customer_ref"),
		index.Fields("priority"),
		index.Fields("due_at"),
		index.Fields("ship_to_name"),
		index.Fields("ship_to_city"),
		index.Fields("ship_to_postal_code"),
		index.Fields("ship_to_country"),
	}
}

func (Order) Annotations() []schema.Annotation { return resource("orders") }

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func newOrderNumber() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = crockford[int(b[i])%len(crockford)]
	}
	return "ORD-" + time.Now().UTC().Format("20060102") + "-" + string(b)
}

// OrderLine is one part and quantity of an order.
type OrderLine struct{ ent.Schema }

func (OrderLine) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.OrderLine), timeMixin{}, revisionMixin{}}
}

func (OrderLine) Fields() []ent.Field {
	return []ent.Field{
		// A line never changes orders (issue 15): immutable, so no update
		// builder, no UpdateOrderLineInput.orderID and no REST order_id can
		// move a line into an allocated or closed order.
		field.String("order_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Immutable(),
		fk("part_id"),
		quantity("quantity", "QUANTITY", false),
		quantity("allocated_quantity", "ALLOCATED_QUANTITY", true),
		quantity("shipped_quantity", "SHIPPED_QUANTITY", true),
	}
}

func (OrderLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", Order.Type).Ref("lines").Field("order_id").Unique().Required().Immutable(),
		edge.From("part", Part.Type).Ref("order_lines").Field("part_id").Unique().Required(),
	}
}

func (OrderLine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("order_id"), index.Fields("part_id")}
}

func (OrderLine) Annotations() []schema.Annotation { return resource("orderLines") }

// OrderEvent records one workflow transition of an order.
type OrderEvent struct{ ent.Schema }

func (OrderEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.OrderEvent), timeMixin{}}
}

func (OrderEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("order_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Immutable(),
		field.String("from_state").MaxLen(64).Annotations(entgql.OrderField("FROM_STATE")),
		field.String("to_state").MaxLen(64).Annotations(entgql.OrderField("TO_STATE")),
		field.String("transition").MaxLen(64).Annotations(entgql.OrderField("TRANSITION")),
		field.String("actor").MaxLen(120).Comment("Who did it: tok_… (an API key) or usr_… (a console user)."),
		field.Time("occurred_at").Default(func() time.Time { return time.Now().UTC() }).Immutable().Annotations(entgql.OrderField("OCCURRED_AT")),
	}
}

func (OrderEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", Order.Type).Ref("events").Field("order_id").Unique().Required().Immutable(),
	}
}

func (OrderEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("order_id", "occurred_at"), index.Fields("transition"), index.Fields("to_state")}
}

func (OrderEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.QueryField("orderEvents"), entgql.RelayConnection(), entgql.MultiOrder()}
}
