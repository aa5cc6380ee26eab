package aggregate

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/filter"
)

// whereOf turns a resource's where input into its ent predicate: the very
// predicate the resource's list filters with (ent.With<T>Filter calls the
// same P), nil for no filter.
func whereOf[W any, P ~func(*sql.Selector)](pred func(*W) (P, error), empty error) func(any) (func(*sql.Selector), error) {
	return func(v any) (func(*sql.Selector), error) {
		if v == nil {
			return nil, nil
		}
		w, ok := v.(*W)
		if !ok {
			return nil, apperr.Internal(fmt.Errorf("aggregate: a where input of type %T, want %T", v, w))
		}
		if w == nil {
			return nil, nil
		}
		p, err := pred(w)
		if err == empty { //nolint:errorlint // exactly as ent.<T>WhereInput.Filter: a nested empty input is an error
			return nil, nil // an empty where input: every row, as the lists do
		}
		if err != nil {
			return nil, apperr.From(err)
		}
		return p, nil
	}
}

// The related records keys show.
var (
	hubRef      = &Reference{Table: "hubs", Type: "Hub", Labels: []string{"code"}}
	partRef     = &Reference{Table: "parts", Type: "Part", Labels: []string{"sku"}}
	orderRef    = &Reference{Table: "orders", Type: "Order", Labels: []string{"number"}}
	workflowRef = &Reference{Table: "workflows", Type: "Workflow", Labels: []string{"key", "version"}}
)

func enumKey(t *filter.Table, name, description string) Key {
	f, _ := t.Field(name)
	return Key{Name: name, Type: Enum, Column: name, Values: f.Values, Description: description}
}

func textKey(name, description string) Key {
	return Key{Name: name, Type: Text, Column: name, Description: description}
}

func timeKey(name, description string) Key {
	return Key{Name: name, Type: Time, Column: name, Description: description}
}

func timeField(name string, nullable bool, description string) Field {
	return Field{Name: name, Type: Time, Column: name, Nullable: nullable, Description: description}
}

func decimalField(name, description string) Field {
	return Field{Name: name, Type: Decimal, Column: name, Description: description}
}

// Every resource has created_at and updated_at.
var (
	createdKey = timeKey("created_at", "When it was created, by bucket.")
	updatedKey = timeKey("updated_at", "When it last changed, by bucket.")
	created    = timeField("created_at", false, "When it was created.")
	updated    = timeField("updated_at", false, "When it last changed.")
)

// The resources' specs.
var (
	Hubs = &Spec{Resource: "hubs", GraphQLType: "Hub", Table: "hubs",
		Keys: []Key{
			enumKey(filter.HubTable, "kind", "What kind of place it is."),
			textKey("country", "address.country."),
			textKey("city", "address.city."),
			{Name: "active", Type: Bool, Column: "active", Description: "Whether the hub is in use."},
			textKey("timezone", "The hub's IANA time zone."),
			createdKey, updatedKey,
		},
		Fields: []Field{created, updated},
		where:  whereOf((*ent.HubWhereInput).P, ent.ErrEmptyHubWhereInput),
	}
	Parts = &Spec{Resource: "parts", GraphQLType: "Part", Table: "parts",
		Keys: []Key{
			enumKey(filter.PartTable, "unit", "Unit of measure."),
			{Name: "hazardous", Type: Bool, Column: "hazardous", Description: "Whether the part is hazardous."},
			createdKey, updatedKey,
		},
		Fields: []Field{decimalField("unit_weight_kg", "Weight of one unit in kg."), created, updated},
		where:  whereOf((*ent.PartWhereInput).P, ent.ErrEmptyPartWhereInput),
	}
	Items = &Spec{Resource: "items", GraphQLType: "Item", Table: "items",
		Keys: []Key{
			{Name: "hub", Type: Ref, Column: "hub_id", Ref: hubRef, Description: "The hub (id and code)."},
			{Name: "part", Type: Ref, Column: "part_id", Ref: partRef, Description: "The part (id and sku)."},
			enumKey(filter.ItemTable, "status", "Stock status."),
			textKey("lot", "Lot number (empty: none)."),
			createdKey, updatedKey,
			timeKey("expires_at", "Expiry, by bucket (no expiry: null)."),
		},
		Fields: []Field{
			decimalField("quantity", "Quantity on hand."),
			decimalField("reserved_quantity", "Quantity reserved for orders."),
			{Name: "available_quantity", Type: Decimal, Column: "quantity", Minus: "reserved_quantity", Description: "quantity - reserved_quantity."},
			created, updated,
			timeField("expires_at", true, "Expiry time."),
		},
		where: whereOf((*ent.ItemWhereInput).P, ent.ErrEmptyItemWhereInput),
	}
	Orders = &Spec{Resource: "orders", GraphQLType: "Order", Table: "orders",
		Keys: []Key{
			textKey("status", "A state of the order's workflow."),
			{Name: "hub", Type: Ref, Column: "hub_id", Ref: hubRef, Description: "The origin hub (id and code)."},
			enumKey(filter.OrderTable, "priority", "Priority."),
			{Name: "workflow", Type: Ref, Column: "workflow_id", Ref: workflowRef, Description: "The workflow version (id, key and version)."},
			textKey("customer_ref", "The customer's reference."),
			textKey("ship_to_country", "ship_to.country."),
			createdKey, updatedKey,
			timeKey("due_at", "When it is due, by bucket (none: null)."),
		},
		Fields: []Field{created, updated, timeField("due_at", true, "When it is due.")},
		where:  whereOf((*ent.OrderWhereInput).P, ent.ErrEmptyOrderWhereInput),
	}
	OrderLines = &Spec{Resource: "order lines", GraphQLType: "OrderLine", Table: "order_lines",
		Keys: []Key{
			{Name: "order", Type: Ref, Column: "order_id", Ref: orderRef, Description: "The order (id and number)."},
			{Name: "part", Type: Ref, Column: "part_id", Ref: partRef, Description: "The part (id and sku)."},
			createdKey, updatedKey,
		},
		Fields: []Field{
			decimalField("quantity", "Ordered quantity."),
			decimalField("allocated_quantity", "Reserved quantity."),
			decimalField("shipped_quantity", "Shipped quantity."),
			created, updated,
		},
		where: whereOf((*ent.OrderLineWhereInput).P, ent.ErrEmptyOrderLineWhereInput),
	}
	TrackingEntries = &Spec{Resource: "tracking entries", GraphQLType: "TrackingEntry", Table: "tracking_entries",
		Keys: []Key{
			enumKey(filter.TrackingEntryTable, "status", "Shipment status."),
			textKey("carrier", "Carrier name."),
			{Name: "hub", Type: Ref, Column: "hub_id", Ref: hubRef, Description: "The hub (id and code; none: null)."},
			{Name: "order", Type: Ref, Column: "order_id", Ref: orderRef, Description: "The order (id and number)."},
			textKey("location", "Where it happened."),
			timeKey("occurred_at", "When it happened, by bucket."),
			createdKey, updatedKey,
		},
		Fields: []Field{timeField("occurred_at", false, "When it happened."), created, updated},
		where:  whereOf((*ent.TrackingEntryWhereInput).P, ent.ErrEmptyTrackingEntryWhereInput),
	}
	Workflows = &Spec{Resource: "workflows", GraphQLType: "Workflow", Table: "workflows",
		Keys: []Key{
			textKey("key", "The workflow's key, shared by its versions."),
			{Name: "built_in", Type: Bool, Column: "built_in", Description: "Built-in or custom."},
			{Name: "latest", Type: Bool, Column: "latest", Description: "The newest version of its key."},
			createdKey, updatedKey,
		},
		Fields: []Field{{Name: "version", Type: Int, Column: "version", Description: "Version number."}, created, updated},
		where:  whereOf((*ent.WorkflowWhereInput).P, ent.ErrEmptyWorkflowWhereInput),
	}
	OrderEvents = &Spec{Resource: "order events", GraphQLType: "OrderEvent", Table: "order_events",
		Keys: []Key{
			textKey("transition", "The transition's name, e.g. allocate."),
			textKey("from_state", "The state before."),
			textKey("to_state", "The state after."),
			textKey("actor", "Who did it (tok_… or usr_…)."),
			{Name: "order", Type: Ref, Column: "order_id", Ref: orderRef, Description: "The order (id and number)."},
			timeKey("occurred_at", "When it happened, by bucket."),
		},
		Fields: []Field{timeField("occurred_at", false, "When it happened.")},
		where:  whereOf((*ent.OrderEventWhereInput).P, ent.ErrEmptyOrderEventWhereInput),
	}
	Events = &Spec{Resource: "events", GraphQLType: "Event", Table: "events",
		Keys: []Key{
			textKey("type", "Event type, e.g. order.created."),
			textKey("actor", "Who made the change."),
			createdKey,
		},
		Fields: []Field{
			{Name: "sequence", Type: Int, Column: "sequence", Nullable: true, Description: "The event's number in its environment's log."},
			created,
		},
		where: whereOf((*ent.EventWhereInput).P, ent.ErrEmptyEventWhereInput),
		// Each event is visible with the read scope of its type: the
		// groups count only those (auth.ScopeEventWhere, as the list).
		scope: func(ctx context.Context, v any) (any, error) {
			w, _ := v.(*ent.EventWhereInput)
			return auth.ScopeEventWhere(ctx, w)
		},
	}
)

// Specs lists every resource's spec, for documents and tests.
var Specs = []*Spec{Hubs, Parts, Items, Orders, OrderLines, TrackingEntries, Workflows, OrderEvents, Events}
