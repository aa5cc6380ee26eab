// Command bench measures the reference workloads through REST, through
// GraphQL and through a hand-written floor, against the real server running
// as a child process, with wrk. See bench/README.md.
//
//	go run ./bench --db data/production.db --sandbox-db data/sandbox.db
//	go run ./bench --dev-seed --duration 2s --warmup 1s   # smoke test on a tiny dataset
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"entgo.io/ent/dialect"

	"logistics/internal/app"
	"logistics/internal/database"
	"logistics/internal/environment"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		err = runFloor(ctx, os.Args[2:], os.Stderr)
	} else {
		err = run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// config is the command line.
type config struct {
	DB, SandboxDB string
	DevSeed       bool
	Duration      time.Duration
	Warmup        time.Duration
	Rounds        int
	Connections   int
	Threads       int
	Workloads     []string
	Interfaces    []string
	Token         string
	NoToken       bool
	ServerFlags   multiFlag
	RESTPaths     map[string]string
	Pprof         bool
	Explain       bool
	SkipLoad      bool
	Out           string
	Wrk           string
	ServerBin     string
	RateLimit     string
	FloorGC       string
	W4Stock       int64
	// Callgrind, when above 0, counts instructions over this many requests
	// per cell under valgrind instead of loading with wrk (callgrind.go).
	Callgrind     int
	CallgrindArgs string
	// floorArgs are the floor process's flags that mirror the server's
	// configuration (its SQLite memory bound).
	floorArgs []string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{RESTPaths: map[string]string{}}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var workloadsFlag, ifacesFlag string
	var restPaths multiFlag
	fs.StringVar(&c.DB, "db", "", "production database of the server: SQLite path or postgres:// DSN")
	fs.StringVar(&c.SandboxDB, "sandbox-db", "", "sandbox database (the workloads run against the sandbox): SQLite path or postgres:// DSN, already seeded")
	fs.BoolVar(&c.DevSeed, "dev-seed", false, "fill a tiny development dataset first (SQLite in a temporary directory unless --db/--sandbox-db name empty databases); for smoke tests only")
	fs.DurationVar(&c.Duration, "duration", 30*time.Second, "measured load per workload and interface (whole seconds)")
	fs.DurationVar(&c.Warmup, "warmup", 5*time.Second, "unmeasured load before each measurement (0: none)")
	fs.IntVar(&c.Rounds, "rounds", 1, "measure every row this many times, interleaved (W1 rest, graphql, floor, W2 …, then again); the report gives the median of the per-round ratios to the floor")
	fs.IntVar(&c.Connections, "connections", 16, "concurrent connections")
	fs.IntVar(&c.Threads, "threads", 2, "wrk threads")
	fs.StringVar(&workloadsFlag, "workloads", "W1,W2,W3,W3s,W4,W5,W6", "workloads to run")
	fs.StringVar(&ifacesFlag, "interfaces", "rest,graphql,floor", "interfaces to run: rest, graphql, floor, graphql-hash (GraphQL by the document's hash alone, extensions.persistedQuery: the harness first registers the workloads' documents as trusted documents through REST, with the API key, which needs documents:write), and floor-rest (REST's whole document by hand, on W1–W3 and W3s: for comparison, not the yardstick)")
	fs.StringVar(&c.Token, "token", "", "API key sent as Authorization: Bearer (default: create one with `logistics tokens create`, or none if that fails)")
	fs.BoolVar(&c.NoToken, "no-token", false, "send no Authorization header (measure with auth off)")
	fs.Var(&c.ServerFlags, "server-flag", "extra flag for the server, repeatable, e.g. --server-flag=--rate-limit=1000000")
	fs.Var(&restPaths, "rest-path", "override a workload's REST path, repeatable: W3='/v1/orders?status=open&limit={limit}&expand=lines'")
	fs.BoolVar(&c.Pprof, "pprof", false, "capture a CPU profile of each server during its measured run (figures of such a run are not the reference)")
	fs.BoolVar(&c.Explain, "explain", false, "print the SQL of each workload and its plan (EXPLAIN QUERY PLAN on SQLite, EXPLAIN ANALYZE on PostgreSQL)")
	fs.BoolVar(&c.SkipLoad, "skip-load", false, "only count statements (and --explain); no load")
	fs.StringVar(&c.Out, "out", "", "directory for results.md, raw wrk output, profiles and logs (default bench/out/<time>)")
	fs.StringVar(&c.Wrk, "wrk", "wrk", "wrk binary")
	fs.StringVar(&c.RateLimit, "rate-limit", "1000000", "when the server has --rate-limit/--rate-burst and no --server-flag sets them, pass this value to both: the limiter runs on every request (its cost is measured) but never refuses one; empty: the server's default")
	fs.StringVar(&c.FloorGC, "floor-gc", floorGCServer, "the floor's garbage collector: 'server' (the server's --gc-percent/--memory-limit, as GOGC/GOMEMLIMIT) or 'go-default' (Go's default, the floor inherits the environment)")
	fs.Int64Var(&c.W4Stock, "w4-stock", 1_000_000, "W4: units of stock made available on each of the 20 contended items before every W4 row (lower it to see insufficient_stock conflicts)")
	fs.IntVar(&c.Callgrind, "callgrind", 0, "instead of wrk, run each cell's process under valgrind's callgrind and count the instructions of this many requests sent one at a time (deterministic: for A/B comparisons the machine's noise hides); figures of such a run are not the reference")
	fs.StringVar(&c.CallgrindArgs, "callgrind-args", "", "extra valgrind options with --callgrind, e.g. '--cache-sim=yes --LL=4194304,16,64' to count simulated last-level cache misses too")
	fs.StringVar(&c.ServerBin, "server-bin", "", "prebuilt server binary (default: go build the module's main package)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, w := range splitList(workloadsFlag) {
		name, ok := canonicalWorkload(w)
		if !ok {
			return nil, fmt.Errorf("--workloads: unknown workload %q", w)
		}
		c.Workloads = append(c.Workloads, name)
	}
	for _, i := range splitList(ifacesFlag) {
		i = strings.ToLower(i)
		if !slices.Contains(allInterfaces, i) {
			return nil, fmt.Errorf("--interfaces: unknown interface %q", i)
		}
		c.Interfaces = append(c.Interfaces, i)
	}
	for _, rp := range restPaths {
		name, path, ok := strings.Cut(rp, "=")
		name, known := canonicalWorkload(name)
		if !ok || !known || !strings.HasPrefix(path, "/") {
			return nil, fmt.Errorf("--rest-path %q: want W1=/v1/…", rp)
		}
		c.RESTPaths[name] = path
	}
	if c.Connections < 1 || c.Threads < 1 {
		return nil, errors.New("--connections and --threads must be at least 1")
	}
	if c.Rounds < 1 {
		return nil, errors.New("--rounds must be at least 1")
	}
	if c.FloorGC != floorGCServer && c.FloorGC != floorGCDefault {
		return nil, fmt.Errorf("--floor-gc %q: want %s or %s", c.FloorGC, floorGCServer, floorGCDefault)
	}
	if c.W4Stock < 1 {
		return nil, errors.New("--w4-stock must be at least 1")
	}
	if c.Callgrind < 0 || c.Callgrind > 100_000 {
		return nil, errors.New("--callgrind must be between 0 and 100000 requests")
	}
	if c.CallgrindArgs != "" && c.Callgrind == 0 {
		return nil, errors.New("--callgrind-args needs --callgrind")
	}
	return c, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if c.Out == "" {
		c.Out = filepath.Join(root, "bench", "out", time.Now().UTC().Format("20060102T150405Z"))
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "logistics-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	if c.DevSeed {
		if c.DB == "" && c.SandboxDB == "" {
			c.DB, c.SandboxDB = filepath.Join(work, "production.db"), filepath.Join(work, "sandbox.db")
		}
		log("seeding a development dataset (%d parts, %d items, %d orders) into %s", devSize.Parts, devSize.Items, devSize.Orders, c.SandboxDB)
		seeded, err := seedDev(ctx, c.DB, c.SandboxDB, devSize)
		if err != nil {
			return fmt.Errorf("dev seed: %w", err)
		}
		if !seeded {
			log("the sandbox already has data (e.g. demo data filled at start): using it as it is")
		}
	}
	if c.DB == "" || c.SandboxDB == "" {
		return errors.New("--db and --sandbox-db are required (the databases of a seeded service), or --dev-seed for a smoke test")
	}

	bin := c.ServerBin
	if bin == "" {
		bin = filepath.Join(work, "logistics")
		log("building the server")
		if err := buildServer(ctx, root, bin); err != nil {
			return err
		}
	}
	dbArgs := []string{"--db", c.DB, "--sandbox-db", c.SandboxDB}
	serverArgs := append(append([]string{}, dbArgs...), c.ServerFlags...)
	serverArgs = append(serverArgs, rateLimitArgs(ctx, bin, c, log)...)

	token := c.Token
	if token == "" && !c.NoToken {
		token = createToken(ctx, []string{bin}, dbArgs, log)
	}
	if c.NoToken {
		token = ""
	}

	rep := &report{Config: c, Started: time.Now().UTC(), Token: token != "", Cells: map[string]*cell{}, Parity: map[string]string{}}
	rep.describeMachine(root)
	rep.ServerFlags = serverArgs[len(dbArgs):]
	srvCfg := app.Defaults()
	if _, err := srvCfg.Load("bench", serverArgs, getenv); err != nil {
		return fmt.Errorf("server flags: %w", err)
	}
	var floorEnv []string
	floorEnv, rep.GC = floorGC(c.FloorGC, srvCfg, getenv)
	log("garbage collector: %s", rep.GC)
	// The floor opens its SQLite database under the server's memory bound
	// (page caches are part of what both processes hold: peak RSS) and
	// with its synchronous mode (an fsync per COMMIT, or none).
	c.floorArgs = []string{"--sqlite-memory", strconv.Itoa(srvCfg.SQLiteMemory), "--sqlite-synchronous", srvCfg.SQLiteSync}

	// Phase 1, in process: validate every workload, check the interfaces
	// return the same ids, count statements at two page sizes, explain.
	ip, err := openInProcess(ctx, serverArgs, getenv)
	if err != nil {
		return fmt.Errorf("open the service in process: %w", err)
	}
	rep.Dialect = ip.dialect
	rep.Dataset = datasetCounts(ctx, ip.db)
	base := ip.base
	pg := ip.dialect == dialect.Postgres
	var fix fixture
	if slices.ContainsFunc(c.Workloads, func(n string) bool { return workloadByName(n).Ops != nil }) {
		sctx := environment.NewContext(ctx, ip.App.Envs.Get(environment.Sandbox))
		if err := prepareW4(sctx, ip.App.Service, &fix); err != nil {
			return err
		}
		if err := findOrders(ctx, ip.db, pg, &fix); err != nil {
			return err
		}
		if err := topUpW4(ctx, ip.db, pg, fix, c.W4Stock); err != nil {
			return err
		}
		if len(fix.Shipped) == 0 {
			log("WARNING: no shipped orders with lines: W5 appends to other orders, W3s reads nothing")
		}
		log("operation workloads: W4 hub %s with %d parts, %d orders for W6, %d shipped orders for W5", w4HubCode, len(fix.Parts), len(fix.Orders), len(fix.Shipped))
	}
	if slices.Contains(c.Interfaces, ifGraphQLHash) {
		err := registerDocuments(c.Workloads, base, token, func(r request) (int, []byte) {
			code, body, _, _ := ip.do(r, ifREST, false)
			return code, body
		})
		if err != nil {
			return err
		}
		log("registered the workloads' GraphQL documents as trusted documents of the sandbox (graphql-hash sends their hashes alone)")
	}
	for _, wn := range c.Workloads {
		w := workloadByName(wn)
		if w.Ops != nil {
			rep.Parity[w.Name] = validateOps(ip, rep, w, base, token, fix, log)
			if rep.Parity[w.Name] != "" {
				log("WARNING: %s: %s", w.Name, rep.Parity[w.Name])
			}
			continue
		}
		ids := map[string][]string{}
		docs := map[string][]byte{}
		for _, iface := range c.Interfaces {
			if !w.serves(iface) {
				continue
			}
			cl := rep.cell(w.Name, iface)
			// One request first, not counted: per-key bookkeeping such as a
			// throttled last_used_at update or a cold cache must not make one
			// page size look more expensive than the other.
			ip.do(buildRequest(w, iface, base, pageSize, c.RESTPaths, token), iface, false)
			for _, n := range []int{5, pageSize} {
				req := buildRequest(w, iface, base, n, c.RESTPaths, token)
				code, body, stmts, seen := ip.do(req, iface, c.Explain && n == pageSize)
				if code != http.StatusOK {
					cl.Skip = fmt.Sprintf("HTTP %d", code)
					log("%s %s: HTTP %d: %s", w.Name, iface, code, snippet(body))
					break
				}
				got, err := resultIDs(w, iface, body)
				if err != nil {
					cl.Skip = "bad response"
					log("%s %s: %v: %s", w.Name, iface, err, snippet(body))
					break
				}
				if n == 5 {
					cl.Statements5 = stmts
				} else {
					cl.Statements50, cl.Rows, cl.Bytes = stmts, len(got), len(body)
					ids[iface] = got
					docs[iface] = body
				}
				if c.Explain && n == pageSize {
					fmt.Fprintf(stdout, "\n### %s %s: %d statements\n", w.Name, iface, stmts)
					for i, st := range seen {
						fmt.Fprintf(stdout, "\n%d. %s\n   args: %v\n", i+1, st.Query, st.Args)
						plan, err := ip.explain(ctx, st)
						if err != nil {
							fmt.Fprintf(stdout, "   plan: %v\n", err)
						} else if plan != "" {
							fmt.Fprintf(stdout, "   plan:\n      %s\n", strings.ReplaceAll(strings.TrimSpace(plan), "\n", "\n      "))
						}
					}
				}
			}
			if cl.Skip == "" && cl.Rows == 0 {
				log("WARNING: %s %s returned no rows: is the sandbox seeded?", w.Name, iface)
			}
		}
		rep.Parity[w.Name] = parity(ids)
		if rep.Parity[w.Name] == "" && docs[ifREST] != nil && docs[ifFloorREST] != nil {
			rep.Parity[w.Name] = sameDocument(docs[ifREST], docs[ifFloorREST])
		}
		if rep.Parity[w.Name] != "" {
			log("WARNING: %s: %s", w.Name, rep.Parity[w.Name])
		}
	}
	if err := ip.Close(); err != nil {
		return err
	}

	// Phase 2, under load: each workload × interface on a fresh child process.
	if !c.SkipLoad {
		if c.Callgrind == 0 {
			if err := wrkVersion(c.Wrk); err != nil {
				return err
			}
		}
		self, err := os.Executable()
		if err != nil {
			return err
		}
		rounds, one := c.Rounds, func(w workload, iface string, round int, cl *cell) error {
			res, rss, err := measure(ctx, c, w, iface, round, bin, self, serverArgs, floorEnv, base, token, fix)
			if err != nil {
				return err
			}
			cl.add(res, rss)
			mem := ""
			if res.GoSys > 0 {
				mem = fmt.Sprintf(" (Go runtime %.0f MiB, SQLite high-water %.0f MiB)", float64(res.GoSys)/(1<<20), float64(res.SQLiteHighwater)/(1<<20))
			}
			log("%s %s: %.0f req/s, CPU/request %s, p50 %s, p99 %s, p999 %s, peak RSS %.0f MiB%s, %d errors, %d conflicts", w.Name, iface, res.RPS,
				fmtCPU(res.cpuPerRequest()), fmtDur(res.P50), fmtDur(res.P99), fmtDurOrDash(res.P999), float64(rss)/(1<<20), mem, res.errorCount(), res.Conflicts)
			return nil
		}
		if c.Callgrind > 0 {
			if rounds, one, err = countCell(ctx, c, bin, self, serverArgs, floorEnv, base, token, fix, log); err != nil {
				return err
			}
		}
		if err := eachCell(ctx, c, rep, rounds, pg, fix, log, one); err != nil {
			return err
		}
	}

	rep.LoadEnd = loadAverage()
	md := rep.markdown()
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, md)
	path := filepath.Join(c.Out, "results.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return err
	}
	log("wrote %s", path)
	return nil
}

// eachCell runs one for every workload × interface rounds times, interleaved
// (W1 rest, graphql, floor, W2 …, then again), W4's stock topped up before
// each of its rows and its reservations checked after. A cell whose one
// fails is marked and left out of later rounds.
func eachCell(ctx context.Context, c *config, rep *report, rounds int, pg bool, fix fixture, log func(string, ...any), one func(w workload, iface string, round int, cl *cell) error) error {
	var stockDB *database.DB
	if slices.Contains(c.Workloads, "W4") {
		var err error
		if stockDB, err = database.Open(ctx, c.SandboxDB, database.Options{}); err != nil {
			return err
		}
		defer stockDB.Close()
	}
	for round := 1; round <= rounds; round++ {
		for _, wn := range c.Workloads {
			w := workloadByName(wn)
			for _, iface := range c.Interfaces {
				if !w.serves(iface) {
					continue
				}
				cl := rep.cell(w.Name, iface)
				if cl.Skip != "" {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if c.Callgrind > 0 {
					log("%s %s: %d requests under callgrind", w.Name, iface, c.Callgrind)
				} else {
					log("%s %s (round %d/%d): load %s (+%s warm-up), %d connections", w.Name, iface, round, rounds, c.Duration, c.Warmup, c.Connections)
				}
				if w.Name == "W4" {
					if err := topUpW4(ctx, stockDB.SQL, pg, fix, c.W4Stock); err != nil {
						return fmt.Errorf("W4 stock: %w", err)
					}
				}
				err := one(w, iface, round, cl)
				if w.Name == "W4" {
					iv := invariantResult{Row: fmt.Sprintf("W4 %s round %d", iface, round)}
					iv.Summary, iv.Err = checkW4(ctx, stockDB.SQL, pg, fix)
					rep.Invariants = append(rep.Invariants, iv)
					if iv.Err != nil {
						log("W4 %s: reservations INCONSISTENT after the run: %v", iface, iv.Err)
					} else {
						log("W4 %s: reservations consistent: %s", iface, iv.Summary)
					}
				}
				if err != nil {
					cl.Skip = "error"
					log("%s %s: %v", w.Name, iface, err)
				}
			}
		}
	}
	return nil
}

// measure runs one cell: start the process, check one request, warm up, load,
// read the peak RSS, stop.
func measure(ctx context.Context, c *config, w workload, iface string, round int, bin, self string, serverArgs, floorEnv []string, base, token string, fix fixture) (*wrkResult, int64, error) {
	name := strings.ToLower(w.Name) + "-" + iface
	if c.Rounds > 1 {
		name += fmt.Sprintf("-r%d", round)
	}
	var args, env []string
	procBin := bin
	if isFloor(iface) {
		procBin, env = self, floorEnv
		args = append([]string{"floor", "--addr", "{addr}", "--sandbox-db", c.SandboxDB}, c.floorArgs...)
		if c.Pprof {
			args = append(args, "--pprof-addr", "{pprof}")
		}
	} else {
		args = []string{"serve", "--addr", "{addr}", "--base-url", "http://{addr}", "--sandbox-url", "http://{addr}" + base, "--log-format", "json"}
		if c.Pprof {
			args = []string{"serve-pprof", "--pprof-addr", "{pprof}", "--addr", "{addr}", "--base-url", "http://{addr}", "--sandbox-url", "http://{addr}" + base, "--log-format", "json"}
		}
		args = append(args, serverArgs...)
	}
	p, err := start(ctx, procBin, args, env, filepath.Join(c.Out, name+".log"), c.Pprof)
	if err != nil {
		return nil, 0, err
	}
	defer p.stop()

	// The script stays beside the results, to rerun one cell by hand:
	// wrk -t2 -c16 -d30s --latency -s <out>/w1-rest.lua http://127.0.0.1:<port>
	// (it holds the API key: the out directory is not for sharing as is).
	script := filepath.Join(c.Out, name+".lua")
	if w.Ops != nil {
		codes, bodies := runOp(w, iface, base, token, opVars(fix, w, 0), httpDo(ctx, p.URL))
		if o := outcome(codes[len(codes)-1], bodies[len(bodies)-1]); o == "error" {
			return nil, 0, fmt.Errorf("one operation: HTTP %v: %s", codes, snippet(bodies[len(bodies)-1]))
		}
		if err := os.WriteFile(script, []byte(luaOps(w, iface, base, token, fix)), 0o600); err != nil {
			return nil, 0, err
		}
	} else {
		req := buildRequest(w, iface, base, pageSize, c.RESTPaths, token)
		if err := checkOnce(ctx, p.URL, req); err != nil {
			return nil, 0, err
		}
		if err := writeScript(script, req); err != nil {
			return nil, 0, err
		}
	}
	o := wrkOptions{Bin: c.Wrk, Threads: c.Threads, Connections: c.Connections, Timeout: 30 * time.Second}
	if c.Warmup > 0 {
		o.Duration = c.Warmup
		if _, err := runWrk(ctx, script, o, p.URL); err != nil {
			return nil, 0, fmt.Errorf("warm-up: %w", err)
		}
	}
	o.Duration = c.Duration
	profDone := make(chan error, 1)
	if c.Pprof {
		secs := max(int(c.Duration/time.Second)-1, 1)
		go func() {
			profDone <- fetchTo(ctx, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", p.PprofURL, secs), filepath.Join(c.Out, name+".cpu.pprof"))
		}()
	}
	cpu0, cpuErr := p.cpuTime()
	res, err := runWrk(ctx, script, o, p.URL)
	if err != nil {
		return nil, 0, err
	}
	if cpu1, err := p.cpuTime(); err == nil && cpuErr == nil {
		res.CPU = cpu1 - cpu0
	}
	if c.Pprof {
		if err := <-profDone; err != nil {
			return nil, 0, fmt.Errorf("cpu profile: %w", err)
		}
	}
	_ = os.WriteFile(filepath.Join(c.Out, name+".wrk.txt"), []byte(res.Raw), 0o644)
	rss, err := p.peakRSS()
	if err != nil {
		return nil, 0, err
	}
	if !isFloor(iface) {
		res.SQLiteHighwater, res.GoSys = serverMemory(ctx, p.URL)
	}
	return res, rss, nil
}

// serverMemory reads, from the server's /metrics, the most memory SQLite
// has held (logistics_sqlite_memory_highwater_bytes; 0 on PostgreSQL) and
// what Go's runtime holds from the system (go_memstats_sys_bytes): the two
// parts of a peak RSS besides the binary. Zeros when /metrics does not
// answer.
func serverMemory(ctx context.Context, hostURL string) (sqlite, goSys int64) {
	code, body := httpDo(ctx, hostURL)(request{Method: http.MethodGet, Path: "/metrics", Header: http.Header{}})
	if code != http.StatusOK {
		return 0, 0
	}
	return metricValue(body, "logistics_sqlite_memory_highwater_bytes"), metricValue(body, "go_memstats_sys_bytes")
}

// metricValue is the value of an unlabelled metric in a Prometheus text
// exposition, or 0.
func metricValue(body []byte, name string) int64 {
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return int64(f)
			}
		}
	}
	return 0
}

// httpDo sends requests to hostURL, for runOp.
func httpDo(ctx context.Context, hostURL string) func(request) (int, []byte) {
	return func(req request) (int, []byte) {
		r, err := http.NewRequestWithContext(ctx, req.Method, hostURL+req.Path, bytes.NewReader(req.Body))
		if err != nil {
			return 0, []byte(err.Error())
		}
		r.Header = req.Header.Clone()
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			return 0, []byte(err.Error())
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
}

// validateOps runs one operation of w through each interface in process
// (twice: the first warms caches and per-key bookkeeping, the second is
// counted), records its statements, and compares the answers; it returns
// "" when they agree.
func validateOps(ip *inProcess, rep *report, w workload, base, token string, fix fixture, log func(string, ...any)) string {
	answers := map[string]string{}
	for _, iface := range rep.Config.Interfaces {
		if !w.serves(iface) {
			continue
		}
		cl := rep.cell(w.Name, iface)
		var stmts int64
		var codes []int
		var bodies [][]byte
		var seen []statement
		for i := range 2 {
			stmts, seen = 0, nil
			codes, bodies = runOp(w, iface, base, token, opVars(fix, w, i), func(r request) (int, []byte) {
				code, body, n, st := ip.do(r, iface, rep.Config.Explain)
				stmts += n
				seen = append(seen, st...)
				return code, body
			})
		}
		if rep.Config.Explain {
			// The second operation's statements: the first warms caches.
			log("### %s %s: %d statements", w.Name, iface, stmts)
			for i, st := range seen {
				log("%d. %s   args: %v", i+1, st.Query, st.Args)
			}
		}
		last := bodies[len(bodies)-1]
		if o := outcome(codes[len(codes)-1], last); o != "ok" {
			cl.Skip = fmt.Sprintf("%s: HTTP %v", o, codes)
			log("%s %s: %s, HTTP %v: %s", w.Name, iface, o, codes, snippet(last))
			continue
		}
		a, err := normalAnswer(w, iface, last)
		if err != nil {
			cl.Skip = "bad response"
			log("%s %s: %v: %s", w.Name, iface, err, snippet(last))
			continue
		}
		cl.Statements5, cl.Statements50, cl.Rows, cl.Bytes = stmts, stmts, len(codes), len(last)
		answers[iface] = a
	}
	var ref string
	for _, iface := range allInterfaces {
		a, ok := answers[iface]
		if !ok {
			continue
		}
		if ref == "" {
			ref = iface
			continue
		}
		if a != answers[ref] {
			return fmt.Sprintf("%s and %s answer differently: %s vs %s", ref, iface, answers[ref], a)
		}
	}
	return ""
}

// checkOnce sends req once over HTTP and expects a 200.
func checkOnce(ctx context.Context, hostURL string, req request) error {
	r, err := http.NewRequestWithContext(ctx, req.Method, hostURL+req.Path, bytes.NewReader(req.Body))
	if err != nil {
		return err
	}
	r.Header = req.Header.Clone()
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, snippet(body))
	}
	return nil
}

func fetchTo(ctx context.Context, url, path string) error {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// createToken asks the server binary for a sandbox API key with every scope;
// before authentication exists it fails and the run goes without a header.
// command is the server binary, or e.g. ["go", "run", "<module root>"].
func createToken(ctx context.Context, command []string, dbArgs []string, log func(string, ...any)) string {
	args := append([]string{"tokens", "create", "--name", "bench", "--env", "sandbox", "--scopes", "all"}, dbArgs...)
	var stdout, stderr bytes.Buffer
	bin := command[0]
	cmd := exec.CommandContext(ctx, bin, append(command[1:], args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		log("no API key (%s %s: %v: %s); requests go without Authorization", filepath.Base(bin), strings.Join(args[:2], " "), err, firstLine(stderr.Bytes()))
		return ""
	}
	lines := strings.Fields(strings.TrimSpace(stdout.String()))
	if len(lines) == 0 {
		log("tokens create printed nothing; requests go without Authorization")
		return ""
	}
	log("created a sandbox API key named bench")
	return lines[len(lines)-1]
}

// rateLimitArgs returns --rate-limit and --rate-burst set to c.RateLimit when
// the server has them and --server-flag does not set them already.
func rateLimitArgs(ctx context.Context, bin string, c *config, log func(string, ...any)) []string {
	if c.RateLimit == "" {
		return nil
	}
	for _, f := range c.ServerFlags {
		if strings.Contains(f, "rate-limit") || strings.Contains(f, "rate-burst") {
			return nil
		}
	}
	help, _ := exec.CommandContext(ctx, bin, "serve", "--help").CombinedOutput()
	var args []string
	for _, name := range []string{"rate-limit", "rate-burst"} {
		if strings.Contains(string(help), "-"+name+" ") {
			args = append(args, "--"+name+"="+c.RateLimit)
		}
	}
	if len(args) > 0 {
		log("server flags %s: rate limiting on, generous enough not to refuse the load", strings.Join(args, " "))
	}
	return args
}

// seedDev fills an empty sandbox database with the development dataset.
func seedDev(ctx context.Context, db, sandboxDB string, size seedSize) (bool, error) {
	cfg := app.Defaults()
	cfg.DB, cfg.SandboxDB = db, sandboxDB
	a, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler), app.Options{})
	if err != nil {
		return false, err
	}
	defer a.Close()
	return devSeed(environment.NewContext(ctx, a.Envs.Get(environment.Sandbox)), a.Service, size)
}

// canonicalWorkload returns the workload's name as spelled in workloads
// (w3s → W3s), and whether there is one.
func canonicalWorkload(s string) (string, bool) {
	for _, w := range workloads {
		if strings.EqualFold(w.Name, strings.TrimSpace(s)) {
			return w.Name, true
		}
	}
	return "", false
}

func workloadByName(name string) workload {
	for _, w := range workloads {
		if w.Name == name {
			return w
		}
	}
	panic("unknown workload " + name)
}

// parity compares the ids each interface returned; "" when they agree.
func parity(ids map[string][]string) string {
	var ref string
	for _, iface := range allInterfaces {
		got, ok := ids[iface]
		if !ok {
			continue
		}
		if ref == "" {
			ref = iface
			continue
		}
		if !slices.Equal(got, ids[ref]) {
			return fmt.Sprintf("%s and %s return different ids (%d vs %d rows)", ref, iface, len(ids[ref]), len(got))
		}
	}
	return ""
}

// sameDocument compares REST's page with the floor of its document's:
// their data and has_more, decoded ("" when equal; the cursors differ, the
// floor's is the last id).
func sameDocument(rest, floor []byte) string {
	type page struct {
		Data    any  `json:"data"`
		HasMore bool `json:"has_more"`
	}
	var a, b page
	if err := json.Unmarshal(rest, &a); err != nil {
		return "rest: " + err.Error()
	}
	if err := json.Unmarshal(floor, &b); err != nil {
		return "floor-rest: " + err.Error()
	}
	if a.HasMore != b.HasMore {
		return fmt.Sprintf("rest and floor-rest answer different documents: has_more %v vs %v", a.HasMore, b.HasMore)
	}
	if !reflect.DeepEqual(a.Data, b.Data) {
		return "rest and floor-rest answer different documents: " + firstDifference(a.Data, b.Data, "data")
	}
	return ""
}

// firstDifference names the first place where decoded JSON values a and b
// differ, below path.
func firstDifference(a, b any, path string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %T vs %T", path, a, b)
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !reflect.DeepEqual(x[k], y[k]) {
				return firstDifference(x[k], y[k], path+"."+k)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %d vs %d elements", path, len(x), len(y))
		}
		for i := range x {
			if !reflect.DeepEqual(x[i], y[i]) {
				return firstDifference(x[i], y[i], fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	return fmt.Sprintf("%s: %v vs %v", path, a, b)
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
