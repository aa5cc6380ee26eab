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
}

// add records one round.
func (x *cell) add(res *wrkResult, rss int64) {
	x.Rounds = append(x.Rounds, res)
	x.PeakRSS = max(x.PeakRSS, rss)
	sorted := slices.Clone(x.Rounds)
	slices.SortFunc(sorted, func(a, b *wrkResult) int { return cmp.Compare(a.RPS, b.RPS) })
	x.Load = sorted[(len(sorted)-1)/2]
}

// rpsRatio is x's req/s over the floor's, round by round (each pair was
// measured minutes apart at most, so a slow spell of the machine weighs on
// both): the median, the lowest and the highest.
func (x *cell) rpsRatio(fl *cell) (med, lo, hi float64, ok bool) {
	if fl == nil {
		return 0, 0, 0, false
	}
	var rs []float64
	for i := 0; i < len(x.Rounds) && i < len(fl.Rounds); i++ {
		if fl.Rounds[i].RPS > 0 {
			rs = append(rs, x.Rounds[i].RPS/fl.Rounds[i].RPS)
		}
	}
	if len(rs) == 0 {
		return 0, 0, 0, false
	}
	slices.Sort(rs)
	return rs[(len(rs)-1)/2], rs[0], rs[len(rs)-1], true
}

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

func (r *report) describeMachine(root string) {
	load, _ := os.ReadFile("/proc/loadavg")
	fields := strings.Fields(string(load))
	if len(fields) > 3 {
		fields = fields[:3]
	}
	r.Machine = fmt.Sprintf("%d CPUs, %s/%s, load average at start %s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, strings.Join(fields, " "))
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

// targets of issue 6: the lowest ratio of the floor's requests per second.
var rpsTarget = map[string]float64{"W1": 0.7, "W2": 0.7, "W3": 0.5}

const rssTarget = 200 << 20

// markdown renders the run as a table to paste into the README.
func (r *report) markdown() string {
	c := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "## Benchmark run %s\n\n", r.Started.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- commit %s, %s, database %s (sandbox)\n", orDash(r.Commit), runtime.Version(), r.Dialect)
	fmt.Fprintf(&b, "- dataset: %s\n", r.Dataset)
	fmt.Fprintf(&b, "- machine: %s\n", r.Machine)
	auth := "on (Authorization: Bearer, sandbox key)"
	if !r.Token {
		auth = "**off** (no API key: the server had no auth, or --no-token)"
	}
	fmt.Fprintf(&b, "- load: wrk -t%d -c%d -d%s --latency (after %s warm-up), 127.0.0.1, a fresh server process per row; auth %s\n",
		min(c.Threads, c.Connections), c.Connections, wrkDuration(c.Duration), c.Warmup, auth)
	if c.Rounds > 1 {
		fmt.Fprintf(&b, "- %d rounds, interleaved: req/s and latencies are the round with the median req/s; × floor for req/s is the median of the per-round ratios (lowest–highest); peak RSS the highest\n", c.Rounds)
	}
	if len(r.ServerFlags) > 0 {
		fmt.Fprintf(&b, "- server flags: `%s`\n", strings.Join(r.ServerFlags, " "))
	}
	if g := os.Getenv("GOGC"); g != "" {
		fmt.Fprintf(&b, "- garbage collector: GOGC=%s from the environment, for the server and the floor alike\n", g)
	} else {
		b.WriteString("- garbage collector: the server's own setting (`--gc-percent`, 400 unless a server flag says otherwise); the floor at Go's default (GOGC=100)\n")
	}
	if c.Pprof {
		b.WriteString("- **profiled run** (--pprof): CPU profiling was on; use these figures for profiles, not as the reference\n")
	}
	b.WriteString("\n| Workload | Interface | req/s | × floor | p50 | × floor | p99 | × floor | peak RSS | SQL/request (page 5 → 50) | non-2xx | targets |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n")
	var notes []string
	for _, wn := range c.Workloads {
		fl := r.Cells[wn+"/"+ifFloor]
		for _, iface := range allInterfaces {
			x := r.Cells[wn+"/"+iface]
			if x == nil {
				continue
			}
			row := []string{wn, iface}
			if x.Skip != "" && x.Load == nil && x.Statements50 == 0 {
				row = append(row, "—", "", "—", "", "—", "", "—", "—", "—", "not measured: "+x.Skip)
				b.WriteString("| " + strings.Join(row, " | ") + " |\n")
				continue
			}
			var floorLoad *wrkResult
			if fl != nil && iface != ifFloor {
				floorLoad = fl.Load
			}
			if x.Load != nil {
				rps := ""
				if med, lo, hi, ok := x.rpsRatio(fl); ok && iface != ifFloor {
					rps = fmt.Sprintf("%.2f×", med)
					if len(x.Rounds) > 1 {
						rps += fmt.Sprintf(" (%.2f–%.2f)", lo, hi)
					}
				}
				row = append(row, fmt.Sprintf("%.0f", x.Load.RPS), rps,
					fmtDur(x.Load.P50), ratio(x.Load.P50.Seconds(), floorLoad, func(w *wrkResult) float64 { return w.P50.Seconds() }),
					fmtDur(x.Load.P99), ratio(x.Load.P99.Seconds(), floorLoad, func(w *wrkResult) float64 { return w.P99.Seconds() }))
			} else {
				row = append(row, "—", "", "—", "", "—", "")
			}
			rss := "—"
			if x.PeakRSS > 0 {
				rss = fmt.Sprintf("%.0f MiB", float64(x.PeakRSS)/(1<<20))
			}
			stm := fmt.Sprintf("%d → %d", x.Statements5, x.Statements50)
			if fl != nil && iface != ifFloor && fl.Statements50 > 0 {
				stm += fmt.Sprintf(" (%.1f× floor)", float64(x.Statements50)/float64(fl.Statements50))
			}
			non2xx := "—"
			if x.Load != nil {
				non2xx = fmt.Sprint(x.Load.Non2xx + x.Load.SocketErr)
				if x.Load.Non2xx+x.Load.SocketErr > 0 {
					notes = append(notes, fmt.Sprintf("%s %s: %d non-2xx responses and %d socket errors out of %d requests: the figures are not valid (a 429 means the rate limit: pass a generous limit with --server-flag)",
						wn, iface, x.Load.Non2xx, x.Load.SocketErr, x.Load.Requests))
				}
			}
			row = append(row, rss, stm, non2xx, r.targets(wn, iface, x, fl))
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			if x.Skip != "" {
				notes = append(notes, fmt.Sprintf("%s %s: load not measured: %s", wn, iface, x.Skip))
			}
		}
		if p := r.Parity[wn]; p != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", wn, p))
		}
	}
	b.WriteString("\n× floor: the interface's figure divided by the floor's (requests per second: higher is better; latency: lower is better). ")
	b.WriteString("SQL/request is counted in process, one request at each page size. Targets (issue 6): ≥ 0.7× the floor's req/s on W1 and W2, ≥ 0.5× on W3; SQL/request constant in page size; peak RSS < 200 MiB.\n")
	for _, w := range c.Workloads {
		fmt.Fprintf(&b, "\n- %s: %s", w, workloadByName(w).Title)
	}
	b.WriteString("\n")
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

// targets checks one row against issue 6's targets.
func (r *report) targets(wn, iface string, x, fl *cell) string {
	if iface == ifFloor {
		return "(reference)"
	}
	var missed []string
	if q, _, _, ok := x.rpsRatio(fl); ok {
		if q < rpsTarget[wn] {
			missed = append(missed, fmt.Sprintf("req/s %.2f× < %.1f×", q, rpsTarget[wn]))
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

func ratio(v float64, floor *wrkResult, get func(*wrkResult) float64) string {
	if floor == nil || get(floor) == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", v/get(floor))
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
