// Package sandboxreset empties the sandbox and loads its demo data again,
// all or nothing: one transaction records sandbox.reset first, deletes the
// data, writes the demo dataset of the asked scale and seed, and records
// demo_data.loaded; a reset that fails, or a process killed during one,
// leaves the old data as it was. The idempotency keys of the POSTs that
// wrote the erased data go with it; API keys and console users (in the
// production database), webhook endpoints and their deliveries, workflows,
// trusted documents, the other idempotency keys and the event log survive
// (docs/sandbox.md: Reset; docs/design/0027-sandbox-reset-and-test-events.md).
package sandboxreset

import (
	"context"
	"fmt"
	"math"
	"time"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/ent/idempotencykey"
	"logistics/ent/predicate"
	"logistics/ent/workflow"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/demodata"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/service"
	"logistics/internal/workflowdef"
)

// Confirm is what a reset's confirm field must hold: the environment's name,
// typed out, as a repository's is to delete it.
const Confirm = "sandbox"

// EventType is the event a reset records first.
const EventType = "sandbox.reset"

// Bounds of a reset.
const (
	// MaxScale bounds a reset asked through the API (REST, GraphQL, the
	// console): scale 1 (about 50,000 orders and 200,000 items) loads in
	// seconds, inside the server's write time-out, while the sandbox's
	// other writers wait for the one transaction. The CLI takes up to
	// demodata.MaxScale.
	MaxScale = 1.0
	// MaxSeed is the largest seed (GraphQL's Int is 32 bits).
	MaxSeed = math.MaxInt32
	// DefaultScale is the scale of a reset that names none: the dataset
	// a first start loads (app.Defaults' DemoScale).
	DefaultScale = 0.05
)

// Options are what a reset loads.
type Options struct {
	Confirm string  // must be Confirm
	Scale   float64 // 0: DefaultScale
	Seed    int64   // 0: the dataset of every first start
	// MaxScale bounds Scale (0: the API's MaxScale; the CLI passes
	// demodata.MaxScale).
	MaxScale float64
}

// Erased counts the rows a reset deleted: the tables the demo data fills,
// as a load counts what it wrote. (The idempotency keys it deletes are not
// data of the sandbox, and not counted.)
type Erased = demodata.Counts

// Loaded counts the demo rows a reset wrote.
type Loaded struct {
	Hubs   int `json:"hubs"`
	Parts  int `json:"parts"`
	Items  int `json:"items"`
	Orders int `json:"orders"`
}

// Result is what a reset did: data.object of its sandbox.reset event, and
// the answer of every door.
type Result struct {
	Environment string  `json:"environment"`
	Scale       float64 `json:"scale"`
	Seed        int64   `json:"seed"`
	Erased      Erased  `json:"erased"`
	// Loaded is known once the load has run: the event, written first,
	// holds only what was erased and what will be loaded (scale, seed).
	Loaded *Loaded `json:"loaded,omitempty"`
	// TookMs is the reset's duration, in the answer only.
	TookMs int64 `json:"took_ms,omitempty"`
}

// Check validates opt without touching a database: 404 outside the
// sandbox, then the confirmation, scale and seed, as 4xx naming the field.
func Check(env *environment.Env, opt Options) (Options, error) {
	if env == nil || env.Name != environment.Sandbox {
		return opt, auth.ErrSandboxOnly()
	}
	var errs []apperr.FieldError
	if opt.Confirm != Confirm {
		errs = append(errs, apperr.FieldError{Field: "confirm", Message: fmt.Sprintf("must be %q: a reset erases every hub, part, item, order and tracking entry of the sandbox", Confirm)})
	}
	maxScale := opt.MaxScale
	if maxScale <= 0 {
		maxScale = MaxScale
	}
	if opt.Scale == 0 {
		opt.Scale = DefaultScale
	}
	if math.IsNaN(opt.Scale) || opt.Scale <= 0 || opt.Scale > maxScale {
		errs = append(errs, apperr.FieldError{Field: "scale", Message: fmt.Sprintf("must be above 0 and at most %g (the CLI's reset takes up to %d)", maxScale, demodata.MaxScale)})
	}
	if opt.Seed < 0 || opt.Seed > MaxSeed {
		errs = append(errs, apperr.FieldError{Field: "seed", Message: fmt.Sprintf("must be between 0 and %d", MaxSeed)})
	}
	if len(errs) > 0 {
		return opt, apperr.Validation(errs...)
	}
	return opt, nil
}

// lockTables is PostgreSQL's guard against the writers of other instances:
// EXCLUSIVE lets readers read the old data until the commit but makes every
// writer of these tables wait for it, so no row written meanwhile survives
// a reset half-way. SQLite needs none: its write gate and lock let one
// writer in at a time.
const lockTables = `LOCK TABLE hubs, parts, items, orders, order_lines, tracking_entries, order_events, reservations IN EXCLUSIVE MODE`

// lockTimeout bounds the wait for the table locks (PostgreSQL): a reset
// that cannot have them is a 503 to retry, not a wait of minutes.
const lockTimeout = "SET LOCAL lock_timeout = '10s'"

// Reset empties env (the sandbox) and loads its demo data again, in one
// transaction; it returns what it did.
func Reset(ctx context.Context, env *environment.Env, opt Options) (*Result, error) {
	opt, err := Check(env, opt)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if environment.FromContext(ctx) != env {
		ctx = environment.NewContext(ctx, env)
	}
	res := &Result{Environment: string(env.Name), Scale: opt.Scale, Seed: opt.Seed}
	actor := auth.Actor(ctx)
	// Inside a caller's transaction (a GraphQL mutation, a keyed POST) the
	// commit comes later: ANALYZE would wait for the table locks held by it.
	ownTx := ent.TxFromContext(ctx) == nil
	err = service.WithTx(ctx, func(ctx context.Context) error {
		tx := ent.TxFromContext(ctx)
		c := tx.Client()
		if env.DB.Dialect == dialect.Postgres {
			for _, stmt := range []string{lockTimeout, lockTables} {
				if _, err := c.ExecContext(ctx, stmt); err != nil {
					return busy(err)
				}
			}
		}
		wf, err := c.Workflow.Query().Where(workflow.Key(workflowdef.FulfilmentKey)).Order(ent.Asc(workflow.FieldVersion)).First(ctx)
		if err != nil {
			return apperr.Internal(fmt.Errorf("sandboxreset: the built-in workflow: %w", err))
		}
		// Children before parents, each table in one statement.
		steps := []struct {
			n   *int
			del func(context.Context) (int, error)
		}{
			{&res.Erased.Reservations, c.Reservation.Delete().Exec},
			{&res.Erased.TrackingEntries, c.TrackingEntry.Delete().Exec},
			{&res.Erased.OrderEvents, c.OrderEvent.Delete().Exec},
			{&res.Erased.OrderLines, c.OrderLine.Delete().Exec},
			{&res.Erased.Orders, c.Order.Delete().Exec},
			{&res.Erased.Items, c.Item.Delete().Exec},
			{&res.Erased.Parts, c.Part.Delete().Exec},
			{&res.Erased.Hubs, c.Hub.Delete().Exec},
		}
		for _, s := range steps {
			n, err := s.del(ctx)
			if err != nil {
				return fmt.Errorf("sandboxreset: erase: %w", err)
			}
			*s.n = n
		}
		if _, err := c.IdempotencyKey.Delete().Where(erasedWrites()).Exec(ctx); err != nil {
			return fmt.Errorf("sandboxreset: erase the idempotency keys: %w", err)
		}
		// Recorded first: its number comes before demo_data.loaded's.
		if err := eventlog.Record(ctx, eventlog.Change{Type: EventType, Actor: actor, Object: *res}); err != nil {
			return err
		}
		counts, err := demodata.Write(ctx, c, env.DB.Dialect, wf.ID, opt.Scale, uint64(opt.Seed))
		if err != nil {
			return err
		}
		if afterLoad != nil {
			if err := afterLoad(ctx); err != nil {
				return err
			}
		}
		res.Loaded = &Loaded{Hubs: counts.Hubs, Parts: counts.Parts, Items: counts.Items, Orders: counts.Orders}
		return eventlog.Record(ctx, eventlog.Change{Type: "demo_data.loaded", Actor: actor, Object: counts.EventObject()})
	})
	if err != nil {
		return nil, apperr.From(err)
	}
	if env.DB.Dialect == dialect.Postgres && ownTx {
		// Statistics for the new rows; the reset has committed either way.
		_ = demodata.Analyze(context.WithoutCancel(ctx), env.DB.SQL)
	}
	res.TookMs = time.Since(start).Milliseconds()
	return res, nil
}

// ErasedPaths are the REST collections whose data a reset erases. The
// idempotency keys of the POSTs under them go with the data: a retry with
// one would replay a response describing rows that no longer exist, where
// it should create them anew. The keys of the POSTs whose effect survives
// (workflows, webhook endpoints' tests and resends, the clock, a reset
// itself, the keyed reset's own claim included) stay, and replay.
var ErasedPaths = []string{"/v1/hubs", "/v1/parts", "/v1/items", "/v1/orders", "/v1/order-lines", "/v1/tracking-entries"}

// erasedWrites selects the idempotency keys of POSTs under ErasedPaths. A
// key's path is the request's, under the sandbox's base path (/sandbox,
// another, or none, as the server that took it was configured: the CLI's
// reset may know another), so the collection is matched at its end.
func erasedWrites() predicate.IdempotencyKey {
	var ps []predicate.IdempotencyKey
	for _, p := range ErasedPaths {
		ps = append(ps, idempotencykey.PathHasSuffix(p), idempotencykey.PathContains(p+"/"))
	}
	return idempotencykey.Or(ps...)
}

// afterLoad, when set (tests), runs after the demo data is written, in the
// reset's transaction: its error fails the reset there.
var afterLoad func(context.Context) error

// busy is the answer to a reset that could not lock the tables in time.
func busy(err error) error {
	return apperr.Unavailable("the sandbox is busy with other writes (%v); retry shortly", err).WithCode("sandbox_busy").WithHeader("Retry-After", "1")
}
