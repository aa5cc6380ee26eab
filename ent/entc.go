//go:build ignore

// entc.go runs ent's code generator with the entgql extension (the ent CLI
// cannot load extensions). Run it through `go generate ./...` from the root.
package main

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

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
		// entgql's templates, with our pagination helper overriding theirs
		// (ent/template/paginate.tmpl: count only when the count is used).
		// and their collection template reading the first rows of nested
		// connections per parent with pergroup.First (collectionTemplate).
		// And their edge template with a list edge read from the entity's
		// own edge when no alias loaded it (edgeTemplate).
		entgql.WithTemplates(append(without(entgql.AllTemplates, entgql.CollectionTemplate, entgql.EdgeTemplate), collectionTemplate(), edgeTemplate(),
			gen.MustParse(gen.NewTemplate("paginate").Funcs(entgql.TemplateFuncs).ParseFiles("./ent/template/paginate.tmpl")))...),
		// After WithTemplates, which replaces the template list: placed
		// before it, the where-input template was dropped from the list, so
		// nested connections (hub.items(where:)) declared where: in the
		// schema but ignored it.
		entgql.WithWhereInputs(true),
		// Descriptions for the Docs explorer: type comments (schema.Comment),
		// enum values (EnumValues) and every generated predicate.
		entgql.WithSchemaHook(gqlcodegen.Describe),
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
			decodeTemplate(),
			// One set of scan holders per query, not per row: ent's sqlAll
			// allocated one holder per column per row.
			gen.MustParse(gen.NewTemplate("reusescan").Funcs(gen.Funcs).ParseFiles("./ent/template/reusescan.tmpl")),
		},
		Hooks: []gen.Hook{requirePrefixes},
	}, entc.Extensions(ex))
	if err != nil {
		log.Fatalf("ent codegen: %v", err)
	}
}

// collectionTemplate is entgql's collection template (CollectFields) with
// three changes: a nested connection's first/last rows per parent are read by
// logistics/internal/pergroup.First, an index seek per parent, instead of
// entgql.LimitPerRow, a ROW_NUMBER window over every row of every parent
// (see internal/pergroup); a to-one edge asked under several aliases is
// one eager load of every column, not the last alias's fields; and an
// orderBy of one object (not a list) is a list of one. It is made from the
// template of the entgql version in go.mod, so an upgrade keeps the rest of
// it; generation stops if the call or the import it edits is no longer
// there.
func collectionTemplate() *gen.Template {
	const path = "entgql's collection template"
	src := entgqlTemplate("collection.tmpl")
	for _, r := range [][2]string{
		{"entgql.LimitPerRow(", "pergroup.First("},
		// A to-one edge asked under two aliases (hub { code } h2: hub { id })
		// was loaded with the last alias's fields only; the first alias
		// answered empty fields. Now the second alias collects into the
		// same eager load, which reads every column.
		{"{{ $receiver }}.{{ $e.EagerLoadField }} = query", `if prev := {{ $receiver }}.{{ $e.EagerLoadField }}; prev != nil {
								if err := prev.collectField(ctx, {{ $oneNode }}, opCtx, field, path, mayAddCondition(satisfies, {{ nodeImplementorsVar $e.Type }})...); err != nil {
									return err
								}
								prev.ctx.Fields = nil
							} else {
								{{ $receiver }}.{{ $e.EagerLoadField }} = query
							}`},
		{"\t\"entgo.io/contrib/entgql\"\n", "\t\"entgo.io/contrib/entgql\"\n\t\"logistics/internal/pergroup\"\n"},
		// A nested connection's orderBy given as one object, not a list
		// (trackingEntries(orderBy: {field: OCCURRED_AT, direction: DESC})),
		// is a list of one by GraphQL's input coercion; the eager load
		// ignored it and read by id.
		{"\t\tif v, ok := rv[orderByField]; ok {\n\t\t\tswitch v := v.(type) {", `		if v, ok := rv[orderByField]; ok {
			{{- if $multiOrder }}
				if m, ok := v.(map[string]any); ok {
					v = []any{m} // one object: a list of one (GraphQL's input coercion)
				}
			{{- end }}
			switch v := v.(type) {`},
	} {
		if n := strings.Count(src, r[0]); n != 1 {
			log.Fatalf("%s: %q found %d times, want once: update ent/entc.go's collectionTemplate", path, r[0], n)
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	return gen.MustParse(gen.NewTemplate("collection").Funcs(entgql.TemplateFuncs).Parse(src))
}

// edgeTemplate is entgql's edge template (the resolvers of edges) with one
// change: a list edge that is not a connection (order { lines }), which
// GraphQL reads by its alias (Named<Edge>, what entgql's eager loading
// fills), is read from the entity's own edge (Edges.<Edge>) when no alias
// loaded it, before it is queried. Such an edge takes no argument, so
// every alias answers the same list; rows read by hand (internal/orderread)
// set the edge once instead of a map of it per alias per row (an order
// page's 50 maps and slices). Made from the template of the entgql version
// in go.mod; generation stops if the line is no longer there.
func edgeTemplate() *gen.Template {
	src := entgqlTemplate("edge.tmpl")
	from := strings.Index(src, "\t\t\t\tif fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Alias != \"\" {\n")
	const last = "\t\t\t\tif IsNotLoaded(err) {\n\t\t\t\t\tresult, err = {{ $r }}.Query{{ $e.StructField }}().All(ctx)\n\t\t\t\t}\n"
	to := strings.Index(src, last)
	if from < 0 || to < from || strings.Count(src, last) != 1 {
		log.Fatal("entgql's edge template: a list edge's resolver is no longer where it was: update ent/entc.go's edgeTemplate")
	}
	src = src[:from] + `				if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Alias != "" {
					if result, err = {{ $r }}.Named{{ $e.StructField }}(fc.Field.Alias); !IsNotLoaded(err) {
						return result, err
					}
				}
				if result, err = {{ $r }}.Edges.{{ $e.StructField }}OrErr(); IsNotLoaded(err) {
					result, err = {{ $r }}.Query{{ $e.StructField }}().All(ctx)
				}
` + src[to+len(last):]
	return gen.MustParse(gen.NewTemplate("edge").Funcs(entgql.TemplateFuncs).Parse(src))
}

// entgqlTemplate is the source of one of entgql's templates, from the
// entgql version in go.mod.
func entgqlTemplate(name string) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "entgo.io/contrib").Output()
	if err != nil {
		log.Fatalf("entgql's module directory: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "entgql", "template", name)
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatalf("entgql's %s: %v", name, err)
	}
	return string(b)
}

// decodeTemplate is ent's template of an entity's scanValues, assignValues
// and Value with three lines changed: a column the entity does not know
// (one a query modifier added) gets its scan type from selectedScanType
// (ent/template/selected.tmpl), so a text column named with TextColumn's
// prefix is scanned as text instead of asking the driver for every column's
// type on every row; assignValues keeps such a column's text in the entity
// (keepSelected: not its holder, which the next row reuses, and not in a
// map per row), any other unknown column in ent's map; and Value reads
// both. Its defines
// replace ent's own of the same names; it is made from the template of the
// ent version in go.mod, and generation stops if the line is no longer
// there.
func decodeTemplate() *gen.Template {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "entgo.io/ent").Output()
	if err != nil {
		log.Fatalf("ent's module directory: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "entc", "gen", "template", "dialect", "sql", "decode.tmpl")
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatalf("ent's decode template: %v", err)
	}
	src := string(b)
	const line = "values[i] = new(sql.UnknownType)"
	if n := strings.Count(src, line); n != 1 {
		log.Fatalf("%s: %q found %d times, want once: update ent/entc.go's decodeTemplate", path, line, n)
	}
	src = strings.Replace(src, line, "values[i] = selectedScanType(columns[i])", 1)
	const keep = "{{ $receiver }}.selectValues.Set(columns[i], values[i])"
	if n := strings.Count(src, keep); n != 1 {
		log.Fatalf("%s: %q found %d times, want once: update ent/entc.go's decodeTemplate", path, keep, n)
	}
	src = strings.Replace(src, keep, "keepSelected(&{{ $receiver }}.selectedText, &{{ $receiver }}.selectValues, columns[i], values[i])", 1)
	const get = "return {{ $receiver }}.selectValues.Get(name)"
	if n := strings.Count(src, get); n != 1 {
		log.Fatalf("%s: %q found %d times, want once: update ent/entc.go's decodeTemplate", path, get, n)
	}
	src = strings.Replace(src, get, `if t, null, ok := {{ $receiver }}.selectedText.text(name); ok {
		if null {
			return nil, nil
		}
		return t, nil
	}
	return {{ $receiver }}.selectValues.Get(name)`, 1)
	return gen.MustParse(gen.NewTemplate("decode").Funcs(gen.Funcs).Parse(src))
}

// without is ts without the templates drop.
func without(ts []*gen.Template, drop ...*gen.Template) []*gen.Template {
	out := make([]*gen.Template, 0, len(ts))
	for _, t := range ts {
		if !slices.Contains(drop, t) {
			out = append(out, t)
		}
	}
	if len(out) != len(ts)-len(drop) {
		log.Fatal("entgql.AllTemplates no longer holds a template ent/entc.go replaces: update ent/entc.go")
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
