package demodata_test

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/order"
	"logistics/ent/orderevent"
	"logistics/ent/trackingentry"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/demodata"
	"logistics/internal/environment"
)

// The documents that state the demo data's dates, and how they say it.
var (
	datedDocs    = []string{"docs/workflows.md", "docs/playground.md", "internal/playground/examples/3-tracking-exceptions.graphql"}
	ordersRange  = regexp.MustCompile(`orders from (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})`)
	trackingEnds = regexp.MustCompile(`tracking entries[^.]*? before (\d{4}-\d{2}-\d{2})`)
)

// TestDocumentedDates loads the demo data (at the default scale and a
// smaller one) and checks the dates the documents give against it: the
// first and the last order's creation day, and a bound that every order
// event and tracking entry is before.
func TestDocumentedDates(t *testing.T) {
	root := apptest.ModuleFS()
	type claim struct{ file, from, to, before string }
	var claims []claim
	for _, f := range datedDocs {
		b, err := fs.ReadFile(root, f)
		if err != nil {
			t.Fatal(err)
		}
		// One line of prose: no Markdown emphasis, no comment marks.
		text := strings.NewReplacer("**", "", "\n#", " ", "\n", " ").Replace(string(b))
		text = strings.Join(strings.Fields(text), " ")
		o := ordersRange.FindAllStringSubmatch(text, -1)
		e := trackingEnds.FindAllStringSubmatch(text, -1)
		if len(o) == 0 || len(e) == 0 {
			t.Errorf("%s states no demo data dates (orders from … to …, tracking entries … before …)", f)
			continue
		}
		for _, m := range o {
			claims = append(claims, claim{file: f, from: m[1], to: m[2]})
		}
		for _, m := range e {
			claims = append(claims, claim{file: f, before: m[1]})
		}
	}
	for _, scale := range []float64{app.Defaults().DemoScale, 0.01} {
		s := apptest.New(t)
		ctx := s.Ctx(environment.Sandbox)
		db := s.Env(environment.Sandbox).DB
		if _, err := demodata.Load(ctx, db, scale); err != nil {
			t.Fatal(err)
		}
		c := db.Client
		day := func(tm time.Time) string { return tm.UTC().Format(time.DateOnly) }
		first := c.Order.Query().Order(ent.Asc(order.FieldCreatedAt)).FirstX(ctx).CreatedAt
		last := c.Order.Query().Order(ent.Desc(order.FieldCreatedAt)).FirstX(ctx).CreatedAt
		lastEntry := c.TrackingEntry.Query().Order(ent.Desc(trackingentry.FieldOccurredAt)).FirstX(ctx).OccurredAt
		if ev := c.OrderEvent.Query().Order(ent.Desc(orderevent.FieldOccurredAt)).FirstX(ctx).OccurredAt; ev.After(lastEntry) {
			lastEntry = ev
		}
		firstEntry := c.TrackingEntry.Query().Order(ent.Asc(trackingentry.FieldOccurredAt)).FirstX(ctx).OccurredAt
		if firstEntry.Before(first) {
			t.Errorf("scale %v: a tracking entry (%s) before the first order (%s)", scale, firstEntry, first)
		}
		for _, cl := range claims {
			switch {
			case cl.before != "":
				bound, _ := time.Parse(time.DateOnly, cl.before)
				if day(lastEntry) >= cl.before || bound.Sub(lastEntry) > 7*24*time.Hour {
					t.Errorf("scale %v: %s says tracking entries are before %s; the last event or entry is at %s", scale, cl.file, cl.before, lastEntry)
				}
			case cl.from != day(first) || cl.to != day(last):
				t.Errorf("scale %v: %s says orders from %s to %s; the data's run from %s to %s", scale, cl.file, cl.from, cl.to, day(first), day(last))
			}
		}
	}
}
