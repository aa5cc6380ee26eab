package contract

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
)

// SpecCost prices operation op of doc (validated against schema) the way a
// client or gateway following the IBM GraphQL cost directives does, reading
// nothing but the schema's @cost and @listSize:
//
//   - a field costs n × (weight + the cost of its selection) plus the
//     weights of the arguments it is given;
//   - weight: the field's @cost, else its type's @cost, else 1 for an
//     object, interface or union and 0 for a scalar or enum (__typename,
//     which the schema does not define, is a String: 0);
//   - n is 1 for a field that is not a list; for a list, the size its
//     parent's @listSize gives it when the field is one of the parent's
//     sizedFields, else its own @listSize: the largest value of the
//     slicingArguments given (an Int; a list counts its elements; an
//     argument not given counts its default), else assumedSize;
//   - fragments count at every spread, inline fragments always (their
//     costs add up, whatever type the object turns out to be).
//
// A list with no size known is an error: this service declares one for
// every list, and a tool would otherwise fall back to a size of its own.
func SpecCost(schema *ast.Schema, doc *ast.QueryDocument, op string, vars map[string]any) (int, error) {
	o := doc.Operations.ForName(op)
	if o == nil {
		return 0, fmt.Errorf("no operation %q", op)
	}
	c := specCost{schema: schema, frags: doc.Fragments, vars: vars}
	n := c.set(o.SelectionSet, nil)
	return n, c.err
}

type specCost struct {
	schema *ast.Schema
	frags  ast.FragmentDefinitionList
	vars   map[string]any
	err    error
}

// sized is what a parent's @listSize(sizedFields:) tells its selection.
type sized struct {
	fields []string
	n      int
}

func (c *specCost) set(set ast.SelectionSet, sz *sized) int {
	total := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			total += c.field(s, sz)
		case *ast.InlineFragment:
			total += c.set(s.SelectionSet, sz)
		case *ast.FragmentSpread:
			if f := c.frags.ForName(s.Name); f != nil {
				total += c.set(f.SelectionSet, sz)
			}
		}
	}
	return total
}

func (c *specCost) field(f *ast.Field, sz *sized) int {
	def := f.Definition
	if def == nil {
		c.fail(fmt.Errorf("field %s has no definition", f.Name))
		return 0
	}
	typ := c.schema.Types[def.Type.Name()]
	weight := 0
	if w, ok := intArg(def.Directives.ForName("cost"), "weight"); ok {
		weight = w
	} else if w, ok := intArg(typeDirective(typ, "cost"), "weight"); ok {
		weight = w
	} else if typ != nil && (typ.Kind == ast.Object || typ.Kind == ast.Interface || typ.Kind == ast.Union) {
		weight = 1
	}
	ls := def.Directives.ForName("listSize")
	n := 1
	if def.Type.Elem != nil {
		switch {
		case sz != nil && slices.Contains(sz.fields, f.Name):
			n = sz.n
		case ls != nil:
			var ok bool
			if n, ok = c.listSize(ls, f); !ok {
				c.fail(fmt.Errorf("%s: @listSize gives no size", f.Name))
			}
		default:
			c.fail(fmt.Errorf("list %s has no @listSize", f.Name))
		}
	}
	var inner *sized
	if ls != nil {
		if names := stringsArg(ls, "sizedFields"); len(names) > 0 {
			m, ok := c.listSize(ls, f)
			if !ok {
				c.fail(fmt.Errorf("%s: @listSize gives no size for its sized fields", f.Name))
			}
			inner = &sized{fields: names, n: m}
		}
	}
	args := 0
	for _, a := range f.Arguments {
		if ad := def.Arguments.ForName(a.Name); ad != nil {
			if w, ok := intArg(ad.Directives.ForName("cost"), "weight"); ok {
				args += w
			}
		}
	}
	return n*(weight+c.set(f.SelectionSet, inner)) + args
}

// listSize is the size @listSize gives field f.
func (c *specCost) listSize(ls *ast.Directive, f *ast.Field) (int, bool) {
	n, given := 0, false
	for _, name := range stringsArg(ls, "slicingArguments") {
		var v any
		if a := f.Arguments.ForName(name); a != nil {
			var err error
			if v, err = a.Value.Value(c.vars); err != nil {
				continue
			}
		} else if ad := f.Definition.Arguments.ForName(name); ad != nil && ad.DefaultValue != nil {
			v, _ = ad.DefaultValue.Value(nil)
		}
		switch x := v.(type) {
		case []any:
			n, given = max(n, len(x)), true
		case int64:
			n, given = max(n, int(x)), true
		case int:
			n, given = max(n, x), true
		case float64:
			n, given = max(n, int(x)), true
		}
	}
	if given {
		return max(n, 0), true
	}
	return intArg(ls, "assumedSize")
}

func (c *specCost) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

func typeDirective(t *ast.Definition, name string) *ast.Directive {
	if t == nil {
		return nil
	}
	return t.Directives.ForName(name)
}

func intArg(d *ast.Directive, name string) (int, bool) {
	if d == nil {
		return 0, false
	}
	a := d.Arguments.ForName(name)
	if a == nil || a.Value == nil || a.Value.Kind != ast.IntValue {
		return 0, false
	}
	n, err := strconv.Atoi(a.Value.Raw)
	return n, err == nil
}

func stringsArg(d *ast.Directive, name string) []string {
	a := d.Arguments.ForName(name)
	if a == nil || a.Value == nil {
		return nil
	}
	var out []string
	for _, ch := range a.Value.Children {
		out = append(out, ch.Value.Raw)
	}
	return out
}
