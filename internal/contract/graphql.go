package contract

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// LoadSDL parses an SDL document (the snapshot, or what the server serves).
func LoadSDL(name, sdl string) (*ast.Schema, error) {
	s, err := gqlparser.LoadSchema(&ast.Source{Name: name, Input: sdl})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// GraphQLRules are the GraphQL gate's rules, by id: what a client written
// against the old schema may rely on and the new one breaks.
var GraphQLRules = map[string]string{
	"type-removed":                "a type is removed (or renamed)",
	"type-kind-changed":           "a type changes kind (object, interface, union, enum, input, scalar)",
	"field-removed":               "a field of an object or interface is removed (or renamed)",
	"field-type-changed":          "a field's type changes other than by becoming non-null",
	"argument-removed":            "an argument is removed (or renamed)",
	"argument-type-changed":       "an argument's type changes other than by becoming nullable (narrowed)",
	"argument-became-required":    "an argument becomes non-null without a default",
	"required-argument-added":     "a non-null argument without a default is added",
	"input-field-removed":         "a field of an input type is removed (or renamed)",
	"input-field-type-changed":    "an input field's type changes other than by becoming nullable (narrowed)",
	"input-field-became-required": "an input field becomes non-null without a default",
	"required-input-field-added":  "a non-null input field without a default is added",
	"enum-value-removed":          "an enum value is removed (or renamed)",
	"union-member-removed":        "a union loses a member type",
	"interface-removed":           "a type stops implementing an interface",
}

// GraphQLBreaking is every breaking change from old to new, sorted.
func GraphQLBreaking(old, new *ast.Schema) []Change {
	var out []Change
	add := func(rule, element string, removal, deprecated bool, format string, args ...any) {
		out = append(out, Change{Rule: rule, Element: element, Removal: removal, Deprecated: deprecated, Message: fmt.Sprintf(format, args...)})
	}
	for name, o := range old.Types {
		if o.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		n := new.Types[name]
		if n == nil {
			add("type-removed", name, true, false, "type %s is removed", name)
			continue
		}
		if n.Kind != o.Kind {
			add("type-kind-changed", name, false, false, "%s changes from %s to %s", name, o.Kind, n.Kind)
			continue
		}
		switch o.Kind {
		case ast.Object, ast.Interface:
			for _, of := range o.Fields {
				if strings.HasPrefix(of.Name, "__") {
					continue
				}
				el := name + "." + of.Name
				nf := n.Fields.ForName(of.Name)
				if nf == nil {
					add("field-removed", el, true, deprecated(of.Directives), "field %s is removed", el)
					continue
				}
				if !outputSafe(of.Type, nf.Type) {
					add("field-type-changed", el, false, false, "%s changes type from %s to %s", el, of.Type, nf.Type)
				}
				for _, oa := range of.Arguments {
					ael := fmt.Sprintf("%s(%s:)", el, oa.Name)
					na := nf.Arguments.ForName(oa.Name)
					switch {
					case na == nil:
						add("argument-removed", ael, true, deprecated(oa.Directives), "argument %s is removed", ael)
					case becameRequired(oa.Type, oa.DefaultValue, na.Type, na.DefaultValue):
						add("argument-became-required", ael, false, false, "argument %s becomes required (%s to %s)", ael, oa.Type, na.Type)
					case !inputSafe(oa.Type, na.Type):
						add("argument-type-changed", ael, false, false, "argument %s changes type from %s to %s", ael, oa.Type, na.Type)
					}
				}
				for _, na := range nf.Arguments {
					if of.Arguments.ForName(na.Name) == nil && na.Type.NonNull && na.DefaultValue == nil {
						ael := fmt.Sprintf("%s(%s:)", el, na.Name)
						add("required-argument-added", ael, false, false, "required argument %s is added", ael)
					}
				}
			}
			for _, iface := range o.Interfaces {
				if o.Kind == ast.Object && !contains(n.Interfaces, iface) {
					add("interface-removed", name, false, false, "%s no longer implements %s", name, iface)
				}
			}
		case ast.InputObject:
			for _, of := range o.Fields {
				el := name + "." + of.Name
				nf := n.Fields.ForName(of.Name)
				switch {
				case nf == nil:
					add("input-field-removed", el, true, deprecated(of.Directives), "input field %s is removed", el)
				case becameRequired(of.Type, of.DefaultValue, nf.Type, nf.DefaultValue):
					add("input-field-became-required", el, false, false, "input field %s becomes required (%s to %s)", el, of.Type, nf.Type)
				case !inputSafe(of.Type, nf.Type):
					add("input-field-type-changed", el, false, false, "input field %s changes type from %s to %s", el, of.Type, nf.Type)
				}
			}
			for _, nf := range n.Fields {
				if o.Fields.ForName(nf.Name) == nil && nf.Type.NonNull && nf.DefaultValue == nil {
					add("required-input-field-added", name+"."+nf.Name, false, false, "required input field %s.%s is added", name, nf.Name)
				}
			}
		case ast.Enum:
			for _, ov := range o.EnumValues {
				if n.EnumValues.ForName(ov.Name) == nil {
					el := name + "." + ov.Name
					add("enum-value-removed", el, true, deprecated(ov.Directives), "enum value %s is removed", el)
				}
			}
		case ast.Union:
			for _, m := range o.Types {
				if !contains(n.Types, m) {
					add("union-member-removed", name, false, false, "union %s loses member %s", name, m)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Element != out[j].Element {
			return out[i].Element < out[j].Element
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

func deprecated(l ast.DirectiveList) bool { return l.ForName("deprecated") != nil }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// outputSafe: a client reading the old type can read the new one — the
// same shape and names, non-null added anywhere.
func outputSafe(o, n *ast.Type) bool {
	if o.NonNull && !n.NonNull {
		return false
	}
	if (o.Elem == nil) != (n.Elem == nil) {
		return false
	}
	if o.Elem != nil {
		return outputSafe(o.Elem, n.Elem)
	}
	return o.NamedType == n.NamedType
}

// inputSafe: every value a client sent for the old type is valid for the
// new one — the same shape and names, non-null dropped anywhere.
func inputSafe(o, n *ast.Type) bool {
	if n.NonNull && !o.NonNull {
		return false
	}
	if (o.Elem == nil) != (n.Elem == nil) {
		return false
	}
	if o.Elem != nil {
		return inputSafe(o.Elem, n.Elem)
	}
	return o.NamedType == n.NamedType
}

// becameRequired: an input a client could leave out must now be given.
func becameRequired(o *ast.Type, od *ast.Value, n *ast.Type, nd *ast.Value) bool {
	optional := !o.NonNull || od != nil
	return optional && n.NonNull && nd == nil
}
