package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/view"
)

// One order is read by hand-written statements (rest/orderload.go), a page
// of orders by ent's page query and hub eager load, with hand-written
// statements for the lines and newest tracking entries of the whole page
// (embedOrders, embedLatestTracking): GET /v1/orders/{id} must answer
// exactly what the list answers for the same order — every field of the
// order, its hub, lines and newest tracking entries (with and without a hub,
// ties on occurred_at broken by id, more than the embedded three) — and an
// order without entries or due date alike. The entries of a page of several
// orders must be those GraphQL's trackingEntries connection reads through
// ent's eager loads.
func TestOrderLoadMatchesEnt(t *testing.T) {
	srv := apptest.New(t)
	c := jsonClient{t, srv}
	do, id := c.do, c.id
	for _, code := range []string{"AMS1", "RTM2"} {
		do("POST", "/v1/hubs", map[string]any{"code": code, "name": code, "address": map[string]any{"country": "NL"}}, http.StatusCreated)
	}
	do("POST", "/v1/parts", map[string]any{"sku": "P-1", "part_name": "Bolt"}, http.StatusCreated)
	do("POST", "/v1/parts", map[string]any{"sku": "P-2", "part_name": "Nut"}, http.StatusCreated)
	full := id(do("POST", "/v1/orders", map[string]any{"hub": "RTM2", "customer_ref": "C-1", "priority": "high",
		"due_at":  "2026-12-01T09:30:00.123456Z",
		"ship_to": map[string]any{"name": "A. Smith", "line1": "Main St 1", "line2": "3rd floor", "city": "Utrecht", "postal_code": "3511", "country": "NL"},
		"lines":   []any{map[string]any{"sku": "P-2", "quantity": 2.5}, map[string]any{"sku": "P-1", "quantity": 1}}}, http.StatusCreated))
	bare := id(do("POST", "/v1/orders", map[string]any{"hub": "AMS1"}, http.StatusCreated))
	var ids []string
	for i, e := range []map[string]any{
		{"hub": "AMS1", "occurred_at": "2026-01-01T10:00:00Z", "description": "tie"},
		{"occurred_at": "2026-01-01T10:00:00Z", "location": "Utrecht"},
		{"hub": "RTM2", "occurred_at": "2026-01-01T09:00:00Z"},
		{"occurred_at": "2026-01-02T08:00:00.5Z"},
		{"hub": "AMS1", "occurred_at": "2025-12-31T23:59:59Z"},
	} {
		e["order_id"], e["tracking_number"], e["carrier"], e["status"] = full, fmt.Sprint("TN", i), "DHL", "in_transit"
		ids = append(ids, id(do("POST", "/v1/tracking-entries", e, http.StatusCreated)))
	}
	// TN0 and TN1 tie on occurred_at; the tie is broken by id (ids of one
	// process increase, but the expected order comes from the ids).
	tie := "{TN0} {TN1}"
	if ids[1] < ids[0] {
		tie = "{TN1} {TN0}"
	}

	other := id(do("POST", "/v1/orders", map[string]any{"hub": "AMS1"}, http.StatusCreated))
	for i, e := range []map[string]any{
		{"occurred_at": "2026-02-01T10:00:00Z"},
		{"hub": "RTM2", "occurred_at": "2026-02-03T10:00:00Z"},
		{"occurred_at": "2026-02-02T10:00:00Z"},
		{"hub": "AMS1", "occurred_at": "2026-02-04T10:00:00Z"},
	} {
		e["order_id"], e["tracking_number"], e["carrier"], e["status"] = other, fmt.Sprint("OT", i), "DHL", "in_transit"
		do("POST", "/v1/tracking-entries", e, http.StatusCreated)
	}

	for _, r := range []string{full, bare, other} {
		c.sameAsInList("orders", r)
	}

	// The page's entries, order by order, against GraphQL's (ent's eager
	// load of the trackingEntries connection).
	type entry struct {
		ID  string
		Hub struct{ Code string } // null: no hub
	}
	var page struct {
		Data []struct {
			ID             string
			Hub            struct{ ID, Code string }
			LatestTracking []entry `json:"latest_tracking"`
		}
	}
	if err := json.Unmarshal(do("GET", "/v1/orders?limit=10", nil, http.StatusOK), &page); err != nil {
		t.Fatal(err)
	}
	var gql struct {
		Orders struct {
			Edges []struct {
				Node struct {
					ID              string
					TrackingEntries struct {
						Edges []struct{ Node entry }
					}
				}
			}
		}
	}
	srv.MustGraphQL(t, environment.Production, `{ orders(first: 10) { edges { node { id
		trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) { edges { node { id hub { code } } } } } } } }`, nil, &gql)
	want := map[string]string{}
	for _, e := range gql.Orders.Edges {
		var nodes []entry
		for _, n := range e.Node.TrackingEntries.Edges {
			nodes = append(nodes, n.Node)
		}
		want[e.Node.ID] = fmt.Sprintf("%+v", nodes)
	}
	if len(page.Data) != 3 || len(want) != 3 {
		t.Fatalf("%d orders listed, %d through GraphQL, want 3", len(page.Data), len(want))
	}
	for _, o := range page.Data {
		var got []entry
		got = append(got, o.LatestTracking...)
		if s := fmt.Sprintf("%+v", got); s != want[o.ID] {
			t.Errorf("order %s: latest_tracking %s, GraphQL %s", o.ID, s, want[o.ID])
		}
		// The page reads its hubs' codes in its own statement; GET reads the
		// order alone.
		var one struct{ Hub struct{ ID, Code string } }
		if err := json.Unmarshal(do("GET", "/v1/orders/"+o.ID, nil, http.StatusOK), &one); err != nil {
			t.Fatal(err)
		}
		if one.Hub != o.Hub || o.Hub.Code == "" {
			t.Errorf("order %s: listed with hub %+v, read alone %+v", o.ID, o.Hub, one.Hub)
		}
	}
	var got struct {
		LatestTracking []struct {
			TrackingNumber string `json:"tracking_number"`
		} `json:"latest_tracking"`
	}
	if err := json.Unmarshal(do("GET", "/v1/orders/"+full, nil, http.StatusOK), &got); err != nil {
		t.Fatal(err)
	}
	if s, want := fmt.Sprint(got.LatestTracking), "[{TN3} "+tie+"]"; s != want {
		t.Errorf("latest_tracking %s, want %s: TN3, then the tie by id", s, want)
	}

	// Every column of the schema is read: one added to orders or
	// tracking_entries and not to the statements fails here.
	for _, d := range []string{dialect.SQLite, dialect.Postgres} {
		stmts := view.OrderStatements(d)
		for i, cols := range [][]string{order.Columns, trackingentry.Columns, trackingentry.Columns} {
			alias := []string{"o", "t", "t"}[i]
			for _, col := range cols {
				if !regexp.MustCompile("[`\"]" + alias + "[`\"]\\.[`\"]" + col + "[`\"]").MatchString(stmts[i]) {
					t.Errorf("%s: %s does not read column %s.%s", d, stmts[i], alias, col)
				}
			}
		}
	}
}

// TestTransitionLocksWithItsRead: on PostgreSQL a transition locks the
// order with the statement that reads it for the event's "before"
// (view.ForUpdate), not with a statement of its own; on SQLite, whose
// write transactions hold the database's lock, nothing says FOR UPDATE.
func TestTransitionLocksWithItsRead(t *testing.T) {
	var counter apptest.StatementCounter
	s := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	f := &fixture{s: s, ids: map[string]string{}}
	hub := f.post(t, "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})["id"].(string)
	id := f.post(t, "/v1/orders", map[string]any{"hub_id": hub})["id"].(string)
	counter.Reset()
	if r := s.Do(t, "POST", s.URL+"/v1/orders/"+id+"/transitions", map[string]any{"transition": "submit"}, nil); r.StatusCode != http.StatusOK {
		t.Fatalf("submit: %d", r.StatusCode)
	}
	var locks []string
	for _, q := range counter.Statements() {
		if strings.Contains(q, "FOR NO KEY UPDATE") {
			locks = append(locks, q)
		}
	}
	if !apptest.Postgres() {
		if len(locks) > 0 {
			t.Fatalf("SQLite: %q", locks)
		}
		return
	}
	if len(locks) != 1 || !strings.Contains(locks[0], `"o"."number"`) {
		t.Fatalf("locking statements %q, want one: the order's read", locks)
	}
}
