package eventlog_test

import (
	"context"
	"fmt"
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/service"
)

// BenchmarkEmit measures what recording an event adds to a write: the same
// one-row transaction (a hub rename) without an event, with one event
// (counter row update + insert at commit), and the full service path (the
// event also carries the REST representation and previous_attributes, two
// renders of the hub). Run on a quiet machine:
//
//	go test -run '^$' -bench Emit -benchtime 2000x ./internal/eventlog
//	LOGISTICS_TEST_POSTGRES=postgres://… go test -run '^$' -bench Emit -benchtime 2000x ./internal/eventlog
func BenchmarkEmit(b *testing.B) {
	s := apptest.New(b)
	ctx := s.Ctx(environment.Production)
	svc := s.App.Service
	h, err := svc.CreateHub(ctx, ent.CreateHubInput{Code: "BENCH1", Name: "x", Country: "NL"})
	if err != nil {
		b.Fatal(err)
	}
	rename := func(ctx context.Context, i int) error {
		return ent.FromContext(ctx).Hub.UpdateOneID(h.ID).SetName(fmt.Sprint("n", i)).Exec(ctx)
	}
	b.Run("no-event", func(b *testing.B) {
		for i := range b.N {
			if err := service.WithTx(ctx, func(ctx context.Context) error { return rename(ctx, i) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-event", func(b *testing.B) {
		for i := range b.N {
			if err := service.WithTx(ctx, func(ctx context.Context) error {
				if err := rename(ctx, i); err != nil {
					return err
				}
				return eventlog.Record(ctx, eventlog.Change{Type: "hub.updated", SubjectID: h.ID, Object: map[string]any{"id": h.ID}})
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("service-update", func(b *testing.B) {
		for i := range b.N {
			if _, err := svc.UpdateHub(ctx, h.ID, ent.UpdateHubInput{Name: ptr(fmt.Sprint("s", i))}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
