package aggregate_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"logistics/ent"
	"logistics/internal/aggregate"
	"logistics/internal/apperr"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/database"
	"logistics/internal/decimal"
)

// The tests of this file run Run against a real database: SQLite, and
// PostgreSQL when LOGISTICS_TEST_POSTGRES is set (apptest.DSN), so every
// rule is checked on the SQL both dialects are given.

type fixture struct {
	t      *testing.T
	ctx    context.Context
	client *ent.Client
	part   *ent.Part
	hubs   map[string]*ent.Hub
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, apptest.DSN(t, "aggregate"), database.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Grouping by a hub shows its code: the caller needs hubs:read.
	ctx = auth.NewContext(ctx, &auth.Principal{Kind: auth.KindToken, Scopes: auth.AllScopes()})
	ctx = ent.NewContext(ctx, db.Client)
	f := &fixture{t: t, ctx: ctx, client: db.Client, hubs: map[string]*ent.Hub{}}
	f.part, err = db.Client.Part.Create().SetSku("BOLT-M8").SetPartName("Hex bolt M8").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"AMS1", "RTM2", "BER3"} {
		h, err := db.Client.Hub.Create().SetCode(code).SetName(code).SetCountry("NL").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f.hubs[code] = h
	}
	return f
}

// item stores stock of the part at hub: quantity in the decimal's text, and
// an expiry when expires is not empty (RFC 3339).
func (f *fixture) item(hub, quantity, expires string) {
	f.t.Helper()
	c := f.client.Item.Create().SetPartID(f.part.ID).SetHubID(f.hubs[hub].ID).SetQuantity(decimal.MustParse(quantity))
	if expires != "" {
		c.SetExpiresAt(mustTime(f.t, expires))
	}
	if _, err := c.Save(f.ctx); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) run(q aggregate.Query) *aggregate.Result {
	f.t.Helper()
	q.Params = aggregate.RESTParams
	res, err := aggregate.Run(f.ctx, aggregate.Items, nil, q)
	if err != nil {
		f.t.Fatalf("%+v: %v", q, err)
	}
	return res
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Expiry instants around the spring change of Europe/Paris (2025-03-30,
// 02:00 → 03:00 local), the end of March and a Monday (2025-03-31), and the
// repeated hour of the autumn change (2025-10-26, 03:00 → 02:00 local).
var expiries = []string{
	"2025-03-29T23:30:00Z", // Paris Sunday 03-30 00:30+01:00 (before the change); UTC Saturday 03-29
	"2025-03-30T00:59:59Z", // Paris 03-30 01:59:59+01:00, the last second before the change
	"2025-03-30T01:00:00Z", // Paris 03-30 03:00+02:00, the first after it
	"2025-03-30T22:30:00Z", // Paris Monday 03-31 00:30+02:00; UTC Sunday 03-30
	"2025-03-31T21:59:59Z", // Paris 03-31 23:59:59; UTC 03-31
	"2025-03-31T22:00:00Z", // Paris April 1st 00:00; UTC still March 31
	"2025-10-26T00:30:00Z", // Paris 02:30+02:00, the first 02:30
	"2025-10-26T01:30:00Z", // Paris 02:30+01:00, the second 02:30
}

// bucketsInGo is what the buckets of expiries must be, computed with Go's
// time package only: per bucket's first instant (RFC 3339 in loc), the
// number of instants in it.
func bucketsInGo(t *testing.T, b aggregate.Bucket, loc *time.Location) map[string]int64 {
	out := map[string]int64{}
	for _, s := range expiries {
		l := mustTime(t, s).In(loc)
		var start time.Time
		switch b {
		case aggregate.Hour:
			start = l.Add(-time.Duration(l.Minute())*time.Minute - time.Duration(l.Second())*time.Second)
		case aggregate.Day:
			start = time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
		case aggregate.Week:
			back := (int(l.Weekday()) + 6) % 7 // days since Monday
			start = time.Date(l.Year(), l.Month(), l.Day()-back, 0, 0, 0, 0, loc)
		case aggregate.Month:
			start = time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, loc)
		}
		out[start.Format(time.RFC3339)]++
	}
	return out
}

// TestBucketsInAZone: the day, week (from Monday), month and hour buckets
// of a time key follow the query's zone's calendar, on both databases: a
// day of 23 hours is one bucket, a row just after local midnight falls on
// the next day (and month) though UTC still says the day before, and the
// repeated hour of an autumn change is two buckets. Each bucket is named by
// its first instant, in the zone.
func TestBucketsInAZone(t *testing.T) {
	f := newFixture(t)
	for _, e := range expiries {
		f.item("AMS1", "1", e)
	}
	f.item("AMS1", "1", "") // no expiry: the null bucket
	paris, err := aggregate.ParseZone("Europe/Paris", "tz")
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range []*time.Location{time.UTC, paris} {
		for _, b := range aggregate.Buckets {
			t.Run(loc.String()+"/"+string(b), func(t *testing.T) {
				res := f.run(aggregate.Query{GroupBy: []string{"expires_at"}, Bucket: b, Zone: loc, Limit: 100})
				got := map[string]int64{}
				var order []time.Time
				for _, r := range res.Rows {
					if r.Keys[0] == nil {
						if r.Count != 1 {
							t.Errorf("the null bucket holds %d rows, want 1", r.Count)
						}
						continue
					}
					k := r.Keys[0].(time.Time)
					if k.Location().String() != loc.String() {
						t.Errorf("bucket %s is in %s, want %s", k, k.Location(), loc)
					}
					order = append(order, k)
					got[k.Format(time.RFC3339)] = r.Count
				}
				want := bucketsInGo(t, b, loc)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("buckets\n got %v\nwant %v", got, want)
				}
				for i := 1; i < len(order); i++ {
					if !order[i-1].Before(order[i]) {
						t.Errorf("buckets out of order: %s before %s", order[i-1], order[i])
					}
				}
			})
		}
	}
	// The cases that differ between the zones, spelled out.
	spot := func(b aggregate.Bucket, loc *time.Location, start string, count int64) {
		t.Helper()
		res := f.run(aggregate.Query{GroupBy: []string{"expires_at"}, Bucket: b, Zone: loc})
		for _, r := range res.Rows {
			if k, ok := r.Keys[0].(time.Time); ok && k.Format(time.RFC3339) == start {
				if r.Count != count {
					t.Errorf("%s %s %s: %d rows, want %d", loc, b, start, r.Count, count)
				}
				return
			}
		}
		t.Errorf("%s %s: no bucket %s in %+v", loc, b, start, res.Rows)
	}
	spot(aggregate.Day, paris, "2025-03-30T00:00:00+01:00", 3) // 23 hours, one bucket
	spot(aggregate.Day, paris, "2025-03-31T00:00:00+02:00", 2)
	spot(aggregate.Day, time.UTC, "2025-03-31T00:00:00Z", 2)
	spot(aggregate.Month, paris, "2025-04-01T00:00:00+02:00", 1)
	spot(aggregate.Month, time.UTC, "2025-03-01T00:00:00Z", 6)
	spot(aggregate.Week, paris, "2025-03-24T00:00:00+01:00", 3)
	spot(aggregate.Week, paris, "2025-03-31T00:00:00+02:00", 3)
	spot(aggregate.Week, time.UTC, "2025-03-24T00:00:00Z", 4)
	spot(aggregate.Hour, paris, "2025-10-26T02:00:00+02:00", 1)
	spot(aggregate.Hour, paris, "2025-10-26T02:00:00+01:00", 1)
}

// TestHaving: conditions on count, sum and avg keep exactly the groups
// they describe; avg is compared as it is shown, rounded half up to
// thousandths, so a group shown with avg 5 passes avg>=5 and avg=5 and
// fails avg>5 and avg<5.
func TestHaving(t *testing.T) {
	f := newFixture(t)
	// AMS1: 4.999 and 5 (sum 9.999, avg 4.9995, shown 5); RTM2: 2, 3, 4
	// (sum 9, avg 3); BER3: 10 (sum 10, avg 10).
	for _, c := range [][2]string{{"AMS1", "4.999"}, {"AMS1", "5"}, {"RTM2", "2"}, {"RTM2", "3"}, {"RTM2", "4"}, {"BER3", "10"}} {
		f.item(c[0], c[1], "")
	}
	sum := aggregate.Measure{Func: aggregate.Sum, Field: "quantity"}
	avg := aggregate.Measure{Func: aggregate.Avg, Field: "quantity"}
	count := aggregate.Measure{Func: aggregate.Count}
	for _, c := range []struct {
		name string
		cond []aggregate.Condition
		want string // the hubs kept, in code order
	}{
		{"count>=2", []aggregate.Condition{{Measure: count, Op: aggregate.Gte, Value: decimal.FromInt(2)}}, "AMS1 RTM2"},
		{"count=1", []aggregate.Condition{{Measure: count, Op: aggregate.Eq, Value: decimal.FromInt(1)}}, "BER3"},
		{"sum>9", []aggregate.Condition{{Measure: sum, Op: aggregate.Gt, Value: decimal.FromInt(9)}}, "AMS1 BER3"},
		{"sum<=9.999", []aggregate.Condition{{Measure: sum, Op: aggregate.Lte, Value: decimal.MustParse("9.999")}}, "AMS1 RTM2"},
		{"sum!=9", []aggregate.Condition{{Measure: sum, Op: aggregate.Ne, Value: decimal.FromInt(9)}}, "AMS1 BER3"},
		{"avg>=5", []aggregate.Condition{{Measure: avg, Op: aggregate.Gte, Value: decimal.FromInt(5)}}, "AMS1 BER3"},
		{"avg=5", []aggregate.Condition{{Measure: avg, Op: aggregate.Eq, Value: decimal.FromInt(5)}}, "AMS1"},
		{"avg>5", []aggregate.Condition{{Measure: avg, Op: aggregate.Gt, Value: decimal.FromInt(5)}}, "BER3"},
		{"avg<5", []aggregate.Condition{{Measure: avg, Op: aggregate.Lt, Value: decimal.FromInt(5)}}, "RTM2"},
		{"avg<=4.999", []aggregate.Condition{{Measure: avg, Op: aggregate.Lte, Value: decimal.MustParse("4.999")}}, "RTM2"},
		{"count>=2 and avg<5", []aggregate.Condition{
			{Measure: count, Op: aggregate.Gte, Value: decimal.FromInt(2)},
			{Measure: avg, Op: aggregate.Lt, Value: decimal.FromInt(5)},
		}, "RTM2"},
	} {
		res := f.run(aggregate.Query{GroupBy: []string{"hub"}, Select: []aggregate.Measure{avg}, Having: c.cond,
			Order: []aggregate.Order{{Key: "hub"}}})
		var kept []string
		for _, r := range res.Rows {
			kept = append(kept, fmt.Sprint(r.Keys[0].(aggregate.RefValue).Labels[0]))
			// What is shown is what was compared.
			if a := r.Values[0].(decimal.Decimal); kept[len(kept)-1] == "AMS1" && a != decimal.FromInt(5) {
				t.Errorf("%s: AMS1's avg is %s, want 5.000", c.name, a)
			}
		}
		if got := strings.Join(kept, " "); got != c.want {
			t.Errorf("having %s: %q, want %q", c.name, got, c.want)
		}
	}
	// A having value of the wrong kind is a 400 naming the parameter, not
	// a database error.
	_, err := aggregate.Run(f.ctx, aggregate.Items, nil, aggregate.Query{Params: aggregate.RESTParams,
		Having: []aggregate.Condition{{Measure: count, Op: aggregate.Gt, Value: decimal.MustParse("1.5")}}})
	if e := apperr.From(err); e == nil || e.Kind != apperr.KindBadRequest || len(e.Fields) != 1 || e.Fields[0].Field != "having" {
		t.Errorf("count > 1.5: %v, want a 400 on having", err)
	}
}

// TestDecimalSums: sums and averages of decimals are exact on both
// databases (thousandths summed as integers, never as floats); a sum
// beyond what a decimal holds is the aggregate_overflow error, while the
// average of the same rows, which fits, is still answered exactly.
func TestDecimalSums(t *testing.T) {
	f := newFixture(t)
	// AMS1: a thousand times 0.001, 0.1 and 0.2 (floats would drift).
	bulk := make([]*ent.ItemCreate, 0, 1002)
	for range 1000 {
		bulk = append(bulk, f.client.Item.Create().SetPartID(f.part.ID).SetHubID(f.hubs["AMS1"].ID).SetQuantity(decimal.MustParse("0.001")))
	}
	f.item("AMS1", "0.1", "")
	f.item("AMS1", "0.2", "")
	// RTM2: 1 and 2, an average of 1.5 exactly; 0.001 and 0.002 round half
	// up to 0.002.
	f.item("RTM2", "1", "")
	f.item("RTM2", "2", "")
	f.item("BER3", "0.001", "")
	f.item("BER3", "0.002", "")
	if err := f.client.Item.CreateBulk(bulk...).Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	sum := aggregate.Measure{Func: aggregate.Sum, Field: "quantity"}
	avg := aggregate.Measure{Func: aggregate.Avg, Field: "quantity"}
	res := f.run(aggregate.Query{GroupBy: []string{"hub"}, Select: []aggregate.Measure{sum, avg}, Order: []aggregate.Order{{Key: "hub"}}})
	got := map[string]string{}
	for _, r := range res.Rows {
		got[fmt.Sprint(r.Keys[0].(aggregate.RefValue).Labels[0])] = fmt.Sprintf("n=%d sum=%s avg=%s", r.Count, r.Values[0], r.Values[1])
	}
	want := map[string]string{
		"AMS1": "n=1002 sum=1.3 avg=0.001", // 1.3 / 1002 = 0.0012974… → 0.001
		"RTM2": "n=2 sum=3 avg=1.5",
		"BER3": "n=2 sum=0.003 avg=0.002",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sums\n got %v\nwant %v", got, want)
	}

	// BER3 gets 9,300 × 10^12 units more: its sum is more thousandths than
	// an int64 holds.
	for i := 0; i < 9300; i += 500 {
		bulk = bulk[:0]
		for range min(500, 9300-i) {
			bulk = append(bulk, f.client.Item.Create().SetPartID(f.part.ID).SetHubID(f.hubs["BER3"].ID).SetQuantity(decimal.Max))
		}
		if err := f.client.Item.CreateBulk(bulk...).Exec(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	_, err := aggregate.Run(f.ctx, aggregate.Items, nil, aggregate.Query{Params: aggregate.RESTParams, GroupBy: []string{"hub"}, Select: []aggregate.Measure{sum}})
	if e := apperr.From(err); e == nil || e.Code != "aggregate_overflow" {
		t.Errorf("an overflowing sum: %v, want aggregate_overflow", err)
	}
	// Its average fits: (9,300 × 10^15 + 3) thousandths over 9,302 rows,
	// rounded half up, computed here with big integers.
	s := new(big.Int).Mul(big.NewInt(9300), big.NewInt(int64(decimal.Max)))
	s.Add(s, big.NewInt(3))
	c := big.NewInt(9302)
	wantAvg := new(big.Int).Div(new(big.Int).Add(new(big.Int).Lsh(s, 1), c), new(big.Int).Lsh(c, 1))
	res = f.run(aggregate.Query{GroupBy: []string{"hub"}, Select: []aggregate.Measure{avg}, Order: []aggregate.Order{{Key: "hub"}}})
	seen := false
	for _, r := range res.Rows {
		if r.Keys[0].(aggregate.RefValue).Labels[0] != "BER3" {
			continue
		}
		seen = true
		if r.Count != 9302 || r.Values[0] != decimal.Decimal(wantAvg.Int64()) {
			t.Errorf("BER3: %d rows, avg %v, want 9302 rows, avg %s", r.Count, r.Values[0], decimal.Decimal(wantAvg.Int64()))
		}
	}
	if !seen {
		t.Errorf("no BER3 group in %+v", res.Rows)
	}
}
