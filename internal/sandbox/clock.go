// Package sandbox is what makes the sandbox behave like the world over time
// (docs/sandbox.md, docs/design/0026-sandbox-clock-and-simulated-carriers.md):
// a test clock kept in the sandbox's database, which every instance reads,
// and simulated carriers, whose test tracking numbers schedule a shipment's
// whole history on that clock. Production has neither: every door to them
// answers 404 there.
package sandbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/sandboxclock"
	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/internal/service"
)

// clockName is the key of the clock's one row.
const clockName = "sandbox"

// MaxAdvance is the most one call may move the clock: a year.
const MaxAdvance = 366 * 24 * time.Hour

// State is the clock as the API shows it.
type State struct {
	// Now is the sandbox's time: what events carry in occurred_at.
	Now time.Time `json:"now"`
	// Frozen: the clock stands still until advanced, set or resumed.
	Frozen bool `json:"frozen"`
	// RealTime is the real time it was read at.
	RealTime time.Time `json:"real_time"`
	// AheadSeconds is how far Now is ahead of RealTime.
	AheadSeconds float64 `json:"ahead_seconds"`
}

// realNow is the real time (a variable for nothing but readability: the
// clock's tests drive it through the API).
func realNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// stateOf is the clock row's state at real time now (row nil: never moved,
// real time).
func stateOf(row *ent.SandboxClock, now time.Time) State {
	s := State{Now: now, RealTime: now}
	if row != nil {
		if row.FrozenAt != nil {
			s.Now, s.Frozen = row.FrozenAt.UTC(), true
		} else {
			s.Now = now.Add(time.Duration(row.OffsetUs) * time.Microsecond)
		}
	}
	s.AheadSeconds = s.Now.Sub(now).Seconds()
	return s
}

// Now is the sandbox's eventlog.Clock: the simulated time, read from the
// database with c (the transaction's client when there is one).
func Now(ctx context.Context, c *ent.Client) (time.Time, error) {
	row, err := c.SandboxClock.Query().Where(sandboxclock.Name(clockName)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return time.Time{}, fmt.Errorf("sandbox clock: %w", err)
	}
	return stateOf(row, realNow()).Now, nil
}

// requireSandbox is the 404 every sandbox-only door answers in production.
func requireSandbox(ctx context.Context) error {
	if env := environment.FromContext(ctx); env == nil || env.Name != environment.Sandbox {
		return apperr.NotFound("the test clock and simulated carriers exist only in the sandbox")
	}
	return nil
}

func client(ctx context.Context) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	return ent.FromContext(ctx)
}

// Clock is the sandbox's test clock and what moving it runs.
type Clock struct {
	Svc *service.Service
	// Hasten makes the webhook retries due by the real time until due now
	// (webhooks.Manager.Hasten); nil: retries keep their real-time schedule.
	Hasten func(ctx context.Context, env *environment.Env, until time.Time) (int, error)
}

// Get reads the clock.
func (k *Clock) Get(ctx context.Context) (State, error) {
	if err := requireSandbox(ctx); err != nil {
		return State{}, err
	}
	row, err := client(ctx).SandboxClock.Query().Where(sandboxclock.Name(clockName)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return State{}, apperr.From(err)
	}
	return stateOf(row, realNow()), nil
}

// Freeze stops the clock at its current time.
func (k *Clock) Freeze(ctx context.Context) (State, error) {
	return k.move(ctx, func(s State) (time.Time, bool, error) { return s.Now, true, nil })
}

// Resume lets a frozen clock run again from where it stands (it stays
// ahead of real time by what it was advanced).
func (k *Clock) Resume(ctx context.Context) (State, error) {
	return k.move(ctx, func(s State) (time.Time, bool, error) { return s.Now, false, nil })
}

// Advance moves the clock forward by d (more than zero, at most MaxAdvance),
// frozen or running, then runs everything that fell due.
func (k *Clock) Advance(ctx context.Context, d time.Duration) (State, error) {
	if d <= 0 {
		return State{}, apperr.Invalid("by", "must be a positive duration, e.g. 36h or 90m (the clock never goes back)")
	}
	if d > MaxAdvance {
		return State{}, apperr.Invalid("by", "must be at most 8784h (a year) per call")
	}
	return k.move(ctx, func(s State) (time.Time, bool, error) { return s.Now.Add(d), s.Frozen, nil })
}

// Set moves the clock forward to t (never back: a t before the clock's time
// is a 422), then runs everything that fell due.
func (k *Clock) Set(ctx context.Context, t time.Time) (State, error) {
	return k.move(ctx, func(s State) (time.Time, bool, error) {
		t = t.UTC().Truncate(time.Microsecond)
		if t.Before(s.Now) {
			return time.Time{}, false, apperr.Invalid("to", "%s is before the clock's time %s: the clock never goes back",
				t.Format(time.RFC3339Nano), s.Now.Format(time.RFC3339Nano))
		}
		if t.Sub(s.Now) > MaxAdvance {
			return time.Time{}, false, apperr.Invalid("to", "is more than a year (8784h) ahead of the clock's time")
		}
		return t, s.Frozen, nil
	})
}

// move changes the clock in one transaction holding its row's lock (so two
// instances moving it at once add up), then writes what fell due and
// hastens the webhook retries the move made due.
func (k *Clock) move(ctx context.Context, to func(State) (time.Time, bool, error)) (State, error) {
	if err := requireSandbox(ctx); err != nil {
		return State{}, err
	}
	var before, after State
	err := service.WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		row, err := lockClock(ctx, c)
		if err != nil {
			return err
		}
		now := realNow()
		before = stateOf(row, now)
		t, frozen, err := to(before)
		if err != nil {
			return err
		}
		u := c.SandboxClock.UpdateOneID(row.ID).SetUpdatedAt(now)
		if frozen {
			u.SetFrozenAt(t).SetOffsetUs(0)
		} else {
			u.ClearFrozenAt().SetOffsetUs(max(t.Sub(now).Microseconds(), 0))
		}
		row, err = u.Save(ctx)
		if err != nil {
			return apperr.From(err)
		}
		after = stateOf(row, now)
		return nil
	})
	if err != nil {
		return State{}, err
	}
	if after.Now.After(before.Now) {
		// The retries waiting by real time fall due on the clock's line
		// too: one due d after the move began is made due before the
		// entries due later than before.Now+d are written.
		start, env := realNow(), environment.FromContext(ctx)
		hasten := func(until time.Time) error {
			if k.Hasten == nil || !until.After(before.Now) {
				return nil
			}
			if _, err := k.Hasten(ctx, env, start.Add(until.Sub(before.Now))); err != nil {
				return apperr.From(err)
			}
			return nil
		}
		if err := k.runDue(ctx, hasten); err != nil {
			return State{}, err
		}
		if err := hasten(after.Now); err != nil {
			return State{}, err
		}
	}
	return after, nil
}

// lockClock returns the clock's row, made if missing, holding its lock
// until the transaction ends (PostgreSQL; SQLite's write transactions hold
// the database's).
func lockClock(ctx context.Context, c *ent.Client) (*ent.SandboxClock, error) {
	if err := c.SandboxClock.Create().SetName(clockName).
		OnConflictColumns(sandboxclock.FieldName).Ignore().Exec(ctx); err != nil {
		return nil, apperr.From(err)
	}
	if c.Driver().Dialect() == dialect.Postgres {
		var rows entsql.Rows
		if err := c.Driver().Query(ctx, `SELECT id FROM `+sandboxclock.Table+` WHERE name = $1 FOR UPDATE`, []any{clockName}, &rows); err != nil {
			return nil, apperr.From(err)
		}
		var id sql.NullString
		for rows.Next() {
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, apperr.From(err)
			}
		}
		if err := rows.Close(); err != nil {
			return nil, apperr.From(err)
		}
	}
	row, err := c.SandboxClock.Query().Where(sandboxclock.Name(clockName)).Only(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	return row, nil
}

// ParseDuration reads a duration for Advance ("36h", "90m", "72h30m"): a
// 400 naming field for anything else, or for a text over 32 characters.
func ParseDuration(field, s string) (time.Duration, error) {
	if len(s) > 32 {
		return 0, apperr.Invalid(field, "is too long: a duration such as 36h or 90m")
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, apperr.Invalid(field, "is not a duration: write one such as 36h, 90m or 72h30m")
	}
	return d, nil
}
