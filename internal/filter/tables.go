package filter

import (
	"reflect"

	"logistics/ent"
	"logistics/internal/resourceid"
)

// common fields of every resource.
func common(prefix string, fs ...Field) []Field {
	out := []Field{{Name: "id", Type: ID, Prefix: prefix, Description: "The resource's id."}}
	out = append(out, fs...)
	return append(out,
		Field{Name: "created_at", Type: Time, Sort: "CREATED_AT", Description: "When it was created."},
		Field{Name: "updated_at", Type: Time, Sort: "UPDATED_AT", Description: "When it last changed."},
	)
}

// hubCode is the hub filter of items, orders and tracking entries: by hub code.
var hubCode = Field{Name: "hub", Type: String, Where: "code", Edge: "hasHubWith",
	Description: "The hub's code, e.g. AMS1. hub!=X and hub[]!=X also match rows with no hub."}

// The tables of the list endpoints.
var (
	HubTable = &Table{Resource: "hubs", WhereType: reflect.TypeFor[ent.HubWhereInput](), Fields: common(resourceid.Hub,
		Field{Name: "code", Type: String, Sort: "CODE", Description: "Unique short code, e.g. AMS1."},
		Field{Name: "name", Type: String, Sort: "NAME", Description: "Display name."},
		Field{Name: "kind", Type: Enum, Values: []string{"warehouse", "cross_dock", "store", "port"}, Sort: "KIND", Description: "What kind of place it is."},
		Field{Name: "address_line1", Type: String, Description: "address.line1."},
		Field{Name: "city", Type: String, Sort: "CITY", Description: "address.city."},
		Field{Name: "postal_code", Type: String, Description: "address.postal_code."},
		Field{Name: "country", Type: String, Sort: "COUNTRY", Description: "address.country, ISO 3166-1 alpha-2."},
		Field{Name: "latitude", Type: Float, Description: "Latitude in degrees."},
		Field{Name: "longitude", Type: Float, Description: "Longitude in degrees."},
		Field{Name: "timezone", Type: String, Description: "IANA time zone."},
		Field{Name: "active", Type: Bool, Description: "Whether the hub is in use."},
	)}
	PartTable = &Table{Resource: "parts", WhereType: reflect.TypeFor[ent.PartWhereInput](), Fields: common(resourceid.Part,
		Field{Name: "sku", Type: String, Sort: "SKU", Description: "Unique stock-keeping unit."},
		Field{Name: "part_name", Type: String, Sort: "PART_NAME", Description: "Name of the part."},
		Field{Name: "description", Type: String, Description: "Free text."},
		Field{Name: "unit", Type: Enum, Values: []string{"ea", "kg", "g", "m", "l", "box", "pallet"}, Sort: "UNIT", Description: "Unit of measure."},
		Field{Name: "unit_weight_kg", Type: Decimal, Sort: "UNIT_WEIGHT_KG", Description: "Weight of one unit in kg."},
		Field{Name: "hazardous", Type: Bool, Description: "Whether the part is hazardous."},
	)}
	ItemTable = &Table{Resource: "items", WhereType: reflect.TypeFor[ent.ItemWhereInput](), Fields: common(resourceid.Item,
		Field{Name: "part_id", Type: ID, Prefix: resourceid.Part, Description: "The part's id."},
		Field{Name: "sku", Type: String, Where: "sku", Edge: "hasPartWith", Description: "The part's SKU."},
		Field{Name: "hub_id", Type: ID, Prefix: resourceid.Hub, Description: "The hub's id."},
		hubCode,
		Field{Name: "quantity", Type: Decimal, Sort: "QUANTITY", Description: "Quantity on hand."},
		Field{Name: "reserved_quantity", Type: Decimal, Sort: "RESERVED_QUANTITY", Description: "Quantity reserved for orders."},
		Field{Name: "lot", Type: String, Description: "Lot number."},
		Field{Name: "serial", Type: String, Description: "Serial number."},
		Field{Name: "status", Type: Enum, Values: []string{"available", "quarantined", "damaged"}, Sort: "STATUS", Description: "Stock status."},
		Field{Name: "expires_at", Type: Time, Sort: "EXPIRES_AT", Nullable: true, Description: "Expiry time (optional). Sorts with the nulls last, in either direction, as the first sort key only."},
	)}
	OrderTable = &Table{Resource: "orders", WhereType: reflect.TypeFor[ent.OrderWhereInput](), Fields: common(resourceid.Order,
		Field{Name: "number", Type: String, Sort: "NUMBER", Description: "Unique order number."},
		Field{Name: "status", Type: String, Sort: "STATUS", Description: "A state of the order's workflow, e.g. open."},
		Field{Name: "workflow_id", Type: ID, Prefix: resourceid.Workflow, Description: "The workflow version's id."},
		Field{Name: "hub_id", Type: ID, Prefix: resourceid.Hub, Description: "The origin hub's id."},
		hubCode,
		Field{Name: "customer_ref", Type: String, Sort: "CUSTOMER_REF", Description: "The customer's reference."},
		Field{Name: "priority", Type: Enum, Values: []string{"low", "normal", "high", "urgent"}, Sort: "PRIORITY", Description: "Priority."},
		Field{Name: "ship_to_name", Type: String, Description: "ship_to.name."},
		Field{Name: "ship_to_city", Type: String, Description: "ship_to.city."},
		Field{Name: "ship_to_postal_code", Type: String, Description: "ship_to.postal_code."},
		Field{Name: "ship_to_country", Type: String, Description: "ship_to.country."},
		Field{Name: "due_at", Type: Time, Sort: "DUE_AT", Nullable: true, Description: "When it is due (optional). Sorts with the nulls last, in either direction, as the first sort key only."},
	)}
	OrderLineTable = &Table{Resource: "order lines", WhereType: reflect.TypeFor[ent.OrderLineWhereInput](), Fields: common(resourceid.OrderLine,
		Field{Name: "order_id", Type: ID, Prefix: resourceid.Order, Description: "The order's id."},
		Field{Name: "part_id", Type: ID, Prefix: resourceid.Part, Description: "The part's id."},
		Field{Name: "quantity", Type: Decimal, Sort: "QUANTITY", Description: "Ordered quantity."},
		Field{Name: "allocated_quantity", Type: Decimal, Sort: "ALLOCATED_QUANTITY", Description: "Reserved quantity."},
		Field{Name: "shipped_quantity", Type: Decimal, Sort: "SHIPPED_QUANTITY", Description: "Shipped quantity."},
	)}
	TrackingEntryTable = &Table{Resource: "tracking entries", WhereType: reflect.TypeFor[ent.TrackingEntryWhereInput](), Fields: common(resourceid.TrackingEntry,
		Field{Name: "order_id", Type: ID, Prefix: resourceid.Order, Description: "The order's id."},
		Field{Name: "tracking_number", Type: String, Sort: "TRACKING_NUMBER", Description: "Carrier tracking number."},
		Field{Name: "carrier", Type: String, Sort: "CARRIER", Description: "Carrier name."},
		Field{Name: "status", Type: Enum, Values: []string{"label_created", "in_transit", "out_for_delivery", "delivered", "exception", "returned"}, Sort: "STATUS", Description: "Shipment status."},
		Field{Name: "hub_id", Type: ID, Prefix: resourceid.Hub, Description: "The hub's id (optional)."},
		hubCode,
		Field{Name: "location", Type: String, Description: "Where it happened."},
		Field{Name: "description", Type: String, Description: "Free text."},
		Field{Name: "occurred_at", Type: Time, Sort: "OCCURRED_AT", Description: "When it happened."},
	)}
	WorkflowTable = &Table{Resource: "workflows", WhereType: reflect.TypeFor[ent.WorkflowWhereInput](), Fields: common(resourceid.Workflow,
		Field{Name: "key", Type: String, Sort: "KEY", Description: "The workflow's key, shared by its versions."},
		Field{Name: "name", Type: String, Sort: "NAME", Description: "Display name."},
		Field{Name: "version", Type: Int, Sort: "VERSION", Description: "Version number."},
		Field{Name: "latest", Type: Bool, Description: "True on the newest version of each key."},
		Field{Name: "built_in", Type: Bool, Description: "True for built-in workflows."},
	)}
	OrderEventTable = &Table{Resource: "order events", WhereType: reflect.TypeFor[ent.OrderEventWhereInput](), Fields: common(resourceid.OrderEvent,
		Field{Name: "transition", Type: String, Sort: "TRANSITION", Description: "The transition's name, e.g. allocate."},
		Field{Name: "from_state", Type: String, Sort: "FROM_STATE", Description: "The state before."},
		Field{Name: "to_state", Type: String, Sort: "TO_STATE", Description: "The state after."},
		Field{Name: "actor", Type: String, Description: "Who did it: tok_… (an API key) or usr_… (a console user)."},
		Field{Name: "occurred_at", Type: Time, Sort: "OCCURRED_AT", Description: "When it happened."},
	)}
	EventTable = &Table{Resource: "events", WhereType: reflect.TypeFor[ent.EventWhereInput](), Fields: common(resourceid.Event,
		Field{Name: "type", Type: String, Sort: "TYPE", Description: "Event type, e.g. order.created."},
		Field{Name: "subject_id", Type: String, Description: "The id of the resource that changed."},
		Field{Name: "actor", Type: String, Description: "Who made the change."},
		Field{Name: "sequence", Type: Int, Sort: "SEQUENCE", Description: "The event's number in its environment's log, given once its transaction has committed; paging with after= never skips one."},
	)}
)

// Tables lists every table, for the OpenAPI document and the tests.
var Tables = []*Table{HubTable, PartTable, ItemTable, OrderTable, OrderLineTable, TrackingEntryTable, WorkflowTable, OrderEventTable, EventTable}

// Hubs parses a /v1/hubs query string.
func Hubs(raw string) (*ent.HubWhereInput, []string, error) {
	return Build[ent.HubWhereInput](HubTable, raw)
}

// Parts parses a /v1/parts query string.
func Parts(raw string) (*ent.PartWhereInput, []string, error) {
	return Build[ent.PartWhereInput](PartTable, raw)
}

// Items parses a /v1/items query string.
func Items(raw string) (*ent.ItemWhereInput, []string, error) {
	return Build[ent.ItemWhereInput](ItemTable, raw)
}

// Orders parses a /v1/orders query string.
func Orders(raw string) (*ent.OrderWhereInput, []string, error) {
	return Build[ent.OrderWhereInput](OrderTable, raw)
}

// OrderLines parses a /v1/orders/{id}/lines query string.
func OrderLines(raw string) (*ent.OrderLineWhereInput, []string, error) {
	return Build[ent.OrderLineWhereInput](OrderLineTable, raw)
}

// TrackingEntries parses a /v1/tracking-entries query string.
func TrackingEntries(raw string) (*ent.TrackingEntryWhereInput, []string, error) {
	return Build[ent.TrackingEntryWhereInput](TrackingEntryTable, raw)
}

// Workflows parses a /v1/workflows query string.
func Workflows(raw string) (*ent.WorkflowWhereInput, []string, error) {
	return Build[ent.WorkflowWhereInput](WorkflowTable, raw)
}

// Events parses a /v1/events query string.
func Events(raw string) (*ent.EventWhereInput, []string, error) {
	return Build[ent.EventWhereInput](EventTable, raw)
}

// OrderEvents parses a /v1/orders/{id}/events query string.
func OrderEvents(raw string) (*ent.OrderEventWhereInput, []string, error) {
	return Build[ent.OrderEventWhereInput](OrderEventTable, raw)
}
