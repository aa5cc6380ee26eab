package graph

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"

	"logistics/graph/generated"
)

// costDirectives declares the IBM cost directives (as Apollo, Hive and
// Grafbase spell them: weight an Int) in the SDL that SDL prints.
const costDirectives = `
"The cost of resolving the field, argument or type once (IBM GraphQL cost directives)."
directive @cost(weight: Int!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR
"How many elements a list field has, or which of its arguments or fields say so (IBM GraphQL cost directives)."
directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
`

// gqlgenOnly are directives of graph/schema that configure code generation
// or the fast path's generator: they say nothing to a client.
var gqlgenOnly = map[string]bool{"goField": true, "goModel": true, "aggregate": true}

// SDL is the schema as served (GET /graphql/schema.graphql): every type of
// graph/schema with the cost model declared in IBM cost directives —
// @cost(weight: 1) on every field of a scalar or enum type (objects weigh 1
// by default; a connection's totalCount ExactCountWeight) and @listSize on every list and connection field, both from
// listRuleFor, the table the server prices operations with. maxList is
// Options.MaxListLength (the length of a plain list of objects).
func SDL(maxList int) string {
	// A private copy of the schema: the executable schema's is shared.
	var b bytes.Buffer
	formatter.NewFormatter(&b).FormatSchema(generated.NewExecutableSchema(generated.Config{}).Schema())
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: b.String() + costDirectives})
	if err != nil {
		panic(err) // the schema was valid as gqlgen loaded it: a bug
	}
	for name := range gqlgenOnly {
		delete(s.Directives, name)
	}
	for _, d := range s.Types {
		if d.BuiltIn {
			continue
		}
		d.Directives = withoutGQLGen(d.Directives)
		for _, f := range d.Fields {
			f.Directives = withoutGQLGen(f.Directives)
			for _, a := range f.Arguments {
				a.Directives = withoutGQLGen(a.Directives)
			}
			if d.Kind != ast.Object && d.Kind != ast.Interface || d.Kind == ast.InputObject {
				continue
			}
			if t := s.Types[f.Type.Name()]; t != nil && (t.Kind == ast.Scalar || t.Kind == ast.Enum) {
				f.Directives = append(f.Directives, directive("cost", arg("weight", intValue(weightOf(d, f)))))
			}
			if dir := listSizeDirective(listRuleFor(s, d, f, maxList)); dir != nil {
				f.Directives = append(f.Directives, dir)
			}
		}
		for _, v := range d.EnumValues {
			v.Directives = withoutGQLGen(v.Directives)
		}
	}
	b.Reset()
	formatter.NewFormatter(&b).FormatSchema(s)
	return b.String()
}

func listSizeDirective(r listRule) *ast.Directive {
	if r.kind == notList {
		return nil
	}
	args := []*ast.Argument{arg("assumedSize", intValue(r.assumed))}
	if len(r.slicing) > 0 {
		args = append(args, arg("slicingArguments", stringList(r.slicing)))
	}
	if len(r.sized) > 0 {
		args = append(args, arg("sizedFields", stringList(r.sized)))
	}
	if len(r.slicing) > 0 {
		// None is required: without one, the assumed size applies.
		args = append(args, arg("requireOneSlicingArgument", &ast.Value{Kind: ast.BooleanValue, Raw: "false"}))
	}
	return directive("listSize", args...)
}

func withoutGQLGen(l ast.DirectiveList) ast.DirectiveList {
	var out ast.DirectiveList
	for _, d := range l {
		if !gqlgenOnly[d.Name] {
			out = append(out, d)
		}
	}
	return out
}

func directive(name string, args ...*ast.Argument) *ast.Directive {
	return &ast.Directive{Name: name, Arguments: args}
}

func arg(name string, v *ast.Value) *ast.Argument { return &ast.Argument{Name: name, Value: v} }

func intValue(n int) *ast.Value { return &ast.Value{Kind: ast.IntValue, Raw: strconv.Itoa(n)} }

func stringList(l []string) *ast.Value {
	v := &ast.Value{Kind: ast.ListValue}
	for _, s := range l {
		v.Children = append(v.Children, &ast.ChildValue{Value: &ast.Value{Kind: ast.StringValue, Raw: s}})
	}
	return v
}

// SDLPath is where each environment serves SDL, next to its endpoint.
const SDLPath = "/graphql/schema.graphql"

// SDLHandler serves SDL(maxList). Like the OpenAPI document it reveals no
// data (introspection shows the same types), so it is served without a key.
func SDLHandler(maxList int) http.Handler {
	doc := sync.OnceValue(func() []byte { return []byte(SDL(maxList)) })
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/graphql; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(doc())
	})
}
