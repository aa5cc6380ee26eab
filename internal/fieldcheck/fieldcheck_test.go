package fieldcheck

import (
	"reflect"
	"strings"
	"testing"

	"logistics/ent"
)

// TestEverySchemaListed: every entity of the generated client has its
// schema in the list, so no mutation goes unchecked.
func TestEverySchemaListed(t *testing.T) {
	ct := reflect.TypeFor[ent.Client]()
	for i := range ct.NumField() {
		name, ok := strings.CutSuffix(ct.Field(i).Type.String(), "Client")
		if !ok || !strings.HasPrefix(name, "*ent.") {
			continue
		}
		name = strings.TrimPrefix(name, "*ent.")
		if _, ok := descriptors()[name]; !ok {
			t.Errorf("schema %s is not in fieldcheck's list", name)
		}
	}
	if len(descriptors()) != len(schemas) {
		t.Errorf("%d schemas listed, %d distinct", len(schemas), len(descriptors()))
	}
}

// BenchmarkItemCreate is the full check's cost for one item (paid only when
// ent's own check has refused the write).
func BenchmarkItemCreate(b *testing.B) {
	c := ent.NewClient()
	m := c.Item.Create().SetPartID("prt_01JD3K0000000000000000000A").SetHubID("hub_01JD3K0000000000000000000A").
		SetQuantity(1000).SetLot("L1").SetSerial("S1").Mutation()
	for b.Loop() {
		if p := Mutation(m); len(p) > 0 {
			b.Fatal(p)
		}
	}
}
