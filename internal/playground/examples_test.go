package playground_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/demodata"
	"logistics/internal/environment"
	"logistics/internal/playground"
)

// demoServer is the service with the default demo data in its sandbox, as
// after a first `go run .`.
func demoServer(t *testing.T) *apptest.Server {
	t.Helper()
	return apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.NoDemoData = false
		c.DemoScale = app.Defaults().DemoScale
	}})
}

// TestExamplesRun executes every example query of the playground against
// the sandbox's demo data, as the playground would send it, and requires an
// answer without errors: rendered for today (the dates an analyst gets) and
// for the demo data's own "now" (demodata.Base), where each must also find
// something, so that no example is empty by construction. The subscription
// example is run over Server-Sent Events and must deliver the exception
// that a tracking entry recorded after it started.
func TestExamplesRun(t *testing.T) {
	srv := demoServer(t)
	today, err := playground.Examples(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(today) < 4 {
		t.Fatalf("only %d examples", len(today))
	}
	demo, err := playground.Examples(demodata.Base.Add(24 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for i, ex := range today {
		if isSubscription(ex.Query) {
			runSubscription(t, srv, ex)
			continue
		}
		for _, run := range []struct {
			when      string
			ex        playground.Example
			wantFound bool
		}{{"today", ex, false}, {"demo data's now", demo[i], true}} {
			data := runQuery(t, srv, run.ex)
			if run.wantFound && !found(data) {
				t.Errorf("%s (%s): found nothing in the demo data: %s", ex.Name, run.when, data)
			}
		}
	}
}

func isSubscription(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			return strings.HasPrefix(line, "subscription")
		}
	}
	return false
}

func variables(t *testing.T, ex playground.Example) map[string]any {
	t.Helper()
	vars := map[string]any{}
	if ex.Variables != "" {
		if err := json.Unmarshal([]byte(ex.Variables), &vars); err != nil {
			t.Fatalf("%s: variables: %v", ex.Name, err)
		}
	}
	return vars
}

func runQuery(t *testing.T, srv *apptest.Server, ex playground.Example) json.RawMessage {
	t.Helper()
	r := srv.GraphQL(t, environment.Sandbox, ex.Query, variables(t, ex))
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Errorf("%s: %d %+v\n%s", ex.Name, r.Status, r.Errors, ex.Query)
	}
	return r.Data
}

// found reports whether data holds a non-zero totalCount or a non-empty
// list.
func found(data json.RawMessage) bool {
	var v any
	_ = json.Unmarshal(data, &v)
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			if n, ok := v["totalCount"].(float64); ok && n > 0 {
				return true
			}
			for _, e := range v {
				if walk(e) {
					return true
				}
			}
		case []any:
			return len(v) > 0
		}
		return false
	}
	return walk(v)
}

// runSubscription starts the example over Server-Sent Events, records a
// tracking exception and requires the example to deliver it.
func runSubscription(t *testing.T, srv *apptest.Server, ex playground.Example) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"query": ex.Query, "variables": variables(t, ex)})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.SandboxURL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+srv.Keys[environment.Sandbox])
	resp, err := srv.Client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", ex.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", ex.Name, resp.StatusCode)
	}
	time.Sleep(300 * time.Millisecond) // subscribed

	var orders struct {
		Orders struct {
			Edges []struct{ Node struct{ ID string } }
		}
	}
	srv.MustGraphQL(t, environment.Sandbox, `{ orders(first: 1, where: {status: "shipped"}) { edges { node { id } } } }`, nil, &orders)
	if len(orders.Orders.Edges) == 0 {
		t.Fatal("no shipped order in the demo data")
	}
	srv.MustGraphQL(t, environment.Sandbox, `mutation($o: ID!) { createTrackingEntry(input: {orderID: $o, trackingNumber: "EX-1", carrier: "DHL", status: exception, description: "Parcel damaged"}) { id } }`,
		map[string]any{"o": orders.Orders.Edges[0].Node.ID}, nil)

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var event string
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || event != "next" {
			continue
		}
		var msg struct {
			Data   json.RawMessage
			Errors []any
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil || len(msg.Errors) > 0 {
			t.Fatalf("%s: %s", ex.Name, data)
		}
		if !strings.Contains(string(msg.Data), `"trackingNumber":"EX-1"`) {
			t.Fatalf("%s delivered %s", ex.Name, msg.Data)
		}
		return
	}
	t.Fatalf("%s: the stream ended without the exception (%v)", ex.Name, sc.Err())
}
