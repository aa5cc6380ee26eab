package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"logistics/graph"
	"logistics/graph/generated"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

// gqlResult is a GraphQL response as the cost tests read it.
type gqlResult struct {
	status int
	raw    []byte
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
	Extensions struct {
		Cost *graph.Cost `json:"cost"`
	} `json:"extensions"`
	hasData bool
}

func (r gqlResult) reason() string {
	if len(r.Errors) == 0 {
		return ""
	}
	s, _ := r.Errors[0].Extensions["reason"].(string)
	return s
}

func postGQL(t *testing.T, srv *apptest.Server, query string, vars map[string]any) gqlResult {
	t.Helper()
	resp := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"query": query, "variables": vars},
		http.Header{"Accept": {"application/graphql-response+json"}})
	r := gqlResult{status: resp.StatusCode, raw: resp.Body}
	resp.JSON(t, &r)
	var keys map[string]json.RawMessage
	resp.JSON(t, &keys)
	_, r.hasData = keys["data"]
	return r
}

// costFixture fills the production database: two hubs, three parts, and
// orders whose lines all use the same part, so that Part.orderLines grows.
func costFixture(t *testing.T, srv *apptest.Server, orders int) {
	f := newFixture(t, srv, prod)
	ams, rtm := f.hub("AMS1", "Amsterdam", "NL"), f.hub("RTM2", "Rotterdam", "NL")
	bolt, nut := f.part("BLT-M8", "Hex bolt M8"), f.part("NUT-M8", "Nut M8")
	f.part("WSH-M8", "Washer M8")
	f.item(bolt, ams, "100")
	f.item(nut, rtm, "5.5")
	for i := range orders {
		o := f.order([]string{ams, rtm}[i%2], bolt, "1", nut, "2")
		if i == 0 {
			f.tracking(o, "TRK-1", "in_transit")
		}
	}
}

// TestCostProbes replays three abusive queries. Each ran
// for seconds to minutes, or produced a response of hundreds of megabytes,
// before the cost model; each is now refused before execution, quickly,
// with a clear error and no data entry.
func TestCostProbes(t *testing.T) {
	srv := apptest.New(t)
	costFixture(t, srv, 4)

	for _, tc := range []struct {
		name, query, reason string
	}{
		{"plain lists nested in a page", `{ orderLines(first: 500) { edges { node { part { orderLines { part { orderLines { part { orderLines { id quantity } } } } } } } } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
		{"10,000 aliases of __schema", "{ " + repeat(10_000, func(i int) string { return fmt.Sprintf("s%d: __schema { types { name fields { name } } }", i) }) + " }", "TOKEN_LIMIT_EXCEEDED"},
		{"10,000 repeated totalCount", "{ orders { " + strings.Repeat("totalCount ", 10_000) + "} }", "FIELD_LIMIT_EXCEEDED"},
		{"1,000 aliases of __schema", "{ " + repeat(1_000, func(i int) string { return fmt.Sprintf("s%d: __schema { types { name } }", i) }) + " }", "FIELD_LIMIT_EXCEEDED"},
		{"60 aliases of __schema within the field limit", "{ " + repeat(60, func(i int) string {
			return fmt.Sprintf("s%d: __schema { types { name fields { name args { name } } } }", i)
		}) + " }", "COMPLEXITY_LIMIT_EXCEEDED"},
		{"introspection multiplying lists", `{ __schema { types { inputFields { type { inputFields { name } } } } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
		// gqlparser's own rule (graphql-js's MaxIntrospectionDepthRule).
		{"introspection recursing through types", `{ __type(name: "Order") { fields { type { fields { type { fields { type { fields { name } } } } } } } } }`, "GRAPHQL_VALIDATION_FAILED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := postGQL(t, srv, tc.query, nil)
			took := time.Since(start)
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.raw)
			}
			if r.reason() != tc.reason {
				t.Fatalf("reason %q, want %q: %.300s", r.reason(), tc.reason, r.raw)
			}
			if r.hasData {
				t.Errorf("a request refused before execution has a data entry: %.300s", r.raw)
			}
			// Generous for a loaded machine: the probes took 12.9 s and 79 s.
			if took > 5*time.Second {
				t.Errorf("refusing it took %v", took)
			}
			if tc.reason == "COMPLEXITY_LIMIT_EXCEEDED" {
				c := r.Extensions.Cost
				if c == nil || c.Requested <= c.Limit || c.Actual != nil {
					t.Errorf("extensions.cost %+v: want requested over the limit and no actual", c)
				}
			}
		})
	}
}

// TestIntrospectionDepth: introspection counts toward the depth limit,
// except the ofType chain of a type's wrappers.
func TestIntrospectionDepth(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.MaxDepth = 4 }})
	if r := postGQL(t, srv, `{ __schema { types { fields { type { name } } } } }`, nil); r.reason() != "DEPTH_LIMIT_EXCEEDED" || r.hasData {
		t.Errorf("five levels of introspection under a depth limit of 4: %s", r.raw)
	}
	if r := postGQL(t, srv, `{ __type(name: "Hub") { fields { type { ofType { ofType { ofType { name } } } } } } }`, nil); r.status != 200 || len(r.Errors) > 0 {
		t.Errorf("an ofType chain: %s", r.raw)
	}
}

func repeat(n int, f func(int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = f(i)
	}
	return strings.Join(parts, " ")
}

// TestCostReported checks extensions.cost on a query whose cost is worked
// out by hand (README: GraphQL cost), through the fast path and gqlgen.
func TestCostReported(t *testing.T) {
	srv := apptest.New(t)
	costFixture(t, srv, 3)
	gqlgen := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })

	// hubs: 1 × (1 + totalCount 50 + edges 2 × (1 + node (1 + code 1 + name 1)))
	// = 1 + 50 + 2 × 4 = 59; orders: 1 + edges 50 × (1 + node (1 + lines 100 × (1 + id 1 + part (1 + sku 1))))
	// = 1 + 50 × (1 + 1 + 100 × 4) = 20,101. Repeated and aliased fields count again.
	q := `{ hubs(first: 2) { totalCount edges { node { code name } } }
  orders { edges { node { lines { id part { sku } } } } } }`
	for _, s := range []*apptest.Server{srv, gqlgen} {
		r := postGQL(t, s, q, nil)
		if r.status != 200 || len(r.Errors) > 0 {
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
		c := r.Extensions.Cost
		if c == nil || c.Actual == nil {
			t.Fatalf("no extensions.cost: %s", r.raw)
		}
		// Actual: hubs 1 + totalCount 1 + edges 1 + 2 × (node, code, name)
		// = 9; orders 1 + edges 1 + 3 × (node 1 + lines 1 + 2 × (id 1 + part 1 + sku 1)) = 26.
		if c.Requested != 59+20_101 || *c.Actual != 9+26 || c.Limit != 60_000 {
			t.Errorf("cost %d/%d/%d, want requested 20160, actual 35, limit 60000: %s", c.Requested, *c.Actual, c.Limit, r.raw)
		}
	}
	// Every response carries it, a variable page size included.
	// a: 1 + totalCount 50 + edges 7 × (1 + cursor 1); b: 1 + totalCount 50 + 50.
	// Resolved: a: hubs, totalCount, edges and 2 cursors; b: hubs, totalCount.
	r := postGQL(t, srv, `query($n: Int) { a: hubs(first: $n) { totalCount edges { cursor } } b: hubs(first: $n) { totalCount totalCount } }`, map[string]any{"n": 7})
	if c := r.Extensions.Cost; c == nil || c.Requested != (51+7*2)+101 || *c.Actual != 5+2 {
		t.Errorf("aliases and repeats: %s", r.raw)
	}
}

// TestExecutionLimits: a request that runs too long or answers too much is
// ended with a GraphQL error and status 200 (execution had started), not a
// killed connection or a 500; a plain list longer than its cap fails the
// same on the fast path and gqlgen.
func TestExecutionLimits(t *testing.T) {
	srv := apptest.New(t)
	costFixture(t, srv, 3)

	slow := srv.Twin(t, func(c *app.Config) { c.MaxExecTime = time.Nanosecond })
	r := postGQL(t, slow, `{ orders { totalCount edges { node { number } } } }`, nil)
	if r.status != 200 || r.reason() != "TIME_LIMIT_EXCEEDED" || string(r.Data) != "null" || len(r.Errors) != 1 {
		t.Errorf("time limit: %d %s", r.status, r.raw)
	}

	small := srv.Twin(t, func(c *app.Config) { c.MaxRespBytes = 200 })
	r = postGQL(t, small, `{ orders { edges { node { id number customerRef status } } } }`, nil)
	if r.status != 200 || r.reason() != "RESPONSE_SIZE_LIMIT_EXCEEDED" || string(r.Data) != "null" || r.Extensions.Cost == nil {
		t.Errorf("response size limit: %d %s", r.status, r.raw)
	}
	if r := postGQL(t, small, `{ hubs { totalCount } }`, nil); r.status != 200 || len(r.Errors) > 0 {
		t.Errorf("a small response under the size limit: %d %s", r.status, r.raw)
	}

	// Three orders with two lines each use part BLT-M8: its orderLines has
	// three elements, over a cap of 2.
	capped := func(c *app.Config) { c.MaxListLength = 2 }
	fast, gq := srv.Twin(t, capped), srv.Twin(t, capped, func(c *app.Config) { c.NoFastPath = true })
	for _, q := range []string{
		`{ parts(where: {sku: "BLT-M8"}) { edges { node { sku orderLines { id } } } } }`,
		`{ orders(first: 1) { edges { node { number lines { quantity } } } } }`,
	} {
		a, b := postGQL(t, fast, q, nil), postGQL(t, gq, q, nil)
		if string(a.raw) != string(b.raw) || a.status != b.status {
			t.Errorf("fast path and gqlgen differ:\n%s\n%s", a.raw, b.raw)
		}
		over := strings.Contains(q, "orderLines")
		if got := a.reason() == "LIST_LIMIT_EXCEEDED"; got != over {
			t.Errorf("%s: list limit error %v, want %v: %s", q, got, over, a.raw)
		}
	}
}

// randomQueries is the setup of the random-query tests: a server with the
// cost fixture and its twin without the fast path, the schema, a generator
// seeded from the clock (the seed is logged; salt keeps the tests' streams
// apart) and how many queries to send: n, or short under -short.
func randomQueries(t *testing.T, salt uint64, n, short int) (srv, gqlgen *apptest.Server, schema *ast.Schema, rng *rand.Rand, count int) {
	t.Helper()
	srv = apptest.New(t)
	costFixture(t, srv, 6)
	gqlgen = srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })
	schema = generated.NewExecutableSchema(generated.Config{}).Schema()

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng = rand.New(rand.NewPCG(seed, salt))
	if testing.Short() {
		n = short
	}
	return srv, gqlgen, schema, rng, n
}

// TestCostBoundsWork is the cost model's property test: random
// nested, aliased queries over the whole schema (introspection included),
// sent in turn to a server with the fast path and to one without,
// are either refused before execution, or run within the budget that their
// static cost promises:
//
//   - the fields execution resolved (extensions.cost.actual) never exceed
//     the static cost (requested) — exact, whatever the machine's load;
//   - the response is at most 200 bytes per unit of cost (plus 1 KiB): the
//     fixture's strings are short, so a field's JSON is small;
//   - the memory allocated while serving it is at most 64 KiB per unit of
//     cost (plus 4 MiB), measured in process (runtime.MemStats), generous
//     because other goroutines allocate too;
//   - it answers within the execution time limit plus 5 s.
//
// Bounds of bytes and allocations are deliberately loose: they catch a
// multiplication the model misses (hundreds of times over), not noise.
func TestCostBoundsWork(t *testing.T) {
	srv, gqlgen, schema, rng, n := randomQueries(t, 15, 120, 30)
	refused, ran := map[string]int{}, 0
	var maxBytesPerCost, maxAllocPerCost float64
	for i := range n {
		q := randomQuery(rng, schema)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		r := postGQL(t, []*apptest.Server{srv, gqlgen}[i%2], q, nil) // the fast path, then gqlgen alone
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if r.status != 200 {
			// gqlparser reports the rule once per offending top-level
			// field, so a query can carry several such errors.
			introDepth := len(r.Errors) > 0
			for _, e := range r.Errors {
				introDepth = introDepth && e.Message == "Maximum introspection depth exceeded"
			}
			if r.hasData || (r.reason() != "COMPLEXITY_LIMIT_EXCEEDED" && r.reason() != "FIELD_LIMIT_EXCEEDED" && r.reason() != "DEPTH_LIMIT_EXCEEDED" && !introDepth) {
				t.Fatalf("query %d refused unexpectedly (%d): %.400s\n%s", i, r.status, r.raw, q)
			}
			if introDepth {
				refused["introspection depth"]++
			} else {
				refused[r.reason()]++
			}
			continue
		}
		ran++
		c := r.Extensions.Cost
		if c == nil || c.Actual == nil {
			t.Fatalf("query %d: no extensions.cost: %.300s", i, r.raw)
		}
		if *c.Actual > c.Requested {
			t.Errorf("query %d: actual cost %d over the static %d\n%s", i, *c.Actual, c.Requested, q)
		}
		alloc := float64(after.TotalAlloc - before.TotalAlloc)
		maxBytesPerCost = max(maxBytesPerCost, float64(len(r.raw))/float64(c.Requested))
		maxAllocPerCost = max(maxAllocPerCost, alloc/float64(c.Requested))
		if len(r.raw) > 1024+200*c.Requested {
			t.Errorf("query %d: %d response bytes for cost %d\n%s", i, len(r.raw), c.Requested, q)
		}
		if alloc > 4<<20+64<<10*float64(c.Requested) {
			t.Errorf("query %d: %.0f bytes allocated for cost %d\n%s", i, alloc, c.Requested, q)
		}
		if took > graph.DefaultOptions.MaxExecutionTime+5*time.Second {
			t.Errorf("query %d took %v", i, took)
		}
	}
	t.Logf("%d ran, refused: %v; at most %.1f response bytes and %.0f bytes allocated per unit of cost", ran, refused, maxBytesPerCost, maxAllocPerCost)
	if ran < n/4 {
		t.Errorf("only %d of %d random queries ran: the generator proves little", ran, n)
	}
}

// randomQuery builds a query of random root fields (connections with a
// random page size, node lists, __schema, __type), each selecting random
// fields of its type down a few levels, with random aliases, repeated
// fields and fragments.
func randomQuery(rng *rand.Rand, s *ast.Schema) string {
	var b strings.Builder
	var frags []string
	b.WriteString("{ ")
	roots := []string{"__schema", "__type"}
	for _, f := range s.Query.Fields {
		if (strings.HasSuffix(f.Type.Name(), "Connection") || f.Arguments.ForName("groupBy") != nil) && !hasRequiredArgs(f) {
			roots = append(roots, f.Name) // connections, and aggregates (a list of groups, at most first)
		}
	}
	sort.Strings(roots)
	for i := range 1 + rng.IntN(3) {
		root := roots[rng.IntN(len(roots))]
		fmt.Fprintf(&b, "r%d: ", i)
		switch root {
		case "__schema":
			b.WriteString("__schema ")
			b.WriteString(randomSelection(rng, s, s.Types["__Schema"], 3+rng.IntN(3), &frags))
		case "__type":
			names := []string{"Order", "Hub", "OrderWhereInput", "Query", "OrderStatus", "Node"}
			fmt.Fprintf(&b, "__type(name: %q) ", names[rng.IntN(len(names))])
			b.WriteString(randomSelection(rng, s, s.Types["__Type"], 2+rng.IntN(3), &frags))
		default:
			def := s.Query.Fields.ForName(root)
			fmt.Fprintf(&b, "%s(first: %d) ", root, []int{1, 2, 5, 50, 500}[rng.IntN(5)])
			b.WriteString(randomSelection(rng, s, s.Types[def.Type.Name()], 2+rng.IntN(5), &frags))
		}
		b.WriteString(" ")
	}
	b.WriteString("}")
	for _, f := range frags {
		b.WriteString("\n" + f)
	}
	return b.String()
}

func randomSelection(rng *rand.Rand, s *ast.Schema, t *ast.Definition, depth int, frags *[]string) string {
	var fields ast.FieldList
	for _, f := range t.Fields {
		if !strings.HasPrefix(f.Name, "__") && !hasRequiredArgs(f) {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return ""
	}
	var sel []string
	var leaves []string
	for _, f := range fields {
		if k := s.Types[f.Type.Name()].Kind; k == ast.Scalar || k == ast.Enum {
			leaves = append(leaves, f.Name)
		}
	}
	for range 1 + rng.IntN(4) {
		f := fields[rng.IntN(len(fields))]
		ft := s.Types[f.Type.Name()]
		name := f.Name
		if rng.IntN(4) == 0 || ft.Kind != ast.Scalar && ft.Kind != ast.Enum {
			// An alias; objects always get one, as two selections of one
			// field with different arguments or fields would conflict.
			name = fmt.Sprintf("a%d: %s", rng.Uint32(), f.Name)
		}
		switch ft.Kind {
		case ast.Scalar, ast.Enum:
			sel = append(sel, name)
		case ast.Object, ast.Interface, ast.Union:
			if depth == 0 || ft.Kind == ast.Union {
				continue
			}
			if ft.Kind == ast.Interface && len(ft.Fields) == 0 {
				continue
			}
			args := ""
			if strings.HasSuffix(ft.Name, "Connection") && f.Arguments.ForName("first") != nil {
				args = fmt.Sprintf("(first: %d)", []int{1, 3, 50}[rng.IntN(3)])
			}
			inner := randomSelection(rng, s, ft, depth-1, frags)
			if inner == "" {
				continue
			}
			if rng.IntN(5) == 0 && ft.Kind == ast.Object {
				fn := fmt.Sprintf("F%d", len(*frags))
				*frags = append(*frags, fmt.Sprintf("fragment %s on %s %s", fn, ft.Name, inner))
				inner = "{ ..." + fn + " }"
			}
			sel = append(sel, name+args+" "+inner)
		}
	}
	if len(sel) == 0 {
		if len(leaves) == 0 {
			return "{ __typename }"
		}
		sel = append(sel, leaves[rng.IntN(len(leaves))])
	}
	if rng.IntN(3) == 0 {
		sel = append(sel, sel[0]) // a repeated field: merged, but costed again
	}
	return "{ " + strings.Join(sel, " ") + " }"
}

// TestFloodsBounded extends the property test with directive and error
// floods (floodQuery): random queries of randomQuery, flooded with
// directives, unknown fields and arguments, conflicting aliases or fields
// the key may not read, from a handful to past every limit, sent in turn to
// the fast path and to gqlgen alone, with a key holding every scope or a
// random few, under both media types. Every answer is a 2xx or 4xx within
// the response size limit, with at most graph.MaxErrors errors and then
// one TOO_MANY_ERRORS, within the time limit.
func TestFloodsBounded(t *testing.T) {
	srv, gqlgen, schema, rng, n := randomQueries(t, 41, 80, 24)
	scopes := auth.AllScopes()
	keys := []http.Header{nil} // the server's own key: every scope
	for range 3 {
		var some []string
		for _, sc := range scopes {
			if rng.IntN(3) == 0 {
				some = append(some, sc)
			}
		}
		secret, _, err := srv.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{
			Name: "flood", Environment: environment.Production, Scopes: append(some, "hubs:read"),
		})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, apptest.Bearer(secret))
	}
	outcomes := map[string]int{}
	for i := range n {
		q, kind := floodQuery(rng, schema)
		accept := []string{"application/graphql-response+json", "application/json"}[rng.IntN(2)]
		start := time.Now()
		r := postFlood(t, []*apptest.Server{srv, gqlgen}[i%2], q, accept, keys[rng.IntN(len(keys))])
		took := time.Since(start)
		checkBounded(t, r, graph.DefaultOptions.MaxResponseBytes, fmt.Sprintf("query %d (%s, %d bytes): %.200s", i, kind, len(q), q))
		if took > graph.DefaultOptions.MaxExecutionTime+5*time.Second {
			t.Errorf("query %d (%s) took %v", i, kind, took)
		}
		switch {
		case len(r.errors) == graph.MaxErrors+1:
			outcomes[kind+": capped"]++
		case len(r.errors) > 0:
			outcomes[kind+": "+r.reason(0)]++
		default:
			outcomes[kind+": ran"]++
		}
	}
	t.Logf("outcomes: %v", outcomes)
	capped := 0
	for k, v := range outcomes {
		if strings.HasSuffix(k, ": capped") {
			capped += v
		}
	}
	if capped < n/10 {
		t.Errorf("only %d of %d floods reached the error cap: the generator proves little", capped, n)
	}
}

// floodQuery floods a random query of randomQuery with one of: directives
// (known, unknown, repeated, with arguments of the wrong type) on a field;
// aliased fields with unknown arguments; conflicting fields under one
// alias; or, instead of it, connections at the root under many aliases
// (for a key without their scope, an execution error each). The count is anywhere from a few
// to far past the limits. It returns the query and the flood's kind.
func floodQuery(rng *rand.Rand, s *ast.Schema) (string, string) {
	q := randomQuery(rng, s)
	op, frags, _ := strings.Cut(q, "\n")
	op = strings.TrimSuffix(op, "}")
	counts := []int{3, 20, graph.MaxDirectives - 1, graph.MaxDirectives + 1, 150, 400, 2_000, 24_000}
	k := counts[rng.IntN(len(counts))]
	var b strings.Builder
	var kind string
	switch rng.IntN(4) {
	case 0:
		kind = "directives"
		b.WriteString("__typename")
		dirs := []string{"@a", "@include(if: true)", "@skip(if: false)", "@include(if: 1)", "@skip", "@deprecated", "@hasScope(scope: \"x\")"}
		for range k {
			b.WriteString(" " + dirs[rng.IntN(len(dirs))])
		}
	case 1:
		kind = "unknown arguments"
		for i := range min(k, 2_000) {
			fmt.Fprintf(&b, "u%d: __typename(x%d: %d) ", i, rng.IntN(3), i)
		}
	case 2:
		kind = "conflicting aliases"
		for i := range min(k, 2_000) {
			b.WriteString([]string{"c: __typename ", "c: __schema { __typename } ", fmt.Sprintf("c: __type(name: \"T%d\") { name } ", i)}[rng.IntN(3)])
		}
	default:
		// Connections at the root, a random one each: the keys with a few
		// scopes may read some and not others (FORBIDDEN each).
		kind = "forbidden roots"
		op, frags = "{ ", ""
		var conns []string
		for _, f := range s.Query.Fields {
			if strings.HasSuffix(f.Type.Name(), "Connection") && !hasRequiredArgs(f) {
				conns = append(conns, f.Name)
			}
		}
		for i := range min(k, 240) {
			fmt.Fprintf(&b, "f%d: %s(first: 1) { totalCount } ", i, conns[rng.IntN(len(conns))])
		}
	}
	out := op + b.String() + " }"
	if frags != "" {
		out += "\n" + frags
	}
	return out, kind
}

// graphiqlIntrospection is the introspection query of the GraphiQL bundled
// in /playground (graphql-js's getIntrospectionQuery with every option on).
const graphiqlIntrospection = `query IntrospectionQuery {
  __schema {
    description
    queryType { name kind } mutationType { name kind } subscriptionType { name kind }
    types { ...FullType }
    directives { name description isRepeatable locations args(includeDeprecated: true) { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description specifiedByURL isOneOf
  fields(includeDeprecated: true) {
    name description args(includeDeprecated: true) { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason
  }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue isDeprecated deprecationReason }
fragment TypeRef on __Type {
  kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }
}`

// TestPlaygroundIntrospectionFits: GraphiQL's own introspection query runs
// under the default limits, and its static cost bounds what it resolves.
func TestPlaygroundIntrospectionFits(t *testing.T) {
	srv := apptest.New(t)
	r := postGQL(t, srv, graphiqlIntrospection, nil)
	if r.status != 200 || len(r.Errors) > 0 || r.Extensions.Cost == nil {
		t.Fatalf("%d %.500s", r.status, r.raw)
	}
	c := r.Extensions.Cost
	t.Logf("GraphiQL's introspection: cost %d, resolved %d fields, %d bytes", c.Requested, *c.Actual, len(r.raw))
	if *c.Actual > c.Requested {
		t.Errorf("actual %d over the static cost %d", *c.Actual, c.Requested)
	}
}

// TestAggregateCost: an aggregate costs as a list of at most first groups
// (100 when first is not given); a connection's aggregate as one object.
func TestAggregateCost(t *testing.T) {
	srv := apptest.New(t)
	costFixture(t, srv, 2)
	for _, tc := range []struct {
		q               string
		requested, actl int
	}{
		// 10 × (1 + count 1 + keys (1 + status 1)); the one group resolves 1 + 1 × 3.
		{`{ orderAggregate(groupBy: [STATUS, PRIORITY], first: 10) { count keys { status } } }`, 40, 4},
		// first not given: 100 groups at most; one group: 1 + 1 × (count 1 + sum (1 + quantity 1)).
		{`{ itemAggregate { count sum { quantity } } }`, 100 * 4, 4},
		// items(first: 2): 1 + totalCount 50 (an exact count) + aggregate (1 + count 1) = 53;
		// 4 fields resolved.
		{`{ items(first: 2) { totalCount aggregate { count } } }`, 53, 4},
	} {
		r := postGQL(t, srv, tc.q, nil)
		if r.status != 200 || len(r.Errors) > 0 || r.Extensions.Cost == nil {
			t.Fatalf("%s: %d %s", tc.q, r.status, r.raw)
		}
		if c := r.Extensions.Cost; c.Requested != tc.requested || *c.Actual != tc.actl {
			t.Errorf("%s: cost %d/%d, want %d/%d: %s", tc.q, c.Requested, *c.Actual, tc.requested, tc.actl, r.raw)
		}
	}
	group := `(first: 1000) { count keys { status createdAt } sum { quantity reservedQuantity availableQuantity } min { quantity createdAt } max { quantity updatedAt } }`
	if r := postGQL(t, srv, "{ a: itemAggregate"+group+" b: itemAggregate"+group+" c: itemAggregate"+group+" d: itemAggregate"+group+" e: itemAggregate"+group+" }", nil); r.reason() != "COMPLEXITY_LIMIT_EXCEEDED" {
		t.Errorf("five aggregates of 1,000 groups of 13 fields: %s", r.raw)
	}
}
