package apperr

import (
	"html/template"
	"net/http"
	"slices"
	"strings"
)

// CodeDoc explains one stable error code: the page its problem type URI
// (/problems/<code>) shows.
type CodeDoc struct {
	Code    string
	Status  int
	Meaning string // what happened
	Action  string // what the client can do about it
}

// Codes lists every code an error can carry, in REST's "code" and GraphQL's
// extensions.reason. TestEveryCodeDocumented finds the codes in the source
// and fails when one is missing here.
var Codes = []CodeDoc{
	{"bad_request", 400, "The request as a whole is malformed: a body that is not JSON (the detail, and the members offset, line and column, say where: the byte offset from 0, line and column from 1), text that is not UTF-8, a member given twice, a malformed query string.", "Fix the request as the detail says; repeating it unchanged gives the same answer."},
	{"invalid_parameter", 400, "One query parameter, header or body member has a value of the wrong type or shape; errors[].field names it.", "Correct the named field."},
	{"limit_exceeded", 400, "An input is larger than the service accepts: a filter value over 1,000 characters, an IN list over 100 values, more than 64 filters, a cursor over 2,048 characters. The limits keep every query within what both databases accept.", "Narrow the filter or split the request; the limits are in the README's Limits section."},
	{"invalid_group_by", 400, "An aggregate request names a key it cannot group by (errors[].field: group_by / groupBy, bucket or sort / orderBy; the detail names the culprit and lists the keys), groups a time field without a bucket width, gives a bucket without a grouped time field, or orders by a key it does not group by.", "Use one of the listed keys; give bucket=hour|day|week|month with a time key (docs/analytics.md)."},
	{"invalid_aggregate", 400, "An aggregate request names an aggregate that does not exist or does not apply: a field that is not aggregated (the detail lists those that are), sum or avg of a time, a field on count; or asks a nested connection for its aggregate.", "Use count, or sum/avg/min/max of a listed field; for totals per related record, group by it (docs/analytics.md)."},
	{"no_example", 409, "A test event of that type needs a resource of its kind in the environment to show, and there is none.", "Create one (or reset the sandbox to load demo data), then send the test event again."},
	{"sandbox_busy", 503, "A sandbox reset could not lock the sandbox's tables within 10 s: other writes held them.", "Retry after a moment; the reset is all or nothing, nothing was changed."},
	{"count_unavailable", 400, "A nested connection (hub { items }) was asked for count(mode:): only a root connection (items, orders, …) counts its own matches that way.", "Select totalCount on the nested connection, or ask the root connection with the parent as a filter."},
	{"invalid_count", 400, "Prefer: count= names no count mode, or the Prefer header is over 256 bytes.", "Send Prefer: count=exact, count=planned, count=estimated or count=bounded (docs/rest.md#counts)."},
	{"request_cancelled", 400, "The client went away before the answer was ready.", "Nothing to do; retry if you still want the answer."},
	{"invalid_manifest", 400, "A trusted-documents manifest is not one of the three formats (graphql-codegen's or Relay's {\"<hash>\": \"<document>\"}, Apollo's persisted query list), is empty, or holds a document that is empty, too large or not GraphQL (the detail names it). Nothing of it was registered.", "Send the manifest the client tool wrote, unchanged (docs/graphql.md#trusted-documents)."},
	{"hash_mismatch", 400, "A trusted-documents manifest lists a document under a SHA-256 (or a Relay MD5 id) that is not its text's; detail.document names the key. Nothing of the manifest was registered.", "Regenerate the manifest from the build; do not edit documents after hashing."},
	{"unauthenticated", 401, "No valid credentials came with the request.", "Send an API key as Authorization: Bearer …, or sign in to the console."},
	{"missing_credentials", 401, "The request carries no API key and no console session.", "Send an API key as Authorization: Bearer …."},
	{"invalid_token", 401, "The API key is unknown, revoked or expired.", "Create a new key in the console."},
	{"invalid_login", 401, "The email or the password is wrong.", "Check both; repeated failures are throttled."},
	{"forbidden", 403, "The credentials are valid but may not do this.", "Use credentials with the right role or scope."},
	{"insufficient_scope", 403, "The API key lacks the scope this operation needs (named in the detail).", "Use a key that has the scope, or create one."},
	{"csrf_token_invalid", 403, "A console request changed something without the CSRF token of its session.", "Send the X-CSRF-Token header with the value of the CSRF cookie."},
	{"cross_origin", 403, "A request with a session cookie came from another origin.", "Call the API from the console's own origin, or use an API key."},
	{"session_required", 403, "Only a signed-in console user can do this, not an API key.", "Sign in to the console."},
	{"not_found", 404, "There is no resource at this address, or none with this id.", "Check the id and the environment (production or sandbox)."},
	{"method_not_allowed", 405, "The resource exists but not with this method; the Allow header lists the methods it takes.", "Use one of the allowed methods."},
	{"not_acceptable", 406, "The Accept header allows none of the formats this endpoint answers in (lists: application/json, text/csv, application/x-ndjson).", "Accept one of them, or ask with format=json|csv|ndjson."},
	{"too_many_endpoints", 409, "The environment already has as many webhook endpoints as it may hold.", "Delete an endpoint you no longer use, then create the new one."},
	{"endpoint_disabled", 409, "The webhook endpoint is disabled, so it cannot be sent a delivery.", "Enable the endpoint (PATCH enabled: true), then resend."},
	{"conflict", 409, "The request conflicts with the current state of a resource.", "Read the resource again and decide."},
	{"already_exists", 409, "A record with the same unique value (a code, a SKU, a number) already exists.", "Use another value, or update the existing record."},
	{"still_referenced", 409, "The record cannot be deleted while other records refer to it (referenced_by counts them), or it refers to a record that does not exist.", "Delete or move the referring records first."},
	{"constraint", 409, "The change breaks a rule of the database.", "Check the values against the resource's documentation."},
	{"email_taken", 409, "A user with this email already exists.", "Use another email."},
	{"insufficient_stock", 409, "There is not enough available stock at the order's hub for every line; the short parts are named.", "Add stock or change the lines, then allocate again."},
	{"illegal_transition", 409, "The order's workflow has no such transition from its current state.", "Read the order's allowed transitions and pick one of them."},
	{"order_not_editable", 409, "The order's lines cannot change in its current state.", "Change lines only while the order is in an editable state."},
	{"order_in_progress", 409, "Only an order in its initial state or a final state can be deleted.", "Cancel the order first."},
	{"stock_reserved", 409, "The item has stock reserved for orders and cannot be moved, deleted or made unavailable (quarantined, damaged); orders lists the orders that hold it.", "Release the reservations (cancel or ship the orders) first."},
	{"below_reserved", 409, "The new quantity is below what is reserved for orders.", "Release reservations first, or set a larger quantity."},
	{"built_in_workflow", 409, "The built-in workflow cannot be changed.", "Create a workflow with another key."},
	{"concurrent_update", 409, "Someone else changed the same record at the same moment.", "Retry."},
	{"idempotency_key_in_progress", 409, "A request with this Idempotency-Key is still being processed.", "Retry later with the same key: you will get its answer."},
	{"precondition_failed", 412, "If-Match names a revision that is no longer current: someone changed the resource.", "Fetch the resource again and retry with its current ETag."},
	{"too_large", 413, "The request body is larger than the limit (--max-body-bytes).", "Send a smaller body, or split the request."},
	{"unsupported_media_type", 415, "The body is not application/json (or text/csv where an import expects it).", "Set Content-Type accordingly."},
	{"validation_failed", 422, "One or more fields have invalid values; errors[] lists every one with its path (address.country, lines[2].quantity) and, for a choice, the allowed values.", "Correct every listed field and send the request again."},
	{"aggregate_overflow", 422, "A sum (or an average's sum) is larger than an exact decimal holds (9,223,372,036,854,775.807).", "Narrow the filter or group further, so that each group's sum is smaller."},
	{"invalid_import", 422, "The file to import has invalid rows (each reported); nothing was imported.", "Fix the listed rows and import the whole file again."},
	{"idempotency_key_reused", 422, "This Idempotency-Key was already used with a different request.", "Use a new key for a new request."},
	{"rate_limited", 429, "Too many requests for this key or session; Retry-After says when to try again.", "Wait as Retry-After says, and spread requests out."},
	{"internal", 500, "Something went wrong inside the service. Nothing about it is shown; it is logged with the request id.", "Retry; if it persists, report the request_id."},
	{"database_busy", 503, "The embedded database was busy with other writes for longer than its wait limit (10 s).", "Retry after the Retry-After delay; if it persists, move to PostgreSQL for more concurrent writers."},
	{"database_unavailable", 503, "The database does not answer: PostgreSQL is down, restarting or refusing connections, or the SQLite file cannot be opened or read. GET /readyz says which database is unreachable.", "Retry after the Retry-After delay (a write with the same Idempotency-Key is safe to repeat)."},
	{"unavailable", 503, "The service cannot answer right now.", "Retry after a short wait."},
	{"timeout", 503, "The request took too long and was stopped.", "Ask for less (a smaller page, a narrower filter) or retry later."},
}

// ProblemsPath is where the code pages are served; problem type URIs are
// ProblemsPath + code, relative to the server (RFC 9457 resolves a relative
// type against the response's address).
const ProblemsPath = "/problems/"

var problemPage = template.Must(template.New("p").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{if .One}}{{.One.Code}} — {{end}}Logistics API error codes</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}dt{margin-top:1em;font-weight:600}</style></head>
<body>{{if .One}}<h1><code>{{.One.Code}}</code></h1>
<p>HTTP status <strong>{{.One.Status}}</strong>{{with .Title}} ({{.}}){{end}}.</p>
<p>{{.One.Meaning}}</p><p><strong>What to do:</strong> {{.One.Action}}</p>
<p>REST answers with <code>application/problem+json</code> whose <code>code</code> is <code>{{.One.Code}}</code> and whose <code>type</code> is this page; GraphQL puts the code in <code>errors[].extensions.reason</code>. <a href="{{.Base}}">All codes</a>.</p>
{{else}}<h1>Logistics API error codes</h1>
<p>Every error names one of these codes: REST in the problem document's <code>code</code> (its <code>type</code> links here), GraphQL in <code>errors[].extensions.reason</code>.</p>
<dl>{{range .All}}<dt id="{{.Code}}"><a href="{{$.Base}}{{.Code}}"><code>{{.Code}}</code></a> — {{.Status}}</dt><dd>{{.Meaning}}</dd>{{end}}</dl>{{end}}
</body></html>
`))

// DocsHandler serves the page of each code at ProblemsPath+code and the list
// of all codes at ProblemsPath. Register it for "GET /problems/{code...}".
func DocsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := strings.TrimPrefix(r.URL.Path, ProblemsPath)
		data := struct {
			One   *CodeDoc
			All   []CodeDoc
			Title string
			Base  string
		}{All: Codes, Base: ProblemsPath}
		if code != "" && code != strings.TrimSuffix(ProblemsPath, "/") {
			i := slices.IndexFunc(Codes, func(c CodeDoc) bool { return c.Code == code })
			if i < 0 {
				Write(w, r, nil, NotFound("no error code %q: the list is at %s", truncate(code), ProblemsPath))
				return
			}
			data.One = &Codes[i]
			data.Title = http.StatusText(data.One.Status)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_ = problemPage.Execute(w, data)
	})
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
