package demodata_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderevent"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/reservation"
	"logistics/ent/trackingentry"
	"logistics/internal/apptest"
	"logistics/internal/demodata"
	"logistics/internal/environment"
)

// digestScale is the scale whose loaded rows TestLoadedRowsDigest pins.
const digestScale = 0.02

// loadedRowsDigest is the SHA-256 of every stored row of a load of
// digestScale (rows written out by writeRows), as the dataset was before its
// loader streamed: a change to it is a change of the demo data.
const loadedRowsDigest = "c7d71631d781b7bf0d5059704bd265223d73587b3f3f25563cdf1b993b76ab3a"

// TestLoadedRowsDigest loads digestScale and holds every column of every
// row it wrote (the load's own demo_data.loaded event aside) to the pinned
// digest, on either database.
func TestLoadedRowsDigest(t *testing.T) {
	s := apptest.New(t)
	ctx := s.Ctx(environment.Sandbox)
	db := s.Env(environment.Sandbox).DB
	if _, err := demodata.Load(ctx, db, digestScale); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeRows(&b, db.Client, ctx)
	// Sorted here, not by the database: PostgreSQL orders text by its
	// collation, SQLite by bytes.
	lines := strings.Split(b.String(), "\n")
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	if got := hex.EncodeToString(sum[:]); got != loadedRowsDigest {
		t.Errorf("%s: the loaded rows' digest is %s, pinned %s (the demo data changed; %d bytes of rows)", db.Dialect, got, loadedRowsDigest, b.Len())
	}
	_ = dialect.SQLite
}

// writeRows writes every exported column of every row of the loaded
// tables, one line a row, times in UTC.
func writeRows(b *strings.Builder, c *ent.Client, ctx interface {
	Deadline() (time.Time, bool)
	Done() <-chan struct{}
	Err() error
	Value(any) any
}) {
	rows := func(name string, v any) {
		s := reflect.ValueOf(v)
		for i := range s.Len() {
			fmt.Fprint(b, name)
			writeFields(b, s.Index(i).Elem())
			b.WriteByte('\n')
		}
	}
	rows("hub", c.Hub.Query().Order(hub.ByID()).AllX(ctx))
	rows("part", c.Part.Query().Order(part.ByID()).AllX(ctx))
	rows("item", c.Item.Query().Order(item.ByID()).AllX(ctx))
	rows("order", c.Order.Query().Order(order.ByID()).AllX(ctx))
	rows("line", c.OrderLine.Query().Order(orderline.ByID()).AllX(ctx))
	rows("reservation", c.Reservation.Query().Order(reservation.ByID()).AllX(ctx))
	rows("tracking", c.TrackingEntry.Query().Order(trackingentry.ByID()).AllX(ctx))
	rows("event", c.OrderEvent.Query().Order(orderevent.ByID()).AllX(ctx))
}

func writeFields(b *strings.Builder, v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		// The built-in workflow's id is made when the database is.
		if !f.IsExported() || f.Name == "Edges" || f.Name == "WorkflowID" {
			continue
		}
		x := v.Field(i)
		if x.Kind() == reflect.Pointer {
			if x.IsNil() {
				fmt.Fprintf(b, " %s=nil", f.Name)
				continue
			}
			x = x.Elem()
		}
		if tm, ok := x.Interface().(time.Time); ok {
			fmt.Fprintf(b, " %s=%s", f.Name, tm.UTC().Format(time.RFC3339Nano))
			continue
		}
		fmt.Fprintf(b, " %s=%v", f.Name, x.Interface())
	}
}
