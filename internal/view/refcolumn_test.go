package view_test

import (
	"testing"

	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/order"
	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/view"
)

// TestSelectedTextsInTheEntity: the TextColumns a modifier adds are kept in
// the entity (two of them) and in ent's map (a third), a NULL one reads as
// absent through SelectedText and as nil through Value, and a column of
// another name is ent's as before; rows do not share what they read.
func TestSelectedTextsInTheEntity(t *testing.T) {
	srv := apptest.New(t)
	post := func(path string, body map[string]any) string {
		return srv.Create(t, environment.Production, path, body)
	}
	ams := post("/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	rtm := post("/v1/hubs", map[string]any{"code": "RTM2", "name": "Rotterdam", "address": map[string]any{"country": "NL"}})
	post("/v1/orders", map[string]any{"hub_id": ams})
	post("/v1/orders", map[string]any{"hub_id": rtm})

	const name, none, third = ent.TextColumn + "hub_name", ent.TextColumn + "none", ent.TextColumn + "third"
	ctx := srv.Ctx(environment.Production)
	orders, err := view.OrderRefs(ent.FromContext(ctx).Order.Query()).Modify(func(s *sql.Selector) {
		view.AddRefColumn(s, hub.Table, hub.FieldName, order.FieldHubID, name)
		s.AppendSelectExprAs(sql.Raw("NULL"), none)
		view.AddRefColumn(s, hub.Table, hub.FieldCode, order.FieldHubID, third)
		s.AppendSelectExprAs(sql.Raw("41 + 1"), "answer")
	}).Order(order.ByCreatedAt()).All(ctx)
	if err != nil || len(orders) != 2 {
		t.Fatalf("%d orders, %v", len(orders), err)
	}
	for i, want := range []struct{ code, name string }{{"AMS1", "Amsterdam"}, {"RTM2", "Rotterdam"}} {
		o := orders[i]
		for col, text := range map[string]string{view.HubCode: want.code, name: want.name, third: want.code} {
			got, err := view.RefText(o, col)
			v, verr := o.Value(col)
			if err != nil || got != text || verr != nil || v != text {
				t.Errorf("order %d %s: Text %q, %v; Value %#v, %v; want %q", i, col, got, err, v, verr, text)
			}
		}
		if s, ok := o.SelectedText(none); ok || s != "" {
			t.Errorf("order %d: NULL column read as %q", i, s)
		}
		if v, err := o.Value(none); v != nil || err != nil {
			t.Errorf("order %d: NULL column's Value %#v, %v", i, v, err)
		}
		if _, err := view.RefText(o, ent.TextColumn+"absent"); err == nil {
			t.Errorf("order %d: a column the statement did not have was read", i)
		}
		if v, err := o.Value("answer"); err != nil || v == nil {
			t.Errorf("order %d: another column's Value %#v, %v", i, v, err)
		}
	}
}
