package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/ent/trackingentry"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/service"
)

// seedSize is the size of a development dataset.
type seedSize struct{ Parts, Items, Orders int }

// Development datasets: enough rows for every workload to fill a page of 50
// (devSize) or a page of 5 (testSize). Real figures need the scale-1 seed.
var (
	devSize  = seedSize{Parts: 200, Items: 600, Orders: 90}
	testSize = seedSize{Parts: 24, Items: 60, Orders: 24}
)

// devSeed fills the environment in ctx with a small dataset through the
// service layer: hubs AMS1, RTM2 and OSL1; parts of which a quarter have
// "bolt" in their names in mixed case; items with quantities 0–400 spread over
// the hubs; orders with 1–4 lines and 1–5 tracking entries, two thirds of them
// open and one third shipped (for W3s). It is deterministic. When the environment already has hubs (demo
// data filled at start, or an earlier seed) it leaves it as it is and
// reports false.
func devSeed(ctx context.Context, svc *service.Service, size seedSize) (bool, error) {
	rng := rand.New(rand.NewPCG(6, 6))
	if n, err := ent.FromContext(ctx).Hub.Query().Count(ctx); err != nil {
		return false, err
	} else if n > 0 {
		return false, nil
	}
	var hubs []resourceid.ID
	for _, h := range []struct{ code, city, country, tz string }{
		{"AMS1", "Amsterdam", "NL", "Europe/Amsterdam"},
		{"RTM2", "Rotterdam", "NL", "Europe/Amsterdam"},
		{"OSL1", "Oslo", "NO", "Europe/Oslo"},
	} {
		created, err := svc.CreateHub(ctx, ent.CreateHubInput{Code: h.code, Name: h.city + " hub", City: &h.city, Country: h.country, Timezone: &h.tz})
		if err != nil {
			return false, fmt.Errorf("hub %s: %w", h.code, err)
		}
		hubs = append(hubs, created.ID)
	}
	names := []string{"Hex bolt M%d", "Washer M%d", "CARRIAGE BOLT %d mm", "Hex nut M%d", "Spring %d", "Anchor Bolt %d", "Gasket %d", "Cable %d m"}
	parts := make([]resourceid.ID, 0, size.Parts)
	for i := range size.Parts {
		desc := fmt.Sprintf("Development part %d", i)
		w := decimal.Decimal(rng.Int64N(5000) + 1)
		p, err := svc.CreatePart(ctx, ent.CreatePartInput{
			Sku: fmt.Sprintf("DEV-%05d", i), PartName: fmt.Sprintf(names[i%len(names)], 4+i%20),
			Description: &desc, UnitWeightKg: &w,
		})
		if err != nil {
			return false, fmt.Errorf("part %d: %w", i, err)
		}
		parts = append(parts, p.ID)
	}
	statuses := []item.Status{item.StatusAvailable, item.StatusAvailable, item.StatusAvailable, item.StatusQuarantined}
	for i := range size.Items {
		q := decimal.Decimal(rng.Int64N(400_000)) // thousandths: 0–400
		lot := fmt.Sprintf("LOT-%03d", i%97)
		st := statuses[i%len(statuses)]
		if _, err := svc.CreateItem(ctx, ent.CreateItemInput{
			PartID: parts[rng.IntN(len(parts))], HubID: hubs[i%len(hubs)], Quantity: &q, Lot: &lot, Status: &st,
		}); err != nil {
			return false, fmt.Errorf("item %d: %w", i, err)
		}
	}
	tstatus := []trackingentry.Status{trackingentry.StatusLabelCreated, trackingentry.StatusInTransit, trackingentry.StatusInTransit, trackingentry.StatusOutForDelivery, trackingentry.StatusException}
	base := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	for i := range size.Orders {
		ref := fmt.Sprintf("CUST-%04d", i)
		lines := make([]service.NewLine, 1+rng.IntN(4))
		for j := range lines {
			lines[j] = service.NewLine{PartID: parts[rng.IntN(len(parts))], Quantity: decimal.Decimal(1000 + rng.Int64N(20_000))}
		}
		o, err := svc.CreateOrder(ctx, ent.CreateOrderInput{HubID: hubs[i%len(hubs)], CustomerRef: &ref}, lines, "")
		if err != nil {
			return false, fmt.Errorf("order %d: %w", i, err)
		}
		for j := range 1 + rng.IntN(5) {
			at := base.Add(time.Duration(i)*time.Hour + time.Duration(j)*17*time.Minute)
			loc := "Depot " + string(rune('A'+j))
			if _, err := svc.CreateTrackingEntry(ctx, ent.CreateTrackingEntryInput{
				OrderID: o.ID, TrackingNumber: fmt.Sprintf("TRK%06d", i), Carrier: "DHL",
				Status: tstatus[j%len(tstatus)], OccurredAt: &at, Location: &loc,
			}); err != nil {
				return false, fmt.Errorf("tracking %d/%d: %w", i, j, err)
			}
		}
		// Orders start in the workflow's initial state (draft). The dataset
		// needs open ones; the service's transitions are not on every branch
		// yet, so set the state directly (development data only).
		st := "open"
		if i%3 == 2 {
			st = "shipped"
		}
		if err := ent.FromContext(ctx).Order.UpdateOneID(o.ID).SetStatus(st).Exec(ctx); err != nil {
			return false, fmt.Errorf("order %d: %s: %w", i, st, err)
		}
	}
	return true, nil
}
