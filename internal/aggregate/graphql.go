package aggregate

import (
	_ "embed"
	"strconv"
	"strings"
	"text/template"
)

// GraphQL names of the core's names: fields camelCase ("availableQuantity"),
// enum values upper case ("AVAILABLE_QUANTITY").

// Camel is the GraphQL field name of a REST name: "available_quantity" →
// "availableQuantity".
func Camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// Snake is the REST name of a GraphQL field name: "availableQuantity" →
// "available_quantity".
func Snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// QueryField is the GraphQL query field of the spec's aggregates:
// "itemAggregate".
func (s *Spec) QueryField() string {
	return strings.ToLower(s.GraphQLType[:1]) + s.GraphQLType[1:] + "Aggregate"
}

// Numeric reports whether the spec has fields sum and avg apply to.
func (s *Spec) Numeric() bool {
	for _, f := range s.Fields {
		if f.Type != Time {
			return true
		}
	}
	return false
}

// refTypes are the GraphQL types of related records shown as keys.
var refTypes = []*Reference{hubRef, partRef, orderRef, workflowRef}

func refTypeName(r *Reference) string { return r.Type + "Ref" }

func (k Key) graphQLType(s *Spec) string {
	switch k.Type {
	case Ref:
		return refTypeName(k.Ref)
	case Enum:
		return s.GraphQLType + strings.ToUpper(k.Name[:1]) + Camel(k.Name)[1:] // ItemStatus: entgql's name
	case Bool:
		return "Boolean"
	case Time:
		return "Time"
	}
	return "String"
}

// GraphQLSchema is the GraphQL schema of the aggregates of every spec
// (graph/schema/aggregate.graphqls, written by go generate): one
// <t>Aggregate query field and one <T>Connection.aggregate field per
// resource, with their types. Both are marked @aggregate: the generated
// fast path leaves them to gqlgen. The text is schema.graphqls.tmpl.
func GraphQLSchema() string {
	var b strings.Builder
	err := schemaTemplate.Execute(&b, struct {
		Refs                                      []*Reference
		Specs                                     []*Spec
		MaxLimit, MaxGroupBy, MaxHaving, MaxOrder int
	}{refTypes, Specs, MaxLimit, MaxGroupBy, MaxHaving, MaxOrder})
	if err != nil {
		panic(err) // the template and its data are the package's own
	}
	return b.String()
}

//go:embed schema.graphqls.tmpl
var schemaText string

var schemaTemplate = template.Must(template.New("schema").Funcs(template.FuncMap{
	"camel": Camel,
	"lower": strings.ToLower,
	"upper": strings.ToUpper,
	"join":  strings.Join,
	"quote": strconv.Quote, // a GraphQL string: Go's escapes are GraphQL's for these texts
	// A related record's label: "version" is a number, the others text.
	"labelType": func(label string) string {
		if label == "version" {
			return "Int!"
		}
		return "String!"
	},
	"keyType": func(s *Spec, k Key) string { return k.graphQLType(s) },
	// A time key's value is its bucket's first instant.
	"keyDescription": func(k Key) string {
		if k.Type == Time {
			return strings.TrimSuffix(k.Description, ".") + ": the bucket's first instant, in the query's time zone."
		}
		return k.Description
	},
	"fieldType": func(f Field) string { return map[Type]string{Decimal: "Decimal", Int: "Int", Time: "Time"}[f.Type] },
	// The fields sum and avg apply to: every one but times.
	"numbers": func(fs []Field) []Field {
		var out []Field
		for _, f := range fs {
			if f.Type != Time {
				out = append(out, f)
			}
		}
		return out
	},
}).Parse(schemaText))
