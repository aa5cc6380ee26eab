package graph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"logistics/ent"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/count"
)

// countParts fills the production database with n parts, CNT-0000 on,
// straight through ent: the counts need more rows than count.Cap.
func countParts(t *testing.T, srv *apptest.Server, n int) {
	t.Helper()
	c := srv.Env(prod).DB.Client
	for start := 0; start < n; start += 500 {
		var b []*ent.PartCreate
		for i := start; i < min(n, start+500); i++ {
			b = append(b, c.Part.Create().SetSku(fmt.Sprintf("CNT-%04d", i)).SetPartName("counted part"))
		}
		if err := c.Part.CreateBulk(b...).Exec(srv.Ctx(prod)); err != nil {
			t.Fatal(err)
		}
	}
}

type countAnswer struct {
	Value int    `json:"value"`
	Kind  string `json:"kind"`
}

// TestCountModes: each mode's answer and its label, on the database the
// test runs on, the same through the fast path and through gqlgen.
func TestCountModes(t *testing.T) {
	srv := apptest.New(t)
	const n = count.Cap + 5
	countParts(t, srv, n)
	gqlgen := srv.Twin(t, func(c *app.Config) { c.NoFastPath = true })
	pg := apptest.Postgres()

	q := `{
  all: parts(first: 1) { totalCount bounded: count { value kind } planned: count(mode: PLANNED) { value kind } estimated: count(mode: ESTIMATED) { value kind } }
  few: parts(where: {skuHasPrefix: "CNT-000"}) { totalCount bounded: count(mode: BOUNDED) { value kind } estimated: count(mode: ESTIMATED) { value kind } }
}`
	var raw []byte
	for i, s := range []*apptest.Server{srv, gqlgen} {
		r := postGQL(t, s, q, nil)
		if r.status != 200 || len(r.Errors) > 0 {
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
		if i == 0 {
			raw = r.Data
		} else if string(r.Data) != string(raw) && !pg {
			// PostgreSQL's estimates may move between two plans; SQLite's
			// answers are exact or bounded, so both executors agree.
			t.Errorf("fast path and gqlgen differ:\n%s\n%s", raw, r.Data)
		}
	}
	var got struct {
		All struct {
			TotalCount int
			Bounded    countAnswer
			Planned    countAnswer
			Estimated  countAnswer
		}
		Few struct {
			TotalCount int
			Bounded    countAnswer
			Estimated  countAnswer
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.All.TotalCount != n || got.Few.TotalCount != 10 {
		t.Errorf("totalCount %d and %d, want %d and 10 (exact)", got.All.TotalCount, got.Few.TotalCount, n)
	}
	if want := (countAnswer{count.Cap, "AT_LEAST"}); got.All.Bounded != want {
		t.Errorf("bounded over the cap: %+v, want %+v", got.All.Bounded, want)
	}
	for name, a := range map[string]countAnswer{"bounded": got.Few.Bounded, "estimated": got.Few.Estimated} {
		if want := (countAnswer{10, "EXACT"}); a != want {
			t.Errorf("%s under the cap: %+v, want %+v", name, a, want)
		}
	}
	if pg {
		if a := got.All.Planned; a.Kind != "ESTIMATE" || a.Value <= 0 {
			t.Errorf("planned on PostgreSQL: %+v, want an ESTIMATE", a)
		}
		if a := got.All.Estimated; a.Kind != "ESTIMATE" || a.Value < count.Cap {
			t.Errorf("estimated over the cap on PostgreSQL: %+v, want an ESTIMATE of at least %d", a, count.Cap)
		}
	} else {
		// SQLite has no planner estimate: both are bounded, and say so.
		for name, a := range map[string]countAnswer{"planned": got.All.Planned, "estimated": got.All.Estimated} {
			if want := (countAnswer{count.Cap, "AT_LEAST"}); a != want {
				t.Errorf("%s on SQLite: %+v, want %+v", name, a, want)
			}
		}
	}

	// A nested connection cannot count that way: null, and an error that
	// says so, on both executors; the rest of the answer stands.
	f := newFixture(t, srv, prod)
	f.hub("AMS1", "Amsterdam", "NL")
	nested := `{ hubs { edges { node { code items { totalCount count { value } } } } } }`
	for _, s := range []*apptest.Server{srv, gqlgen} {
		r := postGQL(t, s, nested, nil)
		if r.status != 200 || len(r.Errors) != 1 || r.reason() != "count_unavailable" {
			t.Fatalf("nested count: status %d: %s", r.status, r.raw)
		}
		if want := `{"hubs":{"edges":[{"node":{"code":"AMS1","items":{"totalCount":0,"count":null}}}]}}`; string(r.Data) != want {
			t.Errorf("nested count: data %s, want %s", r.Data, want)
		}
	}

	// EXACT is totalCount, not a mode; an unknown mode is refused before
	// anything runs.
	for _, bad := range []string{`{ parts { count(mode: EXACT) { value } } }`, `{ parts { count(mode: "BOUNDED") { value } } }`} {
		if r := postGQL(t, srv, bad, nil); r.hasData || len(r.Errors) == 0 || r.status < 400 || r.status >= 500 {
			t.Errorf("%s: status %d: %s", bad, r.status, r.raw)
		}
	}
}

// TestExactCountCost: totalCount, an exact count, weighs ExactCountWeight;
// count(mode:) weighs 1 and its fields 1 each.
func TestExactCountCost(t *testing.T) {
	srv := apptest.New(t)
	for _, c := range []struct {
		q    string
		want int
	}{
		// parts 1 × (1 + totalCount 50)
		{`{ parts(first: 1) { totalCount } }`, 1 + 50},
		// parts 1 + count (1 + value 1 + kind 1)
		{`{ parts(first: 1) { count { value kind } } }`, 1 + 3},
		{`{ parts(first: 1) { count(mode: PLANNED) { value } } }`, 1 + 2},
		// hubs 1 + edges 2 × (1 + node (1 + items (1 + totalCount 50)))
		{`{ hubs(first: 2) { edges { node { items(first: 1) { totalCount } } } } }`, 1 + 2*(1+1+1+50)},
	} {
		r := postGQL(t, srv, c.q, nil)
		if r.Extensions.Cost == nil || r.Extensions.Cost.Requested != c.want {
			t.Errorf("%s: cost %s, want requested %d", c.q, r.raw, c.want)
		}
	}
}

// TestExactCountStatement: an exact count of a list is COUNT(*), which the
// databases answer from the narrowest index, not ent's COUNT(id); a list
// through an edge keeps ent's count. The answers are checked by
// TestCountModes.
func TestExactCountStatement(t *testing.T) {
	srv, counter, f, hub := counted(t)
	f.item(f.part("P-1", "Part 1"), hub, "3")
	counter.Reset()
	r := postGQL(t, srv, `{ parts(first: 1, where: {skuHasPrefix: "P-"}) { totalCount } orders(first: 1) { totalCount } hubs(first: 1) { edges { node { items(first: 1) { totalCount } } } } }`, nil)
	if r.status != 200 || len(r.Errors) > 0 {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	var counts []string
	for _, q := range counter.Statements() {
		if strings.Contains(strings.ToUpper(q), "COUNT(") {
			counts = append(counts, q)
		}
	}
	var star, other int
	for _, q := range counts {
		switch {
		case strings.Contains(q, "COUNT(*)") && (strings.Contains(q, "parts") || strings.Contains(q, "orders")):
			star++
		case strings.Contains(q, "items"):
			other++
		}
	}
	if star != 2 || other != 1 {
		t.Errorf("want COUNT(*) of parts and of orders and one count of the hub's items, got:\n%s", strings.Join(counts, "\n"))
	}
}
