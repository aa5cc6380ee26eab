package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"logistics/graph"
	"logistics/graph/generated"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
)

// TestFastPathMatchesGqlgen sends every query to two instances over the same
// databases, one with the generated fast path and one with gqlgen alone, and
// requires byte-identical responses. The queries select every field of every
// object reachable from the root connections (two levels of objects deep),
// plus aliases, fragments, @skip/@include, __typename, nested connections
// with arguments, interfaces, errors and a key without the needed scope.
// The responses carry extensions.cost, so the fast path's count of resolved
// fields is compared with gqlgen's too (TestExecutionLimits compares a list
// over its cap).
func TestFastPathMatchesGqlgen(t *testing.T) {
	srv := apptest.New(t)
	gqlgen := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })

	f := newFixture(t, srv, prod)
	ams, rtm := f.hub("AMS1", "Amsterdam", "NL"), f.hub("RTM2", "Rotterdam", "NL")
	bolt, nut := f.part("BLT-M8", "Hex bolt M8"), f.part("NUT-M8", "Nut \"M8\" <&> é")
	f.item(bolt, ams, "12.5")
	f.item(nut, rtm, "0.001")
	o1 := f.order(ams, bolt, "2", nut, "1.25")
	f.order(rtm, nut, "3")
	f.tracking(o1, "TRK-1", "in_transit")
	f.tracking(o1, "TRK-2", "out_for_delivery")

	readHubs, _, err := srv.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{
		Name: "hubs only", Environment: prod, Scopes: []string{"hubs:read"}})
	if err != nil {
		t.Fatal(err)
	}

	type query struct {
		name, q string
		vars    map[string]any
		header  http.Header
		served  bool // the fast path must serve it (not decline)
	}
	var queries []query
	for _, q := range schemaQueries(generated.NewExecutableSchema(generated.Config{}).Schema()) {
		queries = append(queries, query{name: q[0], q: q[1]})
	}
	queries = append(queries,
		query{name: "aliases, fragments, directives", q: `query($skip: Boolean!, $keep: Boolean!) {
  a: orders(first: 5, orderBy: {field: CREATED_AT, direction: DESC}) { edges { cursor node { ...O x: number __typename
    hub @skip(if: $skip) { code } h2: hub @include(if: $keep) { code name } } } }
  b: hubs { totalCount __typename } __typename
}
fragment O on Order { id status lines { quantity part { sku ... on Part { partName } } } ... on Order { id customerRef }
  trackingEntries(first: 1, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { totalCount edges { node { trackingNumber status } } } }`,
			vars: map[string]any{"skip": true, "keep": true}},
		query{name: "nested connections and paging", q: `{ parts(first: 1, where: {skuHasPrefix: "NUT"}) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { node { sku partName items(first: 1) { totalCount edges { node { quantity availableQuantity hub { code } } } } } } } }`},
		query{name: "one fragment in two places, merged differently", q: `{
  hubs(first: 2) { edges { node { ...H items(first: 1) { totalCount } } } }
  parts(first: 2) { edges { node { items(first: 2) { edges { node { hub { ...H } } } } } } }
}
fragment H on Hub { code items(first: 1) { edges { node { id quantity } } } }`},
		query{name: "node", q: `query($id: ID!) { node(id: $id) { id __typename ... on Order { number status hub { code } lines { id quantity part { sku partName } } } ... on Hub { code } } }`,
			vars: map[string]any{"id": o1}, served: true},
		query{name: "node of another type, fragment on the interface", q: `query($id: ID!) { node(id: $id) { ...N ... on Hub { code name } } } fragment N on Node { id }`,
			vars: map[string]any{"id": ams}, served: true},
		query{name: "nodes, an unknown id among them", q: `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Part { sku } ... on Order { number } } }`,
			vars: map[string]any{"ids": []string{bolt, o1, "ord_01J0000000000000000000000X"}}},
		query{name: "nodes", q: `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Part { sku } ... on Order { number } } }`,
			vars: map[string]any{"ids": []string{bolt, o1}}, served: true},
		query{name: "node a key may read", q: `query($id: ID!) { node(id: $id) { id ... on Hub { code } } }`, vars: map[string]any{"id": ams}, header: apptest.Bearer(readHubs), served: true},
		query{name: "node a key may not read (declined)", q: `query($id: ID!) { node(id: $id) { id ... on Order { number } } }`, vars: map[string]any{"id": o1}, header: apptest.Bearer(readHubs)},
		query{name: "bad cursor (declined: error)", q: `{ items(first: 2, after: "garbage") { edges { node { id } } } }`},
		query{name: "page size refused", q: `{ items(first: 501) { edges { node { id } } } }`},
		query{name: "repeated and aliased fields (cost counted alike)", q: `{ a: orders(first: 2) { totalCount totalCount edges { node { number n2: number lines { id id part { sku } } events { transition toState } } } } }`},
		query{name: "introspection (declined: __schema)", q: `{ __schema { queryType { name } types { name fields { name } } } __type(name: "Hub") { name } }`},
		query{name: "key without the scope", q: `{ hubs { edges { node { code } } } items { edges { node { id } } } }`, header: apptest.Bearer(readHubs)},
		query{name: "key without the scope, nested", q: `{ hubs { edges { node { code items(first: 1) { edges { node { id } } } } } } }`, header: apptest.Bearer(readHubs)},
	)

	served := srv.App.FastPath.Served.Load()
	for _, q := range queries {
		body := map[string]any{"query": q.q, "variables": q.vars}
		before := srv.App.FastPath.Served.Load()
		fast := srv.Do(t, http.MethodPost, srv.URL+"/graphql", body, q.header)
		if q.served && srv.App.FastPath.Served.Load() == before {
			t.Errorf("%s: the fast path declined it", q.name)
		}
		slow := gqlgen.Do(t, http.MethodPost, gqlgen.URL+"/graphql", body, q.header)
		if fast.StatusCode != slow.StatusCode || !bytes.Equal(fast.Body, slow.Body) {
			t.Errorf("%s: fast path %d %s\ngqlgen %d %s\nquery: %s", q.name, fast.StatusCode, fast.Body, slow.StatusCode, slow.Body, q.q)
		}
		if bytes.HasPrefix(slow.Body, []byte(`{"data":null`)) && q.header == nil && !strings.Contains(q.name, "declined") && !strings.Contains(q.name, "refused") {
			t.Errorf("%s: no data, the comparison shows nothing: %s", q.name, slow.Body)
		}
	}
	// The fast path must actually have served: a comparison it always
	// declined would prove nothing.
	if n := srv.App.FastPath.Served.Load() - served; n < int64(len(queries))/2 {
		t.Errorf("the fast path served %d root fields of %d queries", n, len(queries))
	}
	if n := gqlgen.App.FastPath.Served.Load(); n != 0 {
		t.Errorf("--graphql-no-fast-path still served %d fields", n)
	}
	// Operators see both counts at /metrics.
	m := srv.Do(t, http.MethodGet, srv.URL+"/metrics", nil, apptest.Anonymous())
	for _, want := range []string{
		"# TYPE logistics_graphql_fast_path_fields_total counter",
		fmt.Sprintf(`logistics_graphql_fast_path_fields_total{outcome="served"} %d`, srv.App.FastPath.Served.Load()),
		fmt.Sprintf(`logistics_graphql_fast_path_fields_total{outcome="declined"} %d`, srv.App.FastPath.Declined.Load()),
	} {
		if !strings.Contains(string(m.Body), want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// schemaQueries builds, for each root connection of the schema, a query that
// selects every field of its nodes: scalars and enums, objects and lists of
// objects with their own scalars, nested connections (first: 2) with their
// nodes' scalars.
func schemaQueries(s *ast.Schema) [][2]string {
	var out [][2]string
	for _, f := range s.Query.Fields {
		if !strings.HasSuffix(f.Type.Name(), "Connection") || hasRequiredArgs(f) {
			continue
		}
		out = append(out, [2]string{"all fields of " + f.Name,
			fmt.Sprintf("{ %s(first: 3) %s }", f.Name, selectAll(s, s.Types[f.Type.Name()], 4))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func selectAll(s *ast.Schema, t *ast.Definition, depth int) string {
	var sel []string
	for _, f := range t.Fields {
		if strings.HasPrefix(f.Name, "__") || hasRequiredArgs(f) || f.Directives.ForName("aggregate") != nil {
			continue // aggregates: gqlgen's alone (TestFastPathDeclinesAggregates)
		}
		ft := s.Types[f.Type.Name()]
		switch ft.Kind {
		case ast.Scalar, ast.Enum:
			sel = append(sel, f.Name)
		case ast.Object:
			if depth == 0 {
				continue
			}
			args := ""
			if strings.HasSuffix(ft.Name, "Connection") && f.Arguments.ForName("first") != nil {
				args = "(first: 2)"
			}
			if inner := selectAll(s, ft, depth-1); inner != "" {
				sel = append(sel, f.Name+args+" "+inner)
			}
		}
	}
	if len(sel) == 0 {
		return ""
	}
	return "{ __typename " + strings.Join(sel, " ") + " }"
}

func hasRequiredArgs(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			return true
		}
	}
	return false
}

// TestFastPathDeclinesAggregates: the fast path does not mirror the
// aggregates (@aggregate fields, answered by the aggregation core), so it
// declines every root field that is or selects one — before running it —
// and gqlgen answers, exactly as with the fast path off. Its generator
// leaves the aggregate fields and their types out of the generated code.
func TestFastPathDeclinesAggregates(t *testing.T) {
	srv := apptest.New(t)
	gqlgen := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })
	f := newFixture(t, srv, prod)
	ams := f.hub("AMS1", "Amsterdam", "NL")
	f.item(f.part("BLT-M8", "Hex bolt M8"), ams, "12.5")
	for _, tc := range []struct {
		q        string
		declined bool
	}{
		{`{ itemAggregate(groupBy: [HUB]) { keys { hub { code } } count sum { quantity } } }`, true},
		{`{ items(first: 2) { edges { node { id } } aggregate { count sum { quantity } } } }`, true},
		{`{ items(first: 2) { ...F } } fragment F on ItemConnection { totalCount ... on ItemConnection { aggregate { count } } }`, true},
		{`{ hubs(first: 2) { edges { node { code items(first: 1) { aggregate { count } } } } } }`, true}, // nested: an error, from gqlgen
		{`{ items(first: 2) { edges { node { id quantity } } } }`, false},
	} {
		served, declined := srv.App.FastPath.Served.Load(), srv.App.FastPath.Declined.Load()
		body := map[string]any{"query": tc.q}
		fast := srv.Do(t, http.MethodPost, srv.URL+"/graphql", body, nil)
		slow := gqlgen.Do(t, http.MethodPost, gqlgen.URL+"/graphql", body, nil)
		if fast.StatusCode != slow.StatusCode || !bytes.Equal(fast.Body, slow.Body) {
			t.Errorf("%s: fast path %d %s\ngqlgen %d %s", tc.q, fast.StatusCode, fast.Body, slow.StatusCode, slow.Body)
		}
		ds, dd := srv.App.FastPath.Served.Load()-served, srv.App.FastPath.Declined.Load()-declined
		if tc.declined && (ds != 0 || dd != 1) || !tc.declined && (ds != 1 || dd != 0) {
			t.Errorf("%s: served %d, declined %d (want declined: %v)", tc.q, ds, dd, tc.declined)
		}
	}
	src, err := os.ReadFile("generated/fastpath.go")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`\w+Aggregate\(ctx|fast_\w+Group\b|case "aggregate"`).Find(src); m != nil {
		t.Errorf("the generated fast path handles an aggregate: %s", m)
	}
}

// TestFastPathBuffersUnderConcurrency sends queries with different answers
// from several clients at once, one with two root fields the fast path
// serves: each root field's JSON is written into the response from a pooled
// buffer that another request reuses afterwards, so a buffer given back
// before its JSON is copied out would show up here as a wrong answer.
func TestFastPathBuffersUnderConcurrency(t *testing.T) {
	srv := apptest.New(t)
	f := newFixture(t, srv, prod)
	ams, rtm := f.hub("AMS1", "Amsterdam", "NL"), f.hub("RTM2", "Rotterdam", "NL")
	bolt, nut := f.part("BLT-M8", "Hex bolt M8"), f.part("NUT-M8", "Nut M8")
	f.item(bolt, ams, "12.5")
	f.order(rtm, nut, "3")

	queries := []string{
		`{ hubs { edges { node { id code name } } } }`,
		`{ parts { edges { node { id sku partName } } } }`,
		`{ orders { edges { node { id number lines { quantity part { sku } } } } } items { edges { node { id quantity } } } }`,
	}
	want := make([][]byte, len(queries))
	for i, q := range queries {
		resp := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"query": q}, nil)
		if resp.StatusCode != http.StatusOK || !bytes.Contains(resp.Body, []byte(`"edges":[{`)) {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, resp.Body)
		}
		want[i] = resp.Body
	}
	askConcurrently(t, srv, queries, want, 30)
}

// askConcurrently has six clients send queries round-robin, rounds each,
// and fails unless every answer is want's for its query and the fast path
// served every one.
func askConcurrently(t *testing.T, srv *apptest.Server, queries []string, want [][]byte, rounds int) {
	t.Helper()
	const clients = 6
	served := srv.App.FastPath.Served.Load()
	errs := make(chan error, clients)
	for c := range clients {
		go func() {
			for r := range rounds {
				i := (c + r) % len(queries)
				body, code, err := postGraphQL(srv.URL+"/graphql", apptest.Bearer(srv.Keys[prod]), queries[i])
				if err == nil && (code != http.StatusOK || !bytes.Equal(body, want[i])) {
					err = fmt.Errorf("%s: %d %s\nwant %s", queries[i], code, body, want[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.App.FastPath.Served.Load() - served; n < int64(clients*rounds) {
		t.Fatalf("the fast path served %d root fields of %d requests", n, clients*rounds)
	}
}

// postGraphQL posts query from any goroutine (srv.Do fails the test, which
// only the test's own goroutine may do).
func postGraphQL(url string, header http.Header, query string) ([]byte, int, error) {
	b, err := json.Marshal(map[string]string{"query": query})
	if err != nil {
		return nil, 0, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, 0, err
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return body, resp.StatusCode, err
}

// TestFastPathLinesInLentMemory: the fast path reads an order page's lines
// into memory lent for the root field (view.LineMemory) and takes it
// back once the field's JSON is written, so other requests' pages reuse it.
// Pages of different orders, read by six clients at once, must each answer
// what gqlgen alone (fresh memory) answers: memory taken back before the
// JSON is written, or used after, shows as another page's lines or zeroes.
func TestFastPathLinesInLentMemory(t *testing.T) {
	srv := apptest.New(t)
	gqlgen := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })
	f := newFixture(t, srv, prod)
	ams, rtm := f.hub("AMS1", "Amsterdam", "NL"), f.hub("RTM2", "Rotterdam", "NL")
	bolt, nut, washer := f.part("BLT-M8", "Hex bolt M8"), f.part("NUT-M8", "Nut M8"), f.part("WSH-M8", "Washer M8")
	f.order(ams, bolt, "2", nut, "1.25")
	f.order(rtm, nut, "3")
	f.order(ams, washer, "7", bolt, "1", nut, "4")
	f.order(rtm)
	f.order(rtm, washer, "0.5")

	queries := []string{
		`{ orders(first: 10, orderBy: {field: CREATED_AT, direction: ASC}) { edges { node { number lines { quantity part { sku partName } } } } } }`,
		`{ orders(first: 2, orderBy: {field: CREATED_AT, direction: DESC}) { edges { node { id lines { id quantity allocatedQuantity part { sku } } } } } }`,
		`{ orders(first: 3, where: {hasHubWith: {code: "AMS1"}}) { edges { node { number hub { code } lines { quantity part { partName } } } } } }`,
	}
	want := make([][]byte, len(queries))
	for i, q := range queries {
		resp := gqlgen.Do(t, http.MethodPost, gqlgen.URL+"/graphql", map[string]any{"query": q}, nil)
		if resp.StatusCode != http.StatusOK || !bytes.Contains(resp.Body, []byte(`"lines":[{`)) {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, resp.Body)
		}
		want[i] = resp.Body
	}
	for _, s := range []string{`"sku":"BLT-M8"`, `"sku":"NUT-M8"`, `"partName":"Washer M8"`, `"quantity":1.25`} {
		if !bytes.Contains(bytes.Join(want, nil), []byte(s)) {
			t.Fatalf("no %s in the pages: %s", s, bytes.Join(want, []byte("\n")))
		}
	}
	askConcurrently(t, srv, queries, want, 40)

	// A page the fast path reads into lent memory and then declines (an
	// order's 3 lines over a list cap of 2) is answered by gqlgen, as a
	// server without the fast path answers it.
	capped := func(c *app.Config) { c.MaxListLength = 2 }
	fast, slow := srv.Twin(t, capped), srv.Twin(t, capped, func(c *app.Config) { c.NoFastPath = true })
	declined := fast.App.FastPath.Declined.Load()
	a := fast.Do(t, http.MethodPost, fast.URL+"/graphql", map[string]any{"query": queries[0]}, nil)
	b := slow.Do(t, http.MethodPost, slow.URL+"/graphql", map[string]any{"query": queries[0]}, nil)
	if a.StatusCode != b.StatusCode || !bytes.Equal(a.Body, b.Body) || !bytes.Contains(a.Body, []byte("LIST_LIMIT_EXCEEDED")) {
		t.Errorf("declined page: fast path %d %s\ngqlgen %d %s", a.StatusCode, a.Body, b.StatusCode, b.Body)
	}
	if fast.App.FastPath.Declined.Load() == declined {
		t.Error("the fast path did not decline the page over the list cap")
	}
}

// TestResponsesInLentMemory: a query's response is written into a slab an
// earlier response used, which the transport takes back once the response
// is written (graph/responsememory.go). Concurrent clients get gqlgen's
// answers, byte for byte, while every slab taken back is overwritten: a
// response read from its slab after the slab's release would show it.
// Covered: one root field; __typename written before it; two root fields
// where the second outgrows the room left after the first, so the
// executor's buffer grows into fresh memory; a GET.
func TestResponsesInLentMemory(t *testing.T) {
	lent := graph.ProbeResponseSlabs(t)
	srv := apptest.New(t)
	gqlgen := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })
	f := newFixture(t, srv, prod)
	ams, rtm := f.hub("AMS1", "Amsterdam", "NL"), f.hub("RTM2", "Rotterdam", "NL")
	bolt, nut := f.part("BLT-M8", "Hex bolt M8"), f.part("NUT-M8", "Nut M8")
	for range 6 {
		f.order(ams, bolt, "2", nut, "1.25")
		f.order(rtm, nut, "3")
	}
	page := `orders(first: 12, orderBy: {field: CREATED_AT, direction: ASC}) { edges { node { id number hub { code } lines { id quantity part { sku partName } } } } }`
	queries := []string{
		`{ ` + page + ` }`,
		`{ __typename ` + page + ` }`,
		`{ h: hubs(first: 1) { edges { node { code } } } ` + page + ` }`,
	}
	want := make([][]byte, len(queries))
	for i, q := range queries {
		resp := gqlgen.Do(t, http.MethodPost, gqlgen.URL+"/graphql", map[string]any{"query": q}, nil)
		if resp.StatusCode != http.StatusOK || bytes.Count(resp.Body, []byte(`"sku":"NUT-M8"`)) != 12 {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, resp.Body)
		}
		want[i] = resp.Body
	}
	before := lent.Load()
	askConcurrently(t, srv, queries, want, 30)
	if n := lent.Load() - before; n < 6*30 {
		t.Fatalf("%d slabs lent to %d responses", n, 6*30)
	}

	// A GET goes through the same transport.
	get := srv.Do(t, http.MethodGet, srv.URL+"/graphql?query="+url.QueryEscape(queries[0]), nil, nil)
	if get.StatusCode != http.StatusOK || !bytes.Equal(get.Body, want[0]) {
		t.Fatalf("GET: %d %s\nwant %s", get.StatusCode, get.Body, want[0])
	}
}
