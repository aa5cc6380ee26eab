package service_test

import (
	"errors"
	"testing"

	"logistics/ent"
	"logistics/ent/item"
	"logistics/internal/apperr"
	"logistics/internal/decimal"
	"logistics/internal/service"
)

// TestLostItemUpdateRace: an UPDATE that matched no row because of a
// reservation that was released before the row is read again is a 409
// concurrent_update (retry), for a quantity-only change too, never a panic.
func TestLostItemUpdateRace(t *testing.T) {
	f := newFixture(t)
	it := f.stock(t, f.parts[0], f.hub, "10", item.StatusAvailable, nil)
	for name, in := range map[string]ent.UpdateItemInput{
		"quantity": {Quantity: ptr(decimal.MustParse("7"))},
		"status":   {Status: ptr(item.StatusDamaged)},
		"hub":      {HubID: &f.other.ID},
	} {
		err := service.ExplainItemUpdate(f.svc, f.ctx, it.ID, in, nil)
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != "concurrent_update" {
			t.Errorf("%s: %v, want 409 concurrent_update", name, err)
		}
	}
}
