package rest_test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"logistics/internal/apptest"
)

// bodyFields is every field a REST request body may carry, per operation,
// from the OpenAPI document (which is derived from the handlers' input
// structs). Each was allowed on purpose, with the same review as the GraphQL
// list in graph/inputs_test.go; a new field fails TestEveryBodyFieldIsAllowed
// until it is added here. POST and PATCH of a resource share one input
// schema; PATCH /v1/orders/{id} refuses lines and workflow with a 400.
var bodyFields = []string{
	"PATCH /v1/hubs/{id} active", "PATCH /v1/hubs/{id} address.city", "PATCH /v1/hubs/{id} address.country",
	"PATCH /v1/hubs/{id} address.line1", "PATCH /v1/hubs/{id} address.postal_code", "PATCH /v1/hubs/{id} code",
	"PATCH /v1/hubs/{id} kind", "PATCH /v1/hubs/{id} latitude", "PATCH /v1/hubs/{id} longitude",
	"PATCH /v1/hubs/{id} name", "PATCH /v1/hubs/{id} timezone",
	// Items: quantity never below what is reserved; part and hub only while
	// nothing is reserved (service.UpdateItem). reserved_quantity is not an input.
	"PATCH /v1/items/{id} expires_at", "PATCH /v1/items/{id} hub", "PATCH /v1/items/{id} hub_id",
	"PATCH /v1/items/{id} lot", "PATCH /v1/items/{id} part_id", "PATCH /v1/items/{id} quantity",
	"PATCH /v1/items/{id} serial", "PATCH /v1/items/{id} sku", "PATCH /v1/items/{id} status",
	// Order lines: only in the order's initial state, which holds no
	// reservation; never to another order (no order_id).
	"PATCH /v1/order-lines/{id} part_id", "PATCH /v1/order-lines/{id} quantity",
	"PATCH /v1/order-lines/{id} sku",
	// Orders: the hub only in the initial state; status only through
	// transitions (PATCH refuses lines and workflow).
	"PATCH /v1/orders/{id} customer_ref", "PATCH /v1/orders/{id} due_at", "PATCH /v1/orders/{id} hub",
	"PATCH /v1/orders/{id} hub_id", "PATCH /v1/orders/{id} lines[].part_id",
	"PATCH /v1/orders/{id} lines[].quantity", "PATCH /v1/orders/{id} lines[].sku",
	"PATCH /v1/orders/{id} number", "PATCH /v1/orders/{id} priority", "PATCH /v1/orders/{id} ship_to.city",
	"PATCH /v1/orders/{id} ship_to.country", "PATCH /v1/orders/{id} ship_to.line1",
	"PATCH /v1/orders/{id} ship_to.line2", "PATCH /v1/orders/{id} ship_to.name",
	"PATCH /v1/orders/{id} ship_to.postal_code", "PATCH /v1/orders/{id} workflow",
	"PATCH /v1/parts/{id} description", "PATCH /v1/parts/{id} hazardous", "PATCH /v1/parts/{id} part_name",
	"PATCH /v1/parts/{id} sku", "PATCH /v1/parts/{id} unit", "PATCH /v1/parts/{id} unit_weight_kg",
	// Tracking entries: a delivered one, created or edited, delivers its order.
	"PATCH /v1/tracking-entries/{id} carrier", "PATCH /v1/tracking-entries/{id} description",
	"PATCH /v1/tracking-entries/{id} hub", "PATCH /v1/tracking-entries/{id} hub_id",
	"PATCH /v1/tracking-entries/{id} location", "PATCH /v1/tracking-entries/{id} occurred_at",
	"PATCH /v1/tracking-entries/{id} order_id", "PATCH /v1/tracking-entries/{id} status",
	"PATCH /v1/tracking-entries/{id} tracking_number",
	"POST /v1/hubs active", "POST /v1/hubs address.city", "POST /v1/hubs address.country",
	"POST /v1/hubs address.line1", "POST /v1/hubs address.postal_code", "POST /v1/hubs code",
	"POST /v1/hubs kind", "POST /v1/hubs latitude", "POST /v1/hubs longitude", "POST /v1/hubs name",
	"POST /v1/hubs timezone",
	"POST /v1/items expires_at", "POST /v1/items hub", "POST /v1/items hub_id", "POST /v1/items lot",
	"POST /v1/items part_id", "POST /v1/items quantity", "POST /v1/items serial", "POST /v1/items sku",
	"POST /v1/items status",
	"POST /v1/orders customer_ref", "POST /v1/orders due_at", "POST /v1/orders hub", "POST /v1/orders hub_id",
	"POST /v1/orders lines[].part_id", "POST /v1/orders lines[].quantity", "POST /v1/orders lines[].sku",
	"POST /v1/orders number", "POST /v1/orders priority", "POST /v1/orders ship_to.city",
	"POST /v1/orders ship_to.country", "POST /v1/orders ship_to.line1", "POST /v1/orders ship_to.line2",
	"POST /v1/orders ship_to.name", "POST /v1/orders ship_to.postal_code", "POST /v1/orders workflow",
	"POST /v1/orders/{id}/lines part_id", "POST /v1/orders/{id}/lines quantity",
	"POST /v1/orders/{id}/lines sku",
	"POST /v1/orders/{id}/transitions carrier", "POST /v1/orders/{id}/transitions tracking_number",
	"POST /v1/orders/{id}/transitions transition",
	"POST /v1/orders/{id}/transitions revision", // a precondition only: never written (412 when stale)
	"POST /v1/parts description", "POST /v1/parts hazardous", "POST /v1/parts part_name", "POST /v1/parts sku",
	"POST /v1/parts unit", "POST /v1/parts unit_weight_kg",
	"POST /v1/tracking-entries carrier", "POST /v1/tracking-entries description",
	"POST /v1/tracking-entries hub", "POST /v1/tracking-entries hub_id", "POST /v1/tracking-entries location",
	"POST /v1/tracking-entries occurred_at", "POST /v1/tracking-entries order_id",
	"POST /v1/tracking-entries status", "POST /v1/tracking-entries tracking_number",
	// Workflows: validated as a whole (a way back to the initial state must release).
	"POST /v1/workflows initial_state", "POST /v1/workflows key", "POST /v1/workflows name",
	"POST /v1/workflows states[]", "POST /v1/workflows transitions[].effect",
	"POST /v1/workflows transitions[].from[]", "POST /v1/workflows transitions[].name",
	"POST /v1/workflows transitions[].to",
	// Webhook endpoints: configuration, checked by internal/webhooks (the
	// URL at registration and again at every delivery, after DNS).
	"POST /v1/webhook-endpoints url", "POST /v1/webhook-endpoints description",
	"POST /v1/webhook-endpoints event_types[]", "POST /v1/webhook-endpoints enabled",
	"PATCH /v1/webhook-endpoints/{id} url", "PATCH /v1/webhook-endpoints/{id} description",
	"PATCH /v1/webhook-endpoints/{id} event_types[]", "PATCH /v1/webhook-endpoints/{id} enabled",
	// Webhook filters: where objects, checked by internal/filter (limits,
	// the types the endpoint receives) and the relation scope rule.
	"POST /v1/webhook-endpoints filters.hub", "POST /v1/webhook-endpoints filters.part",
	"POST /v1/webhook-endpoints filters.item", "POST /v1/webhook-endpoints filters.order",
	"POST /v1/webhook-endpoints filters.order_line", "POST /v1/webhook-endpoints filters.tracking_entry",
	"POST /v1/webhook-endpoints filters.workflow",
	"PATCH /v1/webhook-endpoints/{id} filters.hub", "PATCH /v1/webhook-endpoints/{id} filters.part",
	"PATCH /v1/webhook-endpoints/{id} filters.item", "PATCH /v1/webhook-endpoints/{id} filters.order",
	"PATCH /v1/webhook-endpoints/{id} filters.order_line", "PATCH /v1/webhook-endpoints/{id} filters.tracking_entry",
	"PATCH /v1/webhook-endpoints/{id} filters.workflow",
	"POST /v1/webhook-endpoints/{id}/resend event_id", "POST /v1/webhook-endpoints/{id}/resend delivery_id",
	// A test event's type: one of the catalog, whose read scope it needs.
	"POST /v1/webhook-endpoints/{id}/test type",
	// A reset: the sandbox only, behind the typed confirmation; scale and
	// seed bounded (sandboxreset.Check).
	"POST /v1/sandbox/reset confirm", "POST /v1/sandbox/reset scale", "POST /v1/sandbox/reset seed",
	// A trusted-documents manifest: a whole body of one of three formats,
	// parsed with its size bounded and every hash checked against its text
	// before anything is stored (internal/documents).
	"POST /v1/trusted-documents ",
	// The sandbox's clock (internal/sandbox): a duration is parsed and
	// bounded (0 < by ≤ a year, 32 characters), a time must not be before
	// the clock's nor more than a year ahead; the clock never goes back.
	"POST /v1/sandbox/clock/advance by", "POST /v1/sandbox/clock/set to",
}

// TestEveryBodyFieldIsAllowed walks the OpenAPI document: every property of
// every JSON request body (nested objects and array elements too) is on the
// allow-list above, and the list names nothing else.
func TestEveryBodyFieldIsAllowed(t *testing.T) {
	s := apptest.New(t)
	resp := s.Do(t, http.MethodGet, s.URL+"/v1/openapi.json", nil, nil)
	var doc map[string]any
	resp.JSON(t, &doc)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	var got []string
	var walk func(op, path string, schema map[string]any, seen []string)
	walk = func(op, path string, schema map[string]any, seen []string) {
		if r, ok := schema["$ref"].(string); ok {
			name := strings.TrimPrefix(r, "#/components/schemas/")
			if slices.Contains(seen, name) {
				got = append(got, op+" "+path)
				return
			}
			seen = append(seen, name)
			schema = schemas[name].(map[string]any)
		}
		if props, ok := schema["properties"].(map[string]any); ok {
			for name, p := range props {
				sub := name
				if path != "" {
					sub = path + "." + name
				}
				walk(op, sub, p.(map[string]any), seen)
			}
			return
		}
		if items, ok := schema["items"].(map[string]any); ok {
			walk(op, path+"[]", items, seen)
			return
		}
		got = append(got, op+" "+path)
	}
	paths := doc["paths"].(map[string]any)
	for p, ops := range paths {
		for method, o := range ops.(map[string]any) {
			body, ok := o.(map[string]any)["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			content := body["content"].(map[string]any)
			js, ok := content["application/json"].(map[string]any)
			if !ok {
				continue // text/csv imports: columns are checked by internal/stockimport
			}
			walk(strings.ToUpper(method)+" "+p, "", js["schema"].(map[string]any), nil)
		}
	}
	sort.Strings(got)
	for _, f := range got {
		if !slices.Contains(bodyFields, f) {
			t.Errorf("request body field %q is not on the allow-list: check that the service keeps every invariant whatever its value, then add it", f)
		}
	}
	for _, f := range bodyFields {
		if !slices.Contains(got, f) {
			t.Errorf("allow-list names %q, which the OpenAPI document no longer has", f)
		}
	}
	if len(got) == 0 {
		t.Fatal("no request body fields found")
	}
}
