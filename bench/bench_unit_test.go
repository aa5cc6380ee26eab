package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/internal/app"
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
bench-p999-us 1834000
bench-outcomes ok 250 conflict 6 error 4
bench-first-failure 503 {"error":{"code":"database_busy"}}
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(sampleWrk)
	if err != nil {
		t.Fatal(err)
	}
	if r.RPS != 127.48 || r.Requests != 260 || r.P50 != 812*time.Microsecond || r.P99 != 1200*time.Millisecond || r.Non2xx != 7 || r.SocketErr != 3 {
		t.Fatalf("parsed %+v", r)
	}
	if r.FirstFailure != `503 {"error":{"code":"database_busy"}}` {
		t.Fatalf("first failure %q", r.FirstFailure)
	}
	if r.P999 != 1834*time.Millisecond || !r.Counted || r.OK != 250 || r.Conflicts != 6 || r.Failures != 4 {
		t.Fatalf("p999 and outcomes: %+v", r)
	}
	// A write script counts its own failures: the 6 expected conflicts (part
	// of the 7 non-2xx) do not count, the 4 failures and 3 socket errors do.
	if n := r.errorCount(); n != 7 {
		t.Errorf("errorCount %d, want 7", n)
	}
	r.Counted = false
	if n := r.errorCount(); n != 10 {
		t.Errorf("errorCount of a read script %d, want 10 (non-2xx + socket errors)", n)
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
// each read workload (W1–W3, W3s) with the same rows as GraphQL, and that
// W3 and W3s keep the 3 latest tracking entries.
func TestFloorMatchesGraphQL(t *testing.T) {
	srv := apptest.New(t)
	env := srv.Env(environment.Sandbox)
	seeded, err := devSeed(srv.Ctx(environment.Sandbox), srv.App.Service, testSize)
	if err != nil {
		t.Fatal(err)
	}
	fl := newFloor(env.DB).Handler()
	for _, w := range workloads {
		if w.Ops != nil {
			continue // W4–W6: TestOpsParity
		}
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
			if w.Name == "W3" || w.Name == "W3s" {
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

// Latency ratios are taken round by round like req/s, and their median is
// reported; with an even number of rounds the median is the mean of the two
// middle ratios; rounds without a p999 are left out.
func TestLatencyRatiosMedian(t *testing.T) {
	ms := time.Millisecond
	var x, fl cell
	for _, r := range []struct{ p99, p999, fp99, fp999 time.Duration }{
		{4 * ms, 10 * ms, 2 * ms, 5 * ms},  // 2×, 2×
		{3 * ms, 30 * ms, 3 * ms, 10 * ms}, // 1×, 3×
		{8 * ms, 0, 2 * ms, 4 * ms},        // 4×, no p999
		{6 * ms, 40 * ms, 2 * ms, 10 * ms}, // 3×, 4×
	} {
		x.add(&wrkResult{RPS: 1, P99: r.p99, P999: r.p999}, 0)
		fl.add(&wrkResult{RPS: 1, P99: r.fp99, P999: r.fp999}, 0)
	}
	if med, lo, hi, ok := x.ratioTo(&fl, p99Of); !ok || med != 2.5 || lo != 1 || hi != 4 {
		t.Errorf("p99 ratio %v (%v–%v) %v, want 2.5 (1–4)", med, lo, hi, ok)
	}
	// p999 of round 3 is 0 on the interface's side: 0/4 = 0 is a ratio (the
	// floor has one); only a floor without p999 is left out.
	if med, lo, hi, ok := x.ratioTo(&fl, p999Of); !ok || med != 2.5 || lo != 0 || hi != 4 {
		t.Errorf("p999 ratio %v (%v–%v) %v, want 2.5 (0–4)", med, lo, hi, ok)
	}
	fl.Rounds[0].P999 = 0
	if med, _, _, _ := x.ratioTo(&fl, p999Of); med != 3 {
		t.Errorf("p999 ratio without the floor's first round %v, want 3 (0, 3, 4)", med)
	}
	rep := &report{Config: &config{Workloads: []string{"W1"}, Rounds: 4}, Cells: map[string]*cell{"W1/rest": &x, "W1/floor": &fl}}
	if got := rep.targets("W1", ifREST, &x, &fl); !strings.Contains(got, "p99 2.50× > 2×") {
		t.Errorf("targets %q: want the p99 target missed", got)
	}
	md := rep.markdown()
	if !strings.Contains(md, "| W1 | rest | 1 | 1.00× (1.00–1.00) |") || !strings.Contains(md, "2.50× (1.00–4.00)") {
		t.Errorf("report:\n%s", md)
	}
}

// Both interfaces are compared with the floor of the named fields; when
// floor-rest (REST's document by hand) was measured, it is a row of its
// own and the notes give REST against it.
func TestRESTFloorReported(t *testing.T) {
	mk := func(rps float64, p99 time.Duration) *cell {
		var x cell
		x.add(&wrkResult{RPS: rps, P99: p99}, 0)
		return &x
	}
	ms := time.Millisecond
	cells := map[string]*cell{
		"W3/rest": mk(70, 30*ms), "W3/graphql": mk(75, 20*ms), "W3/floor": mk(100, 10*ms), "W3/floor-rest": mk(56, 20*ms),
		"W1/rest": mk(70, 10*ms), "W1/floor": mk(100, 10*ms),
	}
	rep := &report{Config: &config{Workloads: []string{"W3", "W1"}, Rounds: 1}, Cells: cells}
	if rep.yardstick("W3", ifREST) != cells["W3/floor"] || rep.yardstick("W3", ifGraphQL) != cells["W3/floor"] || rep.yardstick("W3", ifFloorREST) != nil {
		t.Error("yardsticks: the floor for both interfaces, none for a floor")
	}
	md := rep.markdown()
	for _, want := range []string{
		"| W3 | rest | 70 | 0.70× |",    // 70/100, not 70/56
		"| W3 | graphql | 75 | 0.75× |", // 75/100
		"| W3 | floor-rest | 56 |  |",   // no ratio of its own
		"(for comparison: REST's document by hand)",
		"**missed**: req/s 0.70× < 0.8×; p99 3.00× > 2×",
		"W3 rest against floor-rest (its own whole document, by hand): req/s 1.25×",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "W1 rest against floor-rest") {
		t.Errorf("W1 has no floor-rest row, yet a note:\n%s", md)
	}
	// Operation workloads have no floor-rest; W3s has.
	if workloadByName("W4").serves(ifFloorREST) || !workloadByName("W3s").serves(ifFloorREST) || !workloadByName("W4").serves(ifFloor) {
		t.Error("serves")
	}
}

// The floor runs at the server's collector setting unless --floor-gc
// go-default; GOGC/GOMEMLIMIT in the environment win for both.
func TestFloorGC(t *testing.T) {
	cfg := app.Defaults()
	none := func(string) string { return "" }
	env, desc := floorGC(floorGCServer, cfg, none)
	if !slices.Equal(env, []string{"GOGC=400", "GOMEMLIMIT=1024MiB"}) || !strings.Contains(desc, "server GOGC=400 (--gc-percent), GOMEMLIMIT=1024MiB") || !strings.Contains(desc, "floor the same") {
		t.Errorf("server mode: %v, %q", env, desc)
	}
	cfg.GCPercent, cfg.MemoryLimit = 200, 0
	if env, _ := floorGC(floorGCServer, cfg, none); !slices.Equal(env, []string{"GOGC=200"}) {
		t.Errorf("--gc-percent 200, no limit: %v", env)
	}
	env, desc = floorGC(floorGCDefault, app.Defaults(), none)
	if env != nil || !strings.Contains(desc, "floor GOGC=100 (Go's default), no memory limit") || !strings.Contains(desc, "server GOGC=400") {
		t.Errorf("go-default: %v, %q", env, desc)
	}
	fromEnv := func(k string) string { return map[string]string{"GOGC": "150"}[k] }
	env, desc = floorGC(floorGCServer, app.Defaults(), fromEnv)
	if !slices.Equal(env, []string{"GOMEMLIMIT=1024MiB"}) || !strings.Contains(desc, "server GOGC=150 (environment)") {
		t.Errorf("GOGC in the environment: %v, %q", env, desc)
	}
	if _, err := parseFlags([]string{"--floor-gc", "off"}, io.Discard); err == nil {
		t.Error("--floor-gc off accepted")
	}
	c, err := parseFlags([]string{"--workloads", "w3s,W1"}, io.Discard)
	if err != nil || !slices.Equal(c.Workloads, []string{"W3s", "W1"}) || c.FloorGC != floorGCServer {
		t.Errorf("flags: %+v, %v", c, err)
	}
}

// statCPU reads utime and stime (fields 14 and 15) after the command name,
// which may hold spaces and parentheses; CPU per request divides by the
// run's requests and is 0 when either is unknown.
func TestStatCPU(t *testing.T) {
	stat := "4242 (logi (x) y) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 9 0 100 1000 200 18446744073709551615"
	got, err := statCPU(stat)
	if err != nil || got != 3250*time.Millisecond {
		t.Fatalf("statCPU = %v, %v; want 3.25s (325 ticks)", got, err)
	}
	if _, err := statCPU("4242 (short) S 1 2"); err == nil {
		t.Fatal("a short stat line parsed")
	}
	w := &wrkResult{Requests: 1000, CPU: 500 * time.Millisecond}
	if c := w.cpuPerRequest(); c < 0.000499 || c > 0.000501 {
		t.Fatalf("cpuPerRequest = %v, want 500 µs", c)
	}
	if c := (&wrkResult{Requests: 10}).cpuPerRequest(); c != 0 {
		t.Fatalf("unknown CPU: %v, want 0", c)
	}
	if s := fmtCPU(0.000123); s != "123 µs" {
		t.Fatalf("fmtCPU = %q", s)
	}
}

// The server's memory figures come from its /metrics: unlabelled values,
// written by strconv's 'g' format; a missing metric reads 0.
func TestMetricValue(t *testing.T) {
	body := []byte("# HELP go_memstats_sys_bytes Bytes obtained from the OS.\n# TYPE go_memstats_sys_bytes gauge\n" +
		"go_memstats_sys_bytes 8.6257928e+07\n" +
		"logistics_sqlite_memory_highwater_bytes_total{environment=\"sandbox\"} 5\n" +
		"logistics_sqlite_memory_highwater_bytes 17501888\n")
	for name, want := range map[string]int64{
		"go_memstats_sys_bytes":                   86257928,
		"logistics_sqlite_memory_highwater_bytes": 17501888,
		"logistics_sqlite_memory_bytes":           0,
		"go_memstats":                             0,
	} {
		if got := metricValue(body, name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}

// A row's peak RSS is the highest round's, and its Go/SQLite breakdown is
// that round's (not another round's larger SQLite figure); the floor's has
// none. CPU/request is the median round's CPU over its requests.
func TestPeakRSSBreakdown(t *testing.T) {
	var x, fl cell
	for _, r := range []struct {
		rss, goSys, sqlite int64
		cpu                time.Duration
	}{
		{100 << 20, 50 << 20, 60 << 20, 900 * time.Millisecond},
		{150 << 20, 60 << 20, 40 << 20, time.Second},
		{120 << 20, 55 << 20, 10 << 20, 1100 * time.Millisecond},
	} {
		x.add(&wrkResult{RPS: float64(r.rss >> 20), Requests: 1000, CPU: r.cpu, GoSys: r.goSys, SQLiteHighwater: r.sqlite}, r.rss)
		fl.add(&wrkResult{RPS: 200, Requests: 2000, CPU: time.Second}, 90<<20)
	}
	if x.PeakRSS != 150<<20 || x.PeakGoSys != 60<<20 || x.PeakSQLite != 40<<20 {
		t.Errorf("peak %d (Go %d, SQLite %d), want the second round's", x.PeakRSS, x.PeakGoSys, x.PeakSQLite)
	}
	md := (&report{Config: &config{Workloads: []string{"W1"}, Rounds: 3}, Cells: map[string]*cell{"W1/rest": &x, "W1/floor": &fl}}).markdown()
	// The median round by req/s is the third (120): 1.1 s over 1,000
	// requests; the ratio is the median of the rounds' (0.9, 1.0, 1.1 ms
	// against the floor's 0.5 ms).
	for _, want := range []string{"| 150 MiB (Go 60, SQLite 40) |", "| 90 MiB |", "| 1100 µs | 2.00× (1.80–2.20) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestDollarPlaceholders: ? becomes $1, $2, … in order, the same text
// again gives the same answer (from the cache), and a text without ? is
// itself.
func TestDollarPlaceholders(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT a FROM t WHERE id IN (?,?,?) AND s = ?": "SELECT a FROM t WHERE id IN ($1,$2,$3) AND s = $4",
		"SELECT 1":                        "SELECT 1",
		"UPDATE t SET é = ? WHERE id = ?": "UPDATE t SET é = $1 WHERE id = $2",
	} {
		for range 2 {
			if got := dollarPlaceholders(q); got != want {
				t.Errorf("%q → %q, want %q", q, got, want)
			}
		}
	}
}

func BenchmarkDollarPlaceholders(b *testing.B) {
	q := "SELECT o.id, o.number, o.status, h.code, o.customer_ref, o.priority, o.due_at, o.created_at, o.updated_at FROM orders o JOIN hubs h ON h.id = o.hub_id WHERE o.id = ?"
	b.Run("rewrite", func(b *testing.B) {
		for b.Loop() {
			_ = rewriteDollars(q)
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			_ = dollarPlaceholders(q)
		}
	})
}

func TestCallgrindCounts(t *testing.T) {
	// A dump with cache simulation (callgrind leaves trailing zero totals
	// out) and one without.
	sim := "version: 1\ncreator: callgrind-3.19.0\ncmd: logistics serve\npart: 1\n\ndesc: I1 cache: 32768 B, 64 B, 8-way associative\n" +
		"events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\nfl=(1) x.go\nfn=(1) main\n0 5 1 1\n\ntotals: 560619093 139575123 80878043 5739798 1788876 820426 29701 144393\n"
	ev, err := parseCallgrindTotals(sim)
	if err != nil {
		t.Fatal(err)
	}
	if ev["Ir"] != 560619093 || ev["DLmr"] != 144393 || ev["DLmw"] != 0 || len(ev) != 9 {
		t.Fatalf("events %v", ev)
	}
	n := &callgrindCount{Requests: 60, Events: ev}
	if ir, ok := n.per("Ir"); !ok || ir != 560619093.0/60 {
		t.Fatalf("Ir/request %v %v", ir, ok)
	}
	if ll, ok := n.lastLevelMisses(); !ok || ll != (29701.0+144393)/60 {
		t.Fatalf("LL misses/request %v %v", ll, ok)
	}
	plain, err := parseCallgrindTotals("events: Ir\nsummary: 1700\n")
	if err != nil || plain["Ir"] != 1700 {
		t.Fatalf("summary only: %v %v", plain, err)
	}
	if _, ok := (&callgrindCount{Requests: 10, Events: plain}).lastLevelMisses(); ok {
		t.Fatal("last-level misses without a cache simulation")
	}
	if _, ok := (*callgrindCount)(nil).per("Ir"); ok {
		t.Fatal("a cell that was not counted has a count")
	}
	for _, bad := range []string{"", "events: Ir\n", "totals: 5\n", "events: Ir\ntotals: 1 2\n", "events: Ir Dr\ntotals: 1 x\n"} {
		if _, err := parseCallgrindTotals(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	vg, args := callgrindCommand([]string{"--cache-sim=yes"}, "/out/w3-rest.callgrind", "/bin/logistics", []string{"serve", "--addr", "{addr}"})
	if vg != "valgrind" || strings.Join(args, " ") != "--tool=callgrind --instr-atstart=no --callgrind-out-file=/out/w3-rest.callgrind --cache-sim=yes /bin/logistics serve --addr {addr}" {
		t.Fatalf("command %s %q", vg, args)
	}
	for _, bad := range [][]string{{"--callgrind", "-1"}, {"--callgrind-args", "--cache-sim=yes"}, {"--callgrind", "100001"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	c, err := parseFlags([]string{"--callgrind", "50", "--callgrind-args", "--cache-sim=yes", "--workloads", "W3"}, io.Discard)
	if err != nil || c.Callgrind != 50 {
		t.Fatalf("%v %v", c, err)
	}
	// The report's table: per request, and as a ratio to the floor's.
	fl := &cell{Counted: &callgrindCount{Requests: 50, Events: map[string]int64{"Ir": 400e6, "ILmr": 0, "DLmr": 1000, "DLmw": 4000}}}
	rest := &cell{Counted: &callgrindCount{Requests: 50, Events: map[string]int64{"Ir": 460e6, "ILmr": 500, "DLmr": 2500, "DLmw": 7000}}}
	md := (&report{Config: c, Cells: map[string]*cell{"W3/rest": rest, "W3/floor": fl, "W3/graphql": {Skip: "error"}}}).markdown()
	for _, want := range []string{"| W3 | rest | 9.20 M | 1.15× | 200 | 2.00× |", "| W3 | floor | 8.00 M |  | 100 |  |", "valgrind --cache-sim=yes", "- load: none"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestRESTFloorMatchesREST checks that the floor of REST's document
// (floor-rest) answers each page read with REST's document: the same data,
// field for field, and the same has_more, at both page sizes, with the
// optional fields both set and unset (an entry's hub, an item's expiry, an
// order's due date and address).
func TestRESTFloorMatchesREST(t *testing.T) {
	srv := apptest.New(t)
	ctx := srv.Ctx(environment.Sandbox)
	if _, err := devSeed(ctx, srv.App.Service, testSize); err != nil {
		t.Fatal(err)
	}
	c := ent.FromContext(ctx)
	ams, err := c.Hub.Query().Where(hub.Code("AMS1")).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
	for _, st := range []string{"open", "shipped"} {
		o, err := c.Order.Query().Where(order.Status(st)).Order(ent.Asc(order.FieldID)).First(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Update().SetDueAt(due).SetShipToName("Åsa <Lund> & Co").SetShipToCountry("NO").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TrackingEntry.Update().Where(trackingentry.OrderID(o.ID)).SetHubID(ams.ID).SetDescription("at the hub").Save(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Item.Update().Where(item.HubID(ams.ID)).SetExpiresAt(due).Save(ctx); err != nil {
		t.Fatal(err)
	}
	fl := newFloor(srv.Env(environment.Sandbox).DB).Handler()
	for _, w := range workloads {
		if !w.serves(ifFloorREST) {
			continue
		}
		for _, limit := range []int{5, 50} {
			rr := buildRequest(w, ifREST, "", limit, nil, "")
			rest := srv.Do(t, rr.Method, srv.SandboxURL+rr.Path, nil, rr.Header)
			if rest.StatusCode != http.StatusOK {
				t.Fatalf("%s rest: HTTP %d: %s", w.Name, rest.StatusCode, rest.Body)
			}
			fr := buildRequest(w, ifFloorREST, "", limit, nil, "")
			rec := httptest.NewRecorder()
			fl.ServeHTTP(rec, httptest.NewRequest(fr.Method, fr.Path, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s floor-rest: HTTP %d: %s", w.Name, rec.Code, rec.Body)
			}
			if d := sameDocument(rest.Body, rec.Body.Bytes()); d != "" {
				t.Errorf("%s limit %d: %s", w.Name, limit, d)
			}
			ids, err := resultIDs(w, ifREST, rest.Body)
			if err != nil || len(ids) == 0 {
				t.Fatalf("%s: REST returned no rows (%v): the dataset does not exercise the workload", w.Name, err)
			}
			for _, want := range []string{`"due_at":"2026-03-04T05:06:07.89Z"`, `"hub":{"id":"` + string(ams.ID), `"hub":null`} {
				if (w.Name == "W3" || w.Name == "W3s") && !strings.Contains(rec.Body.String(), want) {
					t.Errorf("%s limit %d: the floor's document lacks %s: the test does not cover it", w.Name, limit, want)
				}
			}
		}
	}
	// A difference is found and named.
	if d := sameDocument([]byte(`{"data":[{"id":"a","hub":{"code":"X"}}],"has_more":true}`), []byte(`{"data":[{"id":"a","hub":{"code":"Y"}}],"has_more":true}`)); !strings.Contains(d, "data[0].hub.code: X vs Y") {
		t.Errorf("sameDocument: %q", d)
	}
	if d := sameDocument([]byte(`{"data":[],"has_more":true}`), []byte(`{"data":[],"has_more":false}`)); d == "" {
		t.Error("sameDocument: has_more differs, but no difference named")
	}
}

// TestGraphQLByHash: graphql-hash sends the page reads' hashes alone (no
// text), which the sandbox answers once registerDocuments has trusted them
// through REST, with the rows the text gives.
func TestGraphQLByHash(t *testing.T) {
	srv := apptest.New(t)
	if _, err := devSeed(srv.Ctx(environment.Sandbox), srv.App.Service, testSize); err != nil {
		t.Fatal(err)
	}
	key := srv.Keys[environment.Sandbox]
	base := strings.TrimPrefix(srv.SandboxURL, srv.URL)
	do := func(r request) (int, []byte) {
		resp := srv.Do(t, r.Method, srv.URL+r.Path, r.Body, r.Header)
		return resp.StatusCode, resp.Body
	}
	var names []string
	for _, w := range workloads {
		names = append(names, w.Name)
	}
	w1 := workloadByName("W1")
	if code, body := do(buildRequest(w1, ifGraphQLHash, base, 5, nil, key)); code == http.StatusOK && !strings.Contains(string(body), "PersistedQueryNotFound") {
		t.Fatalf("an unregistered hash answered %d %s", code, body)
	}
	if err := registerDocuments(names, base, "", do); err == nil {
		t.Fatal("registered without a key")
	}
	for range 2 { // again: nothing changes
		if err := registerDocuments(names, base, key, do); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range workloads {
		if w.Ops != nil {
			continue
		}
		req := buildRequest(w, ifGraphQLHash, base, 5, nil, key)
		if strings.Contains(string(req.Body), `"query"`) {
			t.Fatalf("%s: the request by hash holds the text: %s", w.Name, req.Body)
		}
		code, body := do(req)
		got, err := resultIDs(w, ifGraphQLHash, body)
		if code != http.StatusOK || err != nil {
			t.Fatalf("%s by hash: %d %v %s", w.Name, code, err, body)
		}
		code, body = do(buildRequest(w, ifGraphQL, base, 5, nil, key))
		want, err := resultIDs(w, ifGraphQL, body)
		if code != http.StatusOK || err != nil || len(want) == 0 {
			t.Fatalf("%s by text: %d %v %d rows", w.Name, code, err, len(want))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: by hash %v, by text %v", w.Name, got, want)
		}
	}
}
