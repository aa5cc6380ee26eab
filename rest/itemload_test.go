package rest_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"entgo.io/ent/dialect"

	"logistics/ent/item"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/rest"
)

// One item is read by a hand-written statement (rest/itemload.go), a page of
// items by ent's pager with its parts' skus and hubs' codes as subqueries
// of its statement (withItemRefs):
// GET /v1/items/{id} must answer exactly what the list answers for the same
// item — every field, its part's sku, its hub's code — with and without an
// expiry date, lot and serial, after an update moved its revision and times;
// the list's parts and hubs must be those GraphQL's items connection reads
// through ent's eager loads. And every column of the schema is read.
func TestItemLoadMatchesEnt(t *testing.T) {
	srv := apptest.New(t)
	c := jsonClient{t, srv}
	do, id := c.do, c.id
	do("POST", "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}}, http.StatusCreated)
	do("POST", "/v1/hubs", map[string]any{"code": "RTM2", "name": "Rotterdam", "address": map[string]any{"country": "NL"}}, http.StatusCreated)
	do("POST", "/v1/parts", map[string]any{"sku": "P-1", "part_name": "Bolt"}, http.StatusCreated)
	do("POST", "/v1/parts", map[string]any{"sku": "P-2", "part_name": "Nut"}, http.StatusCreated)
	full := id(do("POST", "/v1/items", map[string]any{"sku": "P-2", "hub": "RTM2", "quantity": 12.5, "lot": "L-1", "serial": "S-9",
		"expires_at": "2027-01-31T12:00:00.25Z"}, http.StatusCreated))
	do("PATCH", "/v1/items/"+full, map[string]any{"quantity": 13, "status": "quarantined"}, http.StatusOK)
	bare := id(do("POST", "/v1/items", map[string]any{"sku": "P-1", "hub": "AMS1", "quantity": 1}, http.StatusCreated))

	for _, r := range []string{full, bare} {
		c.sameAsInList("items", r)
	}
	do("GET", "/v1/items/itm_01JD3K0000000000000000000A", nil, http.StatusNotFound)

	type ref struct{ ID, SKU, Code string }
	var page struct {
		Data []struct {
			ID   string
			Part ref
			Hub  ref
		}
	}
	if err := json.Unmarshal(do("GET", "/v1/items?limit=10", nil, http.StatusOK), &page); err != nil {
		t.Fatal(err)
	}
	var gql struct {
		Items struct {
			Edges []struct {
				Node struct {
					ID   string
					Part ref
					Hub  ref
				}
			}
		}
	}
	srv.MustGraphQL(t, environment.Production, `{ items(first: 10) { edges { node { id part { id sku } hub { id code } } } } }`, nil, &gql)
	if len(page.Data) != 2 || len(gql.Items.Edges) != 2 {
		t.Fatalf("%d items listed, %d through GraphQL", len(page.Data), len(gql.Items.Edges))
	}
	for n, e := range gql.Items.Edges {
		if got := page.Data[n]; got.ID != e.Node.ID || got.Part != e.Node.Part || got.Hub != e.Node.Hub {
			t.Errorf("item %d: listed %+v, GraphQL %+v", n, got, e.Node)
		}
	}

	for _, d := range []string{dialect.SQLite, dialect.Postgres} {
		stmt := rest.ItemLoadStatement(d)
		for _, col := range item.Columns {
			if !regexp.MustCompile("[`\"]i[`\"]\\.[`\"]" + col + "[`\"]").MatchString(stmt) {
				t.Errorf("%s: %s does not read column %s", d, stmt, col)
			}
		}
	}
}
