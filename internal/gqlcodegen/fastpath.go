package gqlcodegen

import (
	_ "embed"
	"go/types"
	"sort"
	"strings"

	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/99designs/gqlgen/codegen/templates"
	"github.com/99designs/gqlgen/plugin"
	"github.com/vektah/gqlparser/v2/ast"
)

// FastPath writes Filename (in the exec package): a second executor for the
// root fields of read queries, used by graph/handler.go before gqlgen's own.
//
// gqlgen executes every field through the same generic machinery — a field
// context, a context value, closures for the resolver and the middleware
// chain, a boxed result — about a microsecond and twenty allocations per
// field, so a 50-row page of ten fields spends most of its time there rather
// than in the database. The fast path walks the same collected fields
// (graphql.CollectFields: fragments, aliases, @skip/@include) and writes JSON
// directly:
//
//   - a field bound to a struct member is read from it and written with
//     gqlgen's own marshal function for its type (the same output);
//   - a field bound to a method or a resolver (ent edges, entgql nested
//     connections, our resolvers) gets the field context gqlgen would give it
//     (gqlgen's own fieldContext_ function, which also decodes arguments),
//     then the same call gqlgen makes;
//   - the read scope of a guarded object type is checked as graph's
//     scopeGuard does (the allow function), and so are the arguments of
//     every field that has some (allowArgs: a where: filter that traverses
//     a relation needs read scope on the related type).
//
// Interfaces whose implementors are all such objects (Node: node and
// nodes) are written through the object's function, after the check
// scopeGuard makes on the resolved value (FastPath.AllowNode).
//
// It declines — and gqlgen executes the field from the start — on anything
// it does not do: other interfaces and unions, directives on fields (also those
// without a runtime effect: @aggregate marks the aggregates, which the
// aggregation core answers and gqlgen alone executes), @defer,
// nested lists of objects, any error, any null where the schema forbids one,
// a list of objects outside a connection longer than FastPath.MaxList (graph's
// cost model fails it). It counts the fields it resolves as graph's cost
// middleware counts gqlgen's.
// So its output is either identical to gqlgen's or not used; graph's
// fastpath_test.go compares the two on every field of the schema.
type FastPath struct{ Filename string }

var (
	_ plugin.CodeGenerator = FastPath{}

	//go:embed fastpath.gotpl
	fastPathTemplate string
)

func (FastPath) Name() string { return "fastPath" }

func (p FastPath) GenerateCode(data *codegen.Data) error {
	m := buildFastModel(data)
	return templates.Render(templates.Options{
		PackageName:     data.Config.Exec.Package,
		Filename:        p.Filename,
		Template:        fastPathTemplate,
		Data:            m,
		GeneratedHeader: true,
		Packages:        data.Config.Packages,
	})
}

// fastModel is what the template renders.
type fastModel struct {
	Root       *fastObject
	Objects    []*fastObject
	Interfaces []*fastInterface
	Types      []*config.TypeReference // object and interface types (or lists of them) needing a fast marshal function
}

// fastInterface is an interface whose implementors are all objects the fast
// path writes (Node): its value is written through the object's function.
type fastInterface struct {
	Name         string
	Type         types.Type
	Implementors []fastImplementor
}

type fastImplementor struct {
	Name string
	Type types.Type // a pointer to the object's struct
}

type fastObject struct {
	*codegen.Object
	Fields []*fastField
}

type fastField struct {
	*codegen.Field
	Call   bool   // bound to a method or a resolver (else: a struct member)
	Object bool   // the value is an object or a list of objects (else: scalars or enums)
	Guard  string // the object type whose read scope is checked, if any
	// Capped: a list of objects outside a connection, whose length graph's
	// cost model caps (the fast path declines a longer one).
	Capped bool
	// Writer names the direct writer of a non-null scalar (writerMethod,
	// writerString, …), or is empty for gqlgen's marshal function.
	Writer string
}

// Direct writers: what gqlgen's marshal function writes for these types,
// without the closure and interface value it allocates for every field.
const (
	writerMethod = "method" // the type's own MarshalGQL (IDs, decimals, ent enums)
	writerString = "string" // graphql.MarshalString's escaping
	writerTime   = "time"   // graphql.MarshalTime: RFC 3339 with nanoseconds (zero: gqlgen's path)
	writerInt    = "int"    // graphql.MarshalInt / MarshalInt64
	writerBool   = "bool"   // graphql.MarshalBoolean
)

// scalarWriter picks the direct writer for a field of type t, if any.
func scalarWriter(t *config.TypeReference) string {
	if !t.GQL.NonNull || t.IsNilable() || t.IsSlice() || t.CastType != nil || t.IsContext || t.HasEnumValues() {
		return ""
	}
	if t.IsMarshaler {
		return writerMethod
	}
	if t.Marshaler == nil || t.Marshaler.Pkg() == nil || t.Marshaler.Pkg().Path() != "github.com/99designs/gqlgen/graphql" {
		return ""
	}
	basic, _ := t.GO.(*types.Basic)
	switch name := t.Marshaler.Name(); {
	case name == "MarshalString" && basic != nil && basic.Kind() == types.String:
		return writerString
	case (name == "MarshalInt" && basic != nil && basic.Kind() == types.Int) ||
		(name == "MarshalInt64" && basic != nil && basic.Kind() == types.Int64):
		return writerInt
	case name == "MarshalBoolean" && basic != nil && basic.Kind() == types.Bool:
		return writerBool
	case name == "MarshalTime" && types.TypeString(t.GO, nil) == "time.Time":
		return writerTime
	}
	return ""
}

func buildFastModel(data *codegen.Data) *fastModel {
	eligible := map[string]bool{}
	for _, o := range data.Objects {
		// Introspection types are left out: __schema and __type are
		// answered by gqlgen, so nothing would reach them.
		if o.Kind == ast.Object && !o.Root && !o.Stream && !strings.HasPrefix(o.Name, "__") {
			eligible[o.Name] = true
		}
	}
	m := &fastModel{}
	// Interfaces whose every implementor is an eligible object bound to a
	// pointer (what gqlgen type-switches on): the fast path writes them.
	ifaces := map[string]*fastInterface{}
	for name, in := range data.Interfaces {
		fi := &fastInterface{Name: name, Type: in.Type}
		ok := len(in.Implementors) > 0
		for _, impl := range in.Implementors {
			if _, ptr := impl.Type.(*types.Pointer); !ptr || impl.TakeRef || !eligible[impl.Name] {
				ok = false
				break
			}
			fi.Implementors = append(fi.Implementors, fastImplementor{Name: impl.Name, Type: impl.Type})
		}
		if ok {
			ifaces[name] = fi
		}
	}
	for _, o := range data.Objects {
		root := o.Definition == data.Schema.Query
		if !root && !eligible[o.Name] {
			continue
		}
		fo := &fastObject{Object: o}
		for _, f := range o.Fields {
			ff, ok := classify(f, eligible, ifaces)
			if !ok || (root && !ff.Call) {
				continue // the generated switch declines it
			}
			if ff.Object {
				ff.Capped = !root && f.TypeReference.IsSlice() && !strings.HasSuffix(o.Name, "Connection")
			}
			fo.Fields = append(fo.Fields, ff)
		}
		if root {
			m.Root = fo
		} else {
			m.Objects = append(m.Objects, fo)
		}
	}
	m.prune(ifaces)
	types := map[string]*config.TypeReference{}
	for _, o := range append([]*fastObject{m.Root}, m.Objects...) {
		for _, f := range o.Fields {
			if f.Object {
				addType(types, f.TypeReference)
			}
		}
	}
	for _, t := range types {
		m.Types = append(m.Types, t)
	}
	sort.Slice(m.Types, func(i, j int) bool { return m.Types[i].MarshalFunc() < m.Types[j].MarshalFunc() })
	sort.Slice(m.Objects, func(i, j int) bool { return m.Objects[i].Name < m.Objects[j].Name })
	sort.Slice(m.Interfaces, func(i, j int) bool { return m.Interfaces[i].Name < m.Interfaces[j].Name })
	for _, in := range m.Interfaces {
		sort.Slice(in.Implementors, func(i, j int) bool { return in.Implementors[i].Name < in.Implementors[j].Name })
	}
	return m
}

// prune drops the objects no field the fast path serves leads to (from the
// root): their code would never run. The types of the aggregates, reached
// only through @aggregate fields, are such objects.
func (m *fastModel) prune(ifaces map[string]*fastInterface) {
	byName := map[string]*fastObject{}
	for _, o := range m.Objects {
		byName[o.Name] = o
	}
	reached := map[string]bool{}
	var reach func(name string)
	var visit func(o *fastObject)
	reach = func(name string) {
		if reached[name] {
			return
		}
		reached[name] = true
		if next := byName[name]; next != nil {
			visit(next)
		}
		if in := ifaces[name]; in != nil {
			m.Interfaces = append(m.Interfaces, in)
			for _, impl := range in.Implementors {
				reach(impl.Name)
			}
		}
	}
	visit = func(o *fastObject) {
		for _, f := range o.Fields {
			if f.Object {
				reach(f.Guard)
			}
		}
	}
	visit(m.Root)
	kept := m.Objects[:0]
	for _, o := range m.Objects {
		if reached[o.Name] {
			kept = append(kept, o)
		}
	}
	m.Objects = kept
}

// classify tells how the fast path resolves a field, or that it does not.
func classify(f *codegen.Field, eligible map[string]bool, ifaces map[string]*fastInterface) (*fastField, bool) {
	if f.FieldDefinition != nil && f.FieldDefinition.Directives.ForName("aggregate") != nil {
		return nil, false // an aggregate (skip_runtime, so not among f's directives)
	}
	if strings.HasPrefix(f.Name, "__") ||
		f.HasDirectives() || f.IsBatch() || f.IsMap() || f.VOkFunc || f.HasHaser || f.Stream ||
		f.TypeReference == nil || f.TypeReference.Definition == nil {
		return nil, false
	}
	ff := &fastField{Field: f}
	switch {
	case f.IsResolver || f.IsMethod():
		ff.Call = true
	case f.IsVariable() && len(f.Args) == 0:
	default:
		return nil, false
	}
	t := f.TypeReference
	switch t.Definition.Kind {
	case ast.Scalar, ast.Enum:
		ff.Writer = scalarWriter(t)
		return ff, true
	case ast.Object:
		if !eligible[t.Definition.Name] || t.IsPtrToSlice() || t.IsPtrToPtr() ||
			(t.IsSlice() && (t.Elem().IsSlice() || t.Elem().IsPtrToPtr())) {
			return nil, false
		}
		ff.Object, ff.Guard = true, t.Definition.Name
		return ff, true
	case ast.Interface:
		// node and nodes. Guard is the interface's name, as scopeGuard
		// checks the field's type; the object's own check is AllowNode.
		if ifaces[t.Definition.Name] == nil || t.IsPtrToSlice() || t.IsPtrToPtr() ||
			(t.IsSlice() && (t.Elem().IsSlice() || t.Elem().IsPtrToPtr())) {
			return nil, false
		}
		ff.Object, ff.Guard = true, t.Definition.Name
		return ff, true
	}
	return nil, false
}

func addType(types map[string]*config.TypeReference, t *config.TypeReference) {
	types[t.MarshalFunc()] = t
	if t.IsSlice() {
		addType(types, t.Elem())
	}
}
