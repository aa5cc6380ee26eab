package schema

import (
	"crypto/rand"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
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
			Comment("Unique, assigned (ORD-YYYYMMDD-XXXXXXXXXXXX: the day and 12 random characters) when not given.").
			Annotations(entgql.OrderField("NUMBER")),
		field.String("status").NotEmpty().MaxLen(64).
			Comment("A state of the order's workflow (fulfilment: draft, open, allocated, picking, shipped, delivered, closed, cancelled); changed only by transitions.").
			Annotations(entgql.OrderField("STATUS"), skipInputs),
		field.String("workflow_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().
			Comment("The id of the workflow version the order follows.").Annotations(skipInputs),
		fk("hub_id", "The id of the hub the order ships from."),
		field.String("customer_ref").Default("").MaxLen(100).Comment("The customer's own reference for the order.").
			Annotations(entgql.OrderField("CUSTOMER_REF")),
		field.Enum("priority").Values(orderPriorities.Names()...).Default("normal").
			Comment("How urgent the order is.").
			Annotations(orderPriorities, entgql.OrderField("PRIORITY")),
		field.String("ship_to_name").Default("").MaxLen(200).Comment("Recipient's name."),
		field.String("ship_to_line1").Default("").MaxLen(200).Comment("Recipient's street and number."),
		field.String("ship_to_line2").Default("").MaxLen(200).Comment("Second address line (building, floor)."),
		field.String("ship_to_city").Default("").MaxLen(100).Comment("Recipient's city."),
		field.String("ship_to_postal_code").Default("").MaxLen(20).Comment("Recipient's postal code."),
		field.String("ship_to_country").Default("").MaxLen(2).Validate(optionalCountry).
			Comment("Recipient's country, ISO 3166-1 alpha-2; empty when unknown."),
		// Orderable with the nulls last (internal/nullsort pages it).
		field.Time("due_at").Optional().Nillable().Comment("When the order should be delivered; null when no date was agreed.").
			Annotations(entgql.OrderField("DUE_AT"), RangeKeyset{}),
	}
}

var orderPriorities = enumValues(
	"low", "Ship when convenient.",
	"normal", "The default.",
	"high", "Ship before normal orders.",
	"urgent", "Ship first.",
)

func (Order) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("hub", Hub.Type).Ref("orders").Field("hub_id").Unique().Required().Comment("The hub the order ships from."),
		edge.From("workflow", Workflow.Type).Ref("orders").Field("workflow_id").Unique().Required().
			Comment("The workflow version the order follows (it keeps the version it started with).").Annotations(skipInputs),
		edge.To("lines", OrderLine.Type).Comment("The parts and quantities ordered (at most --graphql-max-list; query orderLines with where: for more).").Annotations(skipInputs),
		edge.To("tracking_entries", TrackingEntry.Type).Comment("The shipment's tracking history.").Annotations(skipInputs, entgql.RelayConnection()),
		edge.To("events", OrderEvent.Type).Comment("Every workflow transition of the order, oldest first (at most --graphql-max-list).").Annotations(skipInputs),
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
		// The sorts by due_at (nulls last, the id breaks ties ascending):
		// each segment of a page (internal/nullsort) is a range of one of
		// them, ascending or descending, forward or backward.
		index.Fields("due_at", "id"),
		index.Fields("due_at", "id").Annotations(entsql.DescColumns("due_at")).StorageKey("order_due_at_desc_id"),
		index.Fields("ship_to_name"),
		index.Fields("ship_to_city"),
		index.Fields("ship_to_postal_code"),
		index.Fields("ship_to_country"),
	}
}

func (Order) Annotations() []schema.Annotation {
	return resource("orders",
		"A request to move parts out of a hub, driven by a workflow: its status is a state of that workflow and changes only through transitions (transitionOrder).",
		"Orders, as a Relay connection: filter with where: (e.g. status: \"open\", hasHubWith: [{code: \"AMS1\"}]), order with orderBy:, page with first/after. Needs orders:read.")
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// numberChars is how many random characters follow an assigned order
// number's date: 60 bits. Six (30 bits) collided: a day of a hundred
// thousand new orders expects about five pairs (n²/2 over 2³⁰), each a
// createOrder answered 409 already_exists for a number the client never
// chose — seen in a benchmark run. With twelve a
// day of ten million orders expects 4·10⁻⁵ collisions.
const numberChars = 12

func newOrderNumber() string {
	b := make([]byte, numberChars)
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
		// A line never changes orders: immutable, so no update
		// builder, no UpdateOrderLineInput.orderID and no REST order_id can
		// move a line into an allocated or closed order.
		field.String("order_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Immutable().
			Comment("The id of the order the line belongs to."),
		fk("part_id", "The id of the part ordered."),
		quantity("quantity", "QUANTITY", false, "How much is ordered, in the part's unit."),
		quantity("allocated_quantity", "ALLOCATED_QUANTITY", true, "How much is reserved for the line at the order's hub (allocate); kept by the service."),
		quantity("shipped_quantity", "SHIPPED_QUANTITY", true, "How much has shipped (ship); kept by the service."),
	}
}

func (OrderLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", Order.Type).Ref("lines").Field("order_id").Unique().Required().Immutable().Comment("The order the line belongs to."),
		edge.From("part", Part.Type).Ref("order_lines").Field("part_id").Unique().Required().Comment("The part ordered."),
	}
}

func (OrderLine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("order_id"), index.Fields("part_id")}
}

func (OrderLine) Annotations() []schema.Annotation {
	return resource("orderLines",
		"One part and quantity of an order, with how much is allocated and shipped.",
		"Order lines of every order, as a Relay connection: filter with where: (e.g. hasPartWith: [{sku: \"BLT-000001\"}]), order with orderBy:, page with first/after. Needs orders:read.")
}

// OrderEvent records one workflow transition of an order.
type OrderEvent struct{ ent.Schema }

func (OrderEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.OrderEvent), timeMixin{}}
}

func (OrderEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("order_id").GoType(resourceid.ID("")).MaxLen(40).NotEmpty().Immutable().
			Comment("The id of the order that moved."),
		field.String("from_state").MaxLen(64).Comment("The order's status before the transition.").
			Annotations(entgql.OrderField("FROM_STATE")),
		field.String("to_state").MaxLen(64).Comment("The order's status after the transition.").
			Annotations(entgql.OrderField("TO_STATE")),
		field.String("transition").MaxLen(64).Comment("The transition taken, e.g. submit, allocate, ship.").
			Annotations(entgql.OrderField("TRANSITION")),
		field.String("actor").MaxLen(120).Comment("Who did it: tok_… (an API key) or usr_… (a console user)."),
		field.Time("occurred_at").Default(func() time.Time { return time.Now().UTC() }).Immutable().
			Comment("When the transition happened.").Annotations(entgql.OrderField("OCCURRED_AT")),
	}
}

func (OrderEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", Order.Type).Ref("events").Field("order_id").Unique().Required().Immutable().Comment("The order that moved."),
	}
}

func (OrderEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("order_id", "occurred_at"), index.Fields("transition"), index.Fields("to_state")}
}

func (OrderEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One workflow transition of an order: from which state to which, by whom, when. Read-only: transitions write them."),
		entgql.QueryField("orderEvents").Description("Order transitions of every order, as a Relay connection: filter with where: (e.g. transition: \"ship\", occurredAtGTE: …), order with orderBy:, page with first/after. Needs orders:read."),
		entgql.RelayConnection(), entgql.MultiOrder(),
	}
}
