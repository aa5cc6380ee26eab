package graph

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"logistics/internal/aggregate"
)

// The cost model (README, Decisions: "GraphQL cost") in one place. It is
// the IBM cost directives' algorithm, and the served SDL declares it with
// them (costsdl.go prints the directives from listRuleFor, the table below):
//
//   - a field costs n × (weight + Σ cost(selected fields)), with fragments
//     expanded at every spread and nothing merged: an alias, a repeated field
//     and a field selected again through a fragment each cost again;
//   - every field's weight is 1, scalars and enums included (@cost(weight: 1)
//     on those fields; objects, interfaces and unions weigh 1 by default),
//     except a connection's totalCount, an exact count: ExactCountWeight;
//     __typename costs nothing (it is no field of the schema);
//   - n is 1 for a field that is not a list, and for a list the most
//     elements it can have (listRuleFor, @listSize):
//   - a connection (first/last) is one object; its edges and nodes are
//     lists of its page size (first or last, the larger if both; 50 when
//     neither is given: @listSize(slicingArguments, sizedFields, assumedSize));
//   - a plain list of objects (Order.lines, Order.events, Part.orderLines,
//     Workflow.transitions) has MaxListLength elements, which execution
//     enforces: such a list with more elements fails with LIST_LIMIT_EXCEEDED;
//   - nodes(ids:) has as many elements as ids (at most MaxPageSize);
//   - an aggregate (<t>Aggregate, a list of groups) has first groups (100
//     when not given: internal/aggregate);
//   - a list of scalars or enums costs 1, as one value (its elements are
//     not fields);
//   - introspection is not part of the SDL and keeps rules of its own:
//     cost = 1 + multiplier × Σ cost(selected), where an introspection list
//     multiplies by its length in this schema: the most any object has when
//     reached alone (__type, a field's type), the average over all of them
//     when reached from __schema { types } or __schema { directives }
//     through lists only — their total is then known exactly; __Type.ofType
//     nested deeper than the schema's deepest type wrapping ([Hub!]! is 3
//     deep) costs 1: it is null.
//
// The operation's cost is the sum over its root fields. It bounds the
// actual cost — the number of fields that execution resolved (each object
// of a list counting its own fields; __typename not counted) — except that
// a page of 0 (first: 0) prices its edges and nodes at 0 although execution
// resolves each once, empty.

// listKind is how a list field's length is known.
type listKind int

const (
	notList     listKind = iota
	assumedList          // at most assumed elements
	slicedList           // the value of a slicing argument, else assumed
	scalarList           // a list of scalars or enums: one value
	connection           // one object; sized lists its edges and nodes
)

// listRule is one field's entry in the cost table: what @listSize says of
// it in the SDL and what the cost walk multiplies by.
type listRule struct {
	kind    listKind
	assumed int
	slicing []string // arguments whose value is the length (Int, or a list: its length)
	sized   []string // a connection's fields whose length the slicing arguments give
}

// listRuleFor is the cost table: the rule of field def of type parent.
func listRuleFor(s *ast.Schema, parent *ast.Definition, def *ast.FieldDefinition, maxList int) listRule {
	if def == nil || def.Type == nil || strings.HasPrefix(def.Name, "__") || parent == nil || strings.HasPrefix(parent.Name, "__") {
		return listRule{}
	}
	if isConnection(def) {
		return listRule{kind: connection, assumed: DefaultPageSize, slicing: []string{"first", "last"}, sized: []string{"edges", "nodes"}}
	}
	if def.Type.Elem == nil {
		return listRule{}
	}
	if et := s.Types[def.Type.Name()]; et == nil || et.Kind == ast.Scalar || et.Kind == ast.Enum {
		return listRule{kind: scalarList, assumed: 1}
	}
	switch {
	case isAggregateList(def):
		return listRule{kind: slicedList, assumed: aggregate.DefaultLimit, slicing: []string{"first"}}
	case parent == s.Query && def.Name == "nodes" && def.Arguments.ForName("ids") != nil:
		return listRule{kind: slicedList, assumed: MaxPageSize, slicing: []string{"ids"}}
	case isConnectionType(parent.Name):
		// edges, nodes: sized by the connection field; reached otherwise, a
		// page holds at most MaxPageSize.
		return listRule{kind: assumedList, assumed: MaxPageSize}
	}
	return listRule{kind: assumedList, assumed: maxList}
}

// costPlan is what the cost model needs from the schema, worked out once.
type costPlan struct {
	maxList int
	rules   map[*ast.FieldDefinition]listRule
	// introspection list lengths by "Type.field": the most any one parent
	// has, and the average (rounded up) over all parents of that type.
	introMax, introAvg map[string]int
	// plain lists of objects whose length execution caps, by definition.
	capped map[*ast.FieldDefinition]bool
	// maxWrap is the most wrappers (non-null, list) of any type in the
	// schema: [Hub!]! has 3, so __Type.ofType nested deeper is null.
	maxWrap int
}

func newCostPlan(s *ast.Schema, maxList int) *costPlan {
	p := &costPlan{maxList: maxList, rules: map[*ast.FieldDefinition]listRule{}, introMax: map[string]int{}, introAvg: map[string]int{}, capped: map[*ast.FieldDefinition]bool{}}
	for _, d := range s.Types {
		for _, f := range d.Fields {
			if r := listRuleFor(s, d, f, maxList); r.kind != notList {
				p.rules[f] = r
			}
		}
	}
	// Introspection, as gqlgen answers it: every type of the schema.
	var nTypes, nFields, nArgs, nInput, nEnum, nIfaces, nPossible int
	maxOf := func(k string, n int) { p.introMax[k] = max(p.introMax[k], n) }
	for _, d := range s.Types {
		nTypes++
		switch d.Kind {
		case ast.Object, ast.Interface:
			nFields += len(d.Fields)
			maxOf("__Type.fields", len(d.Fields))
			for _, f := range d.Fields {
				nArgs += len(f.Arguments)
				maxOf("__Field.args", len(f.Arguments))
			}
		case ast.InputObject:
			nInput += len(d.Fields)
			maxOf("__Type.inputFields", len(d.Fields))
		case ast.Enum:
			nEnum += len(d.EnumValues)
			maxOf("__Type.enumValues", len(d.EnumValues))
		}
		nIfaces += len(d.Interfaces)
		maxOf("__Type.interfaces", len(d.Interfaces))
		if d.Kind == ast.Interface || d.Kind == ast.Union {
			n := len(s.GetPossibleTypes(d))
			nPossible += n
			maxOf("__Type.possibleTypes", n)
		}
	}
	var wraps func(t *ast.Type) int
	wraps = func(t *ast.Type) int {
		n := 0
		if t.NonNull {
			n++
		}
		if t.Elem != nil {
			n += 1 + wraps(t.Elem)
		}
		return n
	}
	for _, d := range s.Types {
		for _, f := range d.Fields {
			p.maxWrap = max(p.maxWrap, wraps(f.Type))
			for _, a := range f.Arguments {
				p.maxWrap = max(p.maxWrap, wraps(a.Type))
			}
		}
	}
	var nDirArgs int
	for _, d := range s.Directives {
		for _, a := range d.Arguments {
			p.maxWrap = max(p.maxWrap, wraps(a.Type))
		}
		nDirArgs += len(d.Arguments)
		maxOf("__Directive.args", len(d.Arguments))
	}
	p.introMax["__Schema.types"] = nTypes
	p.introMax["__Schema.directives"] = len(s.Directives)
	avg := func(total, parents int) int {
		if parents == 0 {
			return 0
		}
		return (total + parents - 1) / parents
	}
	p.introAvg["__Type.fields"] = avg(nFields, nTypes)
	p.introAvg["__Field.args"] = avg(nArgs, nFields)
	p.introAvg["__Type.inputFields"] = avg(nInput, nTypes)
	p.introAvg["__Type.enumValues"] = avg(nEnum, nTypes)
	p.introAvg["__Type.interfaces"] = avg(nIfaces, nTypes)
	p.introAvg["__Type.possibleTypes"] = avg(nPossible, nTypes)
	p.introAvg["__Directive.args"] = avg(nDirArgs, len(s.Directives))

	for _, d := range s.Types {
		if d.Kind != ast.Object || d == s.Query || strings.HasPrefix(d.Name, "__") || isConnectionType(d.Name) {
			continue
		}
		for _, f := range d.Fields {
			if f.Type.Elem == nil || strings.HasPrefix(f.Name, "__") {
				continue
			}
			if et := s.Types[f.Type.Name()]; et != nil && (et.Kind == ast.Object || et.Kind == ast.Interface || et.Kind == ast.Union) {
				p.capped[f] = true
			}
		}
	}
	return p
}

func isConnectionType(name string) bool { return strings.HasSuffix(name, "Connection") }

// isConnection tells a Relay connection field (the page limits apply).
func isConnection(def *ast.FieldDefinition) bool {
	return def != nil && def.Type != nil && isConnectionType(def.Type.Name()) &&
		def.Arguments.ForName("first") != nil && def.Arguments.ForName("last") != nil
}

// costWalk computes the cost of one operation.
type costWalk struct {
	plan     *costPlan
	frags    ast.FragmentDefinitionList
	vars     map[string]any
	usedVars bool // the cost depends on variables
	// read are the arguments, in the walk's order, whose variables the
	// cost depends on (only slicing arguments read variables).
	read    []*ast.Value
	spreads int
}

const costCap = 1 << 40 // costs saturate here: no overflow

// sizing is what a connection field tells the fields of its selection: the
// length of the lists named (edges, nodes).
type sizing struct {
	names []string
	n     int
}

// set is the cost of a selection set. sized: the lists a connection sized
// for it; aggregate: its objects are reached from __schema through lists
// only; chain: how many __Type.ofType fields lead to it in a row.
func (w *costWalk) set(set ast.SelectionSet, sized *sizing, aggregate bool, chain int) int {
	total := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			total = satAdd(total, w.field(s, sized, aggregate, chain))
		case *ast.InlineFragment:
			total = satAdd(total, w.set(s.SelectionSet, sized, aggregate, chain))
		case *ast.FragmentSpread:
			f := w.frags.ForName(s.Name)
			if f == nil {
				continue
			}
			// Validation refuses fragment cycles; this bounds the walk of
			// a document that still has one.
			if w.spreads++; w.spreads > 1<<16 {
				return costCap
			}
			total = satAdd(total, w.set(f.SelectionSet, sized, aggregate, chain))
		}
		if total >= costCap {
			return costCap
		}
	}
	return total
}

func (w *costWalk) field(f *ast.Field, sized *sizing, aggregate bool, chain int) int {
	if f.Name == "__typename" {
		return 0
	}
	if isIntrospection(f) {
		return w.introspectionField(f, aggregate, chain)
	}
	rule := w.plan.rules[f.Definition]
	n, inner := 1, (*sizing)(nil)
	switch rule.kind {
	case connection:
		inner = &sizing{names: rule.sized, n: w.slice(f, rule)}
	case assumedList, scalarList:
		n = rule.assumed
	case slicedList:
		n = w.slice(f, rule)
	}
	if sized != nil && rule.kind != notList && slices.Contains(sized.names, f.Name) {
		n = sized.n
	}
	return satMul(n, satAdd(weightOf(f.ObjectDefinition, f.Definition), w.set(f.SelectionSet, inner, false, 0)))
}

// ExactCountWeight is the weight of a connection's totalCount: an exact
// count reads every match, at scale 10 a COUNT over 2 million items, so it
// weighs what a default page of rows does (DefaultPageSize). count(mode:),
// which reads at most internal/count.Cap+1 rows or none, weighs 1 as every
// other field does (docs/design/0024-count-modes.md).
const ExactCountWeight = DefaultPageSize

// weightOf is the weight of field def of type parent (the SDL's @cost).
func weightOf(parent *ast.Definition, def *ast.FieldDefinition) int {
	if def != nil && def.Name == "totalCount" && parent != nil && isConnectionType(parent.Name) {
		return ExactCountWeight
	}
	return 1
}

// isIntrospection tells the fields the SDL does not have: __schema,
// __type and the fields of the introspection types.
func isIntrospection(f *ast.Field) bool {
	return strings.HasPrefix(f.Name, "__") || f.ObjectDefinition != nil && strings.HasPrefix(f.ObjectDefinition.Name, "__")
}

func (w *costWalk) introspectionField(f *ast.Field, aggregate bool, chain int) int {
	if len(f.SelectionSet) == 0 {
		return 1
	}
	if f.Name == "ofType" && f.ObjectDefinition != nil && f.ObjectDefinition.Name == "__Type" {
		// Past the deepest wrapping in the schema, ofType is null: the
		// field is resolved, nothing under it.
		if chain++; chain > w.plan.maxWrap {
			return 1
		}
	} else {
		chain = 0
	}
	mult, childAggregate := w.introspectionList(f, aggregate)
	children := w.set(f.SelectionSet, nil, childAggregate, chain)
	return satAdd(1, satMul(mult, children))
}

// introspectionList is how many times f's selection is resolved at most,
// and whether the objects it yields are all the parents of their kind
// reached through lists from __schema (so their lists cost their average).
func (w *costWalk) introspectionList(f *ast.Field, aggregate bool) (int, bool) {
	def := f.Definition
	if def == nil || def.Type == nil || def.Type.Elem == nil || f.ObjectDefinition == nil {
		return 1, false
	}
	key := f.ObjectDefinition.Name + "." + f.Name
	if key == "__Schema.types" || key == "__Schema.directives" {
		return w.plan.introMax[key], true
	}
	if aggregate {
		if n, ok := w.plan.introAvg[key]; ok {
			return n, true
		}
	}
	return w.plan.introMax[key], false
}

// isAggregateList tells a <t>Aggregate field: a list of groups, at most
// first (internal/aggregate's limits).
func isAggregateList(def *ast.FieldDefinition) bool {
	return def.Type.Elem != nil && def.Arguments.ForName("groupBy") != nil && def.Arguments.ForName("first") != nil
}

// slice is a sliced list's length: the largest value of its slicing
// arguments given (an Int, or a list's length), else the rule's assumed
// size. A value past the limits is refused (pages.go before execution; the
// aggregate and nodes resolvers when they run), so it is used as given.
func (w *costWalk) slice(f *ast.Field, rule listRule) int {
	n, given := 0, false
	for _, name := range rule.slicing {
		a := f.Arguments.ForName(name)
		if a == nil {
			continue
		}
		if a.Value.Kind == ast.Variable {
			w.usedVars = true
			w.read = append(w.read, a.Value)
		}
		if m, ok := sliceValue(a.Value, w.vars); ok {
			n, given = max(n, m), true
		}
	}
	if !given {
		return rule.assumed
	}
	return n
}

// sliceValue is what a slicing argument's value says of a list's length: an
// Int (bounded to 0…costCap), or a list's length; false for none (null, an
// absent variable, another type).
func sliceValue(a *ast.Value, vars map[string]any) (int, bool) {
	v, err := a.Value(vars)
	if err != nil || v == nil {
		return 0, false
	}
	if l, ok := v.([]any); ok {
		return len(l), true
	} else if i, ok := asInt(v); ok {
		return int(min(max(i, 0), costCap)), true
	}
	return 0, false
}

func satAdd(a, b int) int { return min(a+b, costCap) }
func satMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > costCap/b {
		return costCap
	}
	return min(a*b, costCap)
}

// Cost is what extensions.cost reports: the static estimate of the
// operation (requested), the fields execution resolved (actual; absent when
// the request did not run) and the largest cost allowed (limit).
type Cost struct {
	Requested int  `json:"requested"`
	Actual    *int `json:"actual,omitempty"`
	Limit     int  `json:"limit"`
}

// costState is one request's cost: the estimate, then the count of
// resolved fields, which gqlgen's field middleware and the fast path add to.
type costState struct {
	requested int
	actual    atomic.Int64
}

const costExtension = "Cost"

// costLimits is the handler extension of the cost model: it prices the
// operation before it runs (refusing one over the limit), bounds its run
// time (the response's size: responseLimits), and reports extensions.cost
// on the response.
type costLimits struct {
	plan        *costPlan
	limit       int
	maxDuration time.Duration
	// cache holds, per operation node of a document in gqlgen's query
	// cache, its cost when it reads no variables, else the arguments whose
	// variables it depends on; byVars holds the cost of such an operation
	// per value of those: a trusted document sent with the same page size
	// is priced once, not per request.
	cache  *lru.Cache[*ast.OperationDefinition, costEntry]
	byVars *lru.Cache[costKey, int]
	// walks counts the operations priced by walking them (tests).
	walks atomic.Int64
}

type costEntry struct {
	n    int
	read []*ast.Value // nil: n is the cost
}

// maxCostVars bounds the arguments a cost is cached by; an operation with
// more slicing arguments read from variables is priced on every request.
const maxCostVars = 4

// costKey is an operation with what its slicing arguments read from the
// variables (sliceValue's length, or -1 for none).
type costKey struct {
	op   *ast.OperationDefinition
	vals [maxCostVars]int
}

func newCostKey(op *ast.OperationDefinition, read []*ast.Value, vars map[string]any) costKey {
	k := costKey{op: op}
	for i, a := range read {
		k.vals[i] = -1
		if n, ok := sliceValue(a, vars); ok {
			k.vals[i] = n
		}
	}
	return k
}

var (
	_ graphql.HandlerExtension        = (*costLimits)(nil)
	_ graphql.OperationContextMutator = (*costLimits)(nil)
	_ graphql.ResponseInterceptor     = (*costLimits)(nil)
)

func newCostLimits(s *ast.Schema, opt Options) *costLimits {
	c, _ := lru.New[*ast.OperationDefinition, costEntry](1000)
	byVars, _ := lru.New[costKey, int](1000)
	return &costLimits{plan: newCostPlan(s, opt.MaxListLength), limit: opt.MaxComplexity,
		maxDuration: opt.MaxExecutionTime, cache: c, byVars: byVars}
}

func (*costLimits) ExtensionName() string                   { return "CostLimits" }
func (*costLimits) Validate(graphql.ExecutableSchema) error { return nil }

// operationCost is the static cost of rc's operation.
// The walk visits the same arguments whatever the variables, and reads the
// variables only through sliceValue: the cost is a function of the
// operation and those values, cached as such.
func (c *costLimits) operationCost(rc *graphql.OperationContext) int {
	e, known := c.cache.Get(rc.Operation)
	if known && e.read == nil {
		return e.n
	}
	if known {
		if n, ok := c.byVars.Get(newCostKey(rc.Operation, e.read, rc.Variables)); ok {
			return n
		}
	}
	c.walks.Add(1)
	w := costWalk{plan: c.plan, frags: rc.Doc.Fragments, vars: rc.Variables}
	n := w.set(rc.Operation.SelectionSet, nil, false, 0)
	switch {
	case !w.usedVars:
		c.cache.Add(rc.Operation, costEntry{n: n})
	case len(w.read) <= maxCostVars && n < costCap:
		// Below the cap the walk went through every argument (it stops
		// early only at the cap), so w.read is all of them.
		if !known {
			c.cache.Add(rc.Operation, costEntry{read: w.read})
		}
		c.byVars.Add(newCostKey(rc.Operation, w.read, rc.Variables), n)
	}
	return n
}

func (c *costLimits) MutateOperationContext(_ context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	if rc.Operation == nil {
		return nil
	}
	st := &costState{requested: c.operationCost(rc)}
	rc.Stats.SetExtension(costExtension, st)
	if c.limit > 0 && st.requested > c.limit {
		return &gqlerror.Error{
			Message:    fmt.Sprintf("the operation costs %s; the limit is %d (README: GraphQL cost)", costString(st.requested), c.limit),
			Extensions: map[string]any{"code": "COMPLEXITY_LIMIT_EXCEEDED"},
		}
	}
	return nil
}

func costString(n int) string {
	if n >= costCap {
		return "more than 1099511627776"
	}
	return fmt.Sprint(n)
}

func (c *costLimits) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	// Queries only: a mutation is a transaction whose work is bounded by its
	// input (cutting it would only roll it back under load, while its locks
	// wait), and a subscription's responses are events; both stay bounded by
	// the server's write time-out.
	var cancel context.CancelFunc
	timed := c.maxDuration > 0 && isQuery(ctx)
	if timed {
		ctx, cancel = context.WithTimeoutCause(ctx, c.maxDuration, errTimeLimit)
		defer cancel()
	}
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	st := requestCost(ctx)
	// A request that finished without errors stands, even if the limit
	// passed meanwhile (a mutation has committed by now).
	if timed && len(resp.Errors) > 0 && errors.Is(context.Cause(ctx), errTimeLimit) {
		resp.Data = []byte("null")
		resp.Errors = gqlerror.List{limitError(fmt.Sprintf("the request ran longer than the limit of %s and was stopped", c.maxDuration), "TIME_LIMIT_EXCEEDED")}
	}
	if st != nil {
		if resp.Extensions == nil {
			resp.Extensions = map[string]any{}
		}
		actual := int(st.actual.Load())
		resp.Extensions["cost"] = Cost{Requested: st.requested, Actual: &actual, Limit: c.limit}
	}
	return resp
}

var errTimeLimit = errors.New("graphql: execution time limit")

func isQuery(ctx context.Context) bool {
	oc := graphql.GetOperationContext(ctx)
	return oc.Operation != nil && oc.Operation.Operation == ast.Query
}

// limitError is a request that exceeded a limit while it ran: the same
// shape the presenter gives the limits checked before.
func limitError(msg, reason string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": "BAD_USER_INPUT", "reason": reason}}
}

// requestCost is the request's cost state, if the cost extension ran.
func requestCost(ctx context.Context) *costState {
	if !graphql.HasOperationContext(ctx) {
		return nil
	}
	st, _ := graphql.GetOperationContext(ctx).Stats.GetExtension(costExtension).(*costState)
	return st
}

// fieldPolicy is the service's one field middleware, for every field gqlgen
// resolves: before the resolver, scopeGuard (the type and filter rules) and
// the cost model's count; after it, classify on the resolver's error, the
// cost model's cap on plain lists and scopeGuard's check of a resolved
// Node. One middleware, not three: gqlgen wraps each field in a closure
// per field middleware, and each closure is paid on every field resolved.
func (p *costPlan) fieldPolicy(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	typ, err := scopeGuard(ctx, fc)
	if err != nil {
		return nil, err
	}
	if st := requestCost(ctx); st != nil {
		st.actual.Add(1) // every field gqlgen resolves
	}
	res, err := next(ctx)
	if err != nil {
		return res, classify(err)
	}
	if err := p.capList(fc, res); err != nil {
		return nil, err
	}
	if err := requireResolved(ctx, typ, res); err != nil {
		return nil, err
	}
	return res, nil
}

// capList fails a plain list longer than MaxListLength (the fast path
// declines such a list, so gqlgen reports it).
func (p *costPlan) capList(fc *graphql.FieldContext, res any) error {
	if fc == nil || !p.capped[fc.Field.Definition] {
		return nil
	}
	if v := reflect.ValueOf(res); v.Kind() == reflect.Slice && v.Len() > p.maxList {
		// The presenter gives it code BAD_USER_INPUT and this as reason.
		return &gqlerror.Error{
			Message: fmt.Sprintf("%s.%s has %d elements, more than the limit of %d for a list that is not a connection; query the matching connection with where: instead",
				fc.Field.ObjectDefinition.Name, fc.Field.Name, v.Len(), p.maxList),
			Extensions: map[string]any{"code": "LIST_LIMIT_EXCEEDED"},
		}
	}
	return nil
}
