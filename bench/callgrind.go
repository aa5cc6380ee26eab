package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Counting instead of timing (--callgrind N). On a shared machine the
// floor's own CPU per request moves by 30–60% between identical wrk runs,
// which hides any change smaller than that. Valgrind's callgrind counts the
// instructions a process executes, whatever else the machine does: each
// cell's process runs under it with counting off, takes a few requests to
// warm up, then counts N requests sent one after another, and the report
// gives instructions per request beside the floor's. With
// --callgrind-args='--cache-sim=yes --LL=4194304,16,64' it also simulates
// the caches, and gives the last-level misses per request (reads and
// writes): a process can execute few more instructions than the floor and
// still take much longer, when it touches more fresh memory. Runs differ
// by whether a collection cycle falls inside the counted requests (turn the
// collector off), and by the work the server does by the clock (the SQLite
// checkpointer's ticks, the webhook poller), which grows with the counted
// window's wall time and so with the machine's load: compare cells counted
// under the same load (bench/README.md, "Instructions per request").

// callgrindWarmup is the number of requests each process serves before
// counting starts (caches, prepared statements, the API key's bookkeeping).
const callgrindWarmup = 20

// callgrindCount is what callgrind counted over a cell's requests.
type callgrindCount struct {
	Requests int
	Events   map[string]int64 // totals of the dump by event: Ir, DLmr, DLmw, …
}

// per is event ev per request, and whether it was counted.
func (c *callgrindCount) per(ev string) (float64, bool) {
	if c == nil || c.Requests == 0 {
		return 0, false
	}
	v, ok := c.Events[ev]
	return float64(v) / float64(c.Requests), ok
}

// lastLevelMisses is the simulated last-level cache misses per request,
// data reads and writes (and instruction fetches), when the caches were
// simulated.
func (c *callgrindCount) lastLevelMisses() (float64, bool) {
	var sum float64
	found := false
	for _, ev := range []string{"ILmr", "DLmr", "DLmw"} {
		if v, ok := c.per(ev); ok {
			sum, found = sum+v, true
		}
	}
	return sum, found
}

// parseCallgrindTotals reads the events and their totals from a callgrind
// output file ("events: Ir …" and "totals: 123 …", or "summary:" in older
// versions).
func parseCallgrindTotals(text string) (map[string]int64, error) {
	var events, totals []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "events:"); ok {
			events = strings.Fields(v)
		} else if v, ok := strings.CutPrefix(line, "totals:"); ok {
			totals = strings.Fields(v)
		} else if v, ok := strings.CutPrefix(line, "summary:"); ok && totals == nil {
			totals = strings.Fields(v)
		}
	}
	if len(events) == 0 || len(totals) == 0 {
		return nil, errors.New("callgrind output without events: or totals: line")
	}
	if len(totals) > len(events) {
		return nil, fmt.Errorf("callgrind output: %d totals for %d events", len(totals), len(events))
	}
	out := make(map[string]int64, len(events))
	for i, ev := range events {
		if i >= len(totals) {
			out[ev] = 0 // callgrind leaves trailing zeros out
			continue
		}
		n, err := strconv.ParseInt(totals[i], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("callgrind output: total of %s: %w", ev, err)
		}
		out[ev] = n
	}
	return out, nil
}

// callgrindCommand returns the command that runs bin with args under
// callgrind, counting off until callgrind_control switches it on, and its
// output file.
func callgrindCommand(extra []string, outFile, bin string, args []string) (string, []string) {
	full := append([]string{"--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + outFile}, extra...)
	return "valgrind", append(append(full, bin), args...)
}

// measureCallgrind runs one cell under callgrind (see above) and returns
// what it counted.
func measureCallgrind(ctx context.Context, c *config, w workload, iface, bin, self string, serverArgs, floorEnv []string, base, token string, fix fixture) (*callgrindCount, error) {
	name := strings.ToLower(w.Name) + "-" + iface
	procBin, args, env := bin, []string{"serve", "--addr", "{addr}", "--base-url", "http://{addr}", "--sandbox-url", "http://{addr}" + base, "--log-format", "json"}, []string(nil)
	if isFloor(iface) {
		procBin, env = self, floorEnv
		args = append([]string{"floor", "--addr", "{addr}", "--sandbox-db", c.SandboxDB}, c.floorArgs...)
	} else {
		args = append(args, serverArgs...)
	}
	// Go preempts goroutines with signals, which callgrind does not survive.
	// One P: callgrind runs one thread at a time anyway, and with more the
	// scheduler's idle Ps spin while a request waits (W4's write gate
	// waiting for writers to join its group): counted, and as long as the
	// wait, those spins moved a cell several-fold between identical runs.
	// Go reads the CPU's clock with RDTSCP where the CPU has it, which
	// valgrind 3.19 cannot execute (SIGILL at the first runtime lock on an
	// AMD Zen machine): the runtime is told the CPU lacks it.
	env = append(append([]string{}, env...), "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off", "GOMAXPROCS=1")
	outFile, err := filepath.Abs(filepath.Join(c.Out, name+".callgrind"))
	if err != nil {
		return nil, err
	}
	vg, vgArgs := callgrindCommand(strings.Fields(c.CallgrindArgs), outFile, procBin, args)
	p, err := start(ctx, vg, vgArgs, env, filepath.Join(c.Out, name+".log"), false)
	if err != nil {
		return nil, err
	}
	defer p.stop()

	send := httpDo(ctx, p.URL)
	one := func(i int) error {
		if w.Ops != nil {
			codes, bodies := runOp(w, iface, base, token, opVars(fix, w, i), send)
			if o := outcome(codes[len(codes)-1], bodies[len(bodies)-1]); o == "error" {
				return fmt.Errorf("operation %d: HTTP %v: %s", i, codes, snippet(bodies[len(bodies)-1]))
			}
			return nil
		}
		code, body := send(buildRequest(w, iface, base, pageSize, c.RESTPaths, token))
		if code != http.StatusOK {
			return fmt.Errorf("HTTP %d: %s", code, snippet(body))
		}
		return nil
	}
	for i := range callgrindWarmup {
		if err := one(i); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	pid := strconv.Itoa(p.cmd.Process.Pid)
	control := func(arg string) error {
		out, err := exec.CommandContext(ctx, "callgrind_control", arg, pid).CombinedOutput()
		if err != nil {
			return fmt.Errorf("callgrind_control %s: %v: %s", arg, err, out)
		}
		return nil
	}
	if err := control("--instr=on"); err != nil {
		return nil, err
	}
	for i := range c.Callgrind {
		if err := one(callgrindWarmup + i); err != nil {
			return nil, err
		}
	}
	if err := control("--dump"); err != nil {
		return nil, err
	}
	// The dump is the first numbered part of the output.
	text, err := os.ReadFile(outFile + ".1")
	if err != nil {
		return nil, err
	}
	ev, err := parseCallgrindTotals(string(text))
	if err != nil {
		return nil, err
	}
	return &callgrindCount{Requests: c.Callgrind, Events: ev}, nil
}

// callgrindMarkdown is the report's table of counted cells.
func (r *report) callgrindMarkdown(b *strings.Builder) {
	c := r.Config
	fmt.Fprintf(b, "\nCounted under callgrind (--callgrind %d, after %d requests of warm-up, one request at a time", c.Callgrind, callgrindWarmup)
	if c.CallgrindArgs != "" {
		fmt.Fprintf(b, ", valgrind %s", c.CallgrindArgs)
	}
	b.WriteString("):\n\n| Workload | Interface | instructions/request | × floor | last-level cache misses/request | × floor |\n|---|---|---:|---:|---:|---:|\n")
	for _, wn := range c.Workloads {
		for _, iface := range allInterfaces {
			x := r.Cells[wn+"/"+iface]
			if x == nil || x.Counted == nil {
				continue
			}
			fl := r.yardstick(wn, iface)
			row := []string{wn, iface, "—", "", "—", ""}
			if v, ok := x.Counted.per("Ir"); ok {
				row[2] = fmt.Sprintf("%.2f M", v/1e6)
				if f, ok := fl.counted().per("Ir"); ok && f > 0 {
					row[3] = fmt.Sprintf("%.2f×", v/f)
				}
			}
			if v, ok := x.Counted.lastLevelMisses(); ok {
				row[4] = fmt.Sprintf("%.0f", v)
				if f, ok := fl.counted().lastLevelMisses(); ok && f > 0 {
					row[5] = fmt.Sprintf("%.2f×", v/f)
				}
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	b.WriteString("\nInstructions of every thread of the process (Go's collector included), user space only (the kernel's work is not counted), divided by the counted requests; one P (GOMAXPROCS=1). Runs of one binary differ by whether a collection cycle (tens of millions of instructions) falls inside the counted requests: about ±0.35 M instructions per request at 200 requests, four times that at 50. Instructions are not time: the last-level misses say how much fresh memory the process touched.\n")
}

// counted is the cell's callgrind count (nil for a nil cell).
func (x *cell) counted() *callgrindCount {
	if x == nil {
		return nil
	}
	return x.Counted
}

// countCell is eachCell's rounds and cell function under --callgrind: one
// round (the counts do not move between rounds), each cell counted.
func countCell(ctx context.Context, c *config, bin, self string, serverArgs, floorEnv []string, base, token string, fix fixture, log func(string, ...any)) (int, func(workload, string, int, *cell) error, error) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return 0, nil, errors.New("--callgrind needs valgrind (Debian: apt-get install valgrind)")
	}
	return 1, func(w workload, iface string, _ int, cl *cell) error {
		n, err := measureCallgrind(ctx, c, w, iface, bin, self, serverArgs, floorEnv, base, token, fix)
		if err != nil {
			return err
		}
		cl.Counted = n
		ir, _ := n.per("Ir")
		log("%s %s: %.2f M instructions/request", w.Name, iface, ir/1e6)
		return nil
	}, nil
}
