package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"entgo.io/ent/dialect"

	"logistics/internal/environment"
)

// BenchmarkWorkloads runs W1–W3 through GraphQL, REST and the floor in
// process (no network, no wrk): the handler's own cost, for profiling with
// -cpuprofile/-memprofile. It uses the databases in BENCH_DB and
// BENCH_SANDBOX_DB (a seeded scale-1 service; SQLite paths or postgres://
// DSNs) with the key in BENCH_TOKEN, or else a small development dataset.
//
//	go test -run '^$' -bench 'Workloads/W1/graphql' -benchtime 3s -cpuprofile /tmp/cpu.out ./bench
//	go tool pprof -top -nodecount 40 bench.test /tmp/cpu.out
func BenchmarkWorkloads(b *testing.B) {
	ip, token := benchServer(b)
	var fix fixture
	for _, w := range workloads {
		for _, iface := range []string{ifGraphQL, ifREST, ifFloor} {
			if w.Ops != nil {
				b.Run(w.Name+"/"+iface, func(b *testing.B) {
					if fix.Hub == "" {
						fix = benchFixture(b, ip)
					}
					benchOps(b, ip, w, iface, token, fix)
				})
				continue
			}
			b.Run(w.Name+"/"+iface, func(b *testing.B) {
				req := buildRequest(w, iface, ip.base, pageSize, nil, token)
				ip.do(req, iface, false) // uncounted: auth bookkeeping, cold caches
				code, body, stmts, _ := ip.do(req, iface, false)
				if code == http.StatusNotFound && iface == ifREST {
					b.Skipf("REST endpoint not there yet: %s", snippet(body))
				}
				if code != http.StatusOK {
					b.Fatalf("HTTP %d: %s", code, snippet(body))
				}
				ids, err := resultIDs(w, iface, body)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if code, body, _, _ := ip.do(req, iface, false); code != http.StatusOK {
						b.Fatalf("HTTP %d: %s", code, snippet(body))
					}
				}
				b.ReportMetric(float64(stmts), "sql/op")
				b.ReportMetric(float64(len(ids)), "rows/op")
			})
		}
	}
}

// benchOps runs one operation of W4–W6 per iteration (ns/op is per
// operation: W4's three requests together).
func benchOps(b *testing.B, ip *inProcess, w workload, iface, token string, fix fixture) {
	var stmts int64
	do := func(r request) (int, []byte) {
		code, body, n, _ := ip.do(r, iface, false)
		stmts += n
		return code, body
	}
	runOp(w, iface, ip.base, token, opVars(fix, w, 0), do) // uncounted: auth bookkeeping, cold caches
	stmts = 0
	codes, bodies := runOp(w, iface, ip.base, token, opVars(fix, w, 1), do)
	if o := outcome(codes[len(codes)-1], bodies[len(bodies)-1]); o != "ok" {
		b.Fatalf("%s: HTTP %v: %s", o, codes, snippet(bodies[len(bodies)-1]))
	}
	perOp := stmts
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		codes, bodies := runOp(w, iface, ip.base, token, opVars(fix, w, i), do)
		if o := outcome(codes[len(codes)-1], bodies[len(bodies)-1]); o == "error" {
			b.Fatalf("HTTP %v: %s", codes, snippet(bodies[len(bodies)-1]))
		}
	}
	b.ReportMetric(float64(perOp), "sql/op")
}

// benchFixture prepares W4's stock (topped up to 1,000,000 units per item)
// and W5's and W6's orders on the benchmark's database.
func benchFixture(b *testing.B, ip *inProcess) fixture {
	ctx := context.Background()
	var fix fixture
	pg := ip.dialect == dialect.Postgres
	if err := prepareW4(environment.NewContext(ctx, ip.App.Envs.Get(environment.Sandbox)), ip.App.Service, &fix); err != nil {
		b.Fatal(err)
	}
	if err := findOrders(ctx, ip.db, pg, &fix); err != nil {
		b.Fatal(err)
	}
	if err := topUpW4(ctx, ip.db, pg, fix, 1_000_000); err != nil {
		b.Fatal(err)
	}
	return fix
}

// BenchmarkAuthOverhead measures what authentication and rate limiting add to
// a request, in process: the same 404 answered behind them (an unknown /v1
// path, with the key) and in front of them (an unknown path outside the API,
// anonymous). The difference is their cost per request — the token lookup,
// scope parsing, the limiter — to compare with the workloads' ns/op.
//
//	BENCH_DB=… BENCH_SANDBOX_DB=… LOGISTICS_RATE_LIMIT=1000000 LOGISTICS_RATE_BURST=1000000 \
//	  go test -run '^$' -bench 'AuthOverhead|Workloads' -benchtime 2s ./bench
func BenchmarkAuthOverhead(b *testing.B) {
	ip, token := benchServer(b)
	for _, c := range []struct {
		name string
		req  request
	}{
		{"behind-auth", request{Method: http.MethodGet, Path: ip.base + "/v1/no-such-resource",
			Header: http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer " + token}}}},
		{"before-auth", request{Method: http.MethodGet, Path: ip.base + "/no-such-page",
			Header: http.Header{"Accept": {"application/json"}}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			if code, body, _, _ := ip.do(c.req, ifREST, false); code != http.StatusNotFound {
				b.Fatalf("HTTP %d, want 404: %s", code, snippet(body))
			}
			b.ReportAllocs()
			for b.Loop() {
				if code, body, _, _ := ip.do(c.req, ifREST, false); code != http.StatusNotFound {
					b.Fatalf("HTTP %d, want 404: %s", code, snippet(body))
				}
			}
		})
	}
}

// benchServer opens the service in process over BENCH_DB/BENCH_SANDBOX_DB (or
// a development dataset) and returns it with a sandbox key.
func benchServer(b *testing.B) (*inProcess, string) {
	ctx := context.Background()
	db, sandbox := os.Getenv("BENCH_DB"), os.Getenv("BENCH_SANDBOX_DB")
	if db == "" || sandbox == "" {
		dir := b.TempDir()
		db, sandbox = filepath.Join(dir, "production.db"), filepath.Join(dir, "sandbox.db")
		b.Logf("BENCH_DB/BENCH_SANDBOX_DB not set: seeding a development dataset (figures are not the reference)")
		if _, err := seedDev(ctx, db, sandbox, devSize); err != nil {
			b.Fatal(err)
		}
	}
	ip, err := openInProcess(ctx, []string{"--db", db, "--sandbox-db", sandbox}, os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ip.Close() })
	token := os.Getenv("BENCH_TOKEN")
	if token == "" {
		// With authentication in the service, create a sandbox key through
		// its CLI; without, requests go without Authorization.
		root, err := moduleRoot()
		if err != nil {
			b.Fatal(err)
		}
		token = createToken(ctx, []string{"go", "run", root}, []string{"--db", db, "--sandbox-db", sandbox}, b.Logf)
	}
	return ip, token
}
