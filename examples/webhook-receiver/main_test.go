package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
)

// TestExampleReceiver runs the example against the real service: it
// receives and verifies a hub.created webhook and the test event, refuses an
// unsigned request, and handles a resent event once.
func TestExampleReceiver(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) {
		c.WebhookAllowPrivate = true
		c.WebhookPoll = 100 * time.Millisecond
	}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/webhooks"
	resp := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints", map[string]any{"url": url}, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create endpoint: %d %s", resp.StatusCode, resp.Body)
	}
	var ep struct{ ID, Secret string }
	resp.JSON(t, &ep)
	out := &apptest.LockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, newReceiver(ep.Secret, out)) }()
	t.Cleanup(func() { cancel(); <-done })

	if r := srv.Do(t, "POST", srv.URL+"/v1/hubs", map[string]any{"code": "EX1", "name": "Example", "address": map[string]any{"country": "NL"}}, nil); r.StatusCode != http.StatusCreated {
		t.Fatalf("create hub: %d %s", r.StatusCode, r.Body)
	}
	if r := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints/"+ep.ID+"/test", nil, nil); r.StatusCode != http.StatusAccepted {
		t.Fatalf("test event: %d %s", r.StatusCode, r.Body)
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; receiver printed:\n%s", what, out)
			}
		}
	}
	wait("both events", func() bool {
		return strings.Contains(out.String(), "hub.created ") && strings.Contains(out.String(), "webhook.test ")
	})
	// Resend the hub event: delivered again, handled once.
	var list struct {
		Data []struct {
			ID        string `json:"id"`
			EventType string `json:"event_type"`
		}
	}
	// The receiver prints an event before the dispatcher records its
	// delivery as succeeded: wait for the record too.
	var hubDelivery string
	wait("the hub delivery recorded", func() bool {
		srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/"+ep.ID+"/deliveries?status=succeeded", nil, nil).JSON(t, &list)
		for _, d := range list.Data {
			if d.EventType == "hub.created" {
				hubDelivery = d.ID
			}
		}
		return hubDelivery != ""
	})
	if r := srv.Do(t, "POST", srv.URL+"/v1/webhook-endpoints/"+ep.ID+"/resend", map[string]any{"delivery_id": hubDelivery}, nil); r.StatusCode != http.StatusAccepted {
		t.Fatalf("resend: %d %s", r.StatusCode, r.Body)
	}
	wait("the resend answered", func() bool {
		var l struct{ Data []struct{ Status string } }
		srv.Do(t, "GET", srv.URL+"/v1/webhook-endpoints/"+ep.ID+"/deliveries?status=succeeded", nil, nil).JSON(t, &l)
		return len(l.Data) == 3
	})
	if n := strings.Count(out.String(), "hub.created "); n != 1 {
		t.Errorf("hub.created handled %d times:\n%s", n, out)
	}
	// An unsigned request is refused.
	r, err := http.Post(url, "application/json", strings.NewReader(`{"type":"order.created"}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned request: %d", r.StatusCode)
	}
}
