package webhooks_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/webhooks"
)

// The filters of the equivalence test: an order filter through a relation
// and or, an item filter with a decimal comparison and a relation.
const (
	orderFilter = `{"or": [{"priority": "urgent"}, {"hasHubWith": [{"code": "AMS1"}], "statusIn": ["open", "allocated"]}]}`
	itemFilter  = `{"quantityGTE": 10, "hasHubWith": [{"code": "RTM2"}]}`
)

// j sends s as a JSON body as it is.
func j(format string, a ...any) json.RawMessage { return json.RawMessage(fmt.Sprintf(format, a...)) }

func stats(t *testing.T, srv *apptest.Server, ep string) webhooks.DeliveryStats {
	t.Helper()
	resp := srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/"+ep+"/deliveries/stats", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stats: %d %s", resp.StatusCode, resp.Body)
	}
	var st webhooks.DeliveryStats
	resp.JSON(t, &st)
	return st
}

// inList reports whether the GraphQL list of kind ("orders", "items") with
// the where filter (JSON) holds id: the list a client reads with the same
// where the endpoint has.
func inList(t *testing.T, srv *apptest.Server, kind, whereType, where, id string) bool {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(where), &w); err != nil {
		t.Fatal(err)
	}
	and := map[string]any{"and": []any{w, map[string]any{"id": id}}}
	var out map[string]struct {
		TotalCount int `json:"totalCount"`
	}
	srv.MustGraphQL(t, environment.Production, fmt.Sprintf(`query($w: %s) { list: %s(where: $w) { totalCount } }`, whereType, kind),
		map[string]any{"w": and}, &out)
	return out["list"].TotalCount == 1
}

// TestFilterEquivalence: over a generated set of changes, an event reaches
// the filtered endpoint exactly when its resource appears, right after the
// change, in the list read with the same where; every other event of the
// filtered types is a skipped delivery, counted in the statistics and never
// sent. The filters are registered through GraphQL on one endpoint and
// through REST on another, which receive the same events; a third endpoint
// without filters receives every event.
func TestFilterEquivalence(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	createHub(t, srv, "AMS1")
	createHub(t, srv, "RTM2")
	for _, sku := range []string{"FLT-1", "FLT-2"} {
		srv.Create(t, environment.Production, "/v1/parts", map[string]any{"sku": sku, "part_name": "Part " + sku, "unit": "ea"})
	}

	// GraphQL: the typed input.
	gqlRC, restRC, allRC := newReceiver(t), newReceiver(t), newReceiver(t)
	var of, itf map[string]any
	_ = json.Unmarshal([]byte(orderFilter), &of)
	_ = json.Unmarshal([]byte(itemFilter), &itf)
	var created struct {
		CreateWebhookEndpoint struct {
			Endpoint struct {
				ID      string         `json:"id"`
				Filters map[string]any `json:"filters"`
			} `json:"endpoint"`
			Secret string `json:"secret"`
		} `json:"createWebhookEndpoint"`
	}
	srv.MustGraphQL(t, environment.Production, `mutation($url: String!, $o: OrderWhereInput, $i: ItemWhereInput) {
		createWebhookEndpoint(input: {url: $url, eventTypes: ["order.*", "item.*"], filters: {order: $o, item: $i}}) { endpoint { id filters } secret } }`,
		map[string]any{"url": gqlRC.URL, "o": of, "i": itf}, &created)
	gqlEP := created.CreateWebhookEndpoint.Endpoint.ID
	gqlRC.accept(created.CreateWebhookEndpoint.Secret)

	// REST: the same JSON object.
	resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints", j(`{"url": %q, "event_types": ["order.*", "item.*"], "filters": {"order": %s, "item": %s}}`,
		restRC.URL, orderFilter, itemFilter), nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("REST create: %d %s", resp.StatusCode, resp.Body)
	}
	var restEP webhooks.EndpointJSON
	resp.JSON(t, &restEP)
	restRC.accept(restEP.Secret)
	// Both doors store the same filters.
	got := srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/"+gqlEP, nil, nil)
	var gqlJSON webhooks.EndpointJSON
	got.JSON(t, &gqlJSON)
	for _, k := range []string{"order", "item"} {
		var a, b any
		_ = json.Unmarshal(gqlJSON.Filters[k], &a)
		_ = json.Unmarshal(restEP.Filters[k], &b)
		if !reflect.DeepEqual(a, b) || b == nil {
			t.Fatalf("filters.%s: GraphQL stored %s, REST %s", k, gqlJSON.Filters[k], restEP.Filters[k])
		}
	}
	if created.CreateWebhookEndpoint.Endpoint.Filters["order"] == nil {
		t.Fatalf("GraphQL shows no filters: %+v", created.CreateWebhookEndpoint.Endpoint)
	}
	all := createEndpoint(t, srv, allRC.URL, "order.*", "item.*")
	allRC.accept(all.Secret)

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 45))
	hubs := []string{"AMS1", "RTM2"}
	priorities := []string{"low", "normal", "high", "urgent"}
	var items, orders []string
	pick := func(ids []string) string { return ids[rng.IntN(len(ids))] }
	ctx := srv.Ctx(environment.Production)
	c := srv.Env(environment.Production).DB.Client
	seen := map[string]bool{}
	want := map[string]bool{} // event id → delivered to the filtered endpoints
	for step := 0; step < 80; step++ {
		var resp *apptest.Response
		switch op := rng.IntN(9); {
		case op == 0 || len(items) == 0:
			items = append(items, srv.Create(t, environment.Production, "/v1/items", map[string]any{
				"sku": fmt.Sprintf("FLT-%d", 1+rng.IntN(2)), "hub": pick(hubs), "quantity": rng.IntN(21), "lot": fmt.Sprintf("L%d", step)}))
		case op == 1:
			resp = srv.Do(t, "PATCH", srv.URL+"/v1/items/"+pick(items), map[string]any{"quantity": rng.IntN(21)}, nil)
		case op == 2 && len(items) > 3:
			resp = srv.Do(t, "DELETE", srv.URL+"/v1/items/"+pick(items), nil, nil)
		case op == 3 || len(orders) == 0:
			orders = append(orders, srv.Create(t, environment.Production, "/v1/orders", map[string]any{
				"hub": pick(hubs), "priority": pick(priorities), "lines": []any{map[string]any{"sku": "FLT-1", "quantity": 1 + rng.IntN(3)}}}))
		case op == 4:
			resp = srv.Do(t, "PATCH", srv.URL+"/v1/orders/"+pick(orders), map[string]any{"priority": pick(priorities)}, nil)
		case op == 5 || op == 6:
			tr := []string{"submit", "submit", "allocate", "cancel"}[rng.IntN(4)]
			resp = srv.Do(t, "POST", srv.URL+"/v1/orders/"+pick(orders)+"/transitions", map[string]any{"transition": tr}, nil)
		case op == 7:
			resp = srv.Do(t, "DELETE", srv.URL+"/v1/orders/"+pick(orders), nil, nil)
		default:
			resp = srv.Do(t, "PATCH", srv.URL+"/v1/orders/"+pick(orders), map[string]any{"hub": pick(hubs)}, nil)
		}
		// A refused change (a transition not allowed in the order's state)
		// writes nothing; none may fail otherwise.
		if resp != nil && resp.StatusCode >= 500 {
			t.Fatalf("step %d: %s %s: %d %s", step, resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, resp.Body)
		}
		if resp != nil && resp.Request.Method == "DELETE" && resp.StatusCode == http.StatusNoContent {
			gone := resp.Request.URL.Path[strings.LastIndexByte(resp.Request.URL.Path, '/')+1:]
			items = slices.DeleteFunc(items, func(id string) bool { return id == gone })
			orders = slices.DeleteFunc(orders, func(id string) bool { return id == gone })
		}
		// The events this change wrote, and whether their resource is in
		// the filtered list now (before any later change).
		evs, err := c.Event.Query().Where(event.Or(event.TypeHasPrefix("order."), event.TypeHasPrefix("item."))).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if seen[string(e.ID)] {
				continue
			}
			seen[string(e.ID)] = true
			if strings.HasPrefix(e.Type, "order.") {
				want[string(e.ID)] = inList(t, srv, "orders", "OrderWhereInput", orderFilter, e.SubjectID)
			} else {
				want[string(e.ID)] = inList(t, srv, "items", "ItemWhereInput", itemFilter, e.SubjectID)
			}
		}
	}
	var delivered, skipped int
	for _, ok := range want {
		if ok {
			delivered++
		} else {
			skipped++
		}
	}
	t.Logf("%d events: %d match the filters, %d do not", len(want), delivered, skipped)
	if delivered == 0 || skipped == 0 {
		t.Fatalf("the generated changes did not exercise both outcomes (%d delivered, %d skipped)", delivered, skipped)
	}
	for _, ep := range []string{gqlEP, string(restEP.ID), string(all.ID)} {
		waitFor(t, 30*time.Second, "every delivery of "+ep+" sent", func() bool { return stats(t, srv, ep).Pending == 0 })
	}
	for name, rc := range map[string]*receiver{"GraphQL": gqlRC, "REST": restRC} {
		for id, ok := range want {
			if n := rc.count(id); (n > 0) != ok {
				t.Errorf("%s endpoint: event %s received %d times, in the filtered list: %v", name, id, n, ok)
			}
		}
		if rc.badSig != 0 {
			t.Errorf("%s: %d bad signatures", name, rc.badSig)
		}
	}
	for id := range want {
		if allRC.count(id) == 0 {
			t.Errorf("the endpoint without filters missed %s", id)
		}
	}
	for _, ep := range []string{gqlEP, string(restEP.ID)} {
		st := stats(t, srv, ep)
		if st.Skipped != skipped || st.Succeeded != delivered || st.Total != len(want) || st.Failed != 0 {
			t.Errorf("stats of %s = %+v, want %d succeeded and %d skipped of %d", ep, st, delivered, skipped, len(want))
		}
		if ds := deliveries(t, srv, resourceid.ID(ep), "?status=skipped&limit=100"); len(ds) != min(skipped, 100) || ds[0].Attempts != 0 {
			t.Errorf("the delivery log shows %d skipped deliveries, want %d, never attempted", len(ds), min(skipped, 100))
		}
	}
	// GraphQL shows the same statistics.
	var g struct {
		WebhookEndpoint struct {
			DeliveryStats webhooks.DeliveryStats `json:"deliveryStats"`
		} `json:"webhookEndpoint"`
	}
	srv.MustGraphQL(t, environment.Production, `query($id: ID!) { webhookEndpoint(id: $id) { deliveryStats { pending succeeded failed skipped total } } }`, map[string]any{"id": gqlEP}, &g)
	if g.WebhookEndpoint.DeliveryStats != stats(t, srv, gqlEP) {
		t.Errorf("GraphQL deliveryStats = %+v, REST %+v", g.WebhookEndpoint.DeliveryStats, stats(t, srv, gqlEP))
	}
}

// TestFilterRefusedNamingTheField: a filter that is not a where object of
// its type is refused when the endpoint is registered or changed, with a
// 422 (GraphQL: BAD_USER_INPUT) naming the member; nothing is stored.
func TestFilterRefusedNamingTheField(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	rc := newReceiver(t)
	base := srv.URL + "/v1/webhook-endpoints"
	deep := `{"priority": "low"}`
	for range 8 {
		deep = `{"not": ` + deep + `}`
	}
	many := make([]string, 300)
	for i := range many {
		many[i] = `{"priority": "low"}`
	}
	long := `{"customerRef": "` + strings.Repeat("x", 1001) + `"}`
	var big []string
	for i := range 30 {
		big = append(big, fmt.Sprintf(`{"customerRefContains": "%s%d"}`, strings.Repeat("y", 900), i))
	}
	for _, tc := range []struct{ filters, field, says string }{
		{`{"shipment": {"status": "open"}}`, "filters.shipment", "not a resource type"},
		{`{"order": {"bogus": 1}}`, "filters.order.bogus", "not a field of OrderWhereInput"},
		{`{"order": {"or": [{"status": "open"}, {"hasHubWith": [{"cod": "AMS1"}]}]}}`, "filters.order.or[1].hasHubWith[0].cod", "not a field of HubWhereInput"},
		{`{"order": {"priority": "whenever"}}`, "filters.order.priority", "not a valid"},
		{`{"order": {"createdAtGT": "yesterday"}}`, "filters.order.createdAtGT", "RFC 3339"},
		{`{"item": {"quantityGTE": "ten"}}`, "filters.item.quantityGTE", ""},
		{`{"order": "open"}`, "filters.order", "must be a where object"},
		{`{"order": ` + deep + `}`, "filters.order", "nested at most 8"},
		{`{"order": {"or": [` + strings.Join(many, ",") + `]}}`, "filters.order.or", "at most 100"},
		{`{"order": ` + long + `}`, "filters.order.customerRef", "longer than 1000"},
		{`{"order": {"and": [` + strings.Join(big, ",") + `]}}`, "filters", "16384 bytes"},
		{`{"workflow": {"key": "x"}}`, "filters.workflow", "receives no workflow events"},
	} {
		resp := srv.Do(t, "POST", base, j(`{"url": %q, "event_types": ["order.*", "item.*"], "filters": %s}`, rc.URL, tc.filters), nil)
		var p struct {
			Errors []struct{ Field, Message string }
		}
		_ = json.Unmarshal(resp.Body, &p)
		if resp.StatusCode != http.StatusUnprocessableEntity || len(p.Errors) != 1 || !strings.HasPrefix(p.Errors[0].Field, tc.field) ||
			!strings.Contains(p.Errors[0].Message, tc.says) {
			t.Errorf("%.80s: %d %.300s, want 422 on %s saying %q", tc.filters, resp.StatusCode, resp.Body, tc.field, tc.says)
		}
	}
	// A change is checked too, and against the types the endpoint will have.
	ep := createEndpoint(t, srv, rc.URL, "order.*")
	if resp := srv.Do(t, "PATCH", base+"/"+string(ep.ID), j(`{"filters": {"order": {"status": 3}}}`), nil); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(string(resp.Body), "filters.order.status") {
		t.Errorf("PATCH with a bad filter: %d %s", resp.StatusCode, resp.Body)
	}
	if resp := srv.Do(t, "PATCH", base+"/"+string(ep.ID), j(`{"filters": {"order": {"status": "open"}}}`), nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH with a filter: %d %s", resp.StatusCode, resp.Body)
	}
	if resp := srv.Do(t, "PATCH", base+"/"+string(ep.ID), j(`{"event_types": ["item.*"]}`), nil); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(string(resp.Body), "receives no order events") {
		t.Errorf("PATCH leaving an order filter without order events: %d %s", resp.StatusCode, resp.Body)
	}
	if resp := srv.Do(t, "PATCH", base+"/"+string(ep.ID), j(`{"filters": {}}`), nil); resp.StatusCode != http.StatusOK || strings.Contains(string(resp.Body), `"filters"`) {
		t.Errorf("PATCH removing the filters: %d %s", resp.StatusCode, resp.Body)
	}
	// GraphQL: gqlgen coerces the typed input (BAD_USER_INPUT naming the
	// path); the limits and the type rule are the same code as REST's.
	g := srv.GraphQL(t, environment.Production, `mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["order.*"], filters: {order: {priority: whenever}}}) { secret } }`,
		map[string]any{"url": rc.URL})
	if len(g.Errors) == 0 || !strings.Contains(g.Errors[0].Message, "whenever") {
		t.Errorf("GraphQL bad enum: %+v", g.Errors)
	}
	g = srv.GraphQL(t, environment.Production, `mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["order.*"], filters: {item: {quantityGTE: 1}}}) { secret } }`,
		map[string]any{"url": rc.URL})
	if len(g.Errors) == 0 || g.Errors[0].Code() != "BAD_USER_INPUT" || !strings.Contains(g.Errors[0].Message, "filters.item") {
		t.Errorf("GraphQL filter of a type not received: %+v", g.Errors)
	}
	if eps, err := srv.App.Webhooks.List(srv.Ctx(environment.Production)); err != nil || len(eps) != 1 {
		t.Errorf("endpoints stored: %d %v, want only the one created", len(eps), err)
	}
}

// TestFilterOnRelationNeedsItsScope: a filter through a relation needs the
// read scope of the related type, as a list's where: does — at
// registration and at every change, through REST and GraphQL; the 403
// names the scope and the filter's path.
func TestFilterOnRelationNeedsItsScope(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	ctx := srv.Ctx(environment.Production)
	key := func(scopes ...string) http.Header {
		secret, _, err := srv.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: strings.Join(scopes, " "), Environment: environment.Production, Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return apptest.Bearer(secret)
	}
	noHubs := key("webhooks:write", "orders:read")
	withHubs := key("webhooks:write", "orders:read", "hubs:read")
	rc := newReceiver(t)
	base := srv.URL + "/v1/webhook-endpoints"
	body := fmt.Sprintf(`{"url": %q, "event_types": ["order.*"], "filters": {"order": {"or": [{"status": "open"}, {"hasHubWith": [{"code": "AMS1"}]}]}}}`, rc.URL)
	resp := srv.Do(t, "POST", base, j("%s", body), noHubs)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(resp.Body), `"scope":"hubs:read"`) ||
		!strings.Contains(string(resp.Body), "filters.order.or[1].hasHubWith") || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="hubs:read"`) {
		t.Errorf("without hubs:read: %d %s", resp.StatusCode, resp.Body)
	}
	// A filter on the order's own fields needs nothing more.
	if resp := srv.Do(t, "POST", base, j(`{"url": %q, "event_types": ["order.*"], "filters": {"order": {"status": "open"}}}`, rc.URL), noHubs); resp.StatusCode != http.StatusCreated {
		t.Errorf("a filter without relations: %d %s", resp.StatusCode, resp.Body)
	}
	resp = srv.Do(t, "POST", base, j("%s", body), withHubs)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("with hubs:read: %d %s", resp.StatusCode, resp.Body)
	}
	var ep webhooks.EndpointJSON
	resp.JSON(t, &ep)
	// Any change of that endpoint needs the scope of the filter it keeps.
	if resp := srv.Do(t, "PATCH", base+"/"+string(ep.ID), j(`{"description": "mine now"}`), noHubs); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(string(resp.Body), `"scope":"hubs:read"`) {
		t.Errorf("change keeping the filter without hubs:read: %d %s", resp.StatusCode, resp.Body)
	}
	if resp := srv.Do(t, "PATCH", base+"/"+string(ep.ID), j(`{"description": "mine now"}`), withHubs); resp.StatusCode != http.StatusOK {
		t.Errorf("change with hubs:read: %d %s", resp.StatusCode, resp.Body)
	}
	g := srv.GraphQLWith(t, environment.Production, `mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["item.*"], filters: {item: {hasPartWith: [{hazardous: true}]}}}) { secret } }`,
		map[string]any{"url": rc.URL}, key("webhooks:write", "items:read"))
	if len(g.Errors) == 0 || g.Errors[0].Code() != "FORBIDDEN" || g.Errors[0].Extensions["scope"] != "parts:read" {
		t.Errorf("GraphQL without parts:read: %s %+v", g.Data, g.Errors)
	}
	if eps, err := srv.App.Webhooks.List(ctx); err != nil || len(eps) != 2 || slices.ContainsFunc(eps, func(e *ent.WebhookEndpoint) bool { return len(e.Filters) == 0 }) {
		t.Errorf("endpoints: %d %v", len(eps), err)
	}
}
