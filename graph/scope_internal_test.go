package graph

import (
	"slices"
	"strings"
	"testing"

	"logistics/graph/generated"
)

// TestNodeTypesCoverTheSchema: every type implementing Node has an id prefix
// in nodeTypes (so node/nodes can refuse a forbidden id before looking it
// up), and nodeTypes names nothing else.
func TestNodeTypesCoverTheSchema(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	var impl []string
	for _, d := range schema.PossibleTypes["Node"] {
		impl = append(impl, d.Name)
	}
	var mapped []string
	for _, typ := range nodeTypes {
		mapped = append(mapped, typ)
	}
	slices.Sort(impl)
	slices.Sort(mapped)
	if !slices.Equal(impl, mapped) {
		t.Fatalf("Node implementors %v, nodeTypes %v", impl, mapped)
	}
}

// TestWhereTypesCoverTheSchema: every where input type of the schema has its
// Go type in whereTypes, so a where: argument of any field, at any depth, is
// checked by the filter rule.
func TestWhereTypesCoverTheSchema(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	for name := range schema.Types {
		if !strings.HasSuffix(name, "WhereInput") {
			continue
		}
		if _, ok := whereTypes()[name]; !ok {
			t.Errorf("%s has no Go type in whereTypes (add its table to filter.Tables)", name)
		}
	}
	if len(whereTypes()) == 0 {
		t.Fatal("no where types")
	}
}
