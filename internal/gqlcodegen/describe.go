package gqlcodegen

import (
	"encoding/json"
	"fmt"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc/gen"
	"github.com/vektah/gqlparser/v2/ast"
)

// Describe is an entgql schema hook (entgql.WithSchemaHook in ent/entc.go)
// that gives every type, field and enum value of the generated GraphQL
// schema (graph/schema/ent.graphqls) a description for the playground's
// Docs explorer. The domain text comes from the ent schema, where it
// belongs:
//
//   - a type's description from its schema.Comment annotation
//     (`func (Hub) Annotations() … schema.Comment("…")`): entgql v0.7.0 has no
//     type-level description of its own;
//   - fields, edges and mutation input fields from `.Comment("…")`, which
//     entgql already copies (this hook fills only what is still empty);
//   - enum values from the field's EnumValues annotation (ent/schema).
//
// What is mechanical is written here: the hundreds of where-input
// predicates (codeHasPrefix, statusIn, hasHubWith …), the orderBy enums,
// clear… and edge id inputs, each from its field's name and comment.
// Descriptions that entgql or the schema already gave are kept.
func Describe(g *gen.Graph, s *ast.Schema) error {
	for _, t := range g.Nodes {
		ant, err := entgqlAnnotation(t.Annotations)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		if ant.Skip.Is(entgql.SkipType) {
			continue
		}
		d := newTypeDoc(t)
		obj := s.Types[t.Name]
		if obj == nil {
			continue
		}
		setIfEmpty(&obj.Description, d.comment)
		for _, f := range obj.Fields {
			if f.Description == "" {
				if fd, ok := d.fields[f.Name]; ok {
					f.Description = fd.comment
				} else if e, ok := d.edges[f.Name]; ok {
					f.Description = e.comment // entgql drops it on connection edges
				}
			}
			if enum := s.Types[f.Type.Name()]; enum != nil && enum.Kind == ast.Enum {
				if fd, ok := d.fields[f.Name]; ok {
					d.describeEnum(enum, fd)
				}
			}
		}
		if where := s.Types[t.Name+"WhereInput"]; where != nil {
			d.describeWhere(where)
		}
		if order := s.Types[t.Name+"OrderField"]; order != nil {
			d.describeOrderField(order)
		}
		if order := s.Types[t.Name+"Order"]; order != nil {
			setIfEmpty(&order.Description, "Ordering of "+t.Name+" connections: a field and a direction.")
			for _, f := range order.Fields {
				switch f.Name {
				case "direction":
					setIfEmpty(&f.Description, "The ordering direction (default ASC).")
				case "field":
					setIfEmpty(&f.Description, "The field by which to order "+t.Name+" objects.")
				}
			}
		}
		for _, name := range []string{"Create" + t.Name + "Input", "Update" + t.Name + "Input"} {
			if in := s.Types[name]; in != nil {
				d.describeMutationInput(in)
			}
		}
	}
	codegen := map[string]string{
		"goModel": "Code generation only (gqlgen): the Go type bound to a GraphQL type. No effect on requests.",
		"goField": "Code generation only (gqlgen): how a GraphQL field maps to Go. No effect on requests.",
	}
	for name, text := range codegen {
		if d := s.Directives[name]; d != nil {
			setIfEmpty(&d.Description, text)
			for _, a := range d.Arguments {
				setIfEmpty(&a.Description, "Code generation only.")
			}
		}
	}
	if q := s.Types["Query"]; q != nil {
		setIfEmpty(&q.Description, "Reading: every resource as a Relay connection (first/after, where:, orderBy:, totalCount), any object by id (node/nodes), and the caller's own identity.")
	}
	return nil
}

// EnumValuesAnnotation is the name of the field annotation (declared in
// ent/schema) that maps each value of an enum field to its description.
const EnumValuesAnnotation = "EnumValues"

type fieldDoc struct {
	name    string // GraphQL (camel) name
	comment string
	field   *gen.Field
	enum    map[string]string // value → description (EnumValues annotation)
}

type edgeDoc struct {
	name    string // camel
	comment string
	target  string // the related type's name
	unique  bool
}

type typeDoc struct {
	t       *gen.Type
	comment string
	fields  map[string]*fieldDoc // by GraphQL name
	edges   map[string]*edgeDoc  // by GraphQL name
}

var camel = gen.Funcs["camel"].(func(string) string)

func newTypeDoc(t *gen.Type) *typeDoc {
	d := &typeDoc{t: t, comment: schemaComment(t.Annotations), fields: map[string]*fieldDoc{}, edges: map[string]*edgeDoc{}}
	all := append([]*gen.Field{}, t.Fields...)
	if t.ID != nil {
		all = append([]*gen.Field{t.ID}, all...)
	}
	for _, f := range all {
		fd := &fieldDoc{name: camel(f.Name), comment: f.Comment(), field: f}
		if raw, ok := f.Annotations[EnumValuesAnnotation]; ok {
			b, _ := json.Marshal(raw)
			var ev struct{ Values map[string]string }
			if json.Unmarshal(b, &ev) == nil {
				fd.enum = ev.Values
			}
		}
		d.fields[fd.name] = fd
	}
	for _, e := range t.Edges {
		d.edges[camel(e.Name)] = &edgeDoc{name: camel(e.Name), comment: e.Comment(), target: e.Type.Name, unique: e.Unique}
	}
	return d
}

// schemaComment is the text of ent's schema.Comment annotation.
func schemaComment(ants gen.Annotations) string {
	raw, ok := ants["Comment"]
	if !ok {
		return ""
	}
	b, _ := json.Marshal(raw)
	var c struct{ Text string }
	_ = json.Unmarshal(b, &c)
	return c.Text
}

func entgqlAnnotation(ants gen.Annotations) (*entgql.Annotation, error) {
	ant := &entgql.Annotation{}
	if raw, ok := ants[ant.Name()]; ok {
		if err := ant.Decode(raw); err != nil {
			return nil, err
		}
	}
	return ant, nil
}

func setIfEmpty(dst *string, text string) {
	if *dst == "" {
		*dst = text
	}
}

// firstSentence is the comment up to its first full stop, for predicates
// that repeat it.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func (d *typeDoc) describeEnum(enum *ast.Definition, fd *fieldDoc) {
	if strings.HasSuffix(enum.Description, " is enum for the field "+fd.field.Name) || enum.Description == "" {
		// entgql's "HubKind is enum for the field kind" says nothing.
		enum.Description = fd.comment
		if enum.Description == "" {
			enum.Description = "The values of " + d.t.Name + "." + fd.name + "."
		}
	}
	for _, v := range enum.EnumValues {
		setIfEmpty(&v.Description, fd.enum[v.Name])
	}
}

func (d *typeDoc) describeOrderField(enum *ast.Definition) {
	setIfEmpty(&enum.Description, "Properties by which "+d.t.Name+" connections can be ordered.")
	byOrder := map[string]*fieldDoc{}
	for _, fd := range d.fields {
		ant, err := entgqlAnnotation(fd.field.Annotations)
		if err == nil && ant.OrderField != "" {
			byOrder[ant.OrderField] = fd
		}
	}
	for _, v := range enum.EnumValues {
		if fd := byOrder[v.Name]; fd != nil {
			text := "Order by " + fd.name + "."
			if fd.comment != "" {
				text = "Order by " + fd.name + ": " + lowerFirst(firstSentence(fd.comment))
			}
			if _, paged := fd.field.Annotations["RangeKeyset"]; paged && fd.field.Optional { // internal/nullsort
				text += " The nulls come last in either direction; only as the first orderBy field."
			}
			setIfEmpty(&v.Description, text)
		}
	}
}

// lowerFirst lowers the first letter unless the first word looks like a
// name (an acronym or an identifier such as ISO or tok_…).
func lowerFirst(s string) string {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' || (s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// predicate suffixes of entgql's where inputs, longest first so that
// GTE is tried before GT and NotIn before In.
var predicates = []struct{ suffix, text string }{
	{"ContainsFold", "%s contains the value, ignoring case (ASCII letters only on SQLite)."},
	{"EqualFold", "%s equals the value, ignoring case (ASCII letters only on SQLite)."},
	{"HasPrefix", "%s starts with the value (case-sensitive)."},
	{"HasSuffix", "%s ends with the value (case-sensitive)."},
	{"Contains", "%s contains the value (case-sensitive)."},
	{"NotNil", "true: %s is set (not null)."},
	{"IsNil", "true: %s is not set (null)."},
	{"NotIn", "%s is none of the values (at most 100)."},
	{"GTE", "%s is greater than or equal to the value."},
	{"LTE", "%s is less than or equal to the value."},
	{"NEQ", "%s differs from the value."},
	{"GT", "%s is greater than the value."},
	{"LT", "%s is less than the value."},
	{"In", "%s is one of the values (at most 100)."},
}

func (d *typeDoc) describeWhere(def *ast.Definition) {
	def.Description = "Filters " + d.t.Name + " objects: every predicate given must hold (AND); use or: for alternatives and not: to negate. " +
		"At most 8 levels deep, 256 predicates and 100 values per list."
	for _, f := range def.Fields {
		f.Description = d.whereText(f.Name)
	}
}

// whereText describes one input field of the type's where input.
func (d *typeDoc) whereText(name string) string {
	switch name {
	case "not":
		return "Matches the " + d.t.Name + " objects that this filter does not match."
	case "and":
		return "Matches when every filter in the list matches."
	case "or":
		return "Matches when at least one filter in the list matches."
	}
	if fd, ok := d.fields[name]; ok {
		text := name + " equals the value."
		if fd.comment != "" {
			text += " " + fd.comment
		}
		return text
	}
	for _, e := range d.edges {
		has := "has" + strings.ToUpper(e.name[:1]) + e.name[1:]
		switch name {
		case has:
			if e.unique {
				return "true: the " + d.t.Name + " has a " + e.name + "; false: it has none."
			}
			return "true: the " + d.t.Name + " has at least one of its " + e.name + "; false: it has none."
		case has + "With":
			who := "Its " + e.name + " matches"
			if !e.unique {
				who = "At least one of its " + e.name + " matches"
			}
			return who + " every filter in the list (" + e.target + "WhereInput; several entries are ANDed, use or: inside one for alternatives). Needs read scope on " + e.target + "."
		}
	}
	for _, p := range predicates {
		if base, ok := strings.CutSuffix(name, p.suffix); ok {
			if _, known := d.fields[base]; known {
				return fmt.Sprintf(p.text, base)
			}
		}
	}
	return ""
}

func (d *typeDoc) describeMutationInput(def *ast.Definition) {
	create := strings.HasPrefix(def.Name, "Create")
	if create {
		def.Description = "The fields of a new " + d.t.Name + ". Fields left out take their default."
	} else {
		def.Description = "The fields of a " + d.t.Name + " to change; those left out stay as they are."
	}
	for _, f := range def.Fields {
		if f.Description != "" {
			continue
		}
		if fd, ok := d.fields[f.Name]; ok {
			f.Description = fd.comment
			continue
		}
		if base, ok := strings.CutPrefix(f.Name, "clear"); ok {
			for _, fd := range d.fields {
				if strings.EqualFold(fd.name, base) {
					f.Description = "true: set " + fd.name + " to null."
				}
			}
			for _, e := range d.edges {
				if strings.EqualFold(e.name, base) {
					f.Description = "true: remove the " + e.name + "."
				}
			}
			continue
		}
		if base, ok := strings.CutSuffix(f.Name, "ID"); ok {
			if e, ok := d.edges[base]; ok {
				f.Description = "The id of the " + e.name + "."
				if e.comment != "" {
					f.Description += " " + e.comment
				}
			}
		}
	}
}
