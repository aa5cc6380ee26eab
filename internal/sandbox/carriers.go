package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"logistics/ent"
	"logistics/ent/order"
	"logistics/ent/simulatedscan"
	"logistics/ent/trackingentry"
	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
	"logistics/internal/service"
)

// Scan is one entry of a simulated carrier's schedule: written At after the
// ship transition (its label_created entry).
type Scan struct {
	At          time.Duration
	Status      trackingentry.Status
	AtHub       bool // at the order's hub (hub_id set); otherwise location only
	Location    string
	Description string
}

// Outcome is one test tracking number and the history it produces.
type Outcome struct {
	Number  string // the test tracking number (upper case; matched ignoring case and spaces around it)
	Outcome string // what it simulates, as docs/sandbox.md's table says
	Scans   []Scan
}

// Outcomes are the simulated carriers' test tracking numbers, one per
// outcome. The schedule is fixed: the same number always gives the same
// entries at the same offsets from the ship transition. docs/sandbox.md
// shows this table (TestSandboxDocTable keeps the two equal).
var Outcomes = []Outcome{
	{Number: "SIM-DELIVERED", Outcome: "delivered on time", Scans: []Scan{
		{2 * time.Hour, trackingentry.StatusInTransit, true, "", "Picked up by the carrier"},
		{14 * time.Hour, trackingentry.StatusInTransit, false, "Utrecht sorting centre", "Arrived at the sorting centre"},
		{26 * time.Hour, trackingentry.StatusOutForDelivery, false, "Amsterdam delivery depot", "Out for delivery"},
		{30 * time.Hour, trackingentry.StatusDelivered, false, "Amsterdam", "Delivered to the recipient"},
	}},
	{Number: "SIM-LATE", Outcome: "delivered late (two days behind)", Scans: []Scan{
		{2 * time.Hour, trackingentry.StatusInTransit, true, "", "Picked up by the carrier"},
		{14 * time.Hour, trackingentry.StatusInTransit, false, "Utrecht sorting centre", "Arrived at the sorting centre"},
		{38 * time.Hour, trackingentry.StatusInTransit, false, "Utrecht sorting centre", "Delayed at the sorting centre: volume backlog"},
		{74 * time.Hour, trackingentry.StatusOutForDelivery, false, "Amsterdam delivery depot", "Out for delivery"},
		{78 * time.Hour, trackingentry.StatusDelivered, false, "Amsterdam", "Delivered to the recipient"},
	}},
	{Number: "SIM-EXCEPTION", Outcome: "an exception, then delivered", Scans: []Scan{
		{2 * time.Hour, trackingentry.StatusInTransit, true, "", "Picked up by the carrier"},
		{26 * time.Hour, trackingentry.StatusOutForDelivery, false, "Amsterdam delivery depot", "Out for delivery"},
		{28 * time.Hour, trackingentry.StatusException, false, "Amsterdam", "Delivery attempt failed: recipient not at home"},
		{50 * time.Hour, trackingentry.StatusOutForDelivery, false, "Amsterdam delivery depot", "Out for delivery (second attempt)"},
		{53 * time.Hour, trackingentry.StatusDelivered, false, "Amsterdam", "Delivered to the recipient"},
	}},
	{Number: "SIM-RETURNED", Outcome: "returned to the sender", Scans: []Scan{
		{2 * time.Hour, trackingentry.StatusInTransit, true, "", "Picked up by the carrier"},
		{26 * time.Hour, trackingentry.StatusOutForDelivery, false, "Amsterdam delivery depot", "Out for delivery"},
		{28 * time.Hour, trackingentry.StatusException, false, "Amsterdam", "Address not found"},
		{30 * time.Hour, trackingentry.StatusReturned, false, "Amsterdam delivery depot", "Returning to the sender"},
		{74 * time.Hour, trackingentry.StatusReturned, true, "", "Returned to the sender"},
	}},
	{Number: "SIM-LOST", Outcome: "lost in transit", Scans: []Scan{
		{2 * time.Hour, trackingentry.StatusInTransit, true, "", "Picked up by the carrier"},
		{14 * time.Hour, trackingentry.StatusInTransit, false, "Utrecht sorting centre", "Arrived at the sorting centre"},
		{86 * time.Hour, trackingentry.StatusException, false, "Utrecht sorting centre", "No scan for three days: the parcel is presumed lost"},
	}},
}

// Lookup returns the outcome of a test tracking number.
func Lookup(number string) (Outcome, bool) {
	n := strings.ToUpper(strings.TrimSpace(number))
	for _, o := range Outcomes {
		if o.Number == n {
			return o, true
		}
	}
	return Outcome{}, false
}

// Schedule is the service's ship hook (service.Service.Shipped): in the
// sandbox, an order shipped with a test tracking number gets its outcome's
// entries scheduled, in the ship's transaction, from the clock's time.
// Any other number, and production, schedule nothing.
func Schedule(ctx context.Context, label *ent.TrackingEntry) error {
	env := environment.FromContext(ctx)
	if env == nil || env.Name != environment.Sandbox {
		return nil
	}
	out, ok := Lookup(label.TrackingNumber)
	if !ok {
		return nil
	}
	base := label.OccurredAt
	c := client(ctx)
	creates := make([]*ent.SimulatedScanCreate, len(out.Scans))
	for i, s := range out.Scans {
		cr := c.SimulatedScan.Create().SetOrderID(label.OrderID).SetTrackingNumber(label.TrackingNumber).
			SetCarrier(label.Carrier).SetStatus(simulatedscan.Status(s.Status)).SetLocation(s.Location).
			SetDescription(s.Description).SetDueAt(base.Add(s.At)).SetStep(i)
		if s.AtHub && label.HubID != nil {
			cr.SetHubID(*label.HubID)
		}
		creates[i] = cr
	}
	if err := c.SimulatedScan.CreateBulk(creates...).Exec(ctx); err != nil {
		return apperr.From(err)
	}
	return nil
}

// maxRun is how many entries one RunDue writes at most (the rest waits for
// the next call: the runner's next tick, or the next move of the clock).
const maxRun = 10000

// RunDue writes, in time order, every scheduled entry due by the clock's
// time: each in a transaction of its own, which claims it (deleting its
// row) and writes it through the service's CreateTrackingEntry, with
// occurred_at its due time, so its events, webhooks and subscriptions are a
// client's entry's. On PostgreSQL several instances may run it at once: a
// row deleted by another is skipped.
func (k *Clock) RunDue(ctx context.Context) error { return k.runDue(ctx, nil) }

// runDue is RunDue calling before, when not nil, with each entry's due time
// before it writes the entry (a move of the clock makes the webhook retries
// due by then due first).
func (k *Clock) runDue(ctx context.Context, before func(due time.Time) error) error {
	if err := requireSandbox(ctx); err != nil {
		return err
	}
	for range maxRun {
		now, err := Now(ctx, client(ctx))
		if err != nil {
			return apperr.From(err)
		}
		next, err := client(ctx).SimulatedScan.Query().Where(simulatedscan.DueAtLTE(now)).
			Order(simulatedscan.ByDueAt(), simulatedscan.ByStep(), simulatedscan.ByID()).First(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return apperr.From(err)
		}
		if before != nil {
			if err := before(next.DueAt); err != nil {
				return err
			}
		}
		if err := k.write(ctx, next); err != nil {
			return err
		}
	}
	return nil
}

// errTaken rolls back a claim another instance won.
var errTaken = errors.New("sandbox: scheduled entry taken by another instance")

// write claims and writes one scheduled entry. An entry whose order is gone
// (deleted since it shipped) is dropped.
func (k *Clock) write(ctx context.Context, s *ent.SimulatedScan) error {
	err := service.WithTx(ctx, func(ctx context.Context) error {
		n, err := client(ctx).SimulatedScan.Delete().Where(simulatedscan.ID(s.ID)).Exec(ctx)
		if err != nil {
			return apperr.From(err)
		}
		if n == 0 {
			return errTaken
		}
		exists, err := client(ctx).Order.Query().Where(order.ID(s.OrderID)).Exist(ctx)
		if err != nil {
			return apperr.From(err)
		}
		if !exists {
			return nil // the order is gone: its schedule goes with it
		}
		eventlog.SetOccurred(ctx, s.DueAt)
		due := s.DueAt.UTC()
		in := ent.CreateTrackingEntryInput{
			OrderID: s.OrderID, TrackingNumber: s.TrackingNumber, Carrier: s.Carrier,
			Status: trackingentry.Status(s.Status), HubID: s.HubID, OccurredAt: &due,
		}
		if s.Location != "" {
			in.Location = &s.Location
		}
		if s.Description != "" {
			in.Description = &s.Description
		}
		if _, err := k.Svc.CreateTrackingEntry(ctx, in); err != nil {
			return fmt.Errorf("sandbox: simulated entry %s of %s: %w", s.ID, s.OrderID, err)
		}
		return nil
	})
	if errors.Is(err, errTaken) {
		return nil
	}
	return err
}

// Pending counts the entries still scheduled for an order.
func Pending(ctx context.Context, orderID resourceid.ID) (int, error) {
	return client(ctx).SimulatedScan.Query().Where(simulatedscan.OrderID(orderID)).Count(ctx)
}

// Run writes the entries that fall due while the clock runs on its own,
// checking every interval until ctx ends (app.StartWebhooks runs it).
// Errors are logged and tried again at the next tick.
func (k *Clock) Run(ctx context.Context, env *environment.Env, every time.Duration, log *slog.Logger) {
	if env == nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := k.RunDue(environment.NewContext(ctx, env)); err != nil && ctx.Err() == nil {
			log.Warn("sandbox: simulated carriers: writing the entries due failed; trying again", "err", err)
		}
	}
}
