package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"logistics/internal/decimal"
)

// Operation workloads (W4–W6): each operation is one or more requests whose
// bodies and paths hold {placeholders}, filled per request by the wrk script
// (and by runOp in process, for validation and the parity test):
//
//	{hub}          W4's hub
//	{p1} {p2} {p3} three distinct parts of W4's 20, drawn at random
//	{q1} {q2} {q3} their quantities, 1 to 3 units each
//	{order}        the next order of the fixture's list (W5: shipped orders, W6: orders with lines)
//	{n}            a counter (tracking numbers)
//	{id}           the order id of the previous answer
//
// A step with After set follows an answer whose first "status" is After
// (W4: create → "draft" → submit → "open" → allocate); a step without it
// starts a new operation.
type step struct {
	After  string
	Method string
	Path   string
	Body   string
}

// opsBodies are the JSON bodies of the operation workloads.
func gqlBody(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(b)
}

const (
	w4LinesREST  = `[{"part_id":"{p1}","quantity":"{q1}"},{"part_id":"{p2}","quantity":"{q2}"},{"part_id":"{p3}","quantity":"{q3}"}]`
	w4OrderGQL   = `id status lines { id quantity allocatedQuantity part { id } }`
	w6OrderGQL   = `id number status customerRef priority dueAt createdAt updatedAt hub { code } lines { id quantity allocatedQuantity shippedQuantity part { sku partName } }`
	w5TrackingIn = `"tracking_number":"BENCH-{n}","carrier":"DHL","status":"in_transit","location":"Bench"`
)

var w4GQLLines = []map[string]string{{"partID": "{p1}", "quantity": "{q1}"}, {"partID": "{p2}", "quantity": "{q2}"}, {"partID": "{p3}", "quantity": "{q3}"}}

func gqlTransition(name string, sel string) string {
	return gqlBody(`mutation T($id: ID!) { transitionOrder(id: $id, transition: "`+name+`") { `+sel+` } }`, map[string]any{"id": "{id}"})
}

var opWorkloads = []workload{
	{
		Name:  "W4",
		Title: "create an order with 3 lines (of 20 contended parts) at one hub, submit it, allocate it: 3 requests per operation",
		Ops: map[string][]step{
			ifREST: {
				{Method: "POST", Path: "/v1/orders", Body: `{"hub_id":"{hub}","customer_ref":"bench-w4","lines":` + w4LinesREST + `}`},
				{After: "draft", Method: "POST", Path: "/v1/orders/{id}/transitions", Body: `{"transition":"submit"}`},
				{After: "open", Method: "POST", Path: "/v1/orders/{id}/transitions", Body: `{"transition":"allocate"}`},
			},
			ifGraphQL: {
				{Method: "POST", Path: "/graphql", Body: gqlBody(`mutation W4($hub: ID!, $lines: [OrderLineInput!]) { createOrder(input: {hubID: $hub, customerRef: "bench-w4"}, lines: $lines) { `+w4OrderGQL+` } }`,
					map[string]any{"hub": "{hub}", "lines": w4GQLLines})},
				{After: "draft", Method: "POST", Path: "/graphql", Body: gqlTransition("submit", "id status")},
				{After: "open", Method: "POST", Path: "/graphql", Body: gqlTransition("allocate", w4OrderGQL)},
			},
			ifFloor: {
				{Method: "POST", Path: "/floor/w4/orders", Body: `{"hub_id":"{hub}","customer_ref":"bench-w4","lines":` + w4LinesREST + `}`},
				{After: "draft", Method: "POST", Path: "/floor/w4/orders/{id}/transitions", Body: `{"transition":"submit"}`},
				{After: "open", Method: "POST", Path: "/floor/w4/orders/{id}/transitions", Body: `{"transition":"allocate"}`},
			},
		},
	},
	{
		Name:  "W5",
		Title: "append a tracking entry (in_transit) to an order, cycling over up to 100 shipped orders",
		Ops: map[string][]step{
			ifREST: {{Method: "POST", Path: "/v1/tracking-entries", Body: `{"order_id":"{order}",` + w5TrackingIn + `}`}},
			ifGraphQL: {{Method: "POST", Path: "/graphql", Body: gqlBody(`mutation W5($order: ID!, $n: String!) { createTrackingEntry(input: {orderID: $order, trackingNumber: $n, carrier: "DHL", status: in_transit, location: "Bench"}) { id trackingNumber carrier status location occurredAt order { id } } }`,
				map[string]any{"order": "{order}", "n": "BENCH-{n}"})}},
			ifFloor: {{Method: "POST", Path: "/floor/w5/tracking-entries", Body: `{"order_id":"{order}",` + w5TrackingIn + `}`}},
		},
	},
	{
		Name:  "W6",
		Title: "one order with its lines (part sku and name) by id, cycling over up to 100 orders",
		Ops: map[string][]step{
			ifREST:    {{Method: "GET", Path: "/v1/orders/{order}"}},
			ifGraphQL: {{Method: "POST", Path: "/graphql", Body: gqlBody(`query W6($id: ID!) { node(id: $id) { ... on Order { `+w6OrderGQL+` } } }`, map[string]any{"id": "{order}"})}},
			ifFloor:   {{Method: "GET", Path: "/floor/w6/orders/{order}"}},
		},
	},
}

func init() { workloads = append(workloads, opWorkloads...) }

// fixture is what the operation workloads draw on, prepared in phase 1.
type fixture struct {
	Hub     string   // W4's hub
	Parts   []string // W4's 20 parts
	Items   []string // W4's 20 items, one per part at the hub
	Orders  []string // W6: orders with lines
	Shipped []string // W5: shipped orders (or Orders when there are none)
}

var placeholder = regexp.MustCompile(`\{([a-z0-9]+)\}`)

// fill replaces the placeholders of s from vars (unknown ones stay).
func fill(s string, vars map[string]string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[1:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// The answer's first status and first order id decide the next step, in
// the wrk script as here.
var (
	reAnswerStatus  = regexp.MustCompile(`"status":"([A-Za-z0-9_]+)"`)
	reAnswerOrderID = regexp.MustCompile(`"id":"(ord_[^"]+)"`)
)

// outcome classifies an answer as the scripts do: ok (2xx without GraphQL
// errors), conflict (insufficient_stock, expected on W4) or error.
func outcome(code int, body []byte) string {
	switch {
	case code >= 200 && code < 300 && !strings.Contains(string(body), `"errors"`):
		return "ok"
	case strings.Contains(string(body), "insufficient_stock"):
		return "conflict"
	}
	return "error"
}

// nextStep returns the index of the step that follows an answer, or -1.
func nextStep(steps []step, body []byte) (int, string) {
	st, id := reAnswerStatus.FindSubmatch(body), reAnswerOrderID.FindSubmatch(body)
	if st == nil || id == nil {
		return -1, ""
	}
	for i, s := range steps {
		if i > 0 && s.After == string(st[1]) {
			return i, string(id[1])
		}
	}
	return -1, ""
}

// opRequest is step s of an operation through iface, filled from vars.
func opRequest(s step, iface, base, token string, vars map[string]string) request {
	h := http.Header{"Accept": {"application/json"}}
	if token != "" && iface != ifFloor {
		h.Set("Authorization", "Bearer "+token)
	}
	if iface == ifGraphQL {
		h.Set("Accept", "application/graphql-response+json, application/json")
	}
	r := request{Method: s.Method, Path: fill(s.Path, vars), Header: h}
	if iface != ifFloor {
		r.Path = base + r.Path
	}
	if s.Body != "" {
		h.Set("Content-Type", "application/json")
		r.Body = []byte(fill(s.Body, vars))
	}
	return r
}

// opVars are the placeholders of one operation in process: the first three
// parts with 1, 2 and 3 units, the i-th order.
func opVars(fix fixture, w workload, i int) map[string]string {
	v := map[string]string{"hub": fix.Hub, "n": fmt.Sprint(i + 1), "q1": "1", "q2": "2", "q3": "3"}
	for j := 0; j < 3 && j < len(fix.Parts); j++ {
		v[fmt.Sprintf("p%d", j+1)] = fix.Parts[j]
	}
	if orders := fix.ordersFor(w); len(orders) > 0 {
		v["order"] = orders[i%len(orders)]
	}
	return v
}

func (fix fixture) ordersFor(w workload) []string {
	if w.Name == "W5" && len(fix.Shipped) > 0 {
		return fix.Shipped
	}
	return fix.Orders
}

// runOp runs one operation of w through iface with do (in process, or over
// HTTP in tests) and returns the answers of its steps.
func runOp(w workload, iface, base, token string, vars map[string]string, do func(request) (int, []byte)) (codes []int, bodies [][]byte) {
	steps := w.Ops[iface]
	i := 0
	for n := 0; n < len(steps) && i >= 0; n++ {
		code, body := do(opRequest(steps[i], iface, base, token, vars))
		codes, bodies = append(codes, code), append(bodies, body)
		if outcome(code, body) != "ok" {
			break
		}
		var id string
		if i, id = nextStep(steps, body); i >= 0 {
			vars["id"] = id
		}
	}
	return codes, bodies
}

// normalAnswer reduces an operation's last answer to what every interface
// must agree on: W4 the order's status and its lines' parts, quantities and
// allocated quantities; W5 the entry's order, number, carrier, status and
// location; W6 the order's id, number, status, hub and lines (id, sku,
// quantities).
func normalAnswer(w workload, iface string, body []byte) (string, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return "", fmt.Errorf("not JSON: %v", err)
	}
	if iface == ifGraphQL {
		if errs, ok := m["errors"]; ok {
			return "", fmt.Errorf("graphql errors: %v", errs)
		}
		data, _ := m["data"].(map[string]any)
		if len(data) != 1 {
			return "", fmt.Errorf("graphql data %v", data)
		}
		for _, v := range data {
			m, _ = v.(map[string]any)
		}
	}
	get := func(m map[string]any, keys ...string) any {
		for _, k := range keys {
			if v, ok := m[k]; ok {
				return v
			}
		}
		return nil
	}
	qty := func(v any) string {
		var d decimal.Decimal
		b, _ := json.Marshal(v)
		if err := d.UnmarshalJSON(b); err != nil {
			return fmt.Sprintf("bad:%v", v)
		}
		return d.String()
	}
	lines := func() []string {
		var out []string
		ls, _ := m["lines"].([]any)
		for _, l := range ls {
			lm, _ := l.(map[string]any)
			part, _ := lm["part"].(map[string]any)
			switch w.Name {
			case "W4":
				pid := get(lm, "part_id")
				if pid == nil && part != nil {
					pid = part["id"]
				}
				out = append(out, fmt.Sprintf("%v×%s/%s", pid, qty(lm["quantity"]), qty(get(lm, "allocated_quantity", "allocatedQuantity"))))
			default:
				out = append(out, fmt.Sprintf("%v %v %s/%s/%s", lm["id"], get(part, "sku"), qty(lm["quantity"]),
					qty(get(lm, "allocated_quantity", "allocatedQuantity")), qty(get(lm, "shipped_quantity", "shippedQuantity"))))
			}
		}
		slices.Sort(out)
		return out
	}
	switch w.Name {
	case "W4":
		return fmt.Sprintf("status=%v lines=%v", m["status"], lines()), nil
	case "W5":
		order := get(m, "order_id")
		if o, ok := m["order"].(map[string]any); ok {
			order = o["id"]
		}
		return fmt.Sprintf("order=%v number=%v carrier=%v status=%v location=%v", order, get(m, "tracking_number", "trackingNumber"), m["carrier"], m["status"], m["location"]), nil
	default:
		hub := m["hub"]
		if h, ok := hub.(map[string]any); ok {
			hub = h["code"]
		}
		return fmt.Sprintf("id=%v number=%v status=%v hub=%v lines=%v", m["id"], m["number"], m["status"], hub, lines()), nil
	}
}

// luaOps returns the wrk script of an operation workload through iface:
// it fills the placeholders per request, follows each answer with the step
// its status calls for (a queue per wrk thread: any connection of the
// thread takes the next pending step, else starts a new operation), counts
// outcomes as outcome does, and prints them with the 99.9th percentile.
func luaOps(w workload, iface, base, token string, fix fixture) string {
	var b strings.Builder
	b.WriteString("-- generated by bench/ops.go: " + w.Name + " " + iface + "\nlocal steps = {\n")
	for _, s := range w.Ops[iface] {
		r := opRequest(s, iface, base, token, map[string]string{})
		fmt.Fprintf(&b, "  {after = %s, method = %s, path = %s, body = %s, headers = {", luaString(s.After), luaString(r.Method), luaString(r.Path), luaString(string(r.Body)))
		keys := make([]string, 0, len(r.Header))
		for k := range r.Header {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "[%s] = %s, ", luaString(k), luaString(strings.Join(r.Header[k], ", ")))
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}\n")
	list := func(name string, ids []string) {
		fmt.Fprintf(&b, "local %s = {", name)
		for _, id := range ids {
			b.WriteString(luaString(id) + ", ")
		}
		b.WriteString("}\n")
	}
	list("parts", fix.Parts)
	list("orders", fix.ordersFor(w))
	fmt.Fprintf(&b, "local hub = %s\n", luaString(fix.Hub))
	b.WriteString(luaOpsBody)
	return b.String()
}

const luaOpsBody = `local queue = {}
local n = 0
ok, conflict, failed = 0, 0, 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("seed", #threads)
end

function init(args)
  math.randomseed(os.time() * 100 + (seed or 0))
end

local function fill(s, v)
  return (s:gsub("{(%w+)}", function(k) return v[k] end))
end

function request()
  n = n + 1
  local st, v = steps[1], {hub = hub, n = tostring(seed or 0) .. "-" .. tostring(n)}
  local job = table.remove(queue, 1)
  if job then
    st = steps[job[1]]
    v.id = job[2]
  end
  if #orders > 0 then v.order = orders[(n % #orders) + 1] end
  if #parts >= 3 then
    local a = math.random(#parts)
    local b repeat b = math.random(#parts) until b ~= a
    local c repeat c = math.random(#parts) until c ~= a and c ~= b
    v.p1, v.p2, v.p3 = parts[a], parts[b], parts[c]
    v.q1, v.q2, v.q3 = tostring(math.random(3)), tostring(math.random(3)), tostring(math.random(3))
  end
  local body = nil
  if st.body ~= "" then body = fill(st.body, v) end
  return wrk.format(st.method, fill(st.path, v), st.headers, body)
end

function response(status, headers, body)
  body = body or ""
  if status >= 200 and status < 300 and not body:find('"errors"', 1, true) then
    ok = ok + 1
    local s = body:match('"status":"([%w_]+)"')
    local id = body:match('"id":"(ord_[^"]+)"')
    if s and id then
      for i = 2, #steps do
        if steps[i].after == s then
          table.insert(queue, {i, id})
          break
        end
      end
    end
  elseif body:find("insufficient_stock", 1, true) then
    conflict = conflict + 1
  else
    failed = failed + 1
    if not first_failure then
      first_failure = tostring(status) .. " " .. body:sub(1, 300):gsub("[\r\n]", " ")
    end
  end
end

function done(summary, latency, requests)
  local o, c, f = 0, 0, 0
  for _, t in ipairs(threads) do
    o = o + t:get("ok")
    c = c + t:get("conflict")
    f = f + t:get("failed")
  end
  io.write(string.format("bench-outcomes ok %d conflict %d error %d\n", o, c, f))
  for _, t in ipairs(threads) do
    local ff = t:get("first_failure")
    if ff then
      io.write("bench-first-failure " .. ff .. "\n")
      break
    end
  end
  io.write(string.format("bench-p999-us %d\n", latency:percentile(99.9)))
end
`
