package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

const streamHubMutation = `mutation($in: CreateHubInput!) { createHub(input: $in) { id code } }`

func streamHubInput(code string) map[string]any {
	return map[string]any{"in": map[string]any{"code": code, "name": "Stream hub", "city": "Utrecht", "country": "NL", "timezone": "Europe/Amsterdam"}}
}

// TestMutationOverStreamsRefused: a mutation sent over a WebSocket
// (graphql-transport-ws) or as a GraphQL-over-SSE request is refused before
// it executes — one error (METHOD_NOT_ALLOWED: mutations go over HTTP
// POST), nothing written, no panic — for a key with the write scope and for
// one without. Before, it committed and then answered a panic (entgql's
// Transactioner was called again for a second response), so a client that
// retried on the error wrote twice. The same mutation over HTTP POST runs.
func TestMutationOverStreamsRefused(t *testing.T) {
	logs := &apptest.LockedBuffer{}
	srv := apptest.New(t, apptest.Options{Log: logs})
	env := environment.Production
	readOnly, _ := keyWith(t, srv, env, "hubs:read")
	hubs := func() int {
		n, err := srv.Env(env).DB.Client.Hub.Query().Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	checkRefusal := func(t *testing.T, how string, payload []byte) {
		t.Helper()
		var p struct {
			Errors []struct {
				Message    string
				Extensions map[string]any
			}
			Data json.RawMessage
		}
		// A WebSocket error message's payload is the list itself.
		if bytes.HasPrefix(bytes.TrimSpace(payload), []byte("[")) {
			if err := json.Unmarshal(payload, &p.Errors); err != nil {
				t.Fatalf("%s: %s", how, payload)
			}
		} else if err := json.Unmarshal(payload, &p); err != nil {
			t.Fatalf("%s: %s", how, payload)
		}
		if len(p.Errors) != 1 || p.Errors[0].Extensions["reason"] != "METHOD_NOT_ALLOWED" ||
			!strings.Contains(p.Errors[0].Message, "HTTP POST") || len(p.Data) > 0 && string(p.Data) != "null" {
			t.Fatalf("%s: got %s, want one METHOD_NOT_ALLOWED error naming HTTP POST and no data", how, payload)
		}
	}

	for _, k := range []struct{ name, key string }{{"write key", srv.Keys[env]}, {"read-only key", readOnly}} {
		t.Run("websocket "+k.name, func(t *testing.T) {
			before := hubs()
			w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + k.key})
			w.send(wsMsg{ID: "m", Type: "subscribe", Payload: mustJSON(map[string]any{"query": streamHubMutation, "variables": streamHubInput("WS" + strings.ToUpper(k.name[:1]))})})
			m, err := w.read(10 * time.Second)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if m.Type != "error" || m.ID != "m" {
				t.Fatalf("got %s (id %s) %s, want one error message for m", m.Type, m.ID, m.Payload)
			}
			checkRefusal(t, "websocket", m.Payload)
			// Nothing else for m (the error ends it), and the connection
			// still serves: a query on it answers.
			w.send(wsMsg{ID: "q", Type: "subscribe", Payload: mustJSON(map[string]any{"query": `{ hubs(first: 1) { totalCount } }`})})
			for {
				m, err := w.read(10 * time.Second)
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				if m.ID == "m" {
					t.Fatalf("a second message for the refused mutation: %s %s", m.Type, m.Payload)
				}
				if m.ID == "q" && m.Type == "complete" {
					break
				}
				if m.ID == "q" && m.Type != "next" {
					t.Fatalf("query over the WebSocket: %s %s", m.Type, m.Payload)
				}
			}
			if n := hubs(); n != before {
				t.Fatalf("hubs: %d after the mutation over the WebSocket, want %d", n, before)
			}
		})
		t.Run("sse "+k.name, func(t *testing.T) {
			before := hubs()
			body, _ := json.Marshal(map[string]any{"query": streamHubMutation, "variables": streamHubInput("SS" + strings.ToUpper(k.name[:1]))})
			req, _ := http.NewRequest(http.MethodPost, srv.Base(env)+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Authorization", "Bearer "+k.key)
			resp, err := srv.Client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var events []string
			var data string
			for _, l := range strings.Split(string(raw), "\n") {
				switch {
				case strings.HasPrefix(l, "event: "):
					events = append(events, l[7:])
				case strings.HasPrefix(l, "data: ") && len(events) == 1:
					data = l[6:]
				}
			}
			if strings.Join(events, ",") != "next,complete" {
				t.Fatalf("sse: %d %s, want one next (the error) and complete", resp.StatusCode, raw)
			}
			checkRefusal(t, "sse", []byte(data))
			if n := hubs(); n != before {
				t.Fatalf("hubs: %d after the mutation over SSE, want %d", n, before)
			}
		})
	}
	// A document that fails validation is an error message too, alone.
	w := dialWS(t, srv, env, nil, map[string]any{"Authorization": "Bearer " + srv.Keys[env]})
	w.subscribe("v", `subscription { nope }`, nil)
	w.send(wsMsg{ID: "q", Type: "subscribe", Payload: mustJSON(map[string]any{"query": `{ hubs(first: 1) { totalCount } }`})})
	var got []string
	for len(got) == 0 || got[len(got)-1] != "q complete" {
		m, err := w.read(10 * time.Second)
		if err != nil {
			t.Fatalf("read: %v (so far %v)", err, got)
		}
		got = append(got, m.ID+" "+m.Type)
		if m.ID == "v" && !strings.Contains(string(m.Payload), "GRAPHQL_VALIDATION_FAILED") {
			t.Fatalf("invalid subscription: %s %s", m.Type, m.Payload)
		}
	}
	if strings.Join(got, ",") != "v error,q next,q complete" {
		t.Fatalf("messages %v, want v error (alone), q next, q complete", got)
	}

	// Over HTTP POST the mutation runs, once.
	before := hubs()
	var out map[string]any
	srv.MustGraphQL(t, env, streamHubMutation, streamHubInput("HTTP1"), &out)
	if n := hubs(); n != before+1 {
		t.Fatalf("hubs: %d after the mutation over HTTP, want %d", n, before+1)
	}

	// A fetch client ready for either answer (urql's Accept, JSON first)
	// gets one JSON answer from the POST transport, and the mutation runs
	// once; so does one that ranks JSON above the stream by q.
	for i, accept := range []string{
		"application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed",
		"text/event-stream;q=0.5, application/json",
	} {
		before := hubs()
		body, _ := json.Marshal(map[string]any{"query": streamHubMutation, "variables": streamHubInput("FETCH" + string(rune('A'+i)))})
		req, _ := http.NewRequest(http.MethodPost, srv.Base(env)+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		req.Header.Set("Authorization", "Bearer "+srv.Keys[env])
		resp, err := srv.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "json") ||
			!strings.Contains(string(raw), `"createHub"`) || strings.Contains(string(raw), `"errors"`) {
			t.Fatalf("Accept %q: %d %s %s, want one JSON answer with the hub", accept, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
		}
		if n := hubs(); n != before+1 {
			t.Fatalf("Accept %q: hubs %d, want %d", accept, n, before+1)
		}
	}
	time.Sleep(100 * time.Millisecond) // let the streams' goroutines log
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "panic") {
			t.Fatalf("the server logged a panic: %.400s", l)
		}
	}
}
