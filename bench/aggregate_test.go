package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"entgo.io/ent/dialect"
)

// BenchmarkAggregates measures the two reference aggregates at scale 1 through
// REST, through GraphQL and through the same GROUP BY written by hand
// (database/sql on the same database, rows scanned and encoded as JSON), in
// process, one request at a time:
//
//   - A1, sum of available quantity by hub, over the 200,000 items;
//   - A2, orders by status by day (UTC), over the 50,000 orders.
//
// Seed a scale-1 sandbox, then (not niced; figures in the README):
//
//	go build -o /tmp/logistics . && /tmp/logistics seed --env sandbox --scale 1 --data-dir /tmp/lb
//	BENCH_DB=/tmp/lb/production.db BENCH_SANDBOX_DB=/tmp/lb/sandbox.db \
//	  go test -run '^$' -bench Aggregates -benchtime 20x -count 3 ./bench
//
// (PostgreSQL: the same with postgres:// DSNs, seeded with --db/--sandbox-db.)
func BenchmarkAggregates(b *testing.B) {
	ip, token := benchServer(b)
	for _, a := range aggregateWorkloads(ip.dialect) {
		for _, iface := range []string{ifREST, ifGraphQL, ifFloor} {
			b.Run(a.name+"/"+iface, func(b *testing.B) {
				if iface == ifFloor {
					benchHandWritten(b, ip, a)
					return
				}
				h := http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer " + token}}
				req := request{Method: http.MethodGet, Path: ip.base + a.rest, Header: h}
				if iface == ifGraphQL {
					body, _ := json.Marshal(map[string]any{"query": a.graphql})
					h.Set("Content-Type", "application/json")
					req = request{Method: http.MethodPost, Path: ip.base + "/graphql", Body: body, Header: h}
				}
				ip.do(req, iface, false) // uncounted: auth bookkeeping, cold caches
				code, body, stmts, _ := ip.do(req, iface, false)
				if code != http.StatusOK || bytes.Contains(body, []byte(`"errors":`)) {
					b.Fatalf("HTTP %d: %s", code, snippet(body))
				}
				b.ReportAllocs()
				for b.Loop() {
					if code, body, _, _ := ip.do(req, iface, false); code != http.StatusOK {
						b.Fatalf("HTTP %d: %s", code, snippet(body))
					}
				}
				b.ReportMetric(float64(stmts), "sql/op")
			})
		}
	}
}

// BenchmarkAggregateRatios measures the same as BenchmarkAggregates, but as
// the README's tables do on a shared machine: in rounds, each round timing
// the three interfaces back to back (in a rotating order), and reports each
// interface's time over the hand-written one's as the median of the rounds'
// ratios (with the lowest and highest in the log), so that load that comes
// and goes weighs on all three alike. One iteration is the whole run:
//
//	BENCH_DB=… BENCH_SANDBOX_DB=… go test -run '^$' -bench AggregateRatios -benchtime 1x ./bench
func BenchmarkAggregateRatios(b *testing.B) {
	ip, token := benchServer(b)
	interleavedRatios(b, ip, token, aggregateWorkloads(ip.dialect))
}

// interleavedRatios times each workload through REST (when it has a path),
// GraphQL and its hand-written statements in rounds, as
// BenchmarkAggregateRatios says, and reports each interface's median time
// (<iface>-ms) and its median ratio to the hand-written one (<iface>/floor).
func interleavedRatios(b *testing.B, ip *inProcess, token string, ws []aggregateWorkload) {
	const rounds, perRound = 7, 3
	for _, a := range ws {
		b.Run(a.name, func(b *testing.B) {
			h := http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer " + token}}
			gh := h.Clone()
			gh.Set("Content-Type", "application/json")
			body, _ := json.Marshal(map[string]any{"query": a.graphql})
			rh := h
			if a.prefer != "" {
				rh = h.Clone()
				rh.Set("Prefer", a.prefer)
			}
			reqs := map[string]request{
				ifREST:    {Method: http.MethodGet, Path: ip.base + a.rest, Header: rh},
				ifGraphQL: {Method: http.MethodPost, Path: ip.base + "/graphql", Body: body, Header: gh},
			}
			once := func(iface string) time.Duration {
				start := time.Now()
				if iface == ifFloor {
					handWritten(b, ip, a)
				} else if code, body, _, _ := ip.do(reqs[iface], iface, false); code != http.StatusOK || bytes.Contains(body, []byte(`"errors":`)) {
					b.Fatalf("%s HTTP %d: %s", iface, code, snippet(body))
				}
				return time.Since(start)
			}
			ifaces := []string{ifGraphQL, ifFloor}
			if a.rest != "" {
				ifaces = []string{ifREST, ifGraphQL, ifFloor}
			}
			for _, i := range ifaces {
				once(i) // warm: caches, auth bookkeeping
			}
			for b.Loop() {
				ratios := map[string][]float64{}
				means := map[string][]time.Duration{}
				for r := range rounds {
					took := map[string]time.Duration{}
					for k := range ifaces {
						iface := ifaces[(k+r)%len(ifaces)]
						for range perRound {
							took[iface] += once(iface)
						}
						means[iface] = append(means[iface], took[iface]/perRound)
					}
					for _, iface := range ifaces[:len(ifaces)-1] {
						ratios[iface] = append(ratios[iface], float64(took[iface])/float64(took[ifFloor]))
					}
				}
				for _, iface := range ifaces {
					m := medianDuration(means[iface])
					b.ReportMetric(float64(m)/1e6, iface+"-ms")
					if iface == ifFloor {
						b.Logf("%s %-8s median %6.1f ms", a.name, iface, float64(m)/1e6)
						continue
					}
					sort.Float64s(ratios[iface])
					b.Logf("%s %-8s median %6.1f ms, %.2f× the hand-written statements (rounds: %.2f–%.2f)", a.name, iface, float64(m)/1e6,
						ratios[iface][rounds/2], ratios[iface][0], ratios[iface][rounds-1])
					b.ReportMetric(ratios[iface][rounds/2], iface+"/floor")
				}
			}
		})
	}
}

func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// aggregateWorkload is one read asked through REST (rest, a path under the
// environment's base; "" where REST has no equivalent), GraphQL and as
// hand-written statements (sql, then more) on the same database.
type aggregateWorkload struct {
	name, rest, graphql, sql string
	more                     []string
	prefer                   string // REST's Prefer header, if any (count=…)
}

func aggregateWorkloads(d string) []aggregateWorkload {
	day := "date(created_at)"
	if d == dialect.Postgres {
		day = "date_trunc('day', created_at AT TIME ZONE 'UTC')"
	}
	return []aggregateWorkload{
		{
			name:    "A1-available-by-hub",
			rest:    "/v1/items/aggregate?group_by=hub&sum=available_quantity",
			graphql: `{ itemAggregate(groupBy: [HUB]) { keys { hub { code } } sum { availableQuantity } } }`,
			sql:     `SELECT h.code, SUM(i.quantity - i.reserved_quantity) FROM items i JOIN hubs h ON h.id = i.hub_id GROUP BY h.code ORDER BY h.code`,
		},
		{
			name:    "A2-orders-by-status-by-day",
			rest:    "/v1/orders/aggregate?group_by=status,created_at&bucket=day&limit=1000",
			graphql: `{ orderAggregate(groupBy: [STATUS, CREATED_AT], bucket: DAY, first: 1000) { keys { status createdAt } count } }`,
			sql:     `SELECT status, ` + day + ` AS day, COUNT(*) FROM orders GROUP BY status, day ORDER BY status, day`,
		},
		{
			// A2 by the days of Europe/Paris; the hand-written statement
			// is A2's in UTC (SQLite has no time zones to write it with).
			name:    "A2-in-Europe-Paris",
			rest:    "/v1/orders/aggregate?group_by=status,created_at&bucket=day&tz=Europe/Paris&limit=1000",
			graphql: `{ orderAggregate(groupBy: [STATUS, CREATED_AT], bucket: DAY, timeZone: "Europe/Paris", first: 1000) { keys { status createdAt } count } }`,
			sql:     `SELECT status, ` + day + ` AS day, COUNT(*) FROM orders GROUP BY status, day ORDER BY status, day`,
		},
	}
}

// benchHandWritten runs the hand-written statement and encodes its rows.
func benchHandWritten(b *testing.B, ip *inProcess, a aggregateWorkload) {
	b.ReportAllocs()
	for b.Loop() {
		handWritten(b, ip, a)
	}
	b.ReportMetric(1, "sql/op")
}

// handWritten runs the hand-written GROUP BY, scans its rows and encodes
// them as JSON.
func handWritten(b *testing.B, ip *inProcess, a aggregateWorkload) {
	ctx := context.Background()
	for _, q := range append([]string{a.sql}, a.more...) {
		rows, err := ip.db.QueryContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		cols, _ := rows.Columns()
		var out [][]any
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				b.Fatal(err)
			}
			out = append(out, vals)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(out); err != nil {
			b.Fatal(err)
		}
	}
}
