package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// wrkResult is what we read from wrk's --latency report.
type wrkResult struct {
	Requests  int64
	RPS       float64
	P50, P99  time.Duration
	P999      time.Duration // from the script's done hook (latency:percentile(99.9))
	Non2xx    int64
	SocketErr int64
	// Outcomes counted by a write workload's script (response hook): 2xx
	// answers without GraphQL errors, expected conflicts (insufficient_stock)
	// and everything else. Counted is false for the read scripts.
	Counted                 bool
	OK, Conflicts, Failures int64
	// FirstFailure is the status and the start of the body of the first
	// failure a write script saw (one of its threads'), for the report.
	FirstFailure string
	Raw          string
	// CPU is the CPU time (user and system) the server process used during
	// the measured run, from /proc/<pid>/stat (0 when unknown).
	CPU time.Duration
	// SQLiteHighwater and GoSys are what the server's /metrics said after
	// the run: the most SQLite's allocator has held, and the bytes Go's
	// runtime has obtained from the system (0: unknown, e.g. the floor).
	SQLiteHighwater, GoSys int64
}

// cpuPerRequest is the server's CPU time per request of the run, in
// seconds (0 when unknown): steadier between runs than req/s on a machine
// whose speed varies.
func (w *wrkResult) cpuPerRequest() float64 {
	if w.CPU <= 0 || w.Requests <= 0 {
		return 0
	}
	return w.CPU.Seconds() / float64(w.Requests)
}

// errorCount is what makes a run invalid: unexpected answers and socket
// errors. A read script counts every non-2xx; a write script counts its own
// failures (a 409 insufficient_stock is expected on W4, not a failure).
func (r *wrkResult) errorCount() int64 {
	if r.Counted {
		return r.Failures + r.SocketErr
	}
	return r.Non2xx + r.SocketErr
}

// luaScript returns a wrk script that sends req (method, path, headers, body).
// The path is set in the script, not on the command line, so the query
// string reaches the server exactly as written (quantity>100&hub[]=AMS1).
func luaScript(req request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %s\n", luaString(req.Method))
	fmt.Fprintf(&b, "wrk.path = %s\n", luaString(req.Path))
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "wrk.headers[%s] = %s\n", luaString(k), luaString(strings.Join(req.Header[k], ", ")))
	}
	if len(req.Body) > 0 {
		fmt.Fprintf(&b, "wrk.body = %s\n", luaString(string(req.Body)))
	}
	b.WriteString(luaDone)
	return b.String()
}

// luaDone prints the 99.9th latency percentile, which wrk's --latency report
// does not give (it stops at 99%), in microseconds.
const luaDone = `
done = function(summary, latency, requests)
  io.write(string.format("bench-p999-us %d\n", latency:percentile(99.9)))
end
`

// luaString quotes s as a Lua string literal.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// wrkOptions are the load settings of one run.
type wrkOptions struct {
	Bin         string
	Threads     int
	Connections int
	Duration    time.Duration
	Timeout     time.Duration
}

// writeScript writes the wrk script of req to path.
func writeScript(path string, req request) error {
	return os.WriteFile(path, []byte(luaScript(req)), 0o600)
}

// runWrk loads hostURL (http://127.0.0.1:port) with a script from
// writeScript for o.Duration.
func runWrk(ctx context.Context, script string, o wrkOptions, hostURL string) (*wrkResult, error) {
	threads := min(o.Threads, o.Connections)
	args := []string{
		"-t" + strconv.Itoa(threads), "-c" + strconv.Itoa(o.Connections),
		"-d" + wrkDuration(o.Duration), "--timeout", wrkDuration(o.Timeout),
		"--latency", "-s", filepath.Clean(script), hostURL,
	}
	cmd := exec.CommandContext(ctx, o.Bin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("wrk %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return parseWrk(string(out))
}

// wrkDuration formats d for wrk, which takes whole seconds ("3s").
func wrkDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return strconv.Itoa(max(s, 1)) + "s"
}

var (
	reRPS       = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	reRequests  = regexp.MustCompile(`(?m)^\s*([0-9]+) requests in `)
	rePercent   = regexp.MustCompile(`(?m)^\s+(50|75|90|99)(?:\.0+)?%\s+([0-9.]+)(us|ms|s|m)\s*$`)
	reNon2xx    = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses:\s+([0-9]+)`)
	reP999      = regexp.MustCompile(`(?m)^bench-p999-us ([0-9]+)`)
	reOutcomes  = regexp.MustCompile(`(?m)^bench-outcomes ok ([0-9]+) conflict ([0-9]+) error ([0-9]+)`)
	reFirstFail = regexp.MustCompile(`(?m)^bench-first-failure (.*)$`)
	reSocketErr = regexp.MustCompile(`(?m)^\s*Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+)`)
)

// parseWrk reads wrk's text report (run with --latency).
func parseWrk(out string) (*wrkResult, error) {
	r := &wrkResult{Raw: out}
	m := reRPS.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("wrk: no Requests/sec in output:\n%s", out)
	}
	r.RPS, _ = strconv.ParseFloat(m[1], 64)
	if m := reRequests.FindStringSubmatch(out); m != nil {
		r.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	}
	for _, m := range rePercent.FindAllStringSubmatch(out, -1) {
		d, err := wrkLatency(m[2], m[3])
		if err != nil {
			return nil, err
		}
		switch m[1] {
		case "50":
			r.P50 = d
		case "99":
			r.P99 = d
		}
	}
	if r.P50 == 0 || r.P99 == 0 {
		return nil, fmt.Errorf("wrk: no latency distribution in output (run with --latency):\n%s", out)
	}
	if m := reP999.FindStringSubmatch(out); m != nil {
		us, _ := strconv.ParseInt(m[1], 10, 64)
		r.P999 = time.Duration(us) * time.Microsecond
	}
	if m := reOutcomes.FindStringSubmatch(out); m != nil {
		r.Counted = true
		r.OK, _ = strconv.ParseInt(m[1], 10, 64)
		r.Conflicts, _ = strconv.ParseInt(m[2], 10, 64)
		r.Failures, _ = strconv.ParseInt(m[3], 10, 64)
	}
	if m := reFirstFail.FindStringSubmatch(out); m != nil {
		r.FirstFailure = strings.TrimSpace(m[1])
	}
	if m := reNon2xx.FindStringSubmatch(out); m != nil {
		r.Non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := reSocketErr.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			r.SocketErr += n
		}
	}
	return r, nil
}

func wrkLatency(num, unit string) (time.Duration, error) {
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("wrk: latency %q: %v", num+unit, err)
	}
	scale := map[string]float64{"us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9}[unit]
	return time.Duration(v * scale), nil
}

// wrkVersion reports whether wrk runs, for a clear error up front.
func wrkVersion(bin string) error {
	out, _ := exec.Command(bin, "-v").CombinedOutput()
	if !bytesHasWrk(out) {
		return fmt.Errorf("%s does not look like wrk (apt-get install wrk): %s", bin, firstLine(out))
	}
	return nil
}

func bytesHasWrk(b []byte) bool { return strings.Contains(string(b), "wrk") }

func firstLine(b []byte) string {
	s := bufio.NewScanner(strings.NewReader(string(b)))
	if s.Scan() {
		return s.Text()
	}
	return ""
}
