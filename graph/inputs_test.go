package graph_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"logistics/graph/generated"
)

// mutationInputs is every field a GraphQL mutation accepts, argument by
// argument and through nested input objects ("updateOrderLine.input.quantity").
// Each was allowed on purpose: its invariants hold in the service layer
// whatever the value (docs/workflows.md, "Invariants"). A field the schema
// gains — a new mutation, an ent field that reaches an Update…Input — fails
// TestEveryMutationInputFieldIsAllowed until it is reviewed and added here;
// one that disappears fails too, so the list stays the truth.
//
// Not here on purpose: updateOrderLine.input.orderID (a line never changes
// orders), and status/workflow of orders (only transitions move an order).
var mutationInputs = []string{
	// Hubs: only what describes the place.
	"createHub.input.active", "createHub.input.addressLine1", "createHub.input.city", "createHub.input.code",
	"createHub.input.country", "createHub.input.kind", "createHub.input.latitude", "createHub.input.longitude",
	"createHub.input.name", "createHub.input.postalCode", "createHub.input.timezone",
	"updateHub.id", "updateHub.revision",
	"updateHub.input.active", "updateHub.input.addressLine1", "updateHub.input.city", "updateHub.input.clearLatitude",
	"updateHub.input.clearLongitude", "updateHub.input.code", "updateHub.input.country", "updateHub.input.kind",
	"updateHub.input.latitude", "updateHub.input.longitude", "updateHub.input.name", "updateHub.input.postalCode",
	"updateHub.input.timezone",
	"deleteHub.id",
	// Parts.
	"createPart.input.description", "createPart.input.hazardous", "createPart.input.partName", "createPart.input.sku",
	"createPart.input.unit", "createPart.input.unitWeightKg",
	"updatePart.id", "updatePart.revision",
	"updatePart.input.description", "updatePart.input.hazardous", "updatePart.input.partName", "updatePart.input.sku",
	"updatePart.input.unit", "updatePart.input.unitWeightKg",
	"deletePart.id",
	// Items: quantity never below what is reserved, part and hub only while
	// nothing is reserved (service.UpdateItem, conditional UPDATE);
	// reservedQuantity is not an input.
	"createItem.input.expiresAt", "createItem.input.hubID", "createItem.input.lot", "createItem.input.partID",
	"createItem.input.quantity", "createItem.input.serial", "createItem.input.status",
	"updateItem.id", "updateItem.revision",
	"updateItem.input.clearExpiresAt", "updateItem.input.expiresAt", "updateItem.input.hubID", "updateItem.input.lot",
	"updateItem.input.partID", "updateItem.input.quantity", "updateItem.input.serial", "updateItem.input.status",
	"deleteItem.id",
	// Orders: the hub only in the initial state (nothing reserved there);
	// status moves only through transitionOrder.
	"createOrder.input.customerRef", "createOrder.input.dueAt", "createOrder.input.hubID", "createOrder.input.number",
	"createOrder.input.priority", "createOrder.input.shipToCity", "createOrder.input.shipToCountry",
	"createOrder.input.shipToLine1", "createOrder.input.shipToLine2", "createOrder.input.shipToName",
	"createOrder.input.shipToPostalCode",
	"createOrder.lines.partID", "createOrder.lines.quantity", "createOrder.workflowKey",
	"updateOrder.id", "updateOrder.revision",
	"updateOrder.input.clearDueAt", "updateOrder.input.customerRef", "updateOrder.input.dueAt", "updateOrder.input.hubID",
	"updateOrder.input.number", "updateOrder.input.priority", "updateOrder.input.shipToCity",
	"updateOrder.input.shipToCountry", "updateOrder.input.shipToLine1", "updateOrder.input.shipToLine2",
	"updateOrder.input.shipToName", "updateOrder.input.shipToPostalCode",
	"deleteOrder.id",
	"transitionOrder.carrier", "transitionOrder.id", "transitionOrder.revision", "transitionOrder.trackingNumber",
	"transitionOrder.transition",
	// Order lines: only in the order's initial state, which holds no
	// reservation; never to another order; allocated and shipped quantities
	// are not inputs.
	"createOrderLine.input.orderID", "createOrderLine.input.partID", "createOrderLine.input.quantity",
	"updateOrderLine.id", "updateOrderLine.revision",
	"updateOrderLine.input.partID", "updateOrderLine.input.quantity",
	"deleteOrderLine.id",
	// Tracking entries: created or edited, a delivered entry delivers its
	// order (service.applyDelivered).
	"createTrackingEntry.input.carrier", "createTrackingEntry.input.description", "createTrackingEntry.input.hubID",
	"createTrackingEntry.input.location", "createTrackingEntry.input.occurredAt", "createTrackingEntry.input.orderID",
	"createTrackingEntry.input.status", "createTrackingEntry.input.trackingNumber",
	"updateTrackingEntry.id", "updateTrackingEntry.revision",
	"updateTrackingEntry.input.carrier", "updateTrackingEntry.input.clearHub", "updateTrackingEntry.input.description",
	"updateTrackingEntry.input.hubID", "updateTrackingEntry.input.location", "updateTrackingEntry.input.occurredAt",
	"updateTrackingEntry.input.orderID", "updateTrackingEntry.input.status", "updateTrackingEntry.input.trackingNumber",
	"deleteTrackingEntry.id",
	// Workflows: validated as a whole (workflowdef.Validate: a way back to
	// the initial state must release stock).
	"createWorkflow.input.initialState", "createWorkflow.input.key", "createWorkflow.input.name",
	"createWorkflow.input.states", "createWorkflow.input.transitions.effect", "createWorkflow.input.transitions.from",
	"createWorkflow.input.transitions.name", "createWorkflow.input.transitions.to",
	// Webhook endpoints: configuration, checked by internal/webhooks (the
	// URL at registration and again at every delivery, after DNS).
	"createWebhookEndpoint.input.url", "createWebhookEndpoint.input.description",
	"createWebhookEndpoint.input.eventTypes", "createWebhookEndpoint.input.enabled",
	"updateWebhookEndpoint.id", "updateWebhookEndpoint.input.url", "updateWebhookEndpoint.input.description",
	"updateWebhookEndpoint.input.eventTypes", "updateWebhookEndpoint.input.enabled",
	// Webhook filters: where inputs, checked by internal/filter (limits, the
	// types the endpoint receives) and the relation scope rule; stored as
	// JSON and evaluated as a list's where: is.
	"createWebhookEndpoint.input.filters.hub", "createWebhookEndpoint.input.filters.part",
	"createWebhookEndpoint.input.filters.item", "createWebhookEndpoint.input.filters.order",
	"createWebhookEndpoint.input.filters.orderLine", "createWebhookEndpoint.input.filters.trackingEntry",
	"createWebhookEndpoint.input.filters.workflow",
	"updateWebhookEndpoint.input.filters.hub", "updateWebhookEndpoint.input.filters.part",
	"updateWebhookEndpoint.input.filters.item", "updateWebhookEndpoint.input.filters.order",
	"updateWebhookEndpoint.input.filters.orderLine", "updateWebhookEndpoint.input.filters.trackingEntry",
	"updateWebhookEndpoint.input.filters.workflow",
	"deleteWebhookEndpoint.id", "rotateWebhookSecret.id",
	"resendWebhookEvent.endpointId", "resendWebhookEvent.eventId", "resendWebhookEvent.deliveryId",
	"sendWebhookTestEvent.endpointId",
	// A test event's type: one of the catalog, whose read scope it needs.
	"sendWebhookTestEvent.type",
	// A reset: the sandbox only, behind the typed confirmation; scale and
	// seed bounded (sandboxreset.Check).
	"resetSandbox.input.confirm", "resetSandbox.input.scale", "resetSandbox.input.seed",
	// API tokens (console sessions only).
	"createApiToken.input.environment", "createApiToken.input.expiresAt", "createApiToken.input.name",
	"createApiToken.input.scopes",
	"revokeApiToken.id",
	// Trusted documents: a manifest is parsed and every hash checked against
	// its text before anything is stored (internal/documents), the client's
	// name and version are bounded there, a retired hash only stops running.
	"registerTrustedDocuments.manifest", "registerTrustedDocuments.clientName",
	"registerTrustedDocuments.clientVersion", "retireTrustedDocument.hash",
	// The sandbox's clock (internal/sandbox): a duration is parsed and
	// bounded (0 < by ≤ a year, 32 characters), a time must not be before
	// the clock's nor more than a year ahead; the clock never goes back.
	"advanceSandboxClock.by", "setSandboxClock.to",
}

// TestEveryMutationInputFieldIsAllowed walks the schema: every argument of
// every mutation, and every field of the input objects they take (nested
// too), is on the allow-list above, and the list names nothing else.
func TestEveryMutationInputFieldIsAllowed(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	var got []string
	var walk func(path string, typ *ast.Type, seen []string)
	walk = func(path string, typ *ast.Type, seen []string) {
		def := schema.Types[typ.Name()]
		if def == nil || def.Kind != ast.InputObject {
			got = append(got, path)
			return
		}
		if slices.Contains(seen, def.Name) {
			got = append(got, path) // a recursive input: listed once, by name
			return
		}
		if strings.HasSuffix(def.Name, "WhereInput") {
			// A where filter (a webhook endpoint's) selects rows and writes
			// none of their fields: listed once, as the lists' where: is
			// not listed at all.
			got = append(got, path)
			return
		}
		for _, f := range def.Fields {
			walk(path+"."+f.Name, f.Type, append(seen, def.Name))
		}
	}
	for _, m := range schema.Mutation.Fields {
		for _, a := range m.Arguments {
			walk(m.Name+"."+a.Name, a.Type, nil)
		}
	}
	for _, f := range got {
		if !slices.Contains(mutationInputs, f) {
			t.Errorf("mutation input %s is not on the allow-list: check that the service keeps every invariant whatever its value, then add it", f)
		}
	}
	for _, f := range mutationInputs {
		if !slices.Contains(got, f) {
			t.Errorf("allow-list names %s, which the schema no longer has", f)
		}
	}
	if t.Failed() {
		slices.Sort(got)
		t.Logf("the schema's mutation inputs:\n%s", strings.Join(got, "\n"))
	}
}
