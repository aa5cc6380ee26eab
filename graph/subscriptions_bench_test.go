package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// TestSubscriptionLoad is the subscription benchmark harness (docs/subscriptions.md):
// N SSE and N WebSocket subscribers of events on one instance (or, with
// LOGISTICS_SUBSCRIPTION_BENCH_TWIN=1 on PostgreSQL, half of them on a second
// instance) while orders are created at a fixed rate through REST; it
// reports p50/p99 latency from the event's creation to its delivery, the
// memory per subscriber and the loss (every subscriber must see every
// sequence exactly once, in order).
//
//	LOGISTICS_SUBSCRIPTION_BENCH=1000 LOGISTICS_SUBSCRIPTION_BENCH_RATE=100 \
//	LOGISTICS_SUBSCRIPTION_BENCH_SECONDS=30 go test ./graph -run TestSubscriptionLoad -v
//
// Clients run in the same process as the server: the memory figure is an
// upper bound (it includes the clients' buffers).
func TestSubscriptionLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LOGISTICS_SUBSCRIPTION_BENCH"))
	if n <= 0 {
		t.Skip("set LOGISTICS_SUBSCRIPTION_BENCH=<subscribers per transport> to run the subscription load harness")
	}
	rate := envInt("LOGISTICS_SUBSCRIPTION_BENCH_RATE", 100)
	secs := envInt("LOGISTICS_SUBSCRIPTION_BENCH_SECONDS", 10)
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { c.SubscriptionLimit = 4 * n }})
	servers := []*apptest.Server{srv}
	if os.Getenv("LOGISTICS_SUBSCRIPTION_BENCH_TWIN") != "" && apptest.Postgres() {
		servers = append(servers, srv.Twin(t))
	}
	env := environment.Production
	hub := newFixture(t, srv, env).hub("BNC1", "Amsterdam", "NL")
	const q = `subscription { events(types: ["order.created"]) { sequence createdAt } }`

	type result struct {
		lat  []time.Duration
		seqs []int64
	}
	var mu sync.Mutex
	var results []*result
	record := func(r *result, data map[string]any) {
		ev, _ := data["events"].(map[string]any)
		seq, ok := ev["sequence"].(float64)
		if !ok {
			return // the final error message at shutdown
		}
		at, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(ev["createdAt"]))
		mu.Lock()
		r.lat = append(r.lat, time.Since(at))
		r.seqs = append(r.seqs, int64(seq))
		mu.Unlock()
	}
	runtime.GC()
	before := rss()
	var wg sync.WaitGroup
	for i := range 2 * n {
		s := servers[i%len(servers)]
		r := &result{}
		results = append(results, r)
		if i%2 == 0 {
			c := dialSSE(t, s, env, http.Header{}, q, nil)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ev := range c.events {
					if ev.Event != "next" {
						continue
					}
					var p struct{ Data map[string]any }
					_ = json.Unmarshal([]byte(ev.Data), &p)
					record(r, p.Data)
				}
			}()
		} else {
			w := dialWS(t, s, env, nil, map[string]any{"Authorization": "Bearer " + s.Keys[env]})
			w.subscribe("b", q, nil)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					m, err := w.read(time.Duration(secs+30) * time.Second)
					if err != nil || m.Type != "next" {
						return
					}
					var p struct{ Data map[string]any }
					_ = json.Unmarshal(m.Payload, &p)
					record(r, p.Data)
				}
			}()
		}
	}
	time.Sleep(time.Second)
	runtime.GC()
	perSub := float64(rss()-before) / float64(2*n)

	// The writer is open loop: a ticker schedules one order per 1/rate and
	// a pool of writers commits them, so a slow commit does not lower the
	// rate asked; ticks a busy pool cannot take are counted as missed.
	var total, failed, missed atomic.Int64
	slots := make(chan int, rate)
	var writers sync.WaitGroup
	for range 16 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := range slots {
				if err := postOrder(srv, env, hub, "B-"+strconv.Itoa(i)); err != nil {
					failed.Add(1)
					t.Log(err)
					continue
				}
				total.Add(1)
			}
		}()
	}
	cpuBefore := cpuTime()
	streamStart := time.Now()
	tick := time.NewTicker(time.Second / time.Duration(rate))
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		<-tick.C
		select {
		case slots <- i:
		default:
			missed.Add(1)
		}
	}
	tick.Stop()
	close(slots)
	writers.Wait()
	streamed := time.Since(streamStart)
	cpu := cpuTime() - cpuBefore
	time.Sleep(3 * time.Second) // the last deliveries
	ctxStop(srv, servers)
	wg.Wait()

	var all []time.Duration
	lost, dup := 0, 0
	for _, r := range results {
		mu.Lock()
		all = append(all, r.lat...)
		seen := map[int64]bool{}
		for i, s := range r.seqs {
			if seen[s] || (i > 0 && s <= r.seqs[i-1]) {
				dup++
			}
			seen[s] = true
		}
		lost += int(total.Load()) - len(seen)
		mu.Unlock()
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[int(p*float64(len(all)-1))]
	}
	t.Logf("subscribers: %d SSE + %d WebSocket on %d instance(s); events: %d in %ds (%.0f/s asked %d/s; %d ticks missed, %d writes failed)",
		n, n, len(servers), total.Load(), secs, float64(total.Load())/float64(secs), rate, missed.Load(), failed.Load())
	t.Logf("CPU of the process (server and clients) while streaming: %.2f cores of %d", cpu.Seconds()/streamed.Seconds(), runtime.NumCPU())
	t.Logf("delivered: %d; latency event creation → delivery p50 %s, p99 %s; lost %d, duplicated/out of order %d; RSS per subscriber ≈ %.1f KiB (clients included)",
		len(all), pct(0.5).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond), lost, dup, perSub/1024)
	if lost != 0 || dup != 0 || failed.Load() != 0 {
		t.Errorf("lost %d, duplicated %d, writes failed %d", lost, dup, failed.Load())
	}
}

// postOrder creates an order through REST; unlike restOrder it may run on
// any goroutine.
func postOrder(srv *apptest.Server, env environment.Name, hubID, ref string) error {
	body, _ := json.Marshal(map[string]any{"hub_id": hubID, "customer_ref": ref})
	req, err := http.NewRequest(http.MethodPost, srv.Base(env)+"/v1/orders", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+srv.Keys[env])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("create order: %d %s", resp.StatusCode, b)
	}
	return nil
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// ctxStop ends every subscription as a shutdown does.
func ctxStop(_ *apptest.Server, servers []*apptest.Server) {
	for _, s := range servers {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s.App.Streams.Shutdown(ctx)
		cancel()
	}
}

// rss is the process's resident set in bytes (Linux), 0 elsewhere.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
