package webhooks_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"logistics/ent/webhookdelivery"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/webhooks"
	"logistics/standardwebhooks"
)

// testNames are the names the destination tests resolve, through the
// resolver hook (no DNS server): any other lookup is a test failure.
var testNames = map[string][]string{
	"public.test":   {"8.8.8.8", "2606:4700:4700::1111"},
	"private.test":  {"10.0.0.1"},
	"loopback.test": {"127.0.0.1"},
	"loop6.test":    {"::1"},
	"zoned.test":    {"fe80::1%lo"},
	"mapped.test":   {"::ffff:169.254.169.254"},
	"mixed.test":    {"8.8.8.8", "127.0.0.1"}, // one private address is enough to refuse
}

func fakeResolver(t *testing.T, names map[string][]string) func(string) ([]netip.Addr, error) {
	return func(host string) ([]netip.Addr, error) {
		addrs, ok := names[strings.TrimSuffix(strings.ToLower(host), ".")] // as DNS and the hosts file read names
		if !ok {
			t.Errorf("unexpected lookup of %q", host)
			return nil, errors.New("no such test name")
		}
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

// refusedDestinations are webhook URLs to non-public destinations, in every
// spelling that reaches one; PORT is a live receiver's port on 127.0.0.1,
// so a destination the checks let through is actually reached. hint: the
// refusal names --webhook-allow-private (all but the forms refused for their
// shape alone).
var refusedDestinations = []struct {
	url  string
	hint bool
}{
	// loopback, private, link-local, metadata, carrier-grade NAT
	{"http://127.0.0.1:PORT/hook", true}, {"http://127.1.2.3:PORT/", true}, {"http://10.0.0.5:PORT/", true},
	{"http://172.16.3.4:PORT/", true}, {"http://192.168.1.1:PORT/", true}, {"http://169.254.169.254/latest/meta-data/", true},
	{"http://100.100.100.200/", true}, {"http://0.0.0.0:PORT/", true}, {"http://[::1]:PORT/", true},
	{"http://[fd00:ec2::254]/", true}, {"http://[fe80::1]:PORT/", true}, {"http://[::]:PORT/", true},
	// IPv4-mapped, -compatible, -translated, NAT64
	{"http://[::ffff:127.0.0.1]:PORT/", true}, {"http://[::ffff:7f00:1]:PORT/", true}, {"http://[::ffff:a9fe:a9fe]/", true},
	{"http://[::127.0.0.1]:PORT/", true}, {"http://[::8.8.8.8]/", true}, {"http://[::ffff:0:7f00:1]:PORT/", true},
	{"http://[64:ff9b::7f00:1]:PORT/", true}, {"http://[64:ff9b::8.8.8.8]/", true}, {"http://[64:ff9b:1::a00:1]/", true},
	// zones: refused outright, whatever the address
	{"http://[::1%25lo]:PORT/", true}, {"http://[fe80::1%25lo]:PORT/", true}, {"http://[fe80::1%25eth0]/", true},
	{"http://[::ffff:127.0.0.1%25lo]:PORT/", true}, {"http://[2606:4700:4700::1111%25eth0]/", true},
	// 6to4 and Teredo embedding a private IPv4 (a Teredo client's is inverted)
	{"http://[2002:7f00:1::1]:PORT/", true}, {"http://[2002:c0a8:101::1]/", true}, {"http://[2002:a9fe:a9fe::]/", true},
	{"http://[2001:0:808:808::80ff:fffe]/", true}, {"http://[2001:0:a00:1::fefe:fefe]/", true},
	// documentation, benchmarking, multicast, reserved, other special purposes
	{"http://192.0.2.1/", true}, {"http://198.51.100.7/", true}, {"http://203.0.113.10/", true},
	{"http://[2001:db8::1]/", true}, {"http://[3fff::1]/", true}, {"http://198.18.0.1/", true}, {"http://198.19.255.255/", true},
	{"http://[2001:2::1]/", true}, {"http://224.0.0.1/", true}, {"http://239.255.255.250/", true}, {"http://[ff02::1]/", true},
	{"http://[ff05::1:3]/", true}, {"http://240.0.0.1/", true}, {"http://255.255.255.255/", true}, {"http://192.0.0.8/", true},
	{"http://192.88.99.1/", true}, {"http://[fec0::1]/", true}, {"http://[100::1]/", true}, {"http://[2001:10::1]/", true},
	{"http://[2001:20::1]/", true}, {"http://[5f00::1]/", true}, {"http://[4000::1]/", true},
	// IPv4 in the numeric spellings inet_aton and browsers read: decimal,
	// octal, hexadecimal, short forms, a trailing dot
	{"http://2130706433:PORT/", true}, {"http://0177.0.0.1:PORT/", true}, {"http://0x7f.1:PORT/", true},
	{"http://0x7f000001:PORT/", true}, {"http://127.1:PORT/", true}, {"http://127.0.1:PORT/", true},
	{"http://127.0.0.1.:PORT/", true}, {"http://0:PORT/", true}, {"http://0300.0250.1.1/", true},
	{"http://134744072/", false}, // 8.8.8.8, public, but written so only some clients read it as an address
	// local names, however written, and names that resolve to refused addresses
	{"http://localhost:PORT/", true}, {"http://LocalHost:PORT/", true}, {"http://localhost.:PORT/", true},
	{"http://api.localhost/", true}, {"http://api.localhost./", true}, {"http://private.test/", true},
	{"http://loopback.test:PORT/", true}, {"http://Loopback.Test.:PORT/", true}, {"http://loop6.test/", true},
	{"http://zoned.test/", true}, {"http://mapped.test/", true}, {"http://mixed.test:PORT/", true},
	// userinfo: refused for its shape at registration; the dialer still
	// sees the host after the @
	{"http://a@127.0.0.1:PORT/", false}, {"http://8.8.8.8@127.0.0.1:PORT/", false}, {"http://user:pw@loopback.test:PORT/", false},
}

// publicDestinations are accepted: public addresses, in any family and
// through 6to4, Teredo or IPv4-mapping, and a name resolving to them.
var publicDestinations = []string{
	"http://8.8.8.8/hook", "http://[2606:4700:4700::1111]/", "http://[::ffff:8.8.8.8]/", "http://[2002:808:808::1]/",
	"http://[2001:0:808:808::fefe:fefe]/", "http://public.test/", "http://Public.Test./",
}

// TestRegistrationRefusesPrivateDestinations: without
// --webhook-allow-private, every URL of refusedDestinations is refused with
// a 422 on url by create and by update (naming --webhook-allow-private where
// the flag would lift the refusal), as are non-http schemes and malformed
// URLs; publicDestinations are accepted.
func TestRegistrationRefusesPrivateDestinations(t *testing.T) {
	srv := apptest.New(t)
	webhooks.SetResolver(srv.App.Webhooks, fakeResolver(t, testNames))
	ep := createEndpoint(t, srv, "http://8.8.8.8/hook")
	for _, c := range refusedDestinations {
		u := strings.ReplaceAll(c.url, "PORT", "8080")
		for _, req := range []struct{ method, url string }{
			{"POST", srv.URL + "/v1/webhook-endpoints"},
			{"PATCH", srv.URL + "/v1/webhook-endpoints/" + string(ep.ID)},
		} {
			resp := srv.Do(t, req.method, req.url, map[string]any{"url": u}, nil)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), `"field":"url"`) {
				t.Errorf("%s %s: %d %s", req.method, u, resp.StatusCode, resp.Body)
			} else if c.hint != strings.Contains(string(resp.Body), "--webhook-allow-private") {
				t.Errorf("%s %s: names --webhook-allow-private: %v, want %v: %s", req.method, u, !c.hint, c.hint, resp.Body)
			}
		}
	}
	for _, u := range []string{
		"ftp://example.com/", "file:///etc/passwd", "http:///nohost", "not a url", "http://exa%25mple.com/",
		"http://1.2.3.4.5/", "http://256.1.1.1/", "http://08.1.1.1/", "http://.example.com/", "http://a..b/",
	} {
		resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints", map[string]any{"url": u}, nil)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), `"field":"url"`) {
			t.Errorf("%s: %d %s", u, resp.StatusCode, resp.Body)
		}
	}
	if got := getEndpoint(t, srv, ep.ID); got.URL != "http://8.8.8.8/hook" {
		t.Errorf("a refused update changed the URL to %s", got.URL)
	}
	for _, u := range publicDestinations {
		resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints", map[string]any{"url": u, "event_types": []string{"order.*", "hub.created"}}, nil)
		if resp.StatusCode != http.StatusCreated {
			t.Errorf("public %s: %d %s", u, resp.StatusCode, resp.Body)
		}
	}
	for _, body := range []map[string]any{
		{"url": "http://8.8.8.8/", "event_types": []string{"Order Created"}},
		{"url": "http://8.8.8.8/", "description": strings.Repeat("x", 501)},
		{"url": "http://8.8.8.8/" + strings.Repeat("x", 2048)},
		{},
	} {
		if resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints", body, nil); resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%v: %d %s", body, resp.StatusCode, resp.Body)
		}
	}
}

// TestDialerRefusesPrivateDestinations: the connection-time check refuses
// every URL of refusedDestinations itself (as for an endpoint written before
// the checks or re-pointed since), although a receiver listens on PORT; it
// lets publicDestinations through.
func TestDialerRefusesPrivateDestinations(t *testing.T) {
	m := webhooks.New(webhooks.Options{Timeout: 2 * time.Second}, nil)
	webhooks.SetResolver(m, fakeResolver(t, testNames))
	rc := newReceiver(t)
	port := rc.URL[strings.LastIndex(rc.URL, ":")+1:]
	ctx := context.Background()
	for _, c := range refusedDestinations {
		u := strings.ReplaceAll(c.url, "PORT", port)
		if err := webhooks.Get(ctx, m, u); !webhooks.IsRefused(err) {
			t.Errorf("%s: %v, want a refused destination", u, err)
		}
	}
	if rc.requests != 0 {
		t.Errorf("the receiver got %d requests", rc.requests)
	}
	for _, raw := range publicDestinations {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := webhooks.Destinations(ctx, m, u.Hostname()); err != nil {
			t.Errorf("public %s: %v", raw, err)
		}
	}
	// With --webhook-allow-private the receiver is reached by address and
	// by name.
	open := webhooks.New(webhooks.Options{AllowPrivate: true, Timeout: 2 * time.Second}, nil)
	for _, u := range []string{rc.URL, "http://localhost:" + port + "/"} {
		if err := webhooks.Get(ctx, open, u); err != nil {
			t.Errorf("allowed %s: %v", u, err)
		}
	}
	// A numeric spelling stays refused at registration: Go would look it
	// up as a name.
	if _, err := webhooks.Destinations(ctx, open, "2130706433"); !webhooks.IsRefused(err) {
		t.Errorf("allowed 2130706433: %v", err)
	}
}

// TestDeliveryRefusesPrivateAfterResolution: an endpoint registered while
// its name resolved to a public address, whose name then resolves to
// loopback (a DNS change, or a rebinding), is refused at connection time;
// so is one written past the registration check with the name localhost.
// The receiver sees nothing and each delivery records the refusal.
func TestDeliveryRefusesPrivateAfterResolution(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.WebhookWorkers = 0 }})
	rc := newReceiver(t)
	ctx := srv.Ctx(environment.Production)
	env := srv.Env(environment.Production)
	port := rc.URL[strings.LastIndex(rc.URL, ":"):]
	var mu sync.Mutex
	names := map[string][]string{"hooks.test": {"8.8.8.8"}}
	webhooks.SetResolver(srv.App.Webhooks, func(host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		return fakeResolver(t, names)(host)
	})
	rebound := createEndpoint(t, srv, "http://hooks.test"+port+"/")
	mu.Lock()
	names["hooks.test"] = []string{"127.0.0.1"}
	mu.Unlock()
	// In a transaction, as every endpoint change (eventlog.StampEndpoints).
	tx, err := env.DB.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	local, err := tx.WebhookEndpoint.Create().SetURL("http://localhost" + port + "/").
		SetSecret(standardwebhooks.NewSecret()).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	createHub(t, srv, "SS1")
	if n, err := srv.App.Webhooks.RunOnce(ctx, env); n != 2 || err != nil {
		t.Fatalf("RunOnce = %d %v", n, err)
	}
	for _, id := range []resourceid.ID{rebound.ID, local.ID} {
		d, err := env.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(id)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.LastError, "refused destination") || d.Status != webhookdelivery.StatusPending || d.LastStatusCode != 0 {
			t.Errorf("delivery = %+v", d)
		}
	}
	if rc.requests != 0 {
		t.Errorf("the receiver got %d requests", rc.requests)
	}
}

// TestRedirectsNotFollowedBodyCapped: a 3xx is a failed attempt (the
// Location is never requested), and only the first KiB of an answer is kept.
func TestRedirectsNotFollowedBodyCapped(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { allowPrivate(c); c.WebhookWorkers = 0 }})
	target := newReceiver(t)
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(strings.Repeat("é", 1<<20)))
	}))
	t.Cleanup(big.Close)
	r1 := createEndpoint(t, srv, redirect.URL)
	r2 := createEndpoint(t, srv, big.URL)
	createHub(t, srv, "RD1")
	ctx := srv.Ctx(environment.Production)
	if n, err := srv.App.Webhooks.RunOnce(ctx, srv.Env(environment.Production)); n != 2 || err != nil {
		t.Fatalf("RunOnce = %d %v", n, err)
	}
	if ds := deliveries(t, srv, r1.ID, ""); len(ds) != 1 || ds[0].LastStatusCode != 307 || ds[0].Status != "pending" {
		t.Errorf("redirected delivery: %+v", ds)
	}
	if target.requests != 0 {
		t.Errorf("the redirect was followed")
	}
	ds := deliveries(t, srv, r2.ID, "")
	if len(ds) != 1 || ds[0].Status != "succeeded" || len(ds[0].LastResponse) > 1024 || len(ds[0].LastResponse) < 1000 {
		t.Errorf("big answer: status %s, %d bytes kept", ds[0].Status, len(ds[0].LastResponse))
	}
}

// TestWebhookScopes: webhooks:read lists, webhooks:write changes; other
// scopes do neither; reading events does not need webhooks:read.
func TestWebhookScopes(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	ctx := srv.Ctx(environment.Production)
	key := func(scopes ...string) http.Header {
		secret, _, err := srv.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "t", Environment: environment.Production, Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return apptest.Bearer(secret)
	}
	rc := newReceiver(t)
	ep := createEndpoint(t, srv, rc.URL)
	reader, writer, other := key("webhooks:read"), key("webhooks:write"), key("hubs:read", "hubs:write", "parts:read", "items:read", "orders:read", "tracking:read", "workflows:read")
	base := srv.URL + "/v1/webhook-endpoints"
	for _, c := range []struct {
		method, url string
		h           map[string][]string
		body        any
		want        int
	}{
		{"GET", base, reader, nil, 200},
		{"GET", base + "/" + string(ep.ID), reader, nil, 200},
		{"GET", base + "/" + string(ep.ID) + "/deliveries", reader, nil, 200},
		{"POST", base, reader, map[string]any{"url": rc.URL}, 403},
		{"PATCH", base + "/" + string(ep.ID), reader, map[string]any{"enabled": false}, 403},
		{"POST", base + "/" + string(ep.ID) + "/test", reader, nil, 403},
		{"POST", base + "/" + string(ep.ID) + "/rotate-secret", reader, nil, 403},
		{"GET", base, other, nil, 403},
		{"POST", base, other, map[string]any{"url": rc.URL}, 403},
		{"GET", srv.URL + "/v1/events", other, nil, 200},
		{"GET", base, writer, nil, 200}, // write implies read
		{"POST", base + "/" + string(ep.ID) + "/test", writer, nil, 202},
		{"DELETE", base + "/" + string(ep.ID), reader, nil, 403},
		{"DELETE", base + "/" + string(ep.ID), writer, nil, 204},
	} {
		if resp := srv.Do(t, c.method, c.url, c.body, c.h); resp.StatusCode != c.want {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.url, resp.StatusCode, c.want, resp.Body)
		}
	}
}

// TestRotateResendAndTest: rotation returns a new secret once and signs with
// both during the grace period; resend and the test event are delivered.
func TestRotateResendAndTest(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	rc := newReceiver(t)
	ep := createEndpoint(t, srv, rc.URL)
	resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints/"+string(ep.ID)+"/rotate-secret", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("rotate: %d %s", resp.StatusCode, resp.Body)
	}
	var rotated struct {
		Secret         string
		SecretRotating bool `json:"secret_rotating"`
	}
	resp.JSON(t, &rotated)
	if !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == ep.Secret || !rotated.SecretRotating {
		t.Fatalf("rotate answered %s", resp.Body)
	}
	rc.accept(rotated.Secret) // the receiver knows only the new secret
	resp = srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints/"+string(ep.ID)+"/test", nil, nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test: %d %s", resp.StatusCode, resp.Body)
	}
	var test struct{ ID string }
	resp.JSON(t, &test)
	waitFor(t, 10*time.Second, "the test event", func() bool { return rc.count(test.ID) == 1 })
	rc.mu.Lock()
	sig := rc.sigs[len(rc.sigs)-1]
	typ := rc.bodies[test.ID]["type"]
	rc.mu.Unlock()
	if len(strings.Fields(sig)) != 2 || typ != "webhook.test" {
		t.Errorf("during the grace period: signature %q (want two), type %v", sig, typ)
	}
	// The old secret alone verifies too (what a receiver not yet updated does).
	hubID := createHub(t, srv, "RS1")
	evID := eventOf(t, srv, "hub.created", hubID)
	waitFor(t, 10*time.Second, "the event", func() bool { return rc.count(evID) == 1 })
	resp = srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints/"+string(ep.ID)+"/resend", map[string]any{"event_id": evID}, nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("resend: %d %s", resp.StatusCode, resp.Body)
	}
	waitFor(t, 10*time.Second, "the event resent", func() bool { return rc.count(evID) == 2 })
	for _, body := range []map[string]any{{}, {"event_id": "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV"}, {"event_id": "nope"}, {"event_id": evID, "delivery_id": "whd_x"}} {
		if resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints/"+string(ep.ID)+"/resend", body, nil); resp.StatusCode != http.StatusUnprocessableEntity && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("resend %v: %d %s", body, resp.StatusCode, resp.Body)
		}
	}
	if resp := srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/whe_01ARZ3NDEKTSV4RRFFQ69G5FAV", nil, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown endpoint: %d", resp.StatusCode)
	}
}

// TestGraphQLWebhooks: the GraphQL fields call the same code: create shows
// the secret once, the endpoint reads back without it, a test event is
// delivered and listed, scopes guard every field.
func TestGraphQLWebhooks(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: allowPrivate})
	rc := newReceiver(t)
	var created struct {
		CreateWebhookEndpoint struct {
			Endpoint struct{ ID, URL string }
			Secret   string
		}
	}
	srv.MustGraphQL(t, environment.Production, `mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["hub.*"]}) { endpoint { id url } secret } }`,
		map[string]any{"url": rc.URL}, &created)
	ep := created.CreateWebhookEndpoint
	if !strings.HasPrefix(ep.Secret, "whsec_") || ep.Endpoint.URL != rc.URL {
		t.Fatalf("created %+v", ep)
	}
	rc.accept(ep.Secret)
	var test struct{ SendWebhookTestEvent struct{ ID string } }
	srv.MustGraphQL(t, environment.Production, `mutation($id: ID!) { sendWebhookTestEvent(endpointId: $id) { id } }`, map[string]any{"id": ep.Endpoint.ID}, &test)
	waitFor(t, 10*time.Second, "the test event", func() bool { return rc.count(test.SendWebhookTestEvent.ID) == 1 })
	var list struct {
		WebhookEndpoints []struct {
			ID         string
			Enabled    bool
			EventTypes []string
			Deliveries []struct {
				Status         string
				LastStatusCode int
				EventType      string
			}
		}
	}
	waitFor(t, 5*time.Second, "the delivery listed", func() bool {
		srv.MustGraphQL(t, environment.Production, `{ webhookEndpoints { id enabled eventTypes deliveries { status lastStatusCode eventType } } }`, nil, &list)
		return len(list.WebhookEndpoints) == 1 && len(list.WebhookEndpoints[0].Deliveries) == 1 && list.WebhookEndpoints[0].Deliveries[0].Status == "succeeded"
	})
	if got := list.WebhookEndpoints[0]; !got.Enabled || got.EventTypes[0] != "hub.*" || got.Deliveries[0].EventType != "webhook.test" {
		t.Errorf("listed %+v", got)
	}
	ctx := srv.Ctx(environment.Production)
	secret, _, err := srv.App.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "r", Environment: environment.Production, Scopes: []string{"hubs:read"}})
	if err != nil {
		t.Fatal(err)
	}
	resp := srv.GraphQLWith(t, environment.Production, `{ webhookEndpoints { id } }`, nil, apptest.Bearer(secret))
	if len(resp.Errors) == 0 || resp.Errors[0].Code() != "FORBIDDEN" {
		t.Errorf("without webhooks:read: %+v", resp.Errors)
	}
}
