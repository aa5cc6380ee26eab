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
