package eventlog

// Type is one entry of the event catalog.
type Type struct {
	Name string // "order.transitioned"
	// Object names the schema of data.object in the OpenAPI document
	// ("Order"); empty for events whose object is not a resource.
	Object      string
	Description string
}

// Catalog lists every event type the service emits; the OpenAPI document's
// webhooks section and docs/events.md are written from it (a test checks
// that every type emitted in the tests is listed).
var Catalog = []Type{
	{"hub.created", "Hub", "A hub was created."},
	{"hub.updated", "Hub", "A hub's details changed; previous_attributes holds the former values."},
	{"hub.deleted", "Hub", "A hub was deleted; object is its last state, with \"deleted\": true."},
	{"part.created", "Part", "A part was added to the catalogue."},
	{"part.updated", "Part", "A part's details changed."},
	{"part.deleted", "Part", "A part was deleted; object is its last state, with \"deleted\": true."},
	{"item.created", "Item", "Stock was recorded (POST /v1/items; a CSV import sends items.imported instead)."},
	{"item.updated", "Item", "Stock changed: an edit, or an order's stock effect — reserve (reserved_quantity up), release (down) or ship (quantity and reserved_quantity down); data.cause then names the order_id and effect."},
	{"item.deleted", "Item", "Stock was removed; object is its last state, with \"deleted\": true."},
	{"items.imported", "", "A CSV import committed; object is {imported, rows} (no item.created per row)."},
	{"order.created", "Order", "An order was created, with its lines, in its workflow's initial state."},
	{"order.updated", "Order", "An order's details changed (never its status: see order.transitioned)."},
	{"order.transitioned", "Order", "An order moved along its workflow; data.transition is {name, from, to, effect, workflow, workflow_version}; previous_attributes holds the former status. Stock effects follow as item.updated and order_line.updated events in the same transaction, and a ship effect as tracking_entry.created."},
	{"order.deleted", "Order", "An order (initial or final state) was deleted with its lines and tracking entries; object is its last state, with \"deleted\": true."},
	{"order_line.created", "OrderLine", "A line was added to an order in its initial state."},
	{"order_line.updated", "OrderLine", "A line changed: an edit, or an order's stock effect (allocated_quantity, shipped_quantity; data.cause names the order and effect)."},
	{"order_line.deleted", "OrderLine", "A line was removed; object is its last state, with \"deleted\": true."},
	{"tracking_entry.created", "TrackingEntry", "A carrier event was recorded (also by the ship effect: label_created). A delivered entry may also move its order (order.transitioned)."},
	{"tracking_entry.updated", "TrackingEntry", "A tracking entry was corrected."},
	{"tracking_entry.deleted", "TrackingEntry", "A tracking entry was deleted; object is its last state, with \"deleted\": true."},
	{"workflow.created", "Workflow", "A workflow version was created (a new key, or a new version of one)."},
	{"webhook_endpoint.disabled", "WebhookEndpoint", "A webhook endpoint was turned off by the service: it answered 410 Gone, or every attempt of a delivery's retry schedule failed; data.reason says which."},
	{"demo_data.loaded", "", "The sandbox's demo data was loaded; object holds the counts."},
	{"sandbox.reset", "SandboxReset", "The sandbox was emptied and its demo data loaded again (docs/sandbox.md: Reset), in one transaction: this event comes first, demo_data.loaded follows; object holds what was erased and the scale and seed loaded. Sandbox only."},
}

// Known reports whether name is in the catalog.
func Known(name string) bool {
	for _, t := range Catalog {
		if t.Name == name {
			return true
		}
	}
	return false
}
