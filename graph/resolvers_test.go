package graph_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

const prod = environment.Production

type conn struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage bool
		EndCursor   string
	}
	Edges []struct {
		Node map[string]any
	}
}

func (c conn) ids() []string {
	var out []string
	for _, e := range c.Edges {
		out = append(out, e.Node["id"].(string))
	}
	return out
}

func TestCreateQueryUpdateDelete(t *testing.T) {
	srv := apptest.New(t)
	f := newFixture(t, srv, prod)
	ams := f.hub("AMS1", "Amsterdam", "NL")
	bolt := f.part("BLT-M8", "Hex bolt M8")
	it := f.item(bolt, ams, "0.1")

	// Exact decimals: 0.1 + 0.2 stored and returned as 0.3.
	var upd struct {
		UpdateItem struct {
			Quantity          json.Number
			AvailableQuantity json.Number
			Revision          int
		}
	}
	srv.MustGraphQL(t, prod, `mutation($id: ID!) { updateItem(id: $id, input: {quantity: "0.3"}, revision: 1) { quantity availableQuantity revision } }`,
		map[string]any{"id": it}, &upd)
	if upd.UpdateItem.Quantity != "0.3" || upd.UpdateItem.AvailableQuantity != "0.3" || upd.UpdateItem.Revision != 2 {
		t.Fatalf("update = %+v", upd.UpdateItem)
	}

	// A stale revision is a CONFLICT and changes nothing.
	r := srv.GraphQL(t, prod, `mutation($id: ID!) { updateItem(id: $id, input: {quantity: 5}, revision: 1) { id } }`, map[string]any{"id": it})
	if len(r.Errors) != 1 || r.Errors[0].Code() != "CONFLICT" {
		t.Fatalf("stale revision: %+v", r.Errors)
	}

	// node(id:) resolves every type by its prefix; an unknown prefix is NOT_FOUND.
	var node struct {
		Node struct {
			Typename string `json:"__typename"`
			Sku      string
		}
	}
	srv.MustGraphQL(t, prod, `query($id: ID!) { node(id: $id) { __typename ... on Part { sku } } }`, map[string]any{"id": bolt}, &node)
	if node.Node.Typename != "Part" || node.Node.Sku != "BLT-M8" {
		t.Fatalf("node = %+v", node)
	}
	r = srv.GraphQL(t, prod, `{ node(id: "zzz_01JD3K0000000000000000000") { id } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].Code() != "NOT_FOUND" {
		t.Fatalf("unknown node: %+v", r.Errors)
	}

	// A hub with stock cannot be deleted; a free one can.
	r = srv.GraphQL(t, prod, `mutation($id: ID!) { deleteHub(id: $id) }`, map[string]any{"id": ams})
	if len(r.Errors) != 1 || r.Errors[0].Code() != "CONFLICT" || r.Errors[0].Extensions["reason"] != "still_referenced" {
		t.Fatalf("delete referenced hub: %+v", r.Errors)
	}
	free := f.hub("RTM2", "Rotterdam", "NL")
	srv.MustGraphQL(t, prod, `mutation($id: ID!) { deleteHub(id: $id) }`, map[string]any{"id": free}, nil)
	var hubs struct{ Hubs conn }
	srv.MustGraphQL(t, prod, `{ hubs { totalCount edges { node { id } } } }`, nil, &hubs)
	if hubs.Hubs.TotalCount != 1 {
		t.Fatalf("hubs after delete = %d", hubs.Hubs.TotalCount)
	}
}

func TestBadInputNamesTheField(t *testing.T) {
	srv := apptest.New(t)
	f := newFixture(t, srv, prod)
	ams := f.hub("AMS1", "Amsterdam", "NL")
	part := f.part("P-1", "Washer")
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
		field       string
	}{
		{"bad hub code", `mutation { createHub(input: {code: "ams 1", name: "x", country: "NL"}) { id } }`, nil, "code"},
		{"bad country", `mutation { createHub(input: {code: "X1", name: "x", country: "NLD"}) { id } }`, nil, "country"},
		{"bad timezone", `mutation { createHub(input: {code: "X1", name: "x", country: "NL", timezone: "Mars/Base"}) { id } }`, nil, "timezone"},
		{"empty part name", `mutation { createPart(input: {sku: "S1", partName: ""}) { id } }`, nil, "partName"},
		{"negative quantity", `mutation($p: ID!, $h: ID!) { createItem(input: {partID: $p, hubID: $h, quantity: "-1"}) { id } }`, map[string]any{"p": part, "h": ams}, "quantity"},
		{"hub id of the wrong type", `mutation($p: ID!) { createItem(input: {partID: $p, hubID: $p, quantity: 1}) { id } }`, map[string]any{"p": part}, "hubID"},
		{"missing part", `mutation($h: ID!) { createItem(input: {partID: "prt_01JD3K0000000000000000000A", hubID: $h, quantity: 1}) { id } }`, map[string]any{"h": ams}, "partID"},
		{"order line quantity zero", `mutation($h: ID!, $p: ID!) { createOrder(input: {hubID: $h}, lines: [{partID: $p, quantity: 0}]) { id } }`, map[string]any{"h": ams, "p": part}, "lines[0].quantity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := srv.GraphQL(t, prod, tc.query, tc.vars)
			if len(r.Errors) == 0 {
				t.Fatalf("accepted: %s", r.Data)
			}
			e := r.Errors[0]
			if e.Code() != "BAD_USER_INPUT" {
				t.Fatalf("code = %s (%s)", e.Code(), e.Message)
			}
			if !strings.Contains(e.Message, tc.field) {
				t.Fatalf("message %q does not name %s", e.Message, tc.field)
			}
		})
	}
	// Too many decimals in a variable is refused before any resolver runs.
	r := srv.GraphQL(t, prod, `mutation($p: ID!, $h: ID!, $q: Decimal!) { createItem(input: {partID: $p, hubID: $h, quantity: $q}) { id } }`,
		map[string]any{"p": part, "h": ams, "q": "1.2345"})
	if len(r.Errors) == 0 || r.Errors[0].Code() != "BAD_USER_INPUT" || !strings.Contains(r.Errors[0].Message, "3 decimal") {
		t.Fatalf("four decimals: %+v", r.Errors)
	}
	var items struct{ Items conn }
	srv.MustGraphQL(t, prod, `{ items { totalCount } }`, nil, &items)
	if items.Items.TotalCount != 0 {
		t.Fatalf("failed writes created %d items", items.Items.TotalCount)
	}
}

func TestWhereFiltersAndOrder(t *testing.T) {
	srv := apptest.New(t)
	f := newFixture(t, srv, prod)
	ams := f.hub("AMS1", "Amsterdam", "NL")
	rtm := f.hub("RTM2", "Rotterdam", "NL")
	ber := f.hub("BER1", "Berlin", "DE")
	bolt := f.part("BLT-M8", "Hex Bolt M8")
	carriage := f.part("BLT-C10", "Carriage bolt M10")
	nut := f.part("NUT-M8", "Hex nut M8")
	want := map[string]string{
		"a": f.item(bolt, ams, "5"), "b": f.item(bolt, rtm, "10"), "c": f.item(carriage, rtm, "250.5"),
		"d": f.item(nut, ber, "10.001"), "e": f.item(nut, ams, "0"),
	}
	for _, tc := range []struct {
		name, where string
		want        []string
	}{
		{"EQ", `{quantity: 10}`, []string{"b"}},
		{"GTE", `{quantityGTE: 10}`, []string{"b", "c", "d"}},
		{"GT decimal", `{quantityGT: "10"}`, []string{"c", "d"}},
		{"LT", `{quantityLT: 5}`, []string{"e"}},
		{"In", `{quantityIn: [0, 5]}`, []string{"a", "e"}},
		{"NotIn", `{quantityNotIn: [0, 5]}`, []string{"b", "c", "d"}},
		{"hub code IN", `{hasHubWith: [{codeIn: ["AMS1", "RTM2"]}]}`, []string{"a", "b", "c", "e"}},
		{"part name contains (case-insensitive)", `{hasPartWith: [{partNameContainsFold: "BOLT"}]}`, []string{"a", "b", "c"}},
		{"part sku prefix", `{hasPartWith: [{skuHasPrefix: "NUT"}]}`, []string{"d", "e"}},
		{"and", `{and: [{quantityGTE: 5}, {hasHubWith: [{country: "NL"}]}]}`, []string{"a", "b", "c"}},
		{"or", `{or: [{quantity: 0}, {hasHubWith: [{code: "BER1"}]}]}`, []string{"d", "e"}},
		{"not", `{not: {hasHubWith: [{country: "NL"}]}}`, []string{"d"}},
		{"expiresAt is nil", `{expiresAtIsNil: true, quantityGT: 100}`, []string{"c"}},
		{"status enum", `{status: available, quantityLTE: 5}`, []string{"a", "e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out struct{ Items conn }
			srv.MustGraphQL(t, prod, `{ items(where: `+tc.where+`) { totalCount edges { node { id } } } }`, nil, &out)
			var wantIDs []string
			for _, k := range tc.want {
				wantIDs = append(wantIDs, want[k])
			}
			got := out.Items.ids()
			sort.Strings(got)
			sort.Strings(wantIDs)
			if !slices.Equal(got, wantIDs) || out.Items.TotalCount != len(wantIDs) {
				t.Fatalf("got %v (total %d), want %v", got, out.Items.TotalCount, tc.want)
			}
		})
	}
	// orderBy on several fields, and Relay paging that visits each row once.
	var sorted struct{ Items conn }
	srv.MustGraphQL(t, prod, `{ items(orderBy: [{field: QUANTITY, direction: DESC}]) { edges { node { id quantity } } } }`, nil, &sorted)
	if got := sorted.Items.ids(); got[0] != want["c"] || got[len(got)-1] != want["e"] {
		t.Fatalf("orderBy quantity desc = %v", got)
	}
	seen := map[string]bool{}
	after := ""
	for page := 0; page < 10; page++ {
		var out struct{ Items conn }
		vars := map[string]any{}
		q := `query { items(first: 2) { pageInfo { hasNextPage endCursor } edges { node { id } } } }`
		if after != "" {
			q = `query($a: Cursor) { items(first: 2, after: $a) { pageInfo { hasNextPage endCursor } edges { node { id } } } }`
			vars["a"] = after
		}
		srv.MustGraphQL(t, prod, q, vars, &out)
		for _, id := range out.Items.ids() {
			if seen[id] {
				t.Fatalf("row %s seen twice", id)
			}
			seen[id] = true
		}
		if !out.Items.PageInfo.HasNextPage {
			break
		}
		after = out.Items.PageInfo.EndCursor
	}
	if len(seen) != len(want) {
		t.Fatalf("paging saw %d of %d rows", len(seen), len(want))
	}
	// Page size limits.
	r := srv.GraphQL(t, prod, `{ items(first: 501) { totalCount } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_USER_INPUT" {
		t.Fatalf("first: 501 → %+v", r.Errors)
	}
}

func TestEnvironmentsAreIsolated(t *testing.T) {
	srv := apptest.New(t)
	sandbox := newFixture(t, srv, environment.Sandbox)
	production := newFixture(t, srv, prod)
	sbHub := sandbox.hub("SBX1", "Utrecht", "NL")
	prHub := production.hub("PRD1", "Antwerp", "BE")
	for _, tc := range []struct {
		env        environment.Name
		visible    string
		notVisible string
	}{
		{environment.Sandbox, sbHub, prHub},
		{prod, prHub, sbHub},
	} {
		var out struct{ Hubs conn }
		srv.MustGraphQL(t, tc.env, `{ hubs { totalCount edges { node { id } } } }`, nil, &out)
		if ids := out.Hubs.ids(); len(ids) != 1 || ids[0] != tc.visible {
			t.Fatalf("%s sees %v, want only %s", tc.env, ids, tc.visible)
		}
		r := srv.GraphQL(t, tc.env, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": tc.notVisible})
		if len(r.Errors) != 1 || r.Errors[0].Code() != "NOT_FOUND" {
			t.Fatalf("%s resolved a record of the other environment: %s %+v", tc.env, r.Data, r.Errors)
		}
	}
	// REST status names the environment of the base address used.
	for _, env := range []environment.Name{prod, environment.Sandbox} {
		resp := srv.Do(t, http.MethodGet, srv.Base(env)+"/v1/status", nil, nil)
		var st struct{ Environment string }
		resp.JSON(t, &st)
		if resp.StatusCode != http.StatusOK || st.Environment != string(env) {
			t.Fatalf("%s status: %d %s", env, resp.StatusCode, resp.Body)
		}
	}
}

func TestMetricsCountRequests(t *testing.T) {
	srv := apptest.New(t)
	srv.MustGraphQL(t, prod, `{ hubs { totalCount } }`, nil, nil)
	newFixture(t, srv, environment.Sandbox).hub("MET1", "Metz", "FR") // a write: SQLite's write gate counts it
	srv.Do(t, http.MethodGet, srv.SandboxURL+"/v1/status", nil, nil)
	resp := srv.Do(t, http.MethodGet, srv.URL+"/metrics", nil, nil)
	body := string(resp.Body)
	if apptest.Postgres() {
		if strings.Contains(body, "logistics_sqlite_write_transactions_total{") || strings.Contains(body, "logistics_sqlite_memory_bytes") {
			t.Errorf("SQLite figures on PostgreSQL:\n%s", body)
		}
	} else if !regexp.MustCompile(`\nlogistics_sqlite_memory_bytes [1-9][0-9.e+]*\n`).MatchString(body) ||
		!regexp.MustCompile(`\nlogistics_sqlite_memory_limit_bytes 6\.7108864e\+07\n`).MatchString(body) {
		t.Errorf("no SQLite memory figures (64 MiB bound by default):\n%s", body)
	} else if !regexp.MustCompile(`logistics_sqlite_write_transactions_total\{environment="sandbox"\} [1-9]`).MatchString(body) ||
		!regexp.MustCompile(`logistics_sqlite_write_commits_total\{environment="sandbox"\} [1-9]`).MatchString(body) ||
		!regexp.MustCompile(`logistics_sqlite_write_lock_held_seconds_total\{environment="sandbox"\} [0-9.e-]+\n`).MatchString(body) {
		t.Errorf("no SQLite write transactions counted in the sandbox:\n%s", body)
	}
	for _, want := range []string{
		`logistics_http_requests_total{environment="production",interface="graphql",method="POST",status="200"} 1`,
		`logistics_http_requests_total{environment="sandbox",interface="rest",method="GET",status="200"} 1`,
		`logistics_db_open_connections{environment="sandbox"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
}

// TestNullableFieldsOrderOnlyFirst: a nullable order field (nulls last,
// internal/nullsort) orders a page as the first orderBy field only; in
// another place it is refused, not answered in some other order.
func TestNullableFieldsOrderOnlyFirst(t *testing.T) {
	srv := apptest.New(t)
	for _, q := range []string{
		`{ items(orderBy: [{field: STATUS, direction: ASC}, {field: EXPIRES_AT, direction: ASC}]) { edges { node { id } } } }`,
		`{ orders(orderBy: [{field: PRIORITY, direction: ASC}, {field: DUE_AT, direction: ASC}]) { edges { node { id } } } }`,
		`{ hubs(first: 1) { edges { node { orders(orderBy: [{field: PRIORITY, direction: ASC}, {field: DUE_AT, direction: DESC}]) { edges { node { id } } } } } } }`,
	} {
		r := srv.GraphQL(t, prod, q, nil)
		if len(r.Errors) == 0 || r.Errors[0].Code() != "BAD_USER_INPUT" {
			t.Fatalf("%s: %d %+v", q, r.Status, r.Errors)
		}
	}
	for _, q := range []string{
		`{ items(orderBy: [{field: EXPIRES_AT, direction: ASC}, {field: STATUS, direction: DESC}]) { totalCount edges { node { id } } } }`,
		`{ orders(orderBy: [{field: DUE_AT, direction: DESC}]) { totalCount edges { node { id } } } }`,
	} {
		srv.MustGraphQL(t, prod, q, nil, nil)
	}
}
