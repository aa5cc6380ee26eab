package gqlcodegen

import (
	"strings"

	"entgo.io/ent/entc/gen"
	"github.com/vektah/gqlparser/v2/ast"
)

// Counts is an entgql schema hook (ent/entc.go) that gives every
// connection of the generated schema, next to its exact totalCount, the
// count a client can afford: count(mode: CountMode! = BOUNDED): Count
// (graph/schema/count.graphqls declares the types; the generated Paginate
// answers it through internal/count; docs/design/0024-count-modes.md).
func Counts(_ *gen.Graph, s *ast.Schema) error {
	for name, d := range s.Types {
		if !strings.HasSuffix(name, "Connection") || d.Fields.ForName("totalCount") == nil || d.Fields.ForName("count") != nil {
			continue
		}
		d.Fields = append(d.Fields, &ast.FieldDefinition{
			Name: "count",
			Description: "The matches counted as mode asks, cheaper than totalCount (which counts every match): " +
				"BOUNDED counts up to 1,000, PLANNED asks PostgreSQL's planner, ESTIMATED counts up to 1,000 and then asks the planner. " +
				"kind says what value is. Root connections only: a nested one answers null with the error count_unavailable.",
			Arguments: ast.ArgumentDefinitionList{{
				Name:         "mode",
				Description:  "How to count (default BOUNDED).",
				Type:         ast.NonNullNamedType("CountMode", nil),
				DefaultValue: &ast.Value{Kind: ast.EnumValue, Raw: "BOUNDED"},
			}},
			Type: ast.NamedType("Count", nil),
		})
	}
	return nil
}
