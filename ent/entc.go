//go:build ignore

// entc.go runs ent's code generator with the entgql extension (the ent CLI
// cannot load extensions). Run it through `go generate ./...` from the root.
package main

import (
	"fmt"
	"log"
	"slices"
	"text/template"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"logistics/internal/gqlcodegen"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithSchemaPath("graph/schema/ent.graphqls"),
		entgql.WithConfigPath("gqlgen.yml"),
		// entgql's templates, then ours (ent/template), which replace
		// blocks of theirs by name: ent gives a template defined later the
		// name's place. Ours count a page's rows only when the count is used
		// (paginate.tmpl), keep on each connection what count(mode:) needs
		// (pagination.tmpl), read the first rows of nested connections per
		// parent with pergroup.First (collection.tmpl), and read a list edge
		// from the entity's own edge when no alias loaded it (edge.tmpl).
		entgql.WithTemplates(append(slices.Clone(entgql.AllTemplates),
			gen.MustParse(gen.NewTemplate("collection").Funcs(entgql.TemplateFuncs).Funcs(segmentedFuncs).ParseFiles("./ent/template/collection.tmpl")),
			gen.MustParse(gen.NewTemplate("edge").Funcs(entgql.TemplateFuncs).ParseFiles("./ent/template/edge.tmpl")),
			gen.MustParse(gen.NewTemplate("pagination").Funcs(entgql.TemplateFuncs).Funcs(segmentedFuncs).ParseFiles("./ent/template/pagination.tmpl")),
			gen.MustParse(gen.NewTemplate("paginate").Funcs(entgql.TemplateFuncs).Funcs(segmentedFuncs).ParseFiles("./ent/template/paginate.tmpl")))...),
		// After WithTemplates, which replaces the template list: placed
		// before it, the where-input template was dropped from the list, so
		// nested connections (hub.items(where:)) declared where: in the
		// schema but ignored it.
		entgql.WithWhereInputs(true),
		// Descriptions for the Docs explorer: type comments (schema.Comment),
		// enum values (EnumValues) and every generated predicate; and each
		// connection's count(mode:).
		entgql.WithSchemaHook(gqlcodegen.Describe, gqlcodegen.Counts),
	)
	if err != nil {
		log.Fatalf("entgql: %v", err)
	}
	err = entc.Generate("./ent/schema", &gen.Config{
		Target:   "./ent",
		Package:  "logistics/ent",
		Features: []gen.Feature{gen.FeatureVersionedMigration, gen.FeatureLock, gen.FeatureModifier, gen.FeatureExecQuery, gen.FeatureUpsert},
		Templates: []*gen.Template{
			gen.MustParse(gen.NewTemplate("idprefix").ParseFiles("./ent/template/idprefix.tmpl")),
			gen.MustParse(gen.NewTemplate("driver").ParseFiles("./ent/template/driver.tmpl")),
			gen.MustParse(gen.NewTemplate("namedappend").ParseFiles("./ent/template/namedappend.tmpl")),
			gen.MustParse(gen.NewTemplate("selected").ParseFiles("./ent/template/selected.tmpl")),
			// ent's scanValues/assignValues/Value, replaced by name: a
			// column a modifier adds is scanned by its known type.
			gen.MustParse(gen.NewTemplate("decode").Funcs(gen.Funcs).ParseFiles("./ent/template/decode.tmpl")),
			// One set of scan holders per query, not per row: ent's sqlAll
			// allocated one holder per column per row.
			gen.MustParse(gen.NewTemplate("reusescan").Funcs(gen.Funcs).ParseFiles("./ent/template/reusescan.tmpl")),
			// ent's field predicates, with the case-folded ones written
			// so that PostgreSQL's trigram indexes on lower(col) serve them.
			gen.MustParse(gen.NewTemplate("casefold").Funcs(gen.Funcs).ParseFiles("./ent/template/casefold.tmpl")),
		},
		Hooks: []gen.Hook{requirePrefixes},
	}, entc.Extensions(ex))
	if err != nil {
		log.Fatalf("ent codegen: %v", err)
	}
}

// segmentedFuncs name the order fields internal/nullsort pages: those
// marked RangeKeyset (schema.RangeKeyset).
var segmentedFuncs = template.FuncMap{
	"segmentedFields":       segmentedFields,
	"nodeHasSegmentedOrder": func(n *gen.Type) bool { return len(segmentedFields(n)) > 0 },
}

func segmentedFields(n *gen.Type) []*gen.Field {
	var out []*gen.Field
	for _, f := range n.Fields {
		a, _ := f.Annotations["EntGQL"].(map[string]any)
		if o, _ := a["OrderField"].(string); o == "" {
			continue
		}
		if _, marked := f.Annotations["RangeKeyset"]; marked {
			out = append(out, f)
		}
	}
	return out
}

// requirePrefixes refuses a type without an id prefix, or two types sharing one.
func requirePrefixes(next gen.Generator) gen.Generator {
	return gen.GenerateFunc(func(g *gen.Graph) error {
		seen := map[string]string{}
		for _, n := range g.Nodes {
			a, ok := n.Annotations["IDPrefix"].(map[string]any)
			p, _ := a["Prefix"].(string)
			if !ok || p == "" {
				return fmt.Errorf("type %s has no id prefix: add withID(resourceid.X) to its mixins", n.Name)
			}
			if other, dup := seen[p]; dup {
				return fmt.Errorf("types %s and %s share the id prefix %q", other, n.Name, p)
			}
			seen[p] = n.Name
		}
		return next.Generate(g)
	})
}
