package rest

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/part"
	"logistics/ent/trackingentry"
	"logistics/internal/count"
	"logistics/internal/decimal"
	"logistics/internal/eventlog"
	"logistics/internal/export"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/sandbox"
	"logistics/internal/sandboxreset"
	"logistics/internal/service"
	"logistics/internal/view"
	"logistics/internal/webhooks"
)

// obj is a JSON object of the OpenAPI document.
type obj = map[string]any

// schemaTypes are the Go types behind each named schema; the schemas are
// derived from them, so the document cannot drift from what is served.
var schemaTypes = map[string]any{
	"Hub": view.HubJSON{}, "HubInput": hubIn{},
	"Part": view.PartJSON{}, "PartInput": partIn{},
	"Item": view.ItemJSON{}, "ItemInput": itemIn{},
	"Order": view.OrderJSON{}, "OrderInput": orderIn{}, "OrderLine": view.OrderLineJSON{}, "OrderLineInput": lineIn{},
	"TrackingEntry": view.TrackingJSON{}, "TrackingEntryInput": trackingIn{},
	"Workflow": view.WorkflowJSON{}, "Event": eventlog.Event{},
	"WorkflowInput": workflowIn{}, "TransitionInput": transitionIn{}, "OrderEvent": orderEventJSON{},
	"ImportResult":    service.ImportResult{},
	"WebhookEndpoint": webhooks.EndpointJSON{}, "WebhookEndpointInput": webhooks.EndpointInput{},
	"WebhookDelivery": webhooks.DeliveryJSON{}, "WebhookResendInput": resendIn{}, "WebhookTestInput": testIn{},
	"WebhookDeliveryStats": webhooks.DeliveryStats{},
	"Status":               statusJSON{}, "WebhookTest": webhooks.TestObject{},
	"SandboxClock": sandbox.State{}, "SandboxClockAdvanceInput": clockAdvanceIn{}, "SandboxClockSetInput": clockSetIn{},
	"SandboxReset": sandboxreset.Result{}, "SandboxResetInput": sandboxResetIn{},
}

// operationIDs name the operations the kind and schema alone cannot.
var operationIDs = map[string]string{
	"POST /v1/webhook-endpoints/{id}/rotate-secret":   "rotateWebhookEndpointSecret",
	"POST /v1/webhook-endpoints/{id}/resend":          "resendWebhookEvent",
	"POST /v1/webhook-endpoints/{id}/test":            "sendWebhookTestEvent",
	"GET /v1/webhook-endpoints/{id}/deliveries":       "listWebhookDeliveries",
	"GET /v1/webhook-endpoints/{id}/deliveries/stats": "getWebhookDeliveryStats",
	"GET /v1/sandbox/clock":                           "getSandboxClock",
	"POST /v1/sandbox/clock/freeze":                   "freezeSandboxClock",
	"POST /v1/sandbox/clock/resume":                   "resumeSandboxClock",
	"POST /v1/sandbox/clock/advance":                  "advanceSandboxClock",
	"POST /v1/sandbox/clock/set":                      "setSandboxClock",
	"POST /v1/sandbox/reset":                          "resetSandbox",
}

// optionalBodies are the commands whose body may be left out.
var optionalBodies = map[string]bool{"POST /v1/webhook-endpoints/{id}/test": true}

// enumValues are the allowed values of the enum types of request bodies.
var enumValues = map[reflect.Type][]string{
	reflect.TypeOf(hub.Kind("")):             {"warehouse", "cross_dock", "store", "port"},
	reflect.TypeOf(part.Unit("")):            {"ea", "kg", "g", "m", "l", "box", "pallet"},
	reflect.TypeOf(item.Status("")):          {"available", "quarantined", "damaged"},
	reflect.TypeOf(order.Priority("")):       {"low", "normal", "high", "urgent"},
	reflect.TypeOf(trackingentry.Status("")): {"label_created", "in_transit", "out_for_delivery", "delivered", "exception", "returned"},
}

// preferCountDoc and preferReadDoc describe RFC 7240's Prefer as the
// operations honour it: a list counts (countpref.go), and every
// authenticated read picks the primary or the replica (the read-replica
// router, internal/app/readroute.go). An operation has one Prefer
// parameter, so a list's (PreferList) describes both, every other read's
// (PreferRead) the second.
const (
	preferCountDoc = "count=exact (every match), count=bounded (exactly up to 1,000, then at_least 1,000), count=planned (PostgreSQL's planner estimate; SQLite: bounded) or count=estimated (exact up to 1,000, then the planner's estimate; SQLite: bounded), as PostgREST spells them: the answer adds total_count and total_count_kind, and Preference-Applied names the count that ran. Without it nothing is counted. Another count value, two different counts or a Prefer over 256 bytes is a 400 invalid_count. docs/rest.md#counts."
	preferReadDoc  = "read=replica or read=primary, with a read replica configured (--read-db, --sandbox-read-db): read=replica lets this read come from the replica (when it is within --read-max-lag and has replayed X-Read-After), read=primary keeps it on the primary; without it, aggregates and exports read from the replica and everything else from the primary. Another read value is ignored; without a replica the preference does nothing. docs/rest.md#read-replicas."
)

// readAfterPattern is a WAL position as PostgreSQL writes it (postgres.LSN).
const readAfterPattern = "^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$"

// parameterComponents are the reusable parameters the operations refer to
// (paramRef).
func parameterComponents() obj {
	prefer := func(schema obj, desc string, examples obj) obj {
		return obj{"name": "Prefer", "in": "header", "schema": schema, "description": desc, "examples": examples}
	}
	example := func(v string) obj { return obj{"value": v} }
	return obj{
		"PreferList": prefer(obj{"type": "string", "maxLength": maxPreferBytes}, "Comma-separated preferences (RFC 7240); other preferences are ignored. "+preferCountDoc+" "+preferReadDoc, obj{
			"bounded": example("count=bounded"), "exact": example("count=exact"), "replica": example("read=replica"), "exactFromReplica": example("read=replica, count=exact"),
		}),
		"PreferRead": prefer(obj{"type": "string"}, "Comma-separated preferences (RFC 7240); other preferences are ignored. "+preferReadDoc+" A Prefer over 256 bytes is a 400 invalid_count.", obj{
			"replica": example("read=replica"), "primary": example("read=primary"),
		}),
		"ReadAfter": obj{"name": "X-Read-After", "in": "header", "schema": obj{"type": "string", "maxLength": 17, "pattern": readAfterPattern, "example": "0/16B3748"},
			"description": "The X-Read-After a write of yours answered, sent back so that this read sees that write: with a read replica configured, the replica serves it only once it has replayed that position (otherwise the primary does). A browser session needs none: the logistics_read_after cookie carries the same. Malformed: 400 invalid_parameter (with a replica configured). docs/rest.md#read-replicas."},
	}
}

// appliedCounts are the values of Preference-Applied: each count mode's.
func appliedCounts() []string {
	var out []string
	for _, m := range []count.Mode{count.Exact, count.Bounded, count.Planned, count.Estimated} {
		out = append(out, "count="+m.String())
	}
	return out
}

func paramRef(name string) obj { return obj{"$ref": "#/components/parameters/" + name} }

func headerRef(name string) obj { return obj{"$ref": "#/components/headers/" + name} }

// idempotencyKeyParam documents Idempotency-Key on the POSTs that honour it
// (rest.Mount: every JSON POST but the ones answering a secret).
var idempotencyKeyParam = obj{"name": "Idempotency-Key", "in": "header", "schema": obj{"type": "string", "maxLength": 255},
	"description": "A retry with the same key and body replays the first response (Idempotent-Replayed: true) instead of running twice; the key and the response commit with the write, so this holds after a crash too. The same key with another body is a 422 (idempotency_key_reused); a duplicate sent while the first runs waits for it (409 idempotency_key_in_progress after 10 s); a 4xx or 5xx stores nothing."}

// Server is one entry of the document's servers: an environment's base
// address, as configured (--base-url, --sandbox-url).
type Server struct {
	URL         string `json:"url"`
	Description string `json:"description"`
}

func handleOpenAPI(d Deps) http.Handler {
	doc := sync.OnceValue(func() []byte {
		b, err := json.Marshal(OpenAPI(routes(Deps{}), d.Servers))
		if err != nil {
			panic(err) // the document is built from constants: a bug
		}
		return b
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc())
	})
}

var pathParam = regexp.MustCompile(`\{(\w+)\}`)

// OpenAPI builds the OpenAPI 3.1 document of the route table, served from
// servers (the environments' base addresses; the paths start at /v1).
func OpenAPI(rs []route, servers []Server) obj {
	paths := obj{}
	for _, rt := range rs {
		item, _ := paths[rt.path].(obj)
		if item == nil {
			item = obj{}
			paths[rt.path] = item
		}
		item[strings.ToLower(rt.method)] = operation(rt)
	}
	schemas := obj{
		"Problem": obj{
			"type":     "object",
			"required": []string{"type", "title", "status", "detail", "code"},
			"properties": obj{
				"type":       obj{"type": "string", "format": "uri-reference", "description": "/problems/<code>: a page this server serves that explains the code."},
				"title":      obj{"type": "string"},
				"status":     obj{"type": "integer"},
				"detail":     obj{"type": "string"},
				"code":       obj{"type": "string", "description": "Stable machine-readable code, e.g. not_found, validation_failed, invalid_parameter."},
				"request_id": obj{"type": "string"},
				"instance":   obj{"type": "string"},
				"errors": obj{"type": "array", "items": obj{
					"type": "object", "required": []string{"field", "message"},
					"properties": obj{"field": obj{"type": "string"}, "message": obj{"type": "string"}},
				}},
			},
		},
	}
	for name, v := range schemaTypes {
		// A representation lists the members it always has as required
		// (every member without omitempty: what encoding/json, and the
		// AppendJSON writers that match it, always write); a request body
		// does not (a PATCH sends only what changes).
		schemas[name] = schemaOf(reflect.TypeOf(v), !strings.HasSuffix(name, "Input"))
	}
	problem := func(desc string) obj {
		return obj{"description": desc, "content": obj{"application/problem+json": obj{"schema": obj{"$ref": "#/components/schemas/Problem"}}}}
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       "Logistics Service API",
			"version":     "1.0.0",
			"description": "REST /v1 of the logistics service. Filters follow the grammar f=v, f=*text*, f[]=a&f[]=b, f[]!=a, f!=v, f<v, f<=v, f>v, f>=v (ANDed); unknown filter fields are ignored and listed in X-Ignored-Filters.",
			"license":     obj{"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
		},
		"servers":  servers,
		"security": []obj{{"bearer": []string{}}},
		"tags":     tags(rs),
		"paths":    paths,
		"webhooks": eventWebhooks(),
		"components": obj{
			"schemas": schemas,
			"securitySchemes": obj{
				"bearer": obj{"type": "http", "scheme": "bearer", "description": "An API key: lsk_live_… (production) or lsk_test_… (sandbox). Scopes: " + strings.Join(scopes(rs), ", ") + "."},
			},
			"responses": obj{
				"BadRequest":       problem("Malformed input: a filter value of the wrong type or over a limit (1,000 characters, 100 values in a list, 64 filters), a bad or repeated limit/cursor/sort, an unknown or wrongly typed body field, a body member given twice, text that is not UTF-8, a malformed X-Read-After."),
				"NotFound":         problem("No such resource (also for an id of another type)."),
				"Conflict":         problem("The change conflicts with the current state, e.g. the record is still referenced."),
				"NotAcceptable":    problem("Accept allows none of the operation's media types (not_acceptable): application/json for a list or an aggregate, text/csv or application/x-ndjson for an export."),
				"Precondition":     problem("If-Match does not match the current revision."),
				"TooLarge":         problem("The body is larger than the configured maximum (1 MiB by default)."),
				"UnsupportedMedia": problem("The body is not application/json."),
				"Validation":       problem("Validation failed; errors lists every field."),
				"Unauthorized":     problem("Missing or invalid API key."),
				"Forbidden":        problem("The API key lacks the scope."),
				"RateLimited":      problem("Too many requests."),
				"Internal":         problem("Internal error; nothing internal is shown."),
			},
			"headers": obj{
				"ETag":           obj{"description": `The resource's revision as a strong entity tag, e.g. "3".`, "schema": obj{"type": "string"}},
				"IgnoredFilters": obj{"description": "Comma-separated names of the unknown filter fields that were ignored.", "schema": obj{"type": "string"}},
				"PreferenceApplied": obj{"description": "With Prefer: count=…: the count that ran (count=exact|bounded|planned|estimated; on SQLite planned and estimated run as bounded). Absent without a count. docs/rest.md#counts.",
					"schema": obj{"type": "string", "enum": appliedCounts()}},
				"ReadAfter": obj{"description": "With a read replica configured: the primary's WAL position after this request's write committed. Send it back as X-Read-After on later reads (through any instance) to see the write; a request that came with cookies also gets it as the logistics_read_after cookie. Absent without a replica, and when nothing was written. docs/rest.md#read-replicas.",
					"schema": obj{"type": "string", "pattern": readAfterPattern, "example": "0/16B3748"}},
			},
			"parameters": parameterComponents(),
		},
	}
}

func tags(rs []route) []obj {
	var out []obj
	seen := map[string]bool{}
	for _, rt := range rs {
		t := tagOf(rt.path)
		if !seen[t] {
			seen[t] = true
			out = append(out, obj{"name": t, "description": tagDescriptions[t]})
		}
	}
	return out
}

var tagDescriptions = map[string]string{
	"status": "Connectivity and credentials check.", "openapi": "This document.",
	"hubs": "Places where stock is held or passes through.", "parts": "The catalogue.",
	"items": "Stock of a part at a hub.", "orders": "Orders and their lines.",
	"tracking-entries": "Carrier events of shipments.", "workflows": "Order workflow versions (read-only here).",
	"events": "Domain events, one per state change.", "webhook-endpoints": "URLs that receive the events as signed HTTP POSTs.",
	"sandbox": "The sandbox's test clock and reset (sandbox only: 404 in production).", "trusted-documents": "The GraphQL documents trusted to run by their hash (persisted-documents manifests).",
}

func tagOf(path string) string {
	p := strings.Split(strings.TrimPrefix(path, "/v1/"), "/")[0]
	if p == "order-lines" || p == "order-events" {
		return "orders"
	}
	return strings.TrimSuffix(p, ".json")
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func errs(codes ...string) obj {
	names := map[string]string{"400": "BadRequest", "401": "Unauthorized", "403": "Forbidden", "404": "NotFound", "409": "Conflict",
		"406": "NotAcceptable", "412": "Precondition", "413": "TooLarge", "415": "UnsupportedMedia", "422": "Validation", "429": "RateLimited", "500": "Internal"}
	out := obj{}
	for _, c := range append(codes, "401", "403", "429", "500") {
		out[c] = obj{"$ref": "#/components/responses/" + names[c]}
	}
	return out
}

func jsonContent(schema obj) obj { return obj{"application/json": obj{"schema": schema}} }

// PublicPath is the one /v1 route served without credentials (internal/app
// mounts it outside authentication): the API's description reveals no data.
const PublicPath = "/v1/openapi.json"

func operation(rt route) obj {
	op := obj{
		"summary":     rt.doc.summary,
		"operationId": operationID(rt),
		"tags":        []string{tagOf(rt.path)},
	}
	switch rt.scope {
	case "":
	case eventRule:
		op["description"] = eventRuleDoc
	default:
		op["description"] = "Scope: " + rt.scope + "."
	}
	if rt.path == PublicPath {
		op["description"] = "No credentials needed: the document describes the API and reveals no data."
		op["security"] = []obj{}
	}
	var params []obj
	for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
		params = append(params, obj{"name": m[1], "in": "path", "required": true, "schema": obj{"type": "string"}, "description": "A prefixed id, e.g. hub_01J…"})
	}
	etagHeader := obj{"ETag": obj{"$ref": "#/components/headers/ETag"}}
	switch rt.doc.kind {
	case opOther:
		content := jsonContent(obj{"type": "object"})
		if rt.doc.schema != "" {
			content = jsonContent(ref(rt.doc.schema))
		}
		op["responses"] = merge(obj{"200": obj{"description": "OK", "content": content}}, errs())
	case opList:
		// JSON only, so that a typed client's page needs no cast: the
		// exports are the operations of <list>/export. (Asked here with
		// format=csv|ndjson or Accept, the list still answers them, as it
		// always has.)
		params = append(params, listParams(rt.doc.table)...)
		props := obj{
			"data":        obj{"type": "array", "items": ref(rt.doc.schema)},
			"has_more":    obj{"type": "boolean"},
			"next_cursor": obj{"type": []string{"string", "null"}, "description": "Pass as cursor to get the next page; null on the last page."},
		}
		required := []string{"data", "has_more", "next_cursor"}
		headers := obj{"X-Ignored-Filters": obj{"$ref": "#/components/headers/IgnoredFilters"}}
		if rt.doc.table == filter.EventTable {
			params = append(params, eventLogParams()...)
			props["next_after"] = obj{"type": "integer", "description": "With after=: the after= of the next request (the last sequence returned, or the same after= when the page is empty)."}
		} else {
			params = append(params, paramRef("PreferList"))
			props["total_count"] = obj{"type": "integer", "description": "With Prefer: count=…: the list's matches (the whole list, not what follows the cursor), as total_count_kind says."}
			props["total_count_kind"] = obj{"type": "string", "enum": []string{"exact", "at_least", "estimate"}, "description": "With Prefer: count=…: exact, at_least (a bounded count that reached 1,000) or estimate (PostgreSQL's planner)."}
			headers["Preference-Applied"] = headerRef("PreferenceApplied")
		}
		desc, _ := op["description"].(string)
		op["description"] = strings.TrimSpace(desc + " Every row as CSV or NDJSON: GET " + rt.path + "/export.")
		op["responses"] = merge(obj{"200": obj{
			"description": "A page of " + rt.doc.table.Resource + ".",
			"headers":     headers,
			"content":     jsonContent(obj{"type": "object", "required": required, "properties": props}),
		}}, errs("400", "404", "406"))
	case opExport:
		// The list's sort and filters; no limit or cursor (listParams' first two).
		params = append(params, listParams(rt.doc.table)[2:]...)
		if rt.doc.table == filter.EventTable {
			params = append(params, eventLogParams()[:2]...) // after, types[]: not wait
		}
		params = append(params, exportFormatParam)
		list := strings.TrimSuffix(rt.path, "/export")
		op["responses"] = merge(obj{"200": obj{
			"description": "Every row of " + rt.doc.table.Resource + " the filter selects, in the sort, streamed (an export that fails once it has begun never ends as a whole one: see docs/rest.md#exports). GET " + list + " gives them in pages of JSON.",
			"headers": obj{
				"X-Ignored-Filters":   obj{"$ref": "#/components/headers/IgnoredFilters"},
				"Content-Disposition": obj{"description": "With format=: attachment; filename=<resource>.<format>.", "schema": obj{"type": "string"}},
			},
			"content": obj{
				export.MediaCSV: obj{"schema": obj{"type": "string",
					"description": "RFC 4180: a header row of the " + rt.doc.schema + " field names (nested objects flattened: hub.code, address.city; lists and free JSON as their JSON in one cell; null as an empty cell), then one record per row, CRLF-terminated. Cells starting with = + - @ tab or CR (other than numbers) are prefixed with ' (CSV injection)."}},
				export.MediaNDJSON: obj{"schema": obj{"type": "string",
					"description": "One " + rt.doc.schema + " per line, as in the list's data. A failure after the export began ends it with a line {\"error\": Problem} and an incomplete transfer."}},
			},
		}}, errs("400", "404", "406"))
	case opGet:
		if rt.doc.schema != "Workflow" && rt.doc.schema != "Event" {
			params = append(params, obj{"name": "If-None-Match", "in": "header", "schema": obj{"type": "string"}, "description": "An ETag: 304 when it is still current."})
		}
		op["responses"] = merge(obj{
			"200": obj{"description": "The resource.", "headers": etagHeader, "content": jsonContent(ref(rt.doc.schema))},
			"304": obj{"description": "Not modified."},
		}, errs("404"))
	case opCreate:
		params = append(params, idempotencyKeyParam)
		op["requestBody"] = obj{"required": true, "content": jsonContent(ref(rt.doc.input))}
		op["responses"] = merge(obj{"201": obj{"description": "Created.", "headers": etagHeader, "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "404", "409", "413", "415", "422"))
	case opUpdate:
		params = append(params, obj{"name": "If-Match", "in": "header", "schema": obj{"type": "string"}, "description": "The ETag the change is based on: 412 when the resource has changed since."})
		op["requestBody"] = obj{"required": true, "content": jsonContent(ref(rt.doc.input)),
			"description": "Only the members given change; null clears an optional member."}
		op["responses"] = merge(obj{"200": obj{"description": "Updated.", "headers": etagHeader, "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "404", "409", "412", "413", "415", "422"))
	case opDelete:
		op["responses"] = merge(obj{"204": obj{"description": "Deleted."}}, errs("404", "409"))
	case opAction:
		params = append(params, idempotencyKeyParam, obj{"name": "If-Match", "in": "header", "schema": obj{"type": "string"}, "description": "The ETag the command is based on: 412 when the resource has changed since."})
		op["requestBody"] = obj{"required": true, "content": jsonContent(ref(rt.doc.input))}
		op["responses"] = merge(obj{"200": obj{"description": "Done.", "headers": etagHeader, "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "404", "409", "412", "413", "415", "422"))
	case opSecret:
		if rt.doc.input != "" {
			op["requestBody"] = obj{"required": true, "content": jsonContent(ref(rt.doc.input))}
		}
		op["responses"] = merge(obj{"201": obj{"description": "Done; secret holds the signing secret (whsec_…), shown only in this answer.", "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "404", "409", "413", "415", "422"))
		if rt.doc.input == "" {
			op["responses"].(obj)["200"] = op["responses"].(obj)["201"]
			delete(op["responses"].(obj), "201")
		}
	case opCommand:
		params = append(params, idempotencyKeyParam)
		if rt.doc.input != "" {
			// A command whose body only adds to it (a test event's type) may go without one.
			op["requestBody"] = obj{"required": !optionalBodies[rt.method+" "+rt.path], "content": jsonContent(ref(rt.doc.input))}
		}
		op["responses"] = merge(obj{"202": obj{"description": "Queued.", "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "404", "409", "413", "415", "422"))
	case opRun:
		params = append(params, idempotencyKeyParam)
		op["requestBody"] = obj{"required": true, "content": jsonContent(ref(rt.doc.input))}
		op["responses"] = merge(obj{"200": obj{"description": "Done.", "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "404", "413", "415", "422"))
	case opPlainList:
		op["responses"] = merge(obj{"200": obj{"description": "The list, newest first.", "content": jsonContent(obj{
			"type": "object", "required": []string{"data", "has_more", "next_cursor"},
			"properties": obj{
				"data":        obj{"type": "array", "items": ref(rt.doc.schema)},
				"has_more":    obj{"type": "boolean", "const": false},
				"next_cursor": obj{"type": "null"},
			},
		})}}, errs("400", "404", "406"))
	case opAggregate:
		// JSON only, as a list: the CSV and NDJSON are <aggregate>/export's.
		params = append(params, aggregateParamsDoc(rt.doc.table)...)
		desc, _ := op["description"].(string)
		op["description"] = strings.TrimSpace(desc + " Every group as CSV or NDJSON: GET " + rt.path + "/export.")
		op["responses"] = merge(obj{"200": obj{
			"description": "The groups of " + rt.doc.table.Resource + ", in order.",
			"headers":     obj{"X-Ignored-Filters": obj{"$ref": "#/components/headers/IgnoredFilters"}},
			"content":     jsonContent(aggregateResponseDoc(rt.doc.table)),
		}}, errs("400", "406", "422"))
	case opAggregateExport:
		params = append(append(params, aggregateParamsDoc(rt.doc.table)...), exportFormatParam)
		op["responses"] = merge(obj{"200": obj{
			"description": "Every group of " + rt.doc.table.Resource + ", in order, streamed (limit does not apply). GET " + strings.TrimSuffix(rt.path, "/export") + " gives them as JSON.",
			"headers": obj{
				"X-Ignored-Filters":   obj{"$ref": "#/components/headers/IgnoredFilters"},
				"Content-Disposition": obj{"description": "With format=: attachment; filename=<resource>-aggregate.<format>.", "schema": obj{"type": "string"}},
			},
			"content": obj{
				export.MediaCSV: obj{"schema": obj{"type": "string",
					"description": "RFC 4180: a header row of the group's flattened names (keys.hub.id, keys.hub.code, keys.status, count, sum.quantity…, in the order asked), then one record per group; cells neutralised as in the lists' exports."}},
				export.MediaNDJSON: obj{"schema": obj{"type": "string",
					"description": "One group per line, as in data. A failure after the export began ends it with a line {\"error\": Problem} and an incomplete transfer."}},
			},
		}}, errs("400", "406", "422"))
	case opSandbox:
		if rt.method == http.MethodPost {
			params = append(params, idempotencyKeyParam)
		}
		if rt.doc.input != "" {
			op["requestBody"] = obj{"required": true, "content": jsonContent(ref(rt.doc.input))}
		}
		desc, _ := op["description"].(string)
		op["description"] = strings.TrimSpace(desc + " Sandbox only: 404 in production. See docs/sandbox.md.")
		op["responses"] = merge(obj{"200": obj{"description": "The clock, after the call.", "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "404", "413", "415", "422"))
	case opDocuments:
		params = documentsDoc(rt, op, params)
	case opImport:
		op["requestBody"] = obj{"required": true, "content": obj{"text/csv": obj{"schema": obj{"type": "string"}}},
			"description": "A header row, then one item per row. Columns: sku, hub, quantity (required); lot, serial, status, expires_at (optional). See docs/workflows.md."}
		op["responses"] = merge(obj{"201": obj{"description": "Imported.", "content": jsonContent(ref(rt.doc.schema))}},
			errs("400", "413", "415", "422"))
	}
	params = readRouting(rt, op, params)
	if len(params) > 0 {
		op["parameters"] = params
	}
	return op
}

// readRouting documents the headers of the read-replica router, which
// every authenticated /v1 route passes when the environment has a replica
// (internal/app/readroute.go; this document is served outside it): a read
// takes Prefer: read=… (a list's Prefer names it already) and X-Read-After,
// a write's successful answers carry X-Read-After.
func readRouting(rt route, op obj, params []obj) []obj {
	if rt.path == PublicPath {
		return params
	}
	responses, _ := op["responses"].(obj)
	if rt.method != http.MethodGet {
		for status, r := range responses {
			resp, ok := r.(obj)
			if !ok || !strings.HasPrefix(status, "2") {
				continue
			}
			headers := obj{"X-Read-After": headerRef("ReadAfter")}
			if h, ok := resp["headers"].(obj); ok {
				headers = merge(headers, h)
			}
			resp["headers"] = headers
		}
		return params
	}
	if !slices.ContainsFunc(params, func(p obj) bool { return p["$ref"] == "#/components/parameters/PreferList" }) {
		params = append(params, paramRef("PreferRead"))
	}
	if responses != nil && responses["400"] == nil {
		responses["400"] = obj{"$ref": "#/components/responses/BadRequest"}
	}
	return append(params, paramRef("ReadAfter"))
}

func operationID(rt route) string {
	if id, ok := operationIDs[rt.method+" "+rt.path]; ok {
		return id
	}
	words := map[opKind]string{opExport: "export", opAggregateExport: "exportAggregate", opSecret: "create", opCommand: "send", opPlainList: "list", opList: "list", opGet: "get", opCreate: "create", opUpdate: "update", opDelete: "delete", opOther: "get", opAction: "transition", opImport: "import", opAggregate: "aggregate"}
	name := rt.doc.schema
	switch {
	case name == "":
		name = "OpenAPI"
	case (rt.doc.kind == opList || rt.doc.kind == opPlainList || rt.doc.kind == opAggregate || rt.doc.kind == opExport || rt.doc.kind == opAggregateExport) && strings.HasSuffix(name, "y"):
		name = strings.TrimSuffix(name, "y") + "ies"
	case rt.doc.kind == opList || rt.doc.kind == opPlainList || rt.doc.kind == opAggregate || rt.doc.kind == opExport || rt.doc.kind == opAggregateExport:
		name += "s"
	}
	return words[rt.doc.kind] + name
}

func merge(a, b obj) obj {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// eventLogParams are the parameters of GET /v1/events besides its filters.
func eventLogParams() []obj {
	return []obj{
		{"name": "after", "in": "query", "schema": obj{"type": "integer", "minimum": 0},
			"description": "Events with a greater sequence, oldest first: the cursor that never skips an event (sequences are given to committed events only, one numbering at a time). Start with 0 (or the sequence of the last event you processed) and pass next_after on. Not with cursor or sort."},
		{"name": "types[]", "in": "query", "schema": obj{"type": "array", "items": obj{"type": "string"}}, "style": "form", "explode": true,
			"description": "Only these event types (the same as type[]=)."},
		{"name": "wait", "in": "query", "schema": obj{"type": "string", "example": "30s"},
			"description": "With after=: when no event is there yet, wait up to this long (a Go duration or seconds, at most " + MaxEventWait.String() + ") for one to commit — a long poll for clients that cannot receive webhooks. An empty page when none came."},
	}
}

// testEvent is the webhooks section's entry of webhook.test: not an event
// of the log (sequence 0), but the same envelope.
var testEvent = eventlog.Type{Name: webhooks.TestEventType, Object: "WebhookTest",
	Description: "A test sent to one endpoint by POST /v1/webhook-endpoints/{id}/test (or the console): not in the event log, so its sequence is 0, its id a delivery's (whd_…) and test is true. The same request with a type sends an example of that type instead, marked the same way."}

// eventWebhooks is the OpenAPI webhooks section: one entry per event type, the
// body each webhook delivery (and GET /v1/events) carries for it.
func eventWebhooks() obj {
	out := obj{}
	for _, t := range slices.Concat(eventlog.Catalog, []eventlog.Type{testEvent}) {
		object := obj{"type": "object"}
		if t.Object != "" {
			object = ref(t.Object)
		}
		body := obj{"allOf": []obj{ref("Event"), {
			"type": "object",
			"properties": obj{
				"type": obj{"const": t.Name},
				"test": obj{"type": "boolean", "const": true, "description": "Present, and true, only on a test event sent to one endpoint on request (POST /v1/webhook-endpoints/{id}/test, the console): not in the event log, sequence 0, its id a delivery's (whd_…). Absent on every event of the log."},
				"data": obj{"type": "object", "required": []string{"object"}, "properties": obj{
					"object":              object,
					"previous_attributes": obj{"type": "object", "additionalProperties": true, "description": "For an update: the changed fields of object with their values before the change."},
				}},
			},
		}}}
		out[t.Name] = obj{"post": obj{
			"summary":     t.Name,
			"description": t.Description + " See docs/events.md.",
			"operationId": "event_" + strings.ReplaceAll(t.Name, ".", "_"),
			"tags":        []string{"events"},
			"requestBody": obj{"required": true, "content": jsonContent(body)},
			"responses":   obj{"2XX": obj{"description": "Received."}},
		}}
	}
	return out
}

// exportFormatParam chooses an export's format, for links a browser follows.
var exportFormatParam = obj{"name": export.Param, "in": "query", "schema": obj{"type": "string", "enum": []string{"csv", "ndjson"}, "default": "csv"},
	"description": "csv or ndjson, as an attachment. Wins over Accept (text/csv or application/x-ndjson; without either, CSV). json or any other value is a 400."}

// sortDoc describes a list's sort parameter: its sortable fields, and those
// that may be null (their nulls come last, and they sort only first).
func sortDoc(t *filter.Table) string {
	s := "Comma-separated fields, - for descending; the id breaks ties. Sortable: " + strings.Join(t.SortFields(), ", ") + "."
	var nullable []string
	for _, f := range t.Fields {
		if f.Sort != "" && f.Nullable {
			nullable = append(nullable, f.Name)
		}
	}
	if len(nullable) > 0 {
		s += " " + strings.Join(nullable, ", ") + " may be null: the nulls come last in either direction, and it sorts only as the first field."
	}
	return s
}

func listParams(t *filter.Table) []obj {
	params := []obj{
		{"name": "limit", "in": "query", "schema": obj{"type": "integer", "minimum": 1, "maximum": MaxLimit, "default": DefaultLimit}, "description": "Page size (not for exports)."},
		{"name": "cursor", "in": "query", "schema": obj{"type": "string", "maxLength": filter.MaxParamLength}, "description": "next_cursor of the previous page (with the same sort; not for exports)."},
		{"name": "sort", "in": "query", "schema": obj{"type": "string"}, "description": sortDoc(t)},
	}
	for _, f := range t.Fields {
		ops := make([]string, 0, 8)
		for _, o := range f.Type.Operators() {
			ops = append(ops, "`"+f.Name+strings.Replace(string(o), "…", "text", 1)+"`")
		}
		s := valueSchema(f)
		desc := f.Description + " Operators: " + strings.Join(ops, " ") + "; values are " + f.Type.Expect() + "."
		single := obj{"name": f.Name, "in": "query", "schema": s, "description": desc}
		list := obj{"name": f.Name + "[]", "in": "query", "schema": obj{"type": "array", "items": s, "maxItems": filter.MaxValues}, "style": "form", "explode": true,
			"description": "IN (with =) or NOT IN (with !=) over " + f.Name + "."}
		if scopes := t.FieldScopes(f); len(scopes) > 0 {
			// The filter rule of the policy: filtering through a relation
			// needs read scope on the related type (403 otherwise).
			need := " Filters through a relation: needs " + strings.Join(scopes, ", ") + " as well (403 insufficient_scope otherwise)."
			single["description"] = desc + need
			list["description"] = list["description"].(string) + need
			single["x-required-scopes"], list["x-required-scopes"] = scopes, scopes
		}
		params = append(params, single, list)
	}
	return params
}

func valueSchema(f filter.Field) obj {
	switch f.Type {
	case filter.Enum:
		return obj{"type": "string", "enum": f.Values}
	case filter.Decimal, filter.Float:
		return obj{"type": "number"}
	case filter.Int:
		return obj{"type": "integer"}
	case filter.Time:
		return obj{"type": "string", "format": "date-time"}
	case filter.Bool:
		return obj{"type": "boolean"}
	}
	return obj{"type": "string", "maxLength": filter.MaxValueLength}
}

var (
	timeT = reflect.TypeOf(time.Time{})
	decT  = reflect.TypeOf(decimal.Decimal(0))
	idT   = reflect.TypeOf(resourceid.ID(""))

	eventFiltersT = reflect.TypeOf(filter.EventFilters(nil))
)

// schemaOf derives a JSON Schema from a Go type with json tags; with
// output, a struct's members without omitempty are required.
func schemaOf(t reflect.Type, output bool) obj {
	nullable := false
	if t.Kind() == reflect.Pointer {
		nullable, t = true, t.Elem()
	}
	var s obj
	switch {
	case t == timeT:
		s = obj{"type": "string", "format": "date-time"}
	case t == decT:
		s = obj{"type": "number", "description": "Exact decimal, at most 3 fractional digits."}
	case t == idT:
		s = obj{"type": "string"}
	case enumValues[t] != nil:
		s = obj{"type": "string", "enum": enumValues[t]}
	case t == eventFiltersT:
		props := obj{}
		for _, k := range filter.EventFilterKeys() {
			o, _ := filter.EventFilterObject(k)
			props[k] = obj{"type": "object", "description": "A where object of GraphQL's " + o + "WhereInput, as a client sends it as a variable: " + k + " events are delivered only if their " + strings.ReplaceAll(k, "_", " ") + " matches (docs/webhooks.md#filters)."}
		}
		s = obj{"type": "object", "properties": props, "additionalProperties": false,
			"description": "A where filter per resource type, in the grammar of GraphQL's where: argument; {} (in a change) removes them. At most 16 KiB of JSON, 8 levels and 256 fields (docs/errors-and-limits.md)."}
	case t.Kind() == reflect.String:
		s = obj{"type": "string"}
	case t.Kind() == reflect.Bool:
		s = obj{"type": "boolean"}
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		s = obj{"type": "integer"}
	case t.Kind() == reflect.Float64:
		s = obj{"type": "number"}
	case t.Kind() == reflect.Slice:
		s = obj{"type": "array", "items": schemaOf(t.Elem(), output)}
	case t.Kind() == reflect.Map:
		s = obj{"type": "object", "additionalProperties": true} // any members (typed clients read them as unknown)
	case t.Kind() == reflect.Struct:
		props := obj{}
		var required []string
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			props[name] = schemaOf(f.Type, output)
			if output && !slices.Contains(strings.Split(opts, ","), "omitempty") {
				required = append(required, name)
			}
		}
		s = obj{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
	default:
		s = obj{}
	}
	if nullable {
		if ty, ok := s["type"].(string); ok {
			s["type"] = []string{ty, "null"}
		}
	}
	return s
}
