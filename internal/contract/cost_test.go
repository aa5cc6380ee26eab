package contract_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"logistics/graph"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/contract"
)

// TestCostFromDirectives is the cost directives' property test: over
// random queries — random fields, nested connections with random first
// and last (both, one or neither; literal or variable), aggregates with and
// without first, nodes(ids:), aliases, repeated fields, named and inline
// fragments, __typename — the cost that contract.SpecCost works out from the
// SDL the server serves (GET /graphql/schema.graphql) and nothing else is
// exactly the server's extensions.cost.requested.
func TestCostFromDirectives(t *testing.T) {
	srv := apptest.New(t)
	resp := srv.Do(t, http.MethodGet, srv.URL+graph.SDLPath, nil, apptest.Anonymous())
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/graphql") {
		t.Fatalf("GET %s: %d %s", graph.SDLPath, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: string(resp.Body)})
	if err != nil {
		t.Fatalf("the served SDL does not load: %v", err)
	}
	// Worked by hand from the directives (docs/graphql.md's example).
	for q, want := range map[string]int{
		`{ hubs(first: 2) { totalCount edges { node { code name } } } }`: 1 + 50 + 2*4,
		`{ hubs { __typename pageInfo { hasNextPage } } }`:               3,
		`{ orders(last: 3) { edges { node { lines { id } } } } }`:        1 + 3*(1+1+100*2),
		`{ items { count(mode: PLANNED) { value kind } } }`:              1 + 3,
	} {
		if got := specCost(t, schema, q, nil); got != want {
			t.Errorf("%s: SpecCost %d, want %d", q, got, want)
		}
	}

	rng := rand.New(rand.NewPCG(46, 21))
	const n = 300
	kinds := map[string]int{}
	for i := range n {
		g := queryGen{rng: rng, s: schema, vars: map[string]any{}, kinds: kinds}
		q := g.query()
		want := specCost(t, schema, q, g.vars)
		r := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"query": q, "variables": g.vars},
			http.Header{"Accept": {"application/graphql-response+json"}})
		var body struct {
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
			Extensions struct {
				Cost *graph.Cost `json:"cost"`
			} `json:"extensions"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("query %d: %v: %.300s", i, err, r.Body)
		}
		if body.Extensions.Cost == nil {
			t.Fatalf("query %d: no extensions.cost (status %d): %.500s\n%s", i, r.StatusCode, r.Body, q)
		}
		if got := body.Extensions.Cost.Requested; got != want {
			t.Errorf("query %d: the server's requested %d, the directives' %d\n%s\nvariables %v", i, got, want, q, g.vars)
		}
	}
	t.Logf("%d queries; generated: %v", n, kinds)
	for _, k := range []string{"connection", "both", "variable", "fragment", "inline", "aggregate", "nodes", "list", "typename"} {
		if kinds[k] < 5 {
			t.Errorf("only %d queries with a %s: the generator proves little", kinds[k], k)
		}
	}
}

func specCost(t *testing.T, schema *ast.Schema, q string, vars map[string]any) int {
	t.Helper()
	doc, errs := gqlparser.LoadQueryWithRules(schema, q, rules.NewDefaultRules())
	if errs != nil {
		t.Fatalf("the query does not validate against the SDL: %v\n%s", errs, q)
	}
	n, err := contract.SpecCost(schema, doc, "", vars)
	if err != nil {
		t.Fatalf("SpecCost: %v\n%s", err, q)
	}
	return n
}

// queryGen writes one random query over the schema.
type queryGen struct {
	rng   *rand.Rand
	s     *ast.Schema
	vars  map[string]any
	frags []string
	kinds map[string]int
	seen  map[string]bool
}

func (g *queryGen) count(kind string) {
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	if !g.seen[kind] {
		g.seen[kind] = true
		g.kinds[kind]++
	}
}

func (g *queryGen) query() string {
	var roots []*ast.FieldDefinition
	for _, f := range g.s.Query.Fields {
		if !strings.HasPrefix(f.Name, "__") && (!requiredArgs(f) || f.Name == "nodes") {
			roots = append(roots, f)
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].Name < roots[j].Name })
	var b strings.Builder
	for i := range 1 + g.rng.IntN(3) {
		f := roots[g.rng.IntN(len(roots))]
		sel := g.field(f, 3+g.rng.IntN(3))
		if sel == "" {
			sel = "__typename"
		}
		fmt.Fprintf(&b, " r%d: %s", i, sel)
	}
	var decl []string
	for name := range g.vars {
		decl = append(decl, "$"+name+": Int")
	}
	sort.Strings(decl)
	head := "query"
	if len(decl) > 0 {
		head += "(" + strings.Join(decl, ", ") + ")"
	}
	return head + " {" + b.String() + " }\n" + strings.Join(g.frags, "\n")
}

// field is a selection of f (without alias) or "" when nothing fits.
func (g *queryGen) field(f *ast.FieldDefinition, depth int) string {
	t := g.s.Types[f.Type.Name()]
	if t.Kind == ast.Scalar || t.Kind == ast.Enum {
		if f.Type.Elem != nil {
			g.count("list")
		}
		return f.Name + g.args(f)
	}
	if depth == 0 {
		return ""
	}
	inner := g.selection(t, depth-1)
	if inner == "" {
		return ""
	}
	if f.Type.Elem != nil {
		g.count("list")
	}
	return f.Name + g.args(f) + " " + inner
}

func (g *queryGen) args(f *ast.FieldDefinition) string {
	var out []string
	value := func(name string) string {
		n := []int{0, 1, 2, 3, 7, 50, 100, 500}[g.rng.IntN(8)]
		if g.rng.IntN(4) == 0 {
			v := fmt.Sprintf("v%d", len(g.vars))
			g.vars[v] = n
			g.count("variable")
			return name + ": $" + v
		}
		return fmt.Sprintf("%s: %d", name, n)
	}
	switch {
	case f.Name == "nodes" && f.Arguments.ForName("ids") != nil:
		var ids []string
		for i := range g.rng.IntN(4) {
			ids = append(ids, fmt.Sprintf("%q", fmt.Sprintf("hub_%026d", i)))
		}
		g.count("nodes")
		return "(ids: [" + strings.Join(ids, ", ") + "])"
	case f.Arguments.ForName("first") != nil && f.Arguments.ForName("last") != nil:
		g.count("connection")
		switch g.rng.IntN(4) {
		case 0:
			out = append(out, value("first"))
		case 1:
			out = append(out, value("last"))
		case 2:
			out = append(out, value("first"), value("last"))
			g.count("both")
		}
	case f.Arguments.ForName("groupBy") != nil:
		g.count("aggregate")
		if g.rng.IntN(2) == 0 {
			n := []int{1, 10, 100, 1000}[g.rng.IntN(4)]
			out = append(out, fmt.Sprintf("first: %d", n))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "(" + strings.Join(out, ", ") + ")"
}

// selection is a selection set on t, or "".
func (g *queryGen) selection(t *ast.Definition, depth int) string {
	var fields ast.FieldList
	for _, f := range t.Fields {
		if !strings.HasPrefix(f.Name, "__") && !requiredArgs(f) {
			fields = append(fields, f)
		}
	}
	var sel []string
	if t.Kind == ast.Interface || t.Kind == ast.Union {
		// An inline fragment on a type it may be, or on itself.
		possible := g.s.GetPossibleTypes(t)
		if len(possible) > 0 && g.rng.IntN(2) == 0 {
			pt := possible[g.rng.IntN(len(possible))]
			if inner := g.selection(pt, depth); inner != "" {
				sel = append(sel, "... on "+pt.Name+" "+inner)
				g.count("inline")
			}
		}
	}
	for range 1 + g.rng.IntN(4) {
		if len(fields) == 0 {
			break
		}
		f := fields[g.rng.IntN(len(fields))]
		s := g.field(f, depth)
		if s == "" {
			continue
		}
		ft := g.s.Types[f.Type.Name()]
		if ft.Kind != ast.Scalar && ft.Kind != ast.Enum || g.rng.IntN(4) == 0 || strings.Contains(s, "(") {
			// An alias: two selections of one field with other arguments
			// or fields would conflict.
			s = fmt.Sprintf("a%d: %s", g.rng.Uint32(), s)
		}
		sel = append(sel, s)
	}
	if g.rng.IntN(6) == 0 {
		sel = append(sel, "__typename")
		g.count("typename")
	}
	if len(sel) == 0 {
		return ""
	}
	if g.rng.IntN(4) == 0 {
		sel = append(sel, sel[0]) // repeated: merged by execution, priced again
	}
	body := "{ " + strings.Join(sel, " ") + " }"
	switch g.rng.IntN(6) {
	case 0:
		name := fmt.Sprintf("F%d", len(g.frags))
		g.frags = append(g.frags, fmt.Sprintf("fragment %s on %s %s", name, t.Name, body))
		g.count("fragment")
		return "{ ..." + name + " }"
	case 1:
		g.count("inline")
		return "{ ... on " + t.Name + " " + body + " }"
	}
	return body
}

func requiredArgs(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			return true
		}
	}
	return false
}

// TestSDLFollowsConfiguration: the served @listSize of a plain list is
// --graphql-max-list, the length the server prices it at.
func TestSDLFollowsConfiguration(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.MaxListLength = 7 }})
	sdl := string(srv.Do(t, http.MethodGet, srv.URL+graph.SDLPath, nil, apptest.Anonymous()).Body)
	if !strings.Contains(sdl, "lines: [OrderLine!] @listSize(assumedSize: 7)") {
		t.Errorf("Order.lines is not sized 7:\n%.2000s", sdl)
	}
	q := `{ orders(first: 2) { edges { node { lines { id } } } } }`
	r := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"query": q}, nil)
	var body struct {
		Extensions struct{ Cost *graph.Cost } `json:"extensions"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Extensions.Cost == nil {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	// 1 + edges 2 × (1 + node (1 + lines 7 × (1 + id 1))).
	if got := body.Extensions.Cost.Requested; got != 1+2*(1+1+7*2) {
		t.Errorf("requested %d, want %d", got, 1+2*(1+1+7*2))
	}
}
