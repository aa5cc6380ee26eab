// Command webhooks measures webhook delivery on loopback: commit → receiver
// latency at a sustained event rate, with loss and duplicates counted, and
// the deliveries per second one instance drains from a backlog.
//
//	go run ./bench/webhooks                                   # SQLite, 1 instance, 200 events/s for 60 s
//	go run ./bench/webhooks --db postgres://…/bench --instances 2
//	go run ./bench/webhooks --mode drain --backlog 5000        # deliveries/s of one instance
//
// Each instance is a whole service (internal/app) in this process with its
// own connection pools, sharing the databases as separate processes would.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"logistics/ent"
	"logistics/internal/app"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "webhooks bench:", err)
		os.Exit(1)
	}
}

// options of one run.
type options struct {
	mode      string // latency or drain
	db        string // production database (SQLite path or postgres:// DSN); empty: a temporary SQLite file
	sandbox   string
	instances int
	rate      float64
	duration  time.Duration
	backlog   int
	workers   int
	grace     time.Duration // how long to wait for the last deliveries
}

// Result is what a run measured.
type Result struct {
	Mode          string
	Instances     int
	Events        int
	Delivered     int
	Lost          int
	Duplicates    int
	P50, P99, Max time.Duration
	PerInstance   []float64 // deliveries per second by each instance
	CommitRate    float64   // events committed per second achieved (latency mode)
	Elapsed       time.Duration
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var o options
	fs := flag.NewFlagSet("webhooks", flag.ContinueOnError)
	fs.StringVar(&o.mode, "mode", "latency", "latency (events at --rate for --duration) or drain (a backlog sent by one instance)")
	fs.StringVar(&o.db, "db", "", "production database: SQLite path or postgres:// DSN (default: a temporary SQLite file)")
	fs.StringVar(&o.sandbox, "sandbox-db", "", "sandbox database (default: next to --db, or temporary)")
	fs.IntVar(&o.instances, "instances", 1, "service instances sharing the database (more than one needs PostgreSQL)")
	fs.Float64Var(&o.rate, "rate", 200, "events committed per second (latency mode)")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "how long to commit events (latency mode)")
	fs.IntVar(&o.backlog, "backlog", 5000, "events queued before the instance starts (drain mode)")
	fs.IntVar(&o.workers, "workers", 8, "--webhook-workers of each instance")
	fs.DurationVar(&o.grace, "grace", 30*time.Second, "how long to wait for the last deliveries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	res, err := measure(ctx, o)
	if err != nil {
		return err
	}
	res.print(out)
	if res.Lost > 0 {
		return fmt.Errorf("%d events lost", res.Lost)
	}
	return nil
}

func (r Result) print(w io.Writer) {
	fmt.Fprintf(w, "mode %s, %d instance(s): %d events, %d delivered, %d lost, %d duplicates in %s\n",
		r.Mode, r.Instances, r.Events, r.Delivered, r.Lost, r.Duplicates, r.Elapsed.Round(time.Millisecond))
	if r.Mode == "latency" {
		fmt.Fprintf(w, "events committed at %.0f/s\n", r.CommitRate)
		fmt.Fprintf(w, "commit → receiver latency: p50 %s, p99 %s, max %s\n", r.P50, r.P99, r.Max)
	}
	for i, v := range r.PerInstance {
		fmt.Fprintf(w, "instance %d: %.0f deliveries/s\n", i+1, v)
	}
}

// receiver records when each event (by its subject, the hub) first arrived.
type receiver struct {
	mu      sync.Mutex
	arrived map[string]time.Time
	count   map[string]int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	var ev struct {
		SubjectID string `json:"subject_id"`
	}
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&ev)
	rc.mu.Lock()
	if _, ok := rc.arrived[ev.SubjectID]; !ok {
		rc.arrived[ev.SubjectID] = now
	}
	rc.count[ev.SubjectID]++
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func measure(ctx context.Context, o options) (Result, error) {
	if o.instances < 1 {
		return Result{}, errors.New("--instances must be at least 1")
	}
	tmp, err := os.MkdirTemp("", "webhooks-bench-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	cfg := app.Defaults()
	cfg.DataDir = tmp
	cfg.DB, cfg.SandboxDB = o.db, o.sandbox
	if cfg.DB == "" {
		cfg.DB = filepath.Join(tmp, "production.db")
	}
	if cfg.SandboxDB == "" {
		cfg.SandboxDB = filepath.Join(tmp, "sandbox.db")
	}
	cfg.NoDemoData = true
	cfg.AdminPassword = "bench-password"
	cfg.WebhookAllowPrivate = true
	cfg.WebhookWorkers = o.workers
	cfg.WebhookPoll = 200 * time.Millisecond
	cfg.WebhookSchedule = "1s,2s,5s,10s"
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rc := &receiver{arrived: map[string]time.Time{}, count: map[string]int{}}
	recv := httptest.NewServer(rc)
	defer recv.Close()

	open := func(workers int) (*app.App, error) {
		c := cfg
		c.WebhookWorkers = workers
		a, err := app.Open(ctx, c, log, app.Options{})
		if err == nil {
			a.StartWebhooks()
		}
		return a, err
	}
	// The writer instance: in drain mode it only queues (no workers).
	writerWorkers := o.workers
	if o.mode == "drain" {
		writerWorkers = 0
	}
	first, err := open(writerWorkers)
	if err != nil {
		return Result{}, err
	}
	defer first.Close()
	env := first.Envs.Production()
	ectx := ent.NewContext(environment.NewContext(ctx, env), env.DB.Client)
	// Registering an endpoint for every event needs every read scope.
	ectx = auth.NewContext(ectx, &auth.Principal{Kind: auth.KindToken, Scopes: auth.AllScopes()})
	if _, _, err := first.Webhooks.Create(ectx, webhookInput(recv.URL)); err != nil {
		return Result{}, err
	}
	committed := map[string]time.Time{}
	var mu sync.Mutex
	commit := func(i int) error {
		h, err := first.Service.CreateHub(ectx, ent.CreateHubInput{Code: fmt.Sprintf("B%07d", i), Name: "bench", Country: "NL"})
		if err != nil {
			return err
		}
		mu.Lock()
		committed[string(h.ID)] = time.Now()
		mu.Unlock()
		return nil
	}
	apps := []*app.App{first}
	res := Result{Mode: o.mode, Instances: o.instances}
	var start time.Time
	switch o.mode {
	case "latency":
		for range o.instances - 1 {
			a, err := open(o.workers)
			if err != nil {
				return Result{}, err
			}
			defer a.Close()
			apps = append(apps, a)
		}
		start = time.Now()
		n := int(o.rate * o.duration.Seconds())
		tick := time.Duration(float64(time.Second) / o.rate)
		// Open loop: each event is committed at its time by one of 16
		// writers, so a slow commit does not lower the rate asked (a
		// sequential writer fell to ~115/s on a busy machine).
		sem := make(chan struct{}, 16)
		var wg sync.WaitGroup
		var failed error
		for i := range n {
			if d := time.Until(start.Add(time.Duration(i) * tick)); d > 0 {
				time.Sleep(d)
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if err := commit(i); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		res.CommitRate = float64(n) / time.Since(start).Seconds()
		if failed != nil {
			return Result{}, failed
		}
	case "drain":
		for i := range o.backlog {
			if err := commit(i); err != nil {
				return Result{}, err
			}
		}
		drainer, err := open(o.workers)
		if err != nil {
			return Result{}, err
		}
		defer drainer.Close()
		apps = []*app.App{drainer}
		start = time.Now()
	default:
		return Result{}, fmt.Errorf("unknown --mode %q", o.mode)
	}
	res.Events = len(committed)
	deadline := time.Now().Add(o.grace)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		got := len(rc.arrived)
		rc.mu.Unlock()
		if got >= res.Events {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	res.Elapsed = time.Since(start)
	var lat []time.Duration
	rc.mu.Lock()
	for id, at := range committed {
		if got, ok := rc.arrived[id]; ok {
			res.Delivered++
			lat = append(lat, max(got.Sub(at), 0))
		} else {
			res.Lost++
		}
		if c := rc.count[id]; c > 1 {
			res.Duplicates += c - 1
		}
	}
	last := time.Time{}
	for _, t := range rc.arrived {
		if t.After(last) {
			last = t
		}
	}
	rc.mu.Unlock()
	slices.Sort(lat)
	if len(lat) > 0 {
		res.P50, res.P99, res.Max = lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	}
	busy := last.Sub(start).Seconds()
	for _, a := range apps {
		_, delivered := a.Webhooks.Counts()
		if busy > 0 {
			res.PerInstance = append(res.PerInstance, float64(delivered)/busy)
		}
	}
	return res, nil
}
