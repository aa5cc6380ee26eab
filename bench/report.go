package main

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// cell is one workload through one interface.
type cell struct {
	Workload, Interface string
	Skip                string // why it was not measured
	Statements5         int64  // SQL statements for a page of 5
	Statements50        int64  // … and of 50
	Rows, Bytes         int    // rows and response bytes of a page of 50
	// Rounds are the load runs, one per --rounds, in order; Load is the one
	// with the median req/s (its latencies are the ones reported).
	Rounds  []*wrkResult
	Load    *wrkResult
	PeakRSS int64 // bytes, the highest of the rounds
	// PeakSQLite and PeakGoSys are the server's SQLite high-water mark and
	// Go runtime memory in the round of PeakRSS (wrkResult; 0: unknown).
	PeakSQLite, PeakGoSys int64
	// Counted is what callgrind counted (--callgrind), or nil.
	Counted *callgrindCount
}

// add records one round.
func (x *cell) add(res *wrkResult, rss int64) {
	x.Rounds = append(x.Rounds, res)
	if rss >= x.PeakRSS {
		x.PeakRSS, x.PeakSQLite, x.PeakGoSys = rss, res.SQLiteHighwater, res.GoSys
	}
	sorted := slices.Clone(x.Rounds)
	slices.SortFunc(sorted, func(a, b *wrkResult) int { return cmp.Compare(a.RPS, b.RPS) })
	x.Load = sorted[(len(sorted)-1)/2]
}

// rpsRatio is x's req/s over the floor's, round by round (each pair was
// measured minutes apart at most, so a slow spell of the machine weighs on
// both): the median, the lowest and the highest.
func (x *cell) rpsRatio(fl *cell) (med, lo, hi float64, ok bool) {
	return x.ratioTo(fl, func(w *wrkResult) float64 { return w.RPS })
}

// ratioTo is the median, lowest and highest of x's figure over the floor's,
// round by round (get reads the figure: req/s, p99, p999). Rounds where the
// floor's figure is 0 (p999 not reported) are left out.
func (x *cell) ratioTo(fl *cell, get func(*wrkResult) float64) (med, lo, hi float64, ok bool) {
	if fl == nil {
		return 0, 0, 0, false
	}
	var rs []float64
	for i := 0; i < len(x.Rounds) && i < len(fl.Rounds); i++ {
		if f := get(fl.Rounds[i]); f > 0 {
			rs = append(rs, get(x.Rounds[i])/f)
		}
	}
	if len(rs) == 0 {
		return 0, 0, 0, false
	}
	slices.Sort(rs)
	return median(rs), rs[0], rs[len(rs)-1], true
}

// median of sorted values: the middle one, or the mean of the two middle ones.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func p99Of(w *wrkResult) float64  { return w.P99.Seconds() }
func p999Of(w *wrkResult) float64 { return w.P999.Seconds() }

// report is a whole run.
type report struct {
	Config  *config
	Started time.Time
	Token   bool
	Dialect string
	Machine string
	Commit  string
	Dataset string
	Parity  map[string]string
	Cells   map[string]*cell
	// ServerFlags are the flags given to the server besides the databases.
	ServerFlags []string
	// GC says how the server's and the floor's garbage collectors were set.
	GC string
	// LoadEnd is /proc/loadavg at the end of the run (Machine has the start).
	LoadEnd string
	// Invariants holds, per W4 row and round, the result of the post-run
	// check of the reservations ("" when it held).
	Invariants []invariantResult
}

// invariantResult is the post-run check of one W4 row.
type invariantResult struct {
	Row     string // e.g. "W4 rest round 1"
	Summary string // what was checked, with the totals
	Err     error  // nil when the invariant held
}

// yardstick is the cell the row of workload wn through iface is compared
// with: the floor, for REST and GraphQL alike; nil for the floors
// themselves. floor-rest (REST's whole document by hand) is reported beside
// REST, not used as its yardstick: it is slower than the service's REST, so
// a ratio against it would flatter REST.
func (r *report) yardstick(wn, iface string) *cell {
	if isFloor(iface) {
		return nil
	}
	return r.Cells[wn+"/"+ifFloor]
}

func (r *report) cell(w, iface string) *cell {
	if r.Parity == nil {
		r.Parity = map[string]string{}
	}
	k := w + "/" + iface
	if r.Cells[k] == nil {
		r.Cells[k] = &cell{Workload: w, Interface: iface}
	}
	return r.Cells[k]
}

// loadAverage is the 1, 5 and 15 minute load averages from /proc/loadavg.
func loadAverage() string {
	load, _ := os.ReadFile("/proc/loadavg")
	fields := strings.Fields(string(load))
	if len(fields) > 3 {
		fields = fields[:3]
	}
	if len(fields) == 0 {
		return "unknown"
	}
	return strings.Join(fields, " ")
}

func (r *report) describeMachine(root string) {
	r.Machine = fmt.Sprintf("%d CPUs, %s/%s, load average (1, 5, 15 min) at start %s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, loadAverage())
	cmd := exec.Command("git", "rev-parse", "--short", "HEAD")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		r.Commit = strings.TrimSpace(string(out))
		cmd = exec.Command("git", "status", "--porcelain")
		cmd.Dir = root
		if out, err := cmd.Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			r.Commit += " (uncommitted changes)"
		}
	}
}

// datasetCounts describes the sandbox data: rows per table.
func datasetCounts(ctx context.Context, db *sql.DB) string {
	var parts []string
	for _, t := range []string{"hubs", "parts", "items", "orders", "order_lines", "tracking_entries"} {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t).Scan(&n); err != nil {
			parts = append(parts, t+" ?")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", t, n))
	}
	return strings.Join(parts, ", ")
}

// rpsTarget is the lowest ratio of the floor's requests per second a row may reach:
// on the reads W1–W3 and W3s REST 0.8× and GraphQL 0.7×, on the writes and
// the single-order read W4–W6 0.7× through both.
func rpsTarget(wn, iface string) float64 {
	switch wn {
	case "W1", "W2", "W3", "W3s":
		if iface == ifREST {
			return 0.8
		}
	}
	return 0.7
}

// p99Target is the highest ratio of the floor's p99 latency a row may reach.
const p99Target = 2.0

const rssTarget = 200 << 20

// markdown renders the run as a table to paste into the README.
func (r *report) markdown() string {
	c := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "## Benchmark run %s\n\n", r.Started.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- commit %s, %s, database %s (sandbox)\n", orDash(r.Commit), runtime.Version(), r.Dialect)
	fmt.Fprintf(&b, "- dataset: %s\n", r.Dataset)
	fmt.Fprintf(&b, "- machine: %s", r.Machine)
	if r.LoadEnd != "" {
		fmt.Fprintf(&b, ", at end %s", r.LoadEnd)
	}
	b.WriteString("\n")
	auth := "on (Authorization: Bearer, sandbox key)"
	if !r.Token {
		auth = "**off** (no API key: the server had no auth, or --no-token)"
	}
	if c.Callgrind > 0 {
		fmt.Fprintf(&b, "- load: none; every process ran under callgrind and served %d counted requests one at a time (table below), 127.0.0.1, a fresh process per row; auth %s\n", c.Callgrind, auth)
	} else {
		fmt.Fprintf(&b, "- load: wrk -t%d -c%d -d%s --latency (after %s warm-up), 127.0.0.1, a fresh server process per row; auth %s\n",
			min(c.Threads, c.Connections), c.Connections, wrkDuration(c.Duration), c.Warmup, auth)
	}
	if c.Rounds > 1 {
		fmt.Fprintf(&b, "- %d rounds, interleaved: req/s and latencies are those of the round with the median req/s; every × floor (req/s, p99, p999) is the median of the per-round ratios (lowest–highest); peak RSS the highest\n", c.Rounds)
	}
	if len(r.ServerFlags) > 0 {
		fmt.Fprintf(&b, "- server flags: `%s`\n", strings.Join(r.ServerFlags, " "))
	}
	if r.GC != "" {
		fmt.Fprintf(&b, "- garbage collector: %s\n", r.GC)
	}
	if c.Pprof {
		b.WriteString("- **profiled run** (--pprof): CPU profiling was on; use these figures for profiles, not as the reference\n")
	}
	b.WriteString("\n| Workload | Interface | req/s | × floor | CPU/request | × floor | p50 | p99 | × floor | p999 | × floor | peak RSS | SQL/request (page 5 → 50) | errors | targets |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n")
	var notes []string
	for _, wn := range c.Workloads {
		for _, iface := range allInterfaces {
			x := r.Cells[wn+"/"+iface]
			if x == nil {
				continue
			}
			fl := r.yardstick(wn, iface)
			row := []string{wn, iface}
			if x.Skip != "" && x.Load == nil && x.Statements50 == 0 {
				row = append(row, "—", "", "—", "", "—", "—", "", "—", "", "—", "—", "—", "not measured: "+x.Skip)
				b.WriteString("| " + strings.Join(row, " | ") + " |\n")
				continue
			}
			if x.Load != nil {
				row = append(row, fmt.Sprintf("%.0f", x.Load.RPS), x.ratioCell(fl, iface, func(w *wrkResult) float64 { return w.RPS }),
					fmtCPU(x.Load.cpuPerRequest()), x.ratioCell(fl, iface, (*wrkResult).cpuPerRequest),
					fmtDur(x.Load.P50),
					fmtDur(x.Load.P99), x.ratioCell(fl, iface, p99Of),
					fmtDurOrDash(x.Load.P999), x.ratioCell(fl, iface, p999Of))
			} else {
				row = append(row, "—", "", "—", "", "—", "—", "", "—", "")
			}
			rss := "—"
			if x.PeakRSS > 0 {
				rss = fmt.Sprintf("%.0f MiB", float64(x.PeakRSS)/(1<<20))
				if x.PeakGoSys > 0 {
					rss += fmt.Sprintf(" (Go %.0f, SQLite %.0f)", float64(x.PeakGoSys)/(1<<20), float64(x.PeakSQLite)/(1<<20))
				}
			}
			stm := fmt.Sprintf("%d → %d", x.Statements5, x.Statements50)
			if fl != nil && fl.Statements50 > 0 {
				stm += fmt.Sprintf(" (%.1f× floor)", float64(x.Statements50)/float64(fl.Statements50))
			}
			errs := "—"
			if x.Load != nil {
				var n int64
				for i, rd := range x.Rounds {
					n += rd.errorCount()
					if rd.errorCount() > 0 {
						note := fmt.Sprintf("%s %s round %d: %d unexpected answers (non-2xx, GraphQL errors) and %d socket errors out of %d requests: the figures are not valid (a 429 means the rate limit: pass a generous limit with --server-flag)",
							wn, iface, i+1, rd.errorCount()-rd.SocketErr, rd.SocketErr, rd.Requests)
						if rd.FirstFailure != "" {
							note += "; the first: `" + strings.ReplaceAll(rd.FirstFailure, "`", "'") + "`"
						}
						notes = append(notes, note)
					}
					if rd.Conflicts > 0 {
						notes = append(notes, fmt.Sprintf("%s %s round %d: %d expected insufficient_stock conflicts out of %d requests", wn, iface, i+1, rd.Conflicts, rd.Requests))
					}
				}
				errs = fmt.Sprint(n)
			}
			row = append(row, rss, stm, errs, r.targets(wn, iface, x, fl))
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			if doc := r.Cells[wn+"/"+ifFloorREST]; iface == ifREST && x.Load != nil && doc != nil && doc.Load != nil {
				q, _, _, _ := x.rpsRatio(doc)
				c, _, _, _ := x.ratioTo(doc, (*wrkResult).cpuPerRequest)
				p, _, _, _ := x.ratioTo(doc, p99Of)
				notes = append(notes, fmt.Sprintf("%s rest against floor-rest (its own whole document, by hand): req/s %.2f×, CPU/request %.2f×, p99 %.2f×", wn, q, c, p))
			}
			if x.Skip != "" {
				notes = append(notes, fmt.Sprintf("%s %s: load not measured: %s", wn, iface, x.Skip))
			}
		}
		if p := r.Parity[wn]; p != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", wn, p))
		}
	}
	b.WriteString("\n× floor: the interface's figure divided by the floor's, round by round (requests per second: higher is better; latency: lower is better)")
	if c.Rounds > 1 {
		b.WriteString(", the median of the rounds (lowest–highest)")
	}
	b.WriteString(". p999 comes from wrk's Lua done hook (latency:percentile(99.9)). ")
	b.WriteString("Peak RSS is the process's VmHWM, the highest of the rounds; in brackets, for the service, what its /metrics said after that round: memory Go's runtime holds from the system (go_memstats_sys_bytes) and SQLite's high-water mark (logistics_sqlite_memory_highwater_bytes), in MiB. CPU/request is the server process's CPU time (user and system, /proc/<pid>/stat) during the measured run over its requests: lower is better, and it moves less than req/s between runs of one binary on a machine whose speed varies; for the floor it is the floor process's. ")
	b.WriteString("SQL/request is counted in process, one request at each page size (the write workloads: one operation, all its requests). ")
	b.WriteString("Both interfaces are compared with floor, which answers the fields the workload names (GraphQL's selection); REST's document carries every field of its resources. floor-rest, when run (--interfaces …,floor-rest), answers REST's whole document with hand-written SQL and encoding/json, for comparison (the notes give REST against it). ")
	b.WriteString("Targets: req/s ≥ 0.8× the floor's through REST and ≥ 0.7× through GraphQL on W1–W3 and W3s, ≥ 0.7× through both on W4–W6; p99 ≤ 2× the floor's; SQL/request constant in page size; peak RSS < 200 MiB; no errors but W4's insufficient_stock conflicts; W4's reservations consistent after every row.\n")
	for _, w := range c.Workloads {
		fmt.Fprintf(&b, "\n- %s: %s", w, workloadByName(w).Title)
	}
	b.WriteString("\n")
	if c.Callgrind > 0 {
		r.callgrindMarkdown(&b)
	}
	if len(r.Invariants) > 0 {
		b.WriteString("\nW4 post-run checks (reservations of the 20 contended items):\n")
		for _, iv := range r.Invariants {
			if iv.Err != nil {
				fmt.Fprintf(&b, "- %s: **violated**: %v\n", iv.Row, iv.Err)
			} else {
				fmt.Fprintf(&b, "- %s: held (%s)\n", iv.Row, iv.Summary)
			}
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

// targets checks one row against the targets (rpsTarget, p99Target, rssTarget).
func (r *report) targets(wn, iface string, x, fl *cell) string {
	switch iface {
	case ifFloor:
		return "(reference)"
	case ifFloorREST:
		return "(for comparison: REST's document by hand)"
	}
	var missed []string
	if q, _, _, ok := x.rpsRatio(fl); ok {
		if t := rpsTarget(wn, iface); q < t {
			missed = append(missed, fmt.Sprintf("req/s %.2f× < %.1f×", q, t))
		}
	}
	if q, _, _, ok := x.ratioTo(fl, p99Of); ok && q > p99Target {
		missed = append(missed, fmt.Sprintf("p99 %.2f× > %.0f×", q, p99Target))
	}
	for _, rd := range x.Rounds {
		if rd.errorCount() > 0 {
			missed = append(missed, "errors")
			break
		}
	}
	for _, iv := range r.Invariants {
		if iv.Err != nil && strings.HasPrefix(iv.Row, wn+" "+iface+" ") {
			missed = append(missed, "reservations inconsistent")
			break
		}
	}
	if x.Statements50 > x.Statements5 {
		missed = append(missed, "SQL grows with page size")
	}
	if x.PeakRSS > rssTarget {
		missed = append(missed, "RSS ≥ 200 MiB")
	}
	if len(missed) > 0 {
		return "**missed**: " + strings.Join(missed, "; ")
	}
	if x.Load == nil || fl == nil || fl.Load == nil {
		return "SQL ok; req/s not compared"
	}
	return "met"
}

// ratioCell renders x's figure over the floor's: the median of the rounds,
// with the lowest and highest when there are several.
func (x *cell) ratioCell(fl *cell, iface string, get func(*wrkResult) float64) string {
	if isFloor(iface) {
		return ""
	}
	med, lo, hi, ok := x.ratioTo(fl, get)
	if !ok {
		return ""
	}
	s := fmt.Sprintf("%.2f×", med)
	if len(x.Rounds) > 1 {
		s += fmt.Sprintf(" (%.2f–%.2f)", lo, hi)
	}
	return s
}

// fmtCPU writes a CPU time per request (seconds) in µs; — when unknown.
func fmtCPU(sec float64) string {
	if sec <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f µs", sec*1e6)
}

func fmtDurOrDash(d time.Duration) string {
	if d == 0 {
		return "—"
	}
	return fmtDur(d)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
