package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"logistics/internal/environment"
)

// TestParity runs filters through REST and the equivalent GraphQL where:
// input and expects the same ids. Run it with LOGISTICS_TEST_POSTGRES set
// for PostgreSQL.
func TestParity(t *testing.T) {
	f := newFixture(t)
	type tc struct {
		path  string // REST path with query
		field string // GraphQL query field
		typ   string // GraphQL where input type
		where string // GraphQL where:, JSON
		min   int    // at least this many rows expected (guards against vacuous parity)
	}
	cases := []tc{
		// seed examples
		{"/v1/orders?status=draft", "orders", "OrderWhereInput", `{"status":"draft"}`, 3},
		{"/v1/parts?part_name=*bolt*", "parts", "PartWhereInput", `{"partNameContainsFold":"bolt"}`, 1},
		{"/v1/items?quantity>=10", "items", "ItemWhereInput", `{"quantityGTE":"10"}`, 3},
		{"/v1/items?hub[]=AMS1&hub[]=RTM2", "items", "ItemWhereInput", `{"hasHubWith":[{"codeIn":["AMS1","RTM2"]}]}`, 4},
		{"/v1/orders?hub[]=AMS1&hub[]=RTM2", "orders", "OrderWhereInput", `{"hasHubWith":[{"codeIn":["AMS1","RTM2"]}]}`, 2},
		// hubs
		{"/v1/hubs?code=AMS1", "hubs", "HubWhereInput", `{"code":"AMS1"}`, 1},
		{"/v1/hubs?code!=AMS1", "hubs", "HubWhereInput", `{"codeNEQ":"AMS1"}`, 2},
		{"/v1/hubs?kind[]=port&kind[]=store", "hubs", "HubWhereInput", `{"kindIn":["port","store"]}`, 2},
		{"/v1/hubs?kind[]!=port", "hubs", "HubWhereInput", `{"kindNotIn":["port"]}`, 2},
		{"/v1/hubs?active=false", "hubs", "HubWhereInput", `{"active":false}`, 1},
		{"/v1/hubs?latitude>52", "hubs", "HubWhereInput", `{"latitudeGT":52}`, 1},
		{"/v1/hubs?city=*DAM*&country=NL", "hubs", "HubWhereInput", `{"and":[{"cityContainsFold":"dam"},{"country":"NL"}]}`, 2},
		{"/v1/hubs?name<M", "hubs", "HubWhereInput", `{"nameLT":"M"}`, 2},
		// parts
		{"/v1/parts?unit_weight_kg<0.01", "parts", "PartWhereInput", `{"unitWeightKgLT":"0.01"}`, 1},
		{"/v1/parts?unit_weight_kg<=0.012", "parts", "PartWhereInput", `{"unitWeightKgLTE":0.012}`, 2},
		{"/v1/parts?hazardous!=true", "parts", "PartWhereInput", `{"hazardousNEQ":true}`, 2},
		{"/v1/parts?unit=l", "parts", "PartWhereInput", `{"unit":"l"}`, 1},
		{"/v1/parts?sku[]=BOLT-M8&sku[]=NUT-M8", "parts", "PartWhereInput", `{"skuIn":["BOLT-M8","NUT-M8"]}`, 2},
		{"/v1/parts?description!=*flam*", "parts", "PartWhereInput", `{"not":{"descriptionContainsFold":"flam"}}`, 2},
		// items
		{"/v1/items?quantity>5.5", "items", "ItemWhereInput", `{"quantityGT":"5.5"}`, 3},
		{"/v1/items?quantity<10.001", "items", "ItemWhereInput", `{"quantityLT":"10.001"}`, 3},
		{"/v1/items?quantity=10", "items", "ItemWhereInput", `{"quantity":10}`, 1},
		{"/v1/items?quantity!=10", "items", "ItemWhereInput", `{"quantityNEQ":10}`, 4},
		{"/v1/items?quantity[]=0.1&quantity[]=100", "items", "ItemWhereInput", `{"quantityIn":["0.1","100"]}`, 2},
		{"/v1/items?status=quarantined", "items", "ItemWhereInput", `{"status":"quarantined"}`, 1},
		{"/v1/items?status[]!=quarantined&status[]!=damaged", "items", "ItemWhereInput", `{"statusNotIn":["quarantined","damaged"]}`, 4},
		{"/v1/items?hub=AMS1&quantity>=10", "items", "ItemWhereInput", `{"hasHubWith":[{"code":"AMS1"}],"quantityGTE":10}`, 3},
		{"/v1/items?hub!=AMS1", "items", "ItemWhereInput", `{"not":{"hasHubWith":[{"code":"AMS1"}]}}`, 2},
		{"/v1/items?sku=OIL-5L", "items", "ItemWhereInput", `{"hasPartWith":[{"sku":"OIL-5L"}]}`, 2},
		{"/v1/items?part_id={BOLT-M8}", "items", "ItemWhereInput", `{"partID":"{BOLT-M8}"}`, 2},
		{"/v1/items?hub_id[]={AMS1}&hub_id[]={BER3}", "items", "ItemWhereInput", `{"hubIDIn":["{AMS1}","{BER3}"]}`, 4},
		{"/v1/items?expires_at>2029-12-31T23:00:00Z", "items", "ItemWhereInput", `{"expiresAtGT":"2029-12-31T23:00:00Z"}`, 1},
		{"/v1/items?lot=*l*&serial=", "items", "ItemWhereInput", `{"lotContainsFold":"l","serial":""}`, 1},
		{"/v1/items?created_at<2100-01-01T00:00:00Z", "items", "ItemWhereInput", `{"createdAtLT":"2100-01-01T00:00:00Z"}`, 5},
		// orders
		{"/v1/orders?priority=urgent", "orders", "OrderWhereInput", `{"priority":"urgent"}`, 1},
		{"/v1/orders?priority[]!=normal", "orders", "OrderWhereInput", `{"priorityNotIn":["normal"]}`, 2},
		{"/v1/orders?customer_ref=*acme*", "orders", "OrderWhereInput", `{"customerRefContainsFold":"ACME"}`, 2},
		{"/v1/orders?due_at<=2026-01-01T10:00:00Z", "orders", "OrderWhereInput", `{"dueAtLTE":"2026-01-01T10:00:00Z"}`, 1},
		{"/v1/orders?ship_to_country=DE", "orders", "OrderWhereInput", `{"shipToCountry":"DE"}`, 1},
		{"/v1/orders?hub=*tm*", "orders", "OrderWhereInput", `{"hasHubWith":[{"codeContainsFold":"TM"}]}`, 1},
		// order lines, tracking entries, workflows, events
		{"/v1/orders/{order0}/lines?quantity>=2.5", "orderLines", "OrderLineWhereInput", `{"orderID":"{order0}","quantityGTE":2.5}`, 1},
		{"/v1/tracking-entries?status[]=in_transit&status[]=delivered", "trackingEntries", "TrackingEntryWhereInput", `{"statusIn":["in_transit","delivered"]}`, 2},
		{"/v1/tracking-entries?hub[]!=AMS1", "trackingEntries", "TrackingEntryWhereInput", `{"not":{"hasHubWith":[{"codeIn":["AMS1"]}]}}`, 2},
		{"/v1/tracking-entries?carrier=DHL&occurred_at>=2025-06-01T12:00:00Z", "trackingEntries", "TrackingEntryWhereInput", `{"carrier":"DHL","occurredAtGTE":"2025-06-01T12:00:00Z"}`, 2},
		{"/v1/tracking-entries?order_id={order1}", "trackingEntries", "TrackingEntryWhereInput", `{"orderID":"{order1}"}`, 1},
		{"/v1/workflows?version>=1&built_in=true", "workflows", "WorkflowWhereInput", `{"versionGTE":1,"builtIn":true}`, 1},
		{"/v1/events?type=*.created", "events", "EventWhereInput", `{"type":"*.created"}`, 0},
		{"/v1/events?type[]=hub.created&type[]=part.created", "events", "EventWhereInput", `{"typeIn":["hub.created","part.created"]}`, 6},
		{"/v1/events?subject_id={AMS1}", "events", "EventWhereInput", `{"subjectID":"{AMS1}"}`, 1},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d parity cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			resp := f.s.Do(t, "GET", f.s.URL+f.expand(c.path)+sep(c.path)+"limit=500", nil, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("REST %d %s", resp.StatusCode, resp.Body)
			}
			if h := resp.Header.Get("X-Ignored-Filters"); h != "" {
				t.Fatalf("REST ignored %s", h)
			}
			var page struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			resp.JSON(t, &page)
			var restIDs []string
			for _, d := range page.Data {
				restIDs = append(restIDs, d.ID)
			}
			var where map[string]any
			if err := json.Unmarshal([]byte(f.expand(c.where)), &where); err != nil {
				t.Fatal(err)
			}
			q := fmt.Sprintf(`query($w: %s) { %s(where: $w, first: 500) { edges { node { id } } } }`, c.typ, c.field)
			var data map[string]struct {
				Edges []struct {
					Node struct {
						ID string `json:"id"`
					} `json:"node"`
				} `json:"edges"`
			}
			f.s.MustGraphQL(t, environment.Production, q, map[string]any{"w": where}, &data)
			var gqlIDs []string
			for _, e := range data[c.field].Edges {
				gqlIDs = append(gqlIDs, e.Node.ID)
			}
			slices.Sort(restIDs)
			slices.Sort(gqlIDs)
			if !slices.Equal(restIDs, gqlIDs) {
				t.Fatalf("REST %v\nGraphQL %v", restIDs, gqlIDs)
			}
			if len(restIDs) < c.min {
				t.Fatalf("only %d rows, want at least %d: the case proves little", len(restIDs), c.min)
			}
		})
	}
}

func sep(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}
