package eventstream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/internal/app"
	"logistics/internal/apperr"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/eventstream"
	"logistics/internal/service"
)

// The tests of this file run a Broker over a real event log: the service
// (internal/app) on fresh databases, SQLite, or PostgreSQL when
// LOGISTICS_TEST_POSTGRES is set, whose writes commit events numbered by
// the database; the broker reads them back by sequence.

type fixture struct {
	t   *testing.T
	a   *app.App
	env *environment.Env
	ctx context.Context // the production environment's, for writes
	n   atomic.Int64
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.DB, cfg.SandboxDB = apptest.DSN(t, "production"), apptest.DSN(t, "sandbox")
	cfg.NoDemoData = true
	cfg.AdminPassword = "eventstream-test-password"
	a, err := app.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	env := a.Envs.Production()
	ctx := ent.NewContext(environment.NewContext(context.Background(), env), env.DB.Client)
	return &fixture{t: t, a: a, env: env, ctx: ctx}
}

// broker returns a Broker that is shut down when the test ends.
func (f *fixture) broker(opt eventstream.Options) *eventstream.Broker {
	b := eventstream.New(opt)
	f.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b.Shutdown(ctx)
	})
	return b
}

func (f *fixture) subscribe(b *eventstream.Broker, key string, after *int64) *eventstream.Sub {
	f.t.Helper()
	s, err := b.Subscribe(f.ctx, f.env, key, after)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(s.Close)
	return s
}

// write commits n events (one hub each), one after the other. It may run
// on a goroutine of its own: it reports a failure without stopping.
func (f *fixture) write(n int) {
	f.t.Helper()
	for range n {
		i := f.n.Add(1)
		if _, err := f.a.Service.CreateHub(f.ctx, ent.CreateHubInput{Code: fmt.Sprintf("H%05d", i), Name: "stream test", Country: "NL"}); err != nil {
			f.t.Errorf("write %d: %v", i, err)
			return
		}
	}
}

// logAfter is the log's truth: the sequences of every event after after.
func (f *fixture) logAfter(after int64) []int64 {
	f.t.Helper()
	evs, err := f.env.DB.Client.Event.Query().Where(event.SequenceGT(int(after))).Order(ent.Asc(event.FieldSequence)).All(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = int64(*e.Sequence)
	}
	return out
}

// last is the sequence of the newest event.
func (f *fixture) last() int64 {
	f.t.Helper()
	s := f.logAfter(0)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

// collect reads s until it has handed out n events or the time runs out,
// and returns their sequences in the order received. It checks what every
// batch must be: events after the cursor, in sequence order, the cursor
// moved to the batch's last.
func collect(t *testing.T, s *eventstream.Sub, n int, within time.Duration) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var got []int64
	for len(got) < n {
		before := s.Cursor()
		b, err := s.Next(ctx)
		if err != nil {
			t.Errorf("after %d of %d events: %v", len(got), n, err)
			return got
		}
		if len(b.Events) == 0 {
			t.Errorf("an empty batch")
		}
		prev := before
		for _, e := range b.Events {
			seq := int64(*e.Sequence)
			if seq <= prev {
				t.Errorf("event %d after %d in a batch that follows cursor %d", seq, prev, before)
			}
			prev = seq
			got = append(got, seq)
		}
		if b.Last != prev || s.Cursor() != prev {
			t.Errorf("batch Last %d, cursor %d, want both %d", b.Last, s.Cursor(), prev)
		}
	}
	return got
}

// TestOrderedExactlyOnce: events written by concurrent writers reach a
// subscriber in sequence order, each exactly once, across many reads of
// the log (a page of three events).
func TestOrderedExactlyOnce(t *testing.T) {
	f := newFixture(t)
	b := f.broker(eventstream.Options{PageSize: 3, Poll: 50 * time.Millisecond})
	start := f.last()
	s := f.subscribe(b, "k", nil)
	if s.Cursor() != start {
		t.Fatalf("a new subscriber's cursor %d, want the last sequence %d", s.Cursor(), start)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); f.write(10) }()
	}
	got := collect(t, s, 40, 60*time.Second)
	wg.Wait()
	if want := f.logAfter(start); !slices.Equal(got, want) {
		t.Errorf("received %v\nthe log holds %v", got, want)
	}
}

// TestResumeFromSequence: a subscriber that starts from an earlier sequence
// (a client resuming) gets the log from there, then the events written
// since, with no gap and no duplicate where its own reads of the log meet
// the hub's batches.
func TestResumeFromSequence(t *testing.T) {
	f := newFixture(t)
	b := f.broker(eventstream.Options{PageSize: 3, Poll: 50 * time.Millisecond})
	base := f.last()
	f.write(10)
	written := f.logAfter(base)
	if len(written) != 10 {
		t.Fatalf("%d events written, want 10", len(written))
	}
	// Another subscriber keeps the hub's position at the head of the log.
	live := f.subscribe(b, "k", nil)
	from := written[2]
	s := f.subscribe(b, "k", &from)
	if s.Cursor() != from {
		t.Fatalf("cursor %d, want %d", s.Cursor(), from)
	}
	f.write(5)
	got := collect(t, s, 12, 60*time.Second)
	if want := f.logAfter(from); !slices.Equal(got, want) {
		t.Errorf("resumed from %d: received %v\nthe log holds %v", from, got, want)
	}
	if got := collect(t, live, 5, 30*time.Second); !slices.Equal(got, f.logAfter(written[9])) {
		t.Errorf("the live subscriber received %v, want %v", got, f.logAfter(written[9]))
	}
}

// TestResumeAheadOfTheHub: a subscriber may start from a sequence this
// instance's hub has not read yet (a client that saw it through another
// instance). A batch of the hub that straddles its cursor is handed out
// from the cursor on: the events before it are not handed out again.
func TestResumeAheadOfTheHub(t *testing.T) {
	f := newFixture(t)
	b := f.broker(eventstream.Options{Poll: 50 * time.Millisecond})
	f.write(1)
	head := f.last()
	live := f.subscribe(b, "k", nil)
	ahead := head + 2
	s := f.subscribe(b, "k", &ahead)
	// Six hubs in one transaction: six events in one commit, read by the
	// hub in one batch.
	err := service.WithTx(f.ctx, func(ctx context.Context) error {
		for i := range 6 {
			if _, err := f.a.Service.CreateHub(ctx, ent.CreateHubInput{Code: fmt.Sprintf("TX%d", i), Name: "one commit", Country: "NL"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := f.logAfter(head)
	if len(all) != 6 {
		t.Fatalf("the transaction wrote %d events, want 6", len(all))
	}
	if got := collect(t, live, 6, 30*time.Second); !slices.Equal(got, all) {
		t.Errorf("live: %v, want %v", got, all)
	}
	if got := collect(t, s, 4, 30*time.Second); !slices.Equal(got, all[2:]) {
		t.Errorf("from %d: %v, want %v", ahead, got, all[2:])
	}
}

// TestSlowSubscriber: a subscriber that does not read holds up neither the
// writers nor the other subscribers; once its inbox is full the hub skips
// it, and when it reads again it catches up from the log, every event
// exactly once and in order.
func TestSlowSubscriber(t *testing.T) {
	f := newFixture(t)
	// A batch per event, and room for three events: the slow subscriber
	// falls behind after three, and more batches than its channel holds
	// are handed out while it sleeps.
	b := f.broker(eventstream.Options{PageSize: 1, Buffer: 3, Poll: 50 * time.Millisecond})
	start := f.last()
	slow := f.subscribe(b, "slow", nil)
	fast := f.subscribe(b, "fast", nil)
	const n = 100
	done := make(chan []int64)
	go func() { done <- collect(t, fast, n, 90*time.Second) }()
	f.write(n) // the writers do not wait for the slow subscriber
	var got []int64
	select {
	case got = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the fast subscriber did not get the events while the slow one slept")
	}
	want := f.logAfter(start)
	if !slices.Equal(got, want) {
		t.Errorf("fast: received %v\nthe log holds %v", got, want)
	}
	if got := collect(t, slow, len(want), 60*time.Second); !slices.Equal(got, want) {
		t.Errorf("slow: received %v\nthe log holds %v", got, want)
	}
	// Caught up, it takes the hub's batches again.
	f.write(2)
	if got, want := collect(t, slow, 2, 30*time.Second), f.logAfter(want[len(want)-1]); !slices.Equal(got, want) {
		t.Errorf("slow, after catching up: %v, want %v", got, want)
	}
}

// TestLimitsAndShutdown: a key holds at most PerKey subscriptions (closing
// one frees its place); Shutdown ends every subscriber's Next with
// ErrShutdown and refuses new subscriptions.
func TestLimitsAndShutdown(t *testing.T) {
	f := newFixture(t)
	b := f.broker(eventstream.Options{PerKey: 2, Poll: 50 * time.Millisecond})
	s1 := f.subscribe(b, "k", nil)
	f.subscribe(b, "k", nil)
	_, err := b.Subscribe(f.ctx, f.env, "k", nil)
	if e := apperr.From(err); e == nil || e.Kind != apperr.KindRateLimited {
		t.Fatalf("a third subscription of one key: %v, want rate limited", err)
	}
	f.subscribe(b, "other", nil) // another key has its own count
	s1.Close()
	s1.Close() // twice: counted once
	f.subscribe(b, "k", nil)
	if c := b.Counts(); c["k"] != 2 || c["other"] != 1 {
		t.Errorf("counts %v", c)
	}

	waiting := make(chan error, 2)
	for _, s := range []*eventstream.Sub{f.subscribe(b, "other", nil), f.subscribe(b, "third", nil)} {
		go func() { _, err := s.Next(context.Background()); waiting <- err }()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go b.Shutdown(ctx)
	for range 2 {
		select {
		case err := <-waiting:
			if !errors.Is(err, eventstream.ErrShutdown) {
				t.Errorf("Next at shutdown: %v, want ErrShutdown", err)
			}
		case <-ctx.Done():
			t.Fatal("Next did not end at shutdown")
		}
	}
	if _, err := b.Subscribe(f.ctx, f.env, "new", nil); err == nil {
		t.Error("a subscription accepted during shutdown")
	}
}
