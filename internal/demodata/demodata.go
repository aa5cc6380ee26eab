// Package demodata builds a deterministic, realistic demo dataset — hubs in
// real cities, a parts catalogue, stock, orders in every state of the
// fulfilment workflow with consistent reservations, tracking histories and
// order events — and bulk-loads it into an environment's database.
//
// The same scale always gives the same data, ids included: every random
// choice, id and timestamp comes from a fixed-seed math/rand/v2 source and a
// fixed base time. Scale 1 is about 50 hubs, 20,000 parts, 200,000 items,
// 50,000 orders, 200,000 order lines and 150,000 tracking entries.
package demodata

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"github.com/oklog/ulid/v2"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/trackingentry"
	"logistics/ent/workflow"
	"logistics/internal/database"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/workflowdef"
)

// Base is the fixed "now" of the dataset: orders were created in the
// OrderDays days before it (2026-08-02 to 2026-10-01), their events and
// tracking entries follow them by hours to days (the last about a week
// after Base). The docs state these dates; TestDocumentedDates checks them
// against the loaded data.
var Base = time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)

// OrderDays is how many days before Base the orders' creation times span.
const OrderDays = 60

// Actor is the actor of the seeded order events.
const Actor = "demo-data"

// Counts says how many rows of each kind of the demo data's tables a load
// wrote (or, as sandboxreset.Erased, a reset deleted).
type Counts struct {
	Hubs            int `json:"hubs"`
	Parts           int `json:"parts"`
	Items           int `json:"items"`
	Orders          int `json:"orders"`
	OrderLines      int `json:"order_lines"`
	TrackingEntries int `json:"tracking_entries"`
	OrderEvents     int `json:"order_events"`
	Reservations    int `json:"reservations"`
}

// ErrNotEmpty is returned when the database already has hubs.
var ErrNotEmpty = errors.New("demodata: the environment already has data (hubs); seed an empty database")

// batch is the rows per multi-row INSERT, under SQLite's and PostgreSQL's
// parameter limits for the widest table (orders, 19 columns).
const batch = 1000

// MaxScale is the largest scale Load takes: scale 100 is 20 million items
// and 5 million orders, which the streaming load writes in constant memory
// but for the stock the orders draw from (stock below, 40 bytes an item).
const MaxScale = 100

// Load generates the dataset of the given scale and inserts it in one
// transaction into db, which must be empty (ErrNotEmpty otherwise).
//
// The rows are written as they are generated, a batch at a time, so memory
// does not grow with the dataset's rows: a first pass generates without
// writing to learn how much of each item the orders reserve (an item's row
// is written before the orders that reserve from it), the second writes.
func Load(ctx context.Context, db *database.DB, scale float64) (Counts, error) {
	c := db.Client
	if err := CheckScale(scale); err != nil {
		return Counts{}, err
	}
	if n, err := c.Hub.Query().Count(ctx); err != nil {
		return Counts{}, err
	} else if n > 0 {
		return Counts{}, ErrNotEmpty
	}
	wf, err := c.Workflow.Query().Where(workflow.Key(workflowdef.FulfilmentKey)).Order(ent.Asc(workflow.FieldVersion)).First(ctx)
	if err != nil {
		return Counts{}, fmt.Errorf("demodata: the built-in workflow: %w", err)
	}
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		return Counts{}, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	counts, err := Write(ctx, tx, db.Dialect, wf.ID, scale, 0)
	if err != nil {
		return Counts{}, err
	}
	if err := writeEvent(ctx, tx, db.Dialect, counts); err != nil {
		return Counts{}, err
	}
	if err := tx.Commit(); err != nil {
		return Counts{}, err
	}
	if db.Dialect == dialect.Postgres {
		if err := Analyze(ctx, db.SQL); err != nil {
			return Counts{}, err
		}
	}
	return counts, nil
}

// CheckScale refuses a scale Load does not take.
func CheckScale(scale float64) error {
	if scale <= 0 || math.IsNaN(scale) || scale > MaxScale {
		return fmt.Errorf("demodata: scale must be above 0 and at most %d, not %v", MaxScale, scale)
	}
	return nil
}

// Execer runs a statement of a transaction: database/sql's Tx, or an ent
// transaction's client (ExecContext), whose commit records the events.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Write generates the dataset of the given scale and seed and inserts its
// rows through tx, an open transaction of an empty database of dialect dia,
// whose orders follow the workflow version workflowID (the built-in
// fulfilment one). It writes no event: Load writes demo_data.loaded with
// the counts, a sandbox reset records it through the event log. Seed 0 is
// the dataset every scale always had; another seed gives another dataset,
// as deterministic. A tx that also prepares statements (database/sql's)
// reuses one per table for full batches.
func Write(ctx context.Context, tx Execer, dia string, workflowID resourceid.ID, scale float64, seed uint64) (Counts, error) {
	if err := CheckScale(scale); err != nil {
		return Counts{}, err
	}
	var counting counter
	held := generate(scale, seed, nil, &counting)
	if dia == dialect.SQLite {
		// A page cache that holds the new dataset keeps the one big
		// transaction from spilling index pages to the WAL over and over;
		// set back to database.Open's size before the commit.
		if _, err := tx.ExecContext(ctx, "PRAGMA cache_size = -1048576"); err != nil {
			return Counts{}, err
		}
	}
	l := newLoader(ctx, tx, dia, workflowID)
	generate(scale, seed, held, l)
	if err := l.finish(); err != nil {
		return Counts{}, err
	}
	if dia == dialect.SQLite {
		if _, err := tx.ExecContext(ctx, "PRAGMA cache_size = -65536"); err != nil {
			return Counts{}, err
		}
	}
	return counting.Counts, nil
}

// Analyze gathers PostgreSQL's planner statistics after a load, which
// autovacuum would gather only later (or never, where it is off): without
// them PostgreSQL took 50 order ids for 50,000 lines and joined parts by
// scanning them all (10.7 ms for the lines of a page of orders, 1.3 ms
// after ANALYZE).
func Analyze(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("demodata: analyze: %w", err)
	}
	return nil
}

// EventObject is data.object of the demo_data.loaded event.
func (c Counts) EventObject() map[string]any {
	return map[string]any{"hubs": c.Hubs, "parts": c.Parts, "items": c.Items, "orders": c.Orders}
}

// Dataset is a generated dataset held in memory: the rows Load writes, for
// tests and tools that look at the data without a database.
type Dataset struct {
	Hubs         []*ent.Hub
	Parts        []*ent.Part
	Items        []*ent.Item
	Orders       []*ent.Order
	Lines        []*ent.OrderLine
	Tracking     []*ent.TrackingEntry
	Events       []*ent.OrderEvent
	Reservations []*ent.Reservation
}

// Counts are the sizes of d.
func (d *Dataset) Counts() Counts {
	return Counts{len(d.Hubs), len(d.Parts), len(d.Items), len(d.Orders), len(d.Lines), len(d.Tracking), len(d.Events), len(d.Reservations)}
}

// sink takes the rows of a dataset in the order they are generated: hubs,
// parts, items, then each order after its lines, reservations, tracking
// entries and events.
type sink interface {
	hub(*ent.Hub)
	part(*ent.Part)
	item(*ent.Item)
	line(*ent.OrderLine)
	reservation(*ent.Reservation)
	tracking(*ent.TrackingEntry)
	event(*ent.OrderEvent)
	order(*ent.Order)
}

func (d *Dataset) hub(h *ent.Hub)                 { d.Hubs = append(d.Hubs, h) }
func (d *Dataset) part(p *ent.Part)               { d.Parts = append(d.Parts, p) }
func (d *Dataset) item(it *ent.Item)              { d.Items = append(d.Items, it) }
func (d *Dataset) line(l *ent.OrderLine)          { d.Lines = append(d.Lines, l) }
func (d *Dataset) reservation(r *ent.Reservation) { d.Reservations = append(d.Reservations, r) }
func (d *Dataset) tracking(e *ent.TrackingEntry)  { d.Tracking = append(d.Tracking, e) }
func (d *Dataset) event(e *ent.OrderEvent)        { d.Events = append(d.Events, e) }
func (d *Dataset) order(o *ent.Order)             { d.Orders = append(d.Orders, o) }

// counter is a sink that only counts.
type counter struct{ Counts }

func (c *counter) hub(*ent.Hub)                 { c.Hubs++ }
func (c *counter) part(*ent.Part)               { c.Parts++ }
func (c *counter) item(*ent.Item)               { c.Items++ }
func (c *counter) line(*ent.OrderLine)          { c.OrderLines++ }
func (c *counter) reservation(*ent.Reservation) { c.Reservations++ }
func (c *counter) tracking(*ent.TrackingEntry)  { c.TrackingEntries++ }
func (c *counter) event(*ent.OrderEvent)        { c.OrderEvents++ }
func (c *counter) order(*ent.Order)             { c.Orders++ }

// stock is what the orders need of an item while they are generated: the
// item's row itself is written, and let go, before the first order.
type stock struct {
	id       ulid.ULID
	part     int32
	revision int32
	quantity decimal.Decimal
	reserved decimal.Decimal
}

// held is how much of an item the orders reserve, and the revision that
// leaves it at: what the first pass learns for the second.
type held struct {
	reserved decimal.Decimal
	revision int32
}

// gen is the seeded source of everything random.
type gen struct {
	r    *rand.Rand
	tick uint64
}

// id returns a ULID-shaped id: a time part that grows with every id, and
// random bits from the seeded source.
func (g *gen) id(prefix string) resourceid.ID { return idOf(prefix, g.ulid()) }

func (g *gen) ulid() ulid.ULID {
	var u ulid.ULID
	g.tick++
	_ = u.SetTime(uint64(Base.Add(-90*24*time.Hour).UnixMilli()) + g.tick)
	binary.BigEndian.PutUint64(u[6:14], g.r.Uint64())
	binary.BigEndian.PutUint16(u[14:16], uint16(g.r.Uint32()))
	return u
}

func idOf(prefix string, u ulid.ULID) resourceid.ID { return resourceid.ID(prefix + "_" + u.String()) }

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

func (g *gen) alnum(n int) string {
	const set = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

// after returns t plus between lo and hi hours, to the second.
func (g *gen) after(t time.Time, lo, hi int) time.Time {
	return t.Add(time.Duration(lo)*time.Hour + time.Duration(g.r.IntN((hi-lo)*3600+1))*time.Second)
}

func scaled(n int, scale float64, floor int) int {
	return max(floor, int(math.Round(float64(n)*scale)))
}

// state shares of the orders, in fulfilment order; they sum to 100.
var stateShares = []struct {
	state string
	pct   int
}{
	{"draft", 5}, {"open", 15}, {"allocated", 10}, {"picking", 5}, {"shipped", 15},
	{"delivered", 20}, {"closed", 25}, {"cancelled", 5},
}

// path is the transitions that lead from draft to each state.
var path = map[string][]string{
	"draft":     {},
	"open":      {"submit"},
	"allocated": {"submit", "allocate"},
	"picking":   {"submit", "allocate", "start_picking"},
	"shipped":   {"submit", "allocate", "start_picking", "ship"},
	"delivered": {"submit", "allocate", "start_picking", "ship", "deliver"},
	"closed":    {"submit", "allocate", "start_picking", "ship", "deliver", "close"},
}

// Generate builds the dataset of the given scale in memory: the rows Load
// writes, in the same order.
func Generate(scale float64) *Dataset {
	held := generate(scale, 0, nil, &counter{})
	d := &Dataset{}
	generate(scale, 0, held, d)
	return d
}

// generator is one pass over the dataset: the seeded sources and what the
// orders draw from.
type generator struct {
	g *gen
	// exceptions is a source of its own for the tracking exceptions, added
	// after the rest of the dataset existed: drawing from g would have
	// changed every row generated after the first one.
	exceptions *gen
	out        sink
	hubs       []*ent.Hub
	partIDs    []resourceid.ID
	fams       []int
	stock      []stock
	byHub      [][]int32 // available items by hub, indexes into stock
}

// generate hands the dataset of scale to out and returns, by item index,
// what the orders reserved of the items they reserved from. An item's row
// carries what final says it ends with (nil: as it was stocked, the
// orders' reservations not yet known).
func generate(scale float64, seed uint64, final map[int32]held, out sink) map[int32]held {
	x := &generator{
		g:          &gen{r: rand.New(rand.NewPCG(0x6c6f6769+seed, uint64(math.Float64bits(scale))))},
		exceptions: &gen{r: rand.New(rand.NewPCG(0x65786370+seed, uint64(math.Float64bits(scale)))), tick: exceptionTicks},
		out:        out,
	}
	g := x.g
	created := Base.Add(-120 * 24 * time.Hour)

	nHubs := min(len(cities), scaled(len(cities), scale, 5))
	for _, c := range cities[:nHubs] {
		lat, lon, tz, line := c.lat, c.lon, c.tz, fmt.Sprintf("%s %d", c.street, 1+g.r.IntN(200))
		h := &ent.Hub{
			ID: g.id(resourceid.Hub), Code: c.code, Name: c.name + " " + strings.ReplaceAll(c.kind, "_", "-"),
			Kind: hub.Kind(c.kind), AddressLine1: line, City: c.name, PostalCode: c.postal, Country: c.country,
			Latitude: &lat, Longitude: &lon, Timezone: tz, Active: true, CreatedAt: created, UpdatedAt: created, Revision: 1,
		}
		x.hubs = append(x.hubs, h)
		out.hub(h)
	}

	nParts := scaled(20_000, scale, 40)
	x.fams = make([]int, nParts)
	x.partIDs = make([]resourceid.ID, nParts)
	for i := range nParts {
		fi := i % len(families)
		f := families[fi]
		x.fams[i] = fi
		name := g.pick(f.names)
		size := g.pick(f.sizes)
		mat := g.pick(f.materials)
		w := decimal.Decimal(int64(f.weight * float64(decimal.Scale) * (0.5 + g.r.Float64())))
		p := &ent.Part{
			ID: g.id(resourceid.Part), Sku: fmt.Sprintf("%s-%06d", f.prefix, i+1),
			PartName:    fmt.Sprintf("%s %s, %s", name, size, mat),
			Description: fmt.Sprintf("%s, size %s, made of %s. Sold per %s.", name, size, mat, f.unit),
			Unit:        f.unit, UnitWeightKg: w, Hazardous: f.hazardous,
			CreatedAt: created, UpdatedAt: created, Revision: 1,
		}
		x.partIDs[i] = p.ID
		out.part(p)
	}

	// Stock: items per hub, remembered by hub for the orders.
	nItems := scaled(200_000, scale, 200)
	x.stock = make([]stock, nItems)
	x.byHub = make([][]int32, len(x.hubs))
	for i := range nItems {
		pi := g.r.IntN(nParts)
		f := families[x.fams[pi]]
		hi := g.r.IntN(len(x.hubs))
		u := g.ulid()
		it := &ent.Item{
			ID: idOf(resourceid.Item, u), PartID: x.partIDs[pi], HubID: x.hubs[hi].ID,
			Status: item.StatusAvailable, CreatedAt: created.Add(time.Duration(i) * time.Second), Revision: 1,
		}
		it.UpdatedAt = it.CreatedAt
		switch f.unit {
		case "kg", "l", "m":
			it.Quantity = decimal.Decimal(1000 + g.r.Int64N(500_000)) // 1.000 to 500.999, exact thousandths
		default:
			it.Quantity = decimal.FromInt(1 + g.r.Int64N(400))
		}
		if f.perishable {
			it.Lot = fmt.Sprintf("L%s-%04d", Base.Add(-time.Duration(g.r.IntN(300))*24*time.Hour).Format("0601"), g.r.IntN(10000))
			exp := Base.Add(time.Duration(30+g.r.IntN(700)) * 24 * time.Hour).Truncate(24 * time.Hour)
			it.ExpiresAt = &exp
		} else if f.unit == "ea" && g.r.IntN(50) == 0 {
			it.Serial = "SN" + g.alnum(10)
			it.Quantity = decimal.FromInt(1)
		}
		switch p := g.r.IntN(100); {
		case p < 5:
			it.Status = item.StatusQuarantined
		case p < 8:
			it.Status = item.StatusDamaged
		}
		x.stock[i] = stock{id: u, part: int32(pi), revision: 1, quantity: it.Quantity}
		if h, ok := final[int32(i)]; ok {
			it.ReservedQuantity, it.Revision = h.reserved, int(h.revision)
		}
		out.item(it)
		if it.Status == item.StatusAvailable {
			x.byHub[hi] = append(x.byHub[hi], int32(i))
		}
	}

	nOrders := scaled(50_000, scale, 50)
	for i := range nOrders {
		x.order(i, nOrders)
	}
	reserved := map[int32]held{}
	for i, st := range x.stock {
		if st.revision != 1 {
			reserved[int32(i)] = held{st.reserved, st.revision}
		}
	}
	return reserved
}

// order generates one order with its lines and history.
func (x *generator) order(i, n int) {
	g := x.g
	// States in shares; the order of states over the dataset is shuffled by the rng.
	p, state := g.r.IntN(100), "closed"
	for _, s := range stateShares {
		if p < s.pct {
			state = s.state
			break
		}
		p -= s.pct
	}
	hi := g.r.IntN(len(x.hubs))
	h := x.hubs[hi]
	dest := cities[g.r.IntN(len(cities))]
	at := Base.Add(-time.Duration(OrderDays*24*3600*(n-i)/n) * time.Second).Add(-time.Duration(g.r.IntN(3600)) * time.Second)
	due := at.Add(time.Duration(2+g.r.IntN(14)) * 24 * time.Hour).Truncate(time.Hour)
	o := &ent.Order{
		ID: g.id(resourceid.Order), Number: fmt.Sprintf("ORD-%s-%s", at.Format("20060102"), crockford6(i)),
		Status: state, HubID: h.ID, CustomerRef: fmt.Sprintf("PO-%s-%05d", strings.ToUpper(g.alnum(3)), g.r.IntN(100000)),
		Priority:   []order.Priority{order.PriorityLow, order.PriorityNormal, order.PriorityNormal, order.PriorityNormal, order.PriorityHigh, order.PriorityUrgent}[g.r.IntN(6)],
		ShipToName: g.pick(firstNames) + " " + g.pick(lastNames) + ", " + g.pick(companies), ShipToLine1: fmt.Sprintf("%s %d", g.pick(streets), 1+g.r.IntN(300)),
		ShipToCity: dest.name, ShipToPostalCode: dest.postal, ShipToCountry: dest.country,
		DueAt: &due, CreatedAt: at, Revision: 1,
	}
	cancelled := state == "cancelled"
	steps := path[state]
	if cancelled {
		steps = append(append([]string{}, path[[]string{"draft", "open", "allocated", "picking"}[g.r.IntN(4)]]...), "cancel")
	}
	reserved := state == "allocated" || state == "picking"
	shipped := len(steps) >= 4 && steps[3] == "ship"

	nLines := 1 + g.r.IntN(7)
	avail := x.byHub[hi]
	var seen [8]int32 // the parts of this order's lines (at most 7)
	lines := 0
	for range nLines {
		var it *stock
		for try := 0; try < 4 && len(avail) > 0; try++ {
			c := &x.stock[avail[g.r.IntN(len(avail))]]
			if !slices.Contains(seen[:lines], c.part) && c.quantity-c.reserved >= decimal.FromInt(1) {
				it = c
				break
			}
		}
		if it == nil {
			continue
		}
		seen[lines] = it.part
		lines++
		qty := decimal.FromInt(1 + g.r.Int64N(12))
		if u := families[x.fams[it.part]].unit; u == "kg" || u == "l" || u == "m" {
			qty = decimal.Decimal(500 + g.r.Int64N(20_000))
		}
		l := &ent.OrderLine{ID: g.id(resourceid.OrderLine), OrderID: o.ID, PartID: x.partIDs[it.part], Quantity: qty, CreatedAt: at, UpdatedAt: at, Revision: 1}
		if reserved {
			l.Quantity = min(qty, it.quantity-it.reserved)
			l.AllocatedQuantity = l.Quantity
			it.reserved += l.Quantity
			it.revision++
			x.out.reservation(&ent.Reservation{ID: g.id(resourceid.Reservation), OrderID: o.ID, OrderLineID: l.ID, ItemID: idOf(resourceid.Item, it.id), Quantity: l.Quantity})
		}
		if shipped {
			l.ShippedQuantity = l.Quantity
		}
		x.out.line(l)
	}

	// History: one event per step, hours to days apart; tracking from the shipment on.
	t := at
	from := "draft"
	wf := workflowdef.Fulfilment()
	for _, s := range steps {
		t = g.after(t, 1, 30)
		tr, _ := wf.Find(s)
		x.out.event(&ent.OrderEvent{ID: g.id(resourceid.OrderEvent), OrderID: o.ID, FromState: from, ToState: tr.To, Transition: s, Actor: Actor, OccurredAt: t, CreatedAt: t, UpdatedAt: t})
		o.Revision++
		if s == "ship" {
			t = x.tracking(o, h, dest, t, state)
		}
		from = tr.To
	}
	o.UpdatedAt = t
	x.out.order(o)
}

// tracking writes the carrier history of a shipped order from its label on,
// and returns the time of the last scan.
func (x *generator) tracking(o *ent.Order, h *ent.Hub, dest city, t time.Time, state string) time.Time {
	g := x.g
	c := carriers[g.r.IntN(len(carriers))]
	num := c.format(g)
	add := func(st trackingentry.Status, hub *ent.Hub, loc, desc string) {
		e := &ent.TrackingEntry{ID: g.id(resourceid.TrackingEntry), OrderID: o.ID, TrackingNumber: num, Carrier: c.name, Status: st,
			Location: loc, Description: desc, OccurredAt: t, CreatedAt: t, UpdatedAt: t, Revision: 1}
		if hub != nil {
			e.HubID = &hub.ID
		}
		x.out.tracking(e)
	}
	add(trackingentry.StatusLabelCreated, h, h.City, "Shipping label created")
	hops := 1 + g.r.IntN(2)
	if state != "shipped" {
		hops++
	}
	for range hops {
		t = g.after(t, 2, 20)
		via := x.hubs[g.r.IntN(len(x.hubs))]
		add(trackingentry.StatusInTransit, via, via.City, "Departed "+c.name+" facility")
	}
	x.exception(o, num, c.name, dest, t)
	if state == "shipped" && g.r.IntN(2) == 0 {
		t = g.after(t, 2, 12)
		add(trackingentry.StatusOutForDelivery, nil, dest.name, "Out for delivery")
	}
	if state == "delivered" || state == "closed" {
		t = g.after(t, 2, 12)
		add(trackingentry.StatusOutForDelivery, nil, dest.name, "Out for delivery")
		t = g.after(t, 1, 8)
		add(trackingentry.StatusDelivered, nil, dest.name, "Delivered, signed by "+strings.Split(o.ShipToName, ",")[0])
	}
	return t
}

// exceptionTicks starts the exceptions' id clock far past the main one's
// (about 700,000 ids at scale 1), so their ids never collide.
const exceptionTicks = 1 << 32

var exceptionTexts = []string{
	"Delivery attempt failed: recipient not available",
	"Address incomplete: held at depot",
	"Damaged in transit: held for inspection",
	"Held by customs: documents missing",
	"Delayed: missed connection at sort centre",
}

// exception gives about one shipment in 25 a tracking exception, an hour
// or so after its last transit scan (the next scan, if any, comes at
// least two hours after that scan).
func (x *generator) exception(o *ent.Order, num, carrier string, dest city, last time.Time) {
	e := x.exceptions
	if e.r.IntN(25) != 0 {
		return
	}
	at := last.Add(30*time.Minute + time.Duration(e.r.IntN(3600))*time.Second)
	x.out.tracking(&ent.TrackingEntry{ID: e.id(resourceid.TrackingEntry), OrderID: o.ID, TrackingNumber: num,
		Carrier: carrier, Status: trackingentry.StatusException, Location: dest.name, Description: e.pick(exceptionTexts),
		OccurredAt: at, CreatedAt: at, UpdatedAt: at, Revision: 1})
}

// crockford6 writes n in six Crockford base-32 digits: unique order numbers.
func crockford6(n int) string {
	const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	b := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		b[i] = digits[n%32]
		n /= 32
	}
	return string(b)
}
