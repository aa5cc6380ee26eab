package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

const sampleWrk = `Running 2s test @ http://127.0.0.1:39459
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   132.78ms  146.59ms 758.55ms   85.16%
    Req/Sec    65.77     47.70   191.00     71.79%
  Latency Distribution
     50%  812.00us
     75%  195.93ms
     90%  330.68ms
     99%    1.20s
  260 requests in 2.04s, 4.55MB read
  Non-2xx or 3xx responses: 7
  Socket errors: connect 0, read 1, write 0, timeout 2
Requests/sec:    127.48
Transfer/sec:      2.23MB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(sampleWrk)
	if err != nil {
		t.Fatal(err)
	}
	if r.RPS != 127.48 || r.Requests != 260 || r.P50 != 812*time.Microsecond || r.P99 != 1200*time.Millisecond || r.Non2xx != 7 || r.SocketErr != 3 {
		t.Fatalf("parsed %+v", r)
	}
	if _, err := parseWrk("unable to connect to 127.0.0.1:1 Connection refused"); err == nil {
		t.Fatal("no error for a failed run")
	}
}

func TestLuaScript(t *testing.T) {
	s := luaScript(request{Method: "POST", Path: "/sandbox/v1/items?quantity>100&hub[]=AMS1", Body: []byte("{\"q\":\"a\\\"b\"}\n"),
		Header: http.Header{"Authorization": {"Bearer k"}}})
	for _, want := range []string{
		`wrk.method = "POST"`,
		`wrk.path = "/sandbox/v1/items?quantity>100&hub[]=AMS1"`,
		`wrk.headers["Authorization"] = "Bearer k"`,
		`wrk.body = "{\"q\":\"a\\\"b\"}\n"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %s:\n%s", want, s)
		}
	}
}

// TestFloorMatchesGraphQL checks on a tiny dataset (SQLite, or PostgreSQL
// under LOGISTICS_TEST_POSTGRES) that the floor's hand-written SQL answers
// each workload with the same rows as GraphQL, and that W3 keeps the 3
// latest tracking entries.
func TestFloorMatchesGraphQL(t *testing.T) {
	srv := apptest.New(t)
	env := srv.Env(environment.Sandbox)
	seeded, err := devSeed(srv.Ctx(environment.Sandbox), srv.App.Service, testSize)
	if err != nil {
		t.Fatal(err)
	}
	fl := newFloor(env.DB.SQL, env.DB.Dialect).Handler()
	for _, w := range workloads {
		for _, limit := range []int{5, 50} {
			gq := buildRequest(w, ifGraphQL, "", limit, nil, "")
			var vars map[string]any
			var body struct {
				Query     string         `json:"query"`
				Variables map[string]any `json:"variables"`
			}
			if err := json.Unmarshal(gq.Body, &body); err != nil {
				t.Fatal(err)
			}
			vars = body.Variables
			r := srv.GraphQL(t, environment.Sandbox, body.Query, vars)
			if len(r.Errors) > 0 {
				t.Fatalf("%s graphql: %+v", w.Name, r.Errors)
			}
			want, err := resultIDs(w, ifGraphQL, []byte(`{"data":`+string(r.Data)+`}`))
			if err != nil {
				t.Fatal(err)
			}
			var pi map[string]struct{ PageInfo struct{ HasNextPage bool } }
			if err := json.Unmarshal(r.Data, &pi); err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("%s: GraphQL returned no rows: the dataset does not exercise the workload", w.Name)
			}

			fr := buildRequest(w, ifFloor, "", limit, nil, "")
			rec := httptest.NewRecorder()
			fl.ServeHTTP(rec, httptest.NewRequest(fr.Method, fr.Path, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s floor: HTTP %d: %s", w.Name, rec.Code, rec.Body)
			}
			got, err := resultIDs(w, ifFloor, rec.Body.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s limit %d: floor ids %v, GraphQL ids %v", w.Name, limit, got, want)
			}
			var page struct {
				HasMore    bool    `json:"has_more"`
				NextCursor *string `json:"next_cursor"`
				Data       []struct {
					Lines           []json.RawMessage `json:"lines"`
					TrackingEntries []struct {
						OccurredAt time.Time `json:"occurred_at"`
					} `json:"tracking_entries"`
				} `json:"data"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
				t.Fatal(err)
			}
			if page.HasMore != pi[w.Root].PageInfo.HasNextPage || (page.NextCursor != nil) != page.HasMore || (seeded && page.HasMore != (limit == 5)) {
				t.Errorf("%s limit %d: has_more %v, next_cursor %v", w.Name, limit, page.HasMore, page.NextCursor)
			}
			if w.Name == "W3" {
				for i, o := range page.Data {
					if seeded && (len(o.Lines) == 0 || len(o.TrackingEntries) == 0) || len(o.TrackingEntries) > 3 {
						t.Errorf("W3 order %d: %d lines, %d tracking entries", i, len(o.Lines), len(o.TrackingEntries))
					}
					if !slices.IsSortedFunc(o.TrackingEntries, func(a, b struct {
						OccurredAt time.Time `json:"occurred_at"`
					}) int {
						return b.OccurredAt.Compare(a.OccurredAt)
					}) {
						t.Errorf("W3 order %d: tracking entries not latest first", i)
					}
				}
			}
		}
	}
}

// With several rounds the report takes, per row, the round with the median
// req/s, and compares with the floor round by round.
func TestRoundsMedian(t *testing.T) {
	var x, fl cell
	for _, rps := range [][2]float64{{70, 100}, {90, 100}, {60, 120}} {
		x.add(&wrkResult{RPS: rps[0]}, 10)
		fl.add(&wrkResult{RPS: rps[1]}, 5)
	}
	if x.Load.RPS != 70 || fl.Load.RPS != 100 || x.PeakRSS != 10 {
		t.Errorf("median round %v, floor %v, RSS %d", x.Load.RPS, fl.Load.RPS, x.PeakRSS)
	}
	med, lo, hi, ok := x.rpsRatio(&fl)
	if !ok || med != 0.7 || lo != 0.5 || hi != 0.9 {
		t.Errorf("ratios %v %v %v %v, want 0.7 (0.5–0.9)", med, lo, hi, ok)
	}
	if _, _, _, ok := x.rpsRatio(nil); ok {
		t.Error("a ratio without a floor")
	}
}
