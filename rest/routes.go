package rest

import (
	"logistics/internal/auth"
	"net/http"
	"slices"
	"strings"

	"logistics/internal/aggregate"
	"logistics/internal/apperr"
	"logistics/internal/filter"
)

// route is one row of the /v1 table: what it serves, the scope it will need
// once authentication lands, and what the OpenAPI document says about it.
type route struct {
	method, path string // path below the environment's base path
	scope        string // "" = any authenticated caller
	h            http.Handler
	doc          opDoc
}

// opDoc describes an operation for the OpenAPI document.
type opDoc struct {
	summary string
	kind    opKind
	schema  string        // the resource schema ("Hub")
	input   string        // the request body schema ("HubInput")
	table   *filter.Table // the filter table of a list
}

type opKind int

const (
	opList opKind = iota + 1
	opGet
	opCreate
	opUpdate
	opDelete
	opOther
	opAction // POST of a JSON command on a resource, answering 200 with it
	opImport // POST of a text/csv file
	// opSecret is a POST whose answer carries a secret shown once: never
	// replayed from an Idempotency-Key (the key store would keep the secret).
	opSecret
	opCommand   // POST queuing work, answering 202 with what was queued
	opPlainList // GET of a short list without filters or cursor
	opAggregate // GET of the aggregates of a list (rest/aggregate.go)
	opExport    // GET of every row of a list as CSV or NDJSON (exportOnly)
	// opAggregateExport is GET of every group of an aggregate as CSV or NDJSON (exportOnly).
	opAggregateExport
	// opSandbox is a sandbox-only call answering 200 with the test clock
	// (rest/sandbox.go); 404 in production.
	opSandbox
	opRun // POST of a JSON command that runs at once, answering 200 with its result
)

// routes is the whole /v1 table, on one screen.
func routes(d Deps) []route {
	hubs, parts, items, orders, lines := d.hubs(), d.parts(), d.items(), d.orders(), d.orderLines()
	tracking, workflows, orderEvents := d.trackingEntries(), d.workflows(), d.orderEvents()
	return []route{
		{"GET", "/v1/status", "", handleStatus(d), opDoc{summary: "Service status", kind: opOther, schema: "Status"}},
		{"GET", "/v1/openapi.json", "", handleOpenAPI(d), opDoc{summary: "This OpenAPI document", kind: opOther}},

		{"GET", "/v1/hubs", "hubs:read", hubs.list(d), opDoc{"List hubs", opList, "Hub", "", filter.HubTable}},
		{"POST", "/v1/hubs", "hubs:write", hubs.post(d), opDoc{"Create a hub", opCreate, "Hub", "HubInput", nil}},
		{"GET", "/v1/hubs/{id}", "hubs:read", hubs.get(d), opDoc{"Get a hub", opGet, "Hub", "", nil}},
		{"PATCH", "/v1/hubs/{id}", "hubs:write", hubs.patch(d), opDoc{"Update a hub", opUpdate, "Hub", "HubInput", nil}},
		{"DELETE", "/v1/hubs/{id}", "hubs:write", hubs.del(d), opDoc{"Delete a hub nothing refers to", opDelete, "Hub", "", nil}},

		{"GET", "/v1/parts", "parts:read", parts.list(d), opDoc{"List parts", opList, "Part", "", filter.PartTable}},
		{"POST", "/v1/parts", "parts:write", parts.post(d), opDoc{"Create a part", opCreate, "Part", "PartInput", nil}},
		{"GET", "/v1/parts/{id}", "parts:read", parts.get(d), opDoc{"Get a part", opGet, "Part", "", nil}},
		{"PATCH", "/v1/parts/{id}", "parts:write", parts.patch(d), opDoc{"Update a part", opUpdate, "Part", "PartInput", nil}},
		{"DELETE", "/v1/parts/{id}", "parts:write", parts.del(d), opDoc{"Delete a part without stock or order lines", opDelete, "Part", "", nil}},

		{"GET", "/v1/items", "items:read", items.list(d), opDoc{"List stock items", opList, "Item", "", filter.ItemTable}},
		{"POST", "/v1/items", "items:write", items.post(d), opDoc{"Record stock", opCreate, "Item", "ItemInput", nil}},
		{"POST", "/v1/items/import", "items:write", handleImportItems(d), opDoc{"Import stock from a CSV file, all or nothing", opImport, "ImportResult", "", nil}},
		{"GET", "/v1/items/{id}", "items:read", items.get(d), opDoc{"Get an item", opGet, "Item", "", nil}},
		{"PATCH", "/v1/items/{id}", "items:write", items.patch(d), opDoc{"Update an item", opUpdate, "Item", "ItemInput", nil}},
		{"DELETE", "/v1/items/{id}", "items:write", items.del(d), opDoc{"Delete an item without reservations", opDelete, "Item", "", nil}},

		{"GET", "/v1/orders", "orders:read", orders.list(d), opDoc{"List orders", opList, "Order", "", filter.OrderTable}},
		{"POST", "/v1/orders", "orders:write", orders.post(d), opDoc{"Create an order with its lines", opCreate, "Order", "OrderInput", nil}},
		{"GET", "/v1/orders/{id}", "orders:read", orders.get(d), opDoc{"Get an order", opGet, "Order", "", nil}},
		{"PATCH", "/v1/orders/{id}", "orders:write", orders.patch(d), opDoc{"Update an order's details", opUpdate, "Order", "OrderInput", nil}},
		{"DELETE", "/v1/orders/{id}", "orders:write", orders.del(d), opDoc{"Delete an order in its initial or a final state", opDelete, "Order", "", nil}},
		{"GET", "/v1/orders/{id}/lines", "orders:read", lines.list(d), opDoc{"List an order's lines", opList, "OrderLine", "", filter.OrderLineTable}},
		{"POST", "/v1/orders/{id}/lines", "orders:write", handleCreateOrderLine(d), opDoc{"Add a line to an order", opCreate, "OrderLine", "OrderLineInput", nil}},
		{"POST", "/v1/orders/{id}/transitions", "orders:write", handleTransitionOrder(d), opDoc{"Move an order along its workflow", opAction, "Order", "TransitionInput", nil}},
		{"GET", "/v1/orders/{id}/events", "orders:read", orderEvents.list(d), opDoc{"List an order's transitions", opList, "OrderEvent", "", filter.OrderEventTable}},
		{"GET", "/v1/order-lines/{id}", "orders:read", lines.get(d), opDoc{"Get an order line", opGet, "OrderLine", "", nil}},
		{"PATCH", "/v1/order-lines/{id}", "orders:write", lines.patch(d), opDoc{"Update an order line", opUpdate, "OrderLine", "OrderLineInput", nil}},
		{"DELETE", "/v1/order-lines/{id}", "orders:write", lines.del(d), opDoc{"Delete an order line", opDelete, "OrderLine", "", nil}},

		{"GET", "/v1/tracking-entries", "tracking:read", tracking.list(d), opDoc{"List tracking entries", opList, "TrackingEntry", "", filter.TrackingEntryTable}},
		{"POST", "/v1/tracking-entries", "tracking:write", tracking.post(d), opDoc{"Record a tracking entry", opCreate, "TrackingEntry", "TrackingEntryInput", nil}},
		{"GET", "/v1/tracking-entries/{id}", "tracking:read", tracking.get(d), opDoc{"Get a tracking entry", opGet, "TrackingEntry", "", nil}},
		{"PATCH", "/v1/tracking-entries/{id}", "tracking:write", tracking.patch(d), opDoc{"Update a tracking entry", opUpdate, "TrackingEntry", "TrackingEntryInput", nil}},
		{"DELETE", "/v1/tracking-entries/{id}", "tracking:write", tracking.del(d), opDoc{"Delete a tracking entry", opDelete, "TrackingEntry", "", nil}},

		{"GET", "/v1/workflows", "workflows:read", workflows.list(d), opDoc{"List workflow versions", opList, "Workflow", "", filter.WorkflowTable}},
		{"POST", "/v1/workflows", "workflows:write", workflows.post(d), opDoc{"Create a workflow, or the next version of one", opCreate, "Workflow", "WorkflowInput", nil}},
		{"GET", "/v1/workflows/{id}", "workflows:read", workflows.get(d), opDoc{"Get a workflow version", opGet, "Workflow", "", nil}},

		{"GET", "/v1/webhook-endpoints", "webhooks:read", handleListWebhooks(d), opDoc{"List webhook endpoints (at most 50 per environment)", opPlainList, "WebhookEndpoint", "", nil}},
		{"POST", "/v1/webhook-endpoints", "webhooks:write", handleCreateWebhook(d), opDoc{"Register a webhook endpoint; the answer holds its signing secret, shown only this once", opSecret, "WebhookEndpoint", "WebhookEndpointInput", nil}},
		{"GET", "/v1/webhook-endpoints/{id}", "webhooks:read", handleGetWebhook(d), opDoc{"Get a webhook endpoint (never its secret)", opGet, "WebhookEndpoint", "", nil}},
		{"PATCH", "/v1/webhook-endpoints/{id}", "webhooks:write", handleUpdateWebhook(d), opDoc{"Change a webhook endpoint; enabled: true re-enables a disabled one", opUpdate, "WebhookEndpoint", "WebhookEndpointInput", nil}},
		{"DELETE", "/v1/webhook-endpoints/{id}", "webhooks:write", handleDeleteWebhook(d), opDoc{"Delete a webhook endpoint and its deliveries", opDelete, "WebhookEndpoint", "", nil}},
		{"POST", "/v1/webhook-endpoints/{id}/rotate-secret", "webhooks:write", handleRotateWebhookSecret(d), opDoc{"Replace the signing secret (shown once); the old one keeps signing for the grace period", opSecret, "WebhookEndpoint", "", nil}},
		{"POST", "/v1/webhook-endpoints/{id}/resend", "webhooks:write", handleResendWebhook(d), opDoc{"Send an event (or a delivery's event) to the endpoint again", opCommand, "WebhookDelivery", "WebhookResendInput", nil}},
		{"POST", "/v1/webhook-endpoints/{id}/test", "webhooks:write", handleTestWebhook(d), opDoc{"Send a test event to the endpoint: webhook.test, or with {\"type\": …} an example of any type of the catalog, shaped as the real one and marked \"test\": true (not in the event log)", opCommand, "WebhookDelivery", "WebhookTestInput", nil}},
		{"GET", "/v1/webhook-endpoints/{id}/deliveries", "webhooks:read", handleListWebhookDeliveries(d), opDoc{"List the endpoint's latest deliveries (status=pending|succeeded|failed|skipped, limit ≤ 100)", opPlainList, "WebhookDelivery", "", nil}},
		{"GET", "/v1/webhook-endpoints/{id}/deliveries/stats", "webhooks:read", handleWebhookDeliveryStats(d), opDoc{"Count the endpoint's deliveries by status (skipped: its filter did not match the event's resource)", opGet, "WebhookDeliveryStats", "", nil}},

		// Sandbox-only doors (rest/sandbox.go): sandbox:write, which production answers with 404.
		{"POST", "/v1/sandbox/reset", "sandbox:write", handleResetSandbox(d), opDoc{"Empty the sandbox and load its demo data again, in one transaction (confirm: \"sandbox\"; sandbox.reset is recorded first). API keys, users, webhook endpoints, workflows and the event log survive; the idempotency keys of the erased data's POSTs do not. Sandbox only: production answers 404", opRun, "SandboxReset", "SandboxResetInput", nil}},

		// Trusted GraphQL documents (rest/documents.go, docs/graphql.md).
		{"GET", "/v1/trusted-documents", "documents:read", handleListDocuments(d), opDoc{"List the trusted GraphQL documents", opDocuments, "TrustedDocument", "", nil}},
		{"POST", "/v1/trusted-documents", "documents:write", handleRegisterDocuments(d), opDoc{"Trust the documents of a persisted-documents manifest, all or nothing", opDocuments, "TrustedDocumentRegistration", "", nil}},
		{"GET", "/v1/trusted-documents/{hash}", "documents:read", handleGetDocument(d), opDoc{"Get a trusted document by hash", opDocuments, "TrustedDocument", "", nil}},
		{"DELETE", "/v1/trusted-documents/{hash}", "documents:write", handleRetireDocument(d), opDoc{"Retire a trusted document", opDocuments, "TrustedDocument", "", nil}},

		// The sandbox's test clock (rest/sandbox.go, docs/sandbox.md): 404 in production.
		{"GET", "/v1/sandbox/clock", "sandbox:write", handleSandboxClock(d, clockGet), opDoc{"Read the sandbox's test clock", opSandbox, "SandboxClock", "", nil}},
		{"POST", "/v1/sandbox/clock/freeze", "sandbox:write", handleSandboxClock(d, clockFreeze), opDoc{"Freeze the sandbox's clock at its current time", opSandbox, "SandboxClock", "", nil}},
		{"POST", "/v1/sandbox/clock/resume", "sandbox:write", handleSandboxClock(d, clockResume), opDoc{"Let a frozen sandbox clock run again from where it stands", opSandbox, "SandboxClock", "", nil}},
		{"POST", "/v1/sandbox/clock/advance", "sandbox:write", handleSandboxClock(d, clockAdvance), opDoc{"Move the sandbox's clock forward by a duration and write everything that fell due", opSandbox, "SandboxClock", "SandboxClockAdvanceInput", nil}},
		{"POST", "/v1/sandbox/clock/set", "sandbox:write", handleSandboxClock(d, clockSet), opDoc{"Move the sandbox's clock forward to a time (never back) and write everything that fell due", opSandbox, "SandboxClock", "SandboxClockSetInput", nil}},

		// Aggregates of every list (rest/aggregate.go, docs/analytics.md).
		{"GET", "/v1/hubs/aggregate", "hubs:read", hubs.aggregate(d, aggregate.Hubs), opDoc{"Aggregate hubs", opAggregate, "Hub", "", filter.HubTable}},
		{"GET", "/v1/parts/aggregate", "parts:read", parts.aggregate(d, aggregate.Parts), opDoc{"Aggregate parts", opAggregate, "Part", "", filter.PartTable}},
		{"GET", "/v1/items/aggregate", "items:read", items.aggregate(d, aggregate.Items), opDoc{"Aggregate stock items", opAggregate, "Item", "", filter.ItemTable}},
		{"GET", "/v1/orders/aggregate", "orders:read", orders.aggregate(d, aggregate.Orders), opDoc{"Aggregate orders", opAggregate, "Order", "", filter.OrderTable}},
		{"GET", "/v1/order-lines/aggregate", "orders:read", lines.aggregate(d, aggregate.OrderLines), opDoc{"Aggregate order lines", opAggregate, "OrderLine", "", filter.OrderLineTable}},
		{"GET", "/v1/order-events/aggregate", "orders:read", d.orderEvents().aggregate(d, aggregate.OrderEvents), opDoc{"Aggregate order transitions", opAggregate, "OrderEvent", "", filter.OrderEventTable}},
		{"GET", "/v1/tracking-entries/aggregate", "tracking:read", tracking.aggregate(d, aggregate.TrackingEntries), opDoc{"Aggregate tracking entries", opAggregate, "TrackingEntry", "", filter.TrackingEntryTable}},
		{"GET", "/v1/workflows/aggregate", "workflows:read", workflows.aggregate(d, aggregate.Workflows), opDoc{"Aggregate workflow versions", opAggregate, "Workflow", "", filter.WorkflowTable}},
		{"GET", "/v1/events/aggregate", eventRule, d.events().aggregate(d, aggregate.Events), opDoc{"Aggregate domain events", opAggregate, "Event", "", filter.EventTable}},

		{"GET", "/v1/events", eventRule, handleListEvents(d), opDoc{"List domain events", opList, "Event", "", filter.EventTable}},
		{"GET", "/v1/events/{id}", eventRule, d.events().get(d), opDoc{"Get a domain event", opGet, "Event", "", nil}},

		// The exports of every list: its handler, CSV or NDJSON only (exportOnly).
		{"GET", "/v1/hubs/export", "hubs:read", exportOnly(d, hubs.list(d)), opDoc{"Export hubs", opExport, "Hub", "", filter.HubTable}},
		{"GET", "/v1/parts/export", "parts:read", exportOnly(d, parts.list(d)), opDoc{"Export parts", opExport, "Part", "", filter.PartTable}},
		{"GET", "/v1/items/export", "items:read", exportOnly(d, items.list(d)), opDoc{"Export stock items", opExport, "Item", "", filter.ItemTable}},
		{"GET", "/v1/orders/export", "orders:read", exportOnly(d, orders.list(d)), opDoc{"Export orders", opExport, "Order", "", filter.OrderTable}},
		{"GET", "/v1/orders/{id}/lines/export", "orders:read", exportOnly(d, lines.list(d)), opDoc{"Export an order's lines", opExport, "OrderLine", "", filter.OrderLineTable}},
		{"GET", "/v1/orders/{id}/events/export", "orders:read", exportOnly(d, orderEvents.list(d)), opDoc{"Export an order's transitions", opExport, "OrderEvent", "", filter.OrderEventTable}},
		{"GET", "/v1/tracking-entries/export", "tracking:read", exportOnly(d, tracking.list(d)), opDoc{"Export tracking entries", opExport, "TrackingEntry", "", filter.TrackingEntryTable}},
		{"GET", "/v1/workflows/export", "workflows:read", exportOnly(d, workflows.list(d)), opDoc{"Export workflow versions", opExport, "Workflow", "", filter.WorkflowTable}},
		{"GET", "/v1/events/export", eventRule, exportOnly(d, handleListEvents(d)), opDoc{"Export domain events", opExport, "Event", "", filter.EventTable}},
		// The exports of every aggregate, the same way.
		{"GET", "/v1/hubs/aggregate/export", "hubs:read", exportOnly(d, hubs.aggregate(d, aggregate.Hubs)), opDoc{"Export the aggregates of hubs", opAggregateExport, "Hub", "", filter.HubTable}},
		{"GET", "/v1/parts/aggregate/export", "parts:read", exportOnly(d, parts.aggregate(d, aggregate.Parts)), opDoc{"Export the aggregates of parts", opAggregateExport, "Part", "", filter.PartTable}},
		{"GET", "/v1/items/aggregate/export", "items:read", exportOnly(d, items.aggregate(d, aggregate.Items)), opDoc{"Export the aggregates of stock items", opAggregateExport, "Item", "", filter.ItemTable}},
		{"GET", "/v1/orders/aggregate/export", "orders:read", exportOnly(d, orders.aggregate(d, aggregate.Orders)), opDoc{"Export the aggregates of orders", opAggregateExport, "Order", "", filter.OrderTable}},
		{"GET", "/v1/order-lines/aggregate/export", "orders:read", exportOnly(d, lines.aggregate(d, aggregate.OrderLines)), opDoc{"Export the aggregates of order lines", opAggregateExport, "OrderLine", "", filter.OrderLineTable}},
		{"GET", "/v1/order-events/aggregate/export", "orders:read", exportOnly(d, d.orderEvents().aggregate(d, aggregate.OrderEvents)), opDoc{"Export the aggregates of order transitions", opAggregateExport, "OrderEvent", "", filter.OrderEventTable}},
		{"GET", "/v1/tracking-entries/aggregate/export", "tracking:read", exportOnly(d, tracking.aggregate(d, aggregate.TrackingEntries)), opDoc{"Export the aggregates of tracking entries", opAggregateExport, "TrackingEntry", "", filter.TrackingEntryTable}},
		{"GET", "/v1/workflows/aggregate/export", "workflows:read", exportOnly(d, workflows.aggregate(d, aggregate.Workflows)), opDoc{"Export the aggregates of workflow versions", opAggregateExport, "Workflow", "", filter.WorkflowTable}},
		{"GET", "/v1/events/aggregate/export", eventRule, exportOnly(d, d.events().aggregate(d, aggregate.Events)), opDoc{"Export the aggregates of domain events", opAggregateExport, "Event", "", filter.EventTable}},
	}
}

// need guards a route with its scope from the one policy table that the
// GraphQL directive uses too (internal/auth). "" means any authenticated
// caller; eventRule (the event log) any authenticated caller too, whose
// handlers apply the event rule row by row (auth.ScopeEventWhere,
// auth.CanReadEvent), as every other door of the log does.
func need(scope string, h http.Handler) http.Handler {
	switch scope {
	case "":
		return h
	case eventRule:
		return auth.Need("", h)
	}
	return auth.Need(scope, h)
}

// eventRule marks the routes of the event log: each event is visible with
// the read scope of its type.
const eventRule = "event-type:read"

// eventRuleDoc is the Scope line of the event log's operations.
const eventRuleDoc = "Scope: the read scope of each event's type (hub.* needs hubs:read, order.* and order_line.* orders:read, webhook_endpoint.* webhooks:read; docs/events.md): the list shows only the events the key may read, and a type asked for by name (type, type[], types[]) that it may not read is 403 insufficient_scope naming the scope."

// Mount registers every /v1 route on mux under prefix (the environment's base
// path, "" or "/sandbox"). A path asked with a method it does not serve gets
// a 405 problem with Allow.
func Mount(mux *http.ServeMux, prefix string, d Deps) {
	d.prefix = prefix
	d.sweeper = &keySweeper{}
	allow := map[string][]string{}
	var paths []string
	for _, rt := range routes(d) {
		h := rt.h
		if rt.method == http.MethodPost && rt.doc.kind != opImport && rt.doc.kind != opSecret && rt.doc.kind != opDocuments {
			h = d.idempotent(h) // an import is all or nothing already, and not JSON
		}
		if rt.method == http.MethodGet {
			h = staleReads(rt.doc.kind, h)
		}
		h = need(rt.scope, h) // scope first: a refused request never claims an idempotency key
		if isSandboxRoute(rt.path) {
			h = sandboxOnly(h) // production has no such door: 404 before any scope check
		}
		mux.Handle(rt.method+" "+prefix+rt.path, h)
		if _, ok := allow[rt.path]; !ok {
			paths = append(paths, rt.path)
		}
		allow[rt.path] = append(allow[rt.path], rt.method)
		if rt.method == http.MethodGet {
			allow[rt.path] = append(allow[rt.path], http.MethodHead)
		}
	}
	for _, p := range paths {
		methods := allow[p]
		slices.Sort(methods)
		notAllowed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			apperr.Write(w, r, d.Log, apperr.MethodNotAllowed(methods...))
		})
		// One pattern per method, so a fixed path (/v1/items/import) and a
		// wildcard one (/v1/items/{id}) never claim the same requests.
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if !slices.Contains(methods, m) {
				mux.Handle(m+" "+prefix+p, notAllowed)
			}
		}
	}
}

// scopes lists the scopes of the route table, for the OpenAPI document.
func scopes(rs []route) []string {
	var out []string
	for _, r := range rs {
		if r.scope != "" && r.scope != eventRule && !slices.Contains(out, r.scope) {
			out = append(out, r.scope)
		}
	}
	slices.SortFunc(out, strings.Compare)
	return out
}
