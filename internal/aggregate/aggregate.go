// Package aggregate is the aggregation core, beside the filtering core
// (internal/filter and ent's <T>WhereInput): count, sum, avg, min and max
// over the rows a where input selects, grouped by fields, by related
// records (shown by their code) and by time buckets, with conditions on the
// aggregates (having), an order and a limit. GraphQL (<t>Aggregate,
// <T>Connection.aggregate) and REST (GET /v1/<resources>/aggregate) both
// call Run, with the where input each of them already builds for its lists,
// so an aggregate always covers exactly the rows the same filter lists.
//
// A request is one SQL statement built with ent's sql.Selector on the
// request's ent client (its transaction, if any): the where input's own ent
// predicates select the rows, GROUP BY groups them, HAVING and ORDER BY work
// on the aggregates, and a related record's code is joined after grouping by
// its foreign key:
//
//	SELECT g.k0, r0.code, g.n, g.a0
//	FROM (SELECT items.hub_id AS k0, COUNT(*) AS n, SUM(items.quantity - items.reserved_quantity) AS a0
//	      FROM items WHERE <the where input's predicates>
//	      GROUP BY items.hub_id HAVING …) AS g
//	LEFT JOIN hubs AS r0 ON r0.id = g.k0
//	ORDER BY … LIMIT 101
//
// Exactness: quantities are whole thousandths (internal/decimal), so SUM is
// an exact integer on both databases; avg is computed in Go from the exact
// sum and count and rounded half up to thousandths, and a having condition
// on avg compares the rounded value (by integer arithmetic in SQL), so a
// group shown with avg 5 passes avg>=5. Time buckets: buckets.go.
package aggregate

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/decimal"

	"logistics/internal/filter"
)

// Limits of one request. Every input is bounded: the grouping, the
// aggregates (by the resource's fields), the conditions, the order and the
// number of groups answered.
const (
	DefaultLimit = 100  // groups answered when no limit is given
	MaxLimit     = 1000 // most groups one request may ask for
	MaxGroupBy   = 5    // keys to group by
	MaxHaving    = 10   // conditions on aggregates
	MaxOrder     = 10   // order keys
	MaxZone      = 64   // characters of a time zone name
)

// Func is an aggregate function.
type Func string

// The aggregate functions. Count counts rows; the others apply to a field.
const (
	Count Func = "count"
	Sum   Func = "sum"
	Avg   Func = "avg"
	Min   Func = "min"
	Max   Func = "max"
)

// Funcs lists the functions in the order documents show them.
var Funcs = []Func{Count, Sum, Avg, Min, Max}

// Type is the type of a key or a field.
type Type string

// The types.
const (
	Text    Type = "string"
	Enum    Type = "enum"
	Bool    Type = "boolean"
	Ref     Type = "reference" // a foreign key, shown as the related record's id and code
	Time    Type = "time"
	Decimal Type = "decimal"
	Int     Type = "integer"
)

// Bucket is the width of a time bucket.
type Bucket string

// The buckets. A week starts on Monday (ISO 8601).
const (
	Hour  Bucket = "hour"
	Day   Bucket = "day"
	Week  Bucket = "week"
	Month Bucket = "month"
)

// Buckets lists the bucket widths.
var Buckets = []Bucket{Hour, Day, Week, Month}

// Key is a field rows can be grouped by.
type Key struct {
	Name        string // REST name, snake_case: "hub", "status", "created_at"
	Type        Type   // Text, Enum, Bool, Ref or Time (grouped by a bucket)
	Column      string // the column (a Ref's foreign key)
	Values      []string
	Ref         *Reference // for Ref keys
	Description string
}

// Reference is the related record a Ref key shows.
type Reference struct {
	Table  string   // "hubs"
	Type   string   // GraphQL type, for its read scope: "Hub"
	Labels []string // columns shown besides id: "code"; "key", "version"
}

// Field is a field aggregates apply to.
type Field struct {
	Name        string // REST name: "quantity", "available_quantity", "created_at"
	Type        Type   // Decimal, Int or Time
	Column      string
	Minus       string // when set, the field is Column - Minus (available_quantity)
	Nullable    bool
	Description string
}

// Funcs are the functions that apply to the field: count, min and max to
// times; every one to numbers.
func (f Field) Funcs() []Func {
	if f.Type == Time {
		return []Func{Min, Max}
	}
	return []Func{Sum, Avg, Min, Max}
}

// Spec is what the core knows of one resource.
type Spec struct {
	Resource    string // REST resource: "items"
	GraphQLType string // "Item"
	Table       string
	Keys        []Key
	Fields      []Field
	// where turns the resource's ent <T>WhereInput into its predicate.
	where func(any) (func(*sql.Selector), error)
	// scope, when set, narrows where to the rows the caller may read (the
	// event log: auth.ScopeEventWhere), or refuses it.
	scope func(ctx context.Context, where any) (any, error)
}

// Key returns the named key.
func (s *Spec) Key(name string) (Key, bool) {
	i := slices.IndexFunc(s.Keys, func(k Key) bool { return k.Name == name })
	if i < 0 {
		return Key{}, false
	}
	return s.Keys[i], true
}

// Field returns the named field.
func (s *Spec) Field(name string) (Field, bool) {
	i := slices.IndexFunc(s.Fields, func(f Field) bool { return f.Name == name })
	if i < 0 {
		return Field{}, false
	}
	return s.Fields[i], true
}

func (s *Spec) keyNames() string {
	var out []string
	for _, k := range s.Keys {
		out = append(out, k.Name)
	}
	return strings.Join(out, ", ")
}

func (s *Spec) fieldNames(fn Func) string {
	var out []string
	for _, f := range s.Fields {
		if slices.Contains(f.Funcs(), fn) {
			out = append(out, f.Name)
		}
	}
	return strings.Join(out, ", ")
}

// Measure is one aggregate: Count (Field empty), or a function of a field.
type Measure struct {
	Func  Func
	Field string
}

// String is the REST spelling: "count", "sum.quantity".
func (m Measure) String() string {
	if m.Func == Count {
		return string(Count)
	}
	return string(m.Func) + "." + m.Field
}

// Op is a comparison of a having condition: one of the filter grammar's
// comparison operators (the same spelling in REST's having=).
type Op = filter.Op

// The comparisons.
const (
	Eq  = filter.Eq
	Ne  = filter.Ne
	Lt  = filter.Lt
	Lte = filter.Lte
	Gt  = filter.Gt
	Gte = filter.Gte
)

// Ops lists the comparisons.
var Ops = []Op{Eq, Ne, Lt, Lte, Gt, Gte}

// Condition is one having condition: an aggregate compared with a value, a
// decimal.Decimal for numbers (count, sum, avg, min and max of numbers) or
// a time.Time (min and max of times).
type Condition struct {
	Measure Measure
	Op      Op
	Value   any
}

// Order is one order key: a grouped key (by its name) or an aggregate.
type Order struct {
	Key     string   // a key of GroupBy
	Measure *Measure // or an aggregate
	Desc    bool
}

// Query is one aggregate request.
type Query struct {
	GroupBy []string  // key names
	Bucket  Bucket    // the width of the time keys' buckets; required with one, refused without
	Select  []Measure // the aggregates to answer besides count, which always comes
	Having  []Condition
	Order   []Order
	Limit   int            // 0: DefaultLimit
	All     bool           // every group, Limit ignored (an export, read with Stream)
	Zone    *time.Location // of the time buckets; nil: UTC
	// Params names the request's parameters in errors: GraphQL's arguments
	// or REST's query parameters.
	Params Params
}

// Params are the names of a request's parameters, for error messages
// (Select "": the function's name, sum or max, names the parameter).
type Params struct{ GroupBy, Bucket, Select, Having, Order, Limit, Zone string }

// RESTParams are REST's parameter names.
var RESTParams = Params{GroupBy: "group_by", Bucket: "bucket", Having: "having", Order: "sort", Limit: "limit", Zone: "tz"}

// GraphQLParams are GraphQL's argument names.
var GraphQLParams = Params{GroupBy: "groupBy", Bucket: "bucket", Select: "selection", Having: "having", Order: "orderBy", Limit: "first", Zone: "timeZone"}

// RefValue is the value of a Ref key: the related record's id and labels
// (in Reference.Labels order: its code, sku, number, key and version).
type RefValue struct {
	ID     string
	Labels []any
}

// Row is one group of a result.
type Row struct {
	// Keys holds one value per Query.GroupBy: nil (no value), a string (text
	// and enums), a bool, a RefValue, or a time.Time (a bucket's first
	// instant, in the query's zone).
	Keys  []any
	Count int64
	// Values holds one value per Query.Select (nil for count, which is
	// Count): nil (no value in the group),
	// a decimal.Decimal (sum and avg, min and max of decimals), an int64
	// (min and max of integers) or a time.Time (UTC).
	Values []any
}

// Result is the groups of a request, and whether more groups than the limit
// matched.
type Result struct {
	Rows    []Row
	HasMore bool
}

// Overflow is the error of a sum beyond what a decimal holds.
func overflow() error {
	return apperr.Validation(apperr.FieldError{Field: "sum", Message: "the sum is larger than 9,223,372,036,854,775.807; narrow the filter or group further"}).WithCode("aggregate_overflow")
}

// Run answers q over the rows where (the resource's ent <T>WhereInput, or
// nil for all rows) selects, through the request's ent client. It checks
// the read scopes of the related types that q groups by (grouping items by
// hub shows hubs' codes: hubs:read, as the filter rule asks for a filter
// through the relation); the caller checks the resource's own scope and the
// where input's (auth.RequireFilter), as its list does.
func Run(ctx context.Context, s *Spec, where any, q Query) (*Result, error) {
	res := &Result{}
	more, err := Stream(ctx, s, where, q, func(r Row) error {
		res.Rows = append(res.Rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.HasMore = more
	return res, nil
}

// Stream is Run handing each group to each as it is read from the database,
// in order (with q.All, every group: an export's memory does not grow with
// their number). more reports that more groups than the limit matched.
func Stream(ctx context.Context, s *Spec, where any, q Query, each func(Row) error) (more bool, err error) {
	p, err := s.plan(q)
	if err != nil {
		return false, err
	}
	for _, k := range p.keys {
		if k.key.Ref == nil {
			continue
		}
		if scopes, ok := auth.TypeScopes(k.key.Ref.Type); ok {
			if err := auth.RequireAll(ctx, scopes); err != nil {
				return false, addPath(err, q.Params.GroupBy+" "+k.key.Name)
			}
		}
	}
	if s.scope != nil {
		if where, err = s.scope(ctx, where); err != nil {
			return false, err
		}
	}
	pred, err := s.where(where)
	if err != nil {
		return false, err
	}
	drv := ent.FromContext(ctx).Driver()
	query, args := p.build(drv.Dialect(), pred)
	var rows sql.Rows
	if err := drv.Query(ctx, query, args, &rows); err != nil {
		return false, p.queryError(err, q.Params)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if p.limit > 0 && n == p.limit {
			more = true
			break
		}
		n++
		r, err := p.scan(&rows)
		if err != nil {
			return false, err
		}
		// One value per asked aggregate, repetitions included.
		vals := make([]any, len(q.Select))
		for i, m := range q.Select {
			if j := slices.IndexFunc(p.measures[:p.answered], func(x plannedMeasure) bool { return x.Measure == m }); j >= 0 {
				vals[i] = r.Values[j]
			}
		}
		r.Values = vals
		if err := each(r); err != nil {
			return false, err
		}
	}
	if err := rows.Err(); err != nil {
		return false, p.queryError(err, q.Params)
	}
	return more, nil
}

// addPath names where a scope was needed.
func addPath(err error, path string) error {
	if e := apperr.From(err); e != nil && e.Kind == apperr.KindForbidden {
		e.Message += " (to group by it: " + path + ")"
		return e.WithDetail("group_by", path)
	}
	return err
}

// queryError classifies a database error: SQLite's SUM fails on an integer
// overflow (PostgreSQL's is scanned and checked in Go); PostgreSQL may not
// know a time zone Go knows (their tz databases differ in age).
func (p *plan) queryError(err error, params Params) error {
	if err != nil && strings.Contains(err.Error(), "integer overflow") {
		return overflow()
	}
	if err != nil && strings.Contains(err.Error(), "time zone") && strings.Contains(err.Error(), "not recognized") {
		return apperr.Invalid(params.Zone, "the database does not know the time zone %q; use another name for it, or UTC", p.zone.String())
	}
	if err != nil {
		return apperr.From(err)
	}
	return nil
}

// plan is a checked query.
type plan struct {
	spec     *Spec
	keys     []plannedKey
	measures []plannedMeasure // answered ones first (Query.Select), then those only ordered by
	answered int
	having   []Condition
	order    []Order
	limit    int // 0: all groups
	zone     *time.Location
	split    bool // SQLite: avg's sum in two parts (build)
}

type plannedKey struct {
	key    Key
	bucket Bucket
}

type plannedMeasure struct {
	Measure
	field Field
}

func (s *Spec) plan(q Query) (*plan, error) {
	p := &plan{spec: s, limit: q.Limit, zone: q.Zone}
	if p.zone == nil {
		p.zone = time.UTC
	}
	if p.limit == 0 {
		p.limit = DefaultLimit
	}
	if p.limit < 1 || p.limit > MaxLimit {
		return nil, apperr.Invalid(q.Params.Limit, "must be an integer from 1 to %d", MaxLimit)
	}
	if q.All {
		p.limit = 0 // no LIMIT
	}
	if len(q.GroupBy) > MaxGroupBy {
		return nil, apperr.Invalid(q.Params.GroupBy, "at most %d keys", MaxGroupBy).WithCode("limit_exceeded")
	}
	if q.Bucket != "" && !slices.Contains(Buckets, q.Bucket) {
		return nil, badName(q.Params.Bucket, "invalid_group_by", "%q is not a bucket; use hour, day, week or month", truncate(string(q.Bucket)))
	}
	timed := false
	for _, name := range q.GroupBy {
		k, ok := s.Key(name)
		if !ok {
			return nil, badName(q.Params.GroupBy, "invalid_group_by", "%s cannot be grouped by %q; keys: %s", s.Resource, truncate(name), s.keyNames())
		}
		if k.Type == Time && q.Bucket == "" {
			return nil, badName(q.Params.Bucket, "invalid_group_by", "%s is a time: give the width of its buckets (hour, day, week or month) in %s", k.Name, q.Params.Bucket)
		}
		if slices.ContainsFunc(p.keys, func(pk plannedKey) bool { return pk.key.Name == k.Name }) {
			return nil, badName(q.Params.GroupBy, "invalid_group_by", "%s is given twice", k.Name)
		}
		pk := plannedKey{key: k}
		if k.Type == Time {
			pk.bucket, timed = q.Bucket, true
		}
		p.keys = append(p.keys, pk)
	}
	if q.Bucket != "" && !timed {
		return nil, badName(q.Params.Bucket, "invalid_group_by", "%s is the width of time buckets, but no time field is grouped by", q.Params.Bucket)
	}
	for _, m := range q.Select {
		param := q.Params.Select
		if param == "" {
			param = string(m.Func) // REST: the parameter is the function
		}
		pm, err := s.measure(m, param)
		if err != nil {
			return nil, err
		}
		if m.Func == Count {
			continue // always answered
		}
		if !slices.ContainsFunc(p.measures, func(x plannedMeasure) bool { return x.Measure == m }) {
			p.measures = append(p.measures, pm)
		}
	}
	p.answered = len(p.measures)
	if len(q.Having) > MaxHaving {
		return nil, apperr.Invalid(q.Params.Having, "at most %d conditions", MaxHaving).WithCode("limit_exceeded")
	}
	for _, c := range q.Having {
		pm, err := s.measure(c.Measure, q.Params.Having)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(Ops, c.Op) {
			return nil, apperr.Invalid(q.Params.Having, "%q is not a comparison; use one of = != < <= > >=", truncate(string(c.Op)))
		}
		v, err := conditionValue(pm, c.Value, q.Params.Having)
		if err != nil {
			return nil, err
		}
		p.having = append(p.having, Condition{Measure: c.Measure, Op: c.Op, Value: v})
	}
	if len(q.Order) > MaxOrder {
		return nil, apperr.Invalid(q.Params.Order, "at most %d keys", MaxOrder).WithCode("limit_exceeded")
	}
	for _, o := range q.Order {
		switch {
		case o.Measure != nil:
			pm, err := s.measure(*o.Measure, q.Params.Order)
			if err != nil {
				return nil, err
			}
			if pm.Func != Count && !slices.ContainsFunc(p.measures, func(x plannedMeasure) bool { return x.Measure == pm.Measure }) {
				p.measures = append(p.measures, pm)
			}
		case slices.ContainsFunc(p.keys, func(k plannedKey) bool { return k.key.Name == o.Key }):
		default:
			return nil, badName(q.Params.Order, "invalid_group_by", "%q is neither a grouped key (%s) nor an aggregate (count, sum.<field>, …)", truncate(o.Key), p.groupedNames())
		}
		p.order = append(p.order, o)
	}
	return p, nil
}

func (p *plan) groupedNames() string {
	var out []string
	for _, k := range p.keys {
		out = append(out, k.key.Name)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// MeasureType checks an aggregate and returns the type of its
// field's values (Int for count): what a having value must be.
func (s *Spec) MeasureType(m Measure, param string) (Type, error) {
	pm, err := s.measure(m, param)
	if err != nil {
		return "", err
	}
	if m.Func == Count {
		return Int, nil
	}
	return pm.field.Type, nil
}

// measure checks an aggregate's function and field.
func (s *Spec) measure(m Measure, param string) (plannedMeasure, error) {
	if m.Func == Count {
		if m.Field != "" {
			return plannedMeasure{}, badName(param, "invalid_aggregate", "count counts rows: it takes no field (%q)", truncate(m.Field))
		}
		return plannedMeasure{Measure: m}, nil
	}
	if !slices.Contains(Funcs, m.Func) {
		return plannedMeasure{}, badName(param, "invalid_aggregate", "%q is not an aggregate; use count, sum, avg, min or max", truncate(string(m.Func)))
	}
	f, ok := s.Field(m.Field)
	if !ok || !slices.Contains(f.Funcs(), m.Func) {
		return plannedMeasure{}, badName(param, "invalid_aggregate", "%s cannot %s %q; fields: %s", s.Resource, m.Func, truncate(m.Field), s.fieldNames(m.Func))
	}
	return plannedMeasure{Measure: m, field: f}, nil
}

// badName is the 400 for an unknown or misused name: field names the
// parameter, the message names the culprit.
func badName(param, code, format string, a ...any) error {
	return apperr.Invalid(param, format, a...).WithCode(code)
}

// conditionValue checks a having value against its aggregate's type.
func conditionValue(m plannedMeasure, v any, param string) (any, error) {
	isTime := m.Func != Count && m.field.Type == Time
	switch x := v.(type) {
	case time.Time:
		if !isTime {
			return nil, apperr.Invalid(param, "%s is a number: compare it with a number", m.Measure)
		}
		return x.UTC(), nil
	case decimal.Decimal:
		if isTime {
			return nil, apperr.Invalid(param, "%s is a time: compare it with an RFC 3339 time", m.Measure)
		}
		if m.Func == Count && x%decimal.Scale != 0 {
			return nil, apperr.Invalid(param, "count is a whole number: compare it with one")
		}
		return x, nil
	case nil:
		return nil, apperr.Invalid(param, "%s: a value to compare with is missing", m.Measure)
	}
	return nil, apperr.Invalid(param, "%s: %v is not a value to compare with", m.Measure, v)
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// ---- SQL ----

// build writes the statement: the grouping query over the resource's table
// (with the where input's predicates), wrapped in one that joins the
// related records' labels, orders and limits.
func (p *plan) build(d string, where func(*sql.Selector)) (string, []any) {
	p.split = d != dialect.Postgres
	b := sql.Dialect(d)
	t := b.Table(p.spec.Table)
	inner := b.Select().From(t)
	if where != nil {
		where(inner)
	}
	var cols []string
	var group []string
	for i, k := range p.keys {
		expr := t.C(k.key.Column)
		if k.key.Type == Time {
			expr = bucketExpr(d, expr, k.bucket, p.zone)
		}
		cols = append(cols, expr+" AS "+fmt.Sprintf("k%d", i))
		// By the column's name: both databases accept an output column's
		// name in GROUP BY, and the expression (a bucket's CASE over a
		// zone's offsets on SQLite) is written once.
		group = append(group, fmt.Sprintf("k%d", i))
	}
	cols = append(cols, "COUNT(*) AS n")
	for i, m := range p.measures {
		expr := p.fieldExpr(t, m.field)
		switch m.Func {
		case Sum:
			cols = append(cols, "SUM("+expr+") AS "+fmt.Sprintf("a%d", i))
		case Avg:
			if p.split {
				// SQLite's SUM fails beyond int64, where an average of
				// the same values still fits: sum the millions and the
				// rest apart, and add them in Go.
				cols = append(cols, "SUM("+expr+" / 1000000) AS "+fmt.Sprintf("a%d", i), "SUM("+expr+" % 1000000) AS "+fmt.Sprintf("b%d", i))
			} else {
				cols = append(cols, "SUM("+expr+") AS "+fmt.Sprintf("a%d", i))
			}
			cols = append(cols, "COUNT("+expr+") AS "+fmt.Sprintf("c%d", i))
		case Min, Max:
			cols = append(cols, strings.ToUpper(string(m.Func))+"("+expr+") AS "+fmt.Sprintf("a%d", i))
		}
	}
	inner.Select(cols...)
	if len(group) > 0 {
		inner.GroupBy(group...)
	}
	if len(p.having) > 0 {
		preds := make([]*sql.Predicate, len(p.having))
		for i, c := range p.having {
			preds[i] = p.havingPredicate(t, c)
		}
		inner.Having(sql.And(preds...))
	}

	g := inner.As("g")
	outer := b.Select().From(g)
	var out []string
	for i, k := range p.keys {
		out = append(out, g.C(fmt.Sprintf("k%d", i)))
		if k.key.Ref != nil {
			r := b.Table(k.key.Ref.Table).As(fmt.Sprintf("r%d", i))
			outer.LeftJoin(r).On(r.C("id"), g.C(fmt.Sprintf("k%d", i)))
			for _, l := range k.key.Ref.Labels {
				out = append(out, r.C(l))
			}
		}
	}
	out = append(out, g.C("n"))
	for i, m := range p.measures[:p.answered] {
		out = append(out, g.C(fmt.Sprintf("a%d", i)))
		if m.Func == Avg && p.split {
			out = append(out, g.C(fmt.Sprintf("b%d", i)))
		}
		if m.Func == Avg {
			out = append(out, g.C(fmt.Sprintf("c%d", i)))
		}
	}
	outer.Select(out...)

	var order []string
	ordered := map[string]bool{}
	for _, o := range p.order {
		dir := " ASC NULLS LAST"
		if o.Desc {
			dir = " DESC NULLS LAST"
		}
		if o.Measure != nil {
			order = append(order, p.measureOrder(d, g, *o.Measure)+dir)
			continue
		}
		ordered[o.Key] = true
		for _, e := range p.keyOrder(d, g, o.Key) {
			order = append(order, e+dir)
		}
	}
	// The grouped keys, in order, make the order total: the same request
	// gives the same groups in the same order on both databases.
	for _, k := range p.keys {
		if !ordered[k.key.Name] {
			for _, e := range p.keyOrder(d, g, k.key.Name) {
				order = append(order, e+" ASC NULLS LAST")
			}
		}
	}
	if len(order) > 0 {
		outer.OrderBy(order...)
	}
	if p.limit > 0 {
		outer.Limit(p.limit + 1) // one more: has_more
	}
	return outer.Query()
}

// fieldExpr is the SQL of a field's value.
func (p *plan) fieldExpr(t *sql.SelectTable, f Field) string {
	if f.Minus != "" {
		return "(" + t.C(f.Column) + " - " + t.C(f.Minus) + ")"
	}
	return t.C(f.Column)
}

// keyOrder is what ordering by a grouped key sorts on: its bucket or value,
// a related record's first label (its code) rather than its id. Text sorts
// by code point on both databases (COLLATE "C" on PostgreSQL; SQLite
// compares bytes), whatever the database's collation.
func (p *plan) keyOrder(d string, g *sql.Selector, name string) []string {
	for i, k := range p.keys {
		if k.key.Name != name {
			continue
		}
		col := g.C(fmt.Sprintf("k%d", i))
		if k.key.Ref != nil {
			col = sql.Dialect(d).Table(k.key.Ref.Table).As(fmt.Sprintf("r%d", i)).C(k.key.Ref.Labels[0])
		}
		if d == dialect.Postgres && (k.key.Type == Text || k.key.Type == Enum || k.key.Type == Ref) {
			col += ` COLLATE "C"`
		}
		return []string{col}
	}
	return nil
}

// measureOrder is the column an aggregate sorts on (count, or one of the
// grouping query's columns); avg sorts on sum / count.
func (p *plan) measureOrder(d string, g *sql.Selector, m Measure) string {
	if m.Func == Count {
		return g.C("n")
	}
	i := slices.IndexFunc(p.measures, func(x plannedMeasure) bool { return x.Measure == m })
	a := g.C(fmt.Sprintf("a%d", i))
	if m.Func != Avg {
		return a
	}
	c := g.C(fmt.Sprintf("c%d", i))
	if d == dialect.Postgres {
		return "(" + a + "::numeric / NULLIF(" + c + ", 0))"
	}
	return "((CAST(" + a + " AS REAL) * 1000000 + " + g.C(fmt.Sprintf("b%d", i)) + ") / NULLIF(" + c + ", 0))"
}

// havingPredicate compares an aggregate with a value, exactly: numbers as
// whole thousandths (sums and the bounds of avg's rounding), times as
// times.
func (p *plan) havingPredicate(tbl *sql.SelectTable, c Condition) *sql.Predicate {
	m, _ := p.spec.measure(c.Measure, "")
	op := map[Op]sql.Op{Eq: sql.OpEQ, Ne: sql.OpNEQ, Lt: sql.OpLT, Lte: sql.OpLTE, Gt: sql.OpGT, Gte: sql.OpGTE}[c.Op]
	cmp := func(expr string, op sql.Op, v any) *sql.Predicate {
		return sql.P(func(b *sql.Builder) { b.WriteString(expr).WriteOp(op).Arg(v) })
	}
	if t, ok := c.Value.(time.Time); ok {
		return cmp(strings.ToUpper(string(m.Func))+"("+p.fieldExpr(tbl, m.field)+")", op, t)
	}
	v := int64(c.Value.(decimal.Decimal)) // thousandths
	if m.Func == Count {
		return cmp("COUNT(*)", op, v/decimal.Scale)
	}
	expr := p.fieldExpr(tbl, m.field)
	scale := "" // the field's values in thousandths
	if m.field.Type == Int {
		scale = "1000 * "
	}
	if m.Func != Avg {
		return cmp(scale+strings.ToUpper(string(m.Func))+"("+expr+")", op, v)
	}
	// avg = round half up of S/C in thousandths; with C > 0:
	// avg >= t ⟺ 2S >= (2t-1)C, avg > t ⟺ 2S >= (2t+1)C, and the negations.
	twoS := "2 * " + scale + "SUM(" + expr + ")"
	cnt := "COUNT(" + expr + ")"
	ge := func(bound int64) *sql.Predicate { // 2S >= bound*C
		return sql.P(func(b *sql.Builder) { b.WriteString(twoS).WriteOp(sql.OpGTE).Arg(bound).WriteString(" * " + cnt) })
	}
	lt := func(bound int64) *sql.Predicate {
		return sql.P(func(b *sql.Builder) { b.WriteString(twoS).WriteOp(sql.OpLT).Arg(bound).WriteString(" * " + cnt) })
	}
	lo, hi := 2*v-1, 2*v+1
	switch c.Op {
	case Gte:
		return ge(lo)
	case Gt:
		return ge(hi)
	case Lte:
		return lt(hi)
	case Lt:
		return lt(lo)
	case Eq:
		return sql.And(ge(lo), lt(hi))
	default: // Ne
		return sql.Or(lt(lo), ge(hi))
	}
}

// ---- scanning ----

func (p *plan) scan(rows *sql.Rows) (Row, error) {
	var dest []any
	keyVals := make([][]any, len(p.keys))
	for i, k := range p.keys {
		n := 1
		if k.key.Ref != nil {
			n += len(k.key.Ref.Labels)
		}
		keyVals[i] = make([]any, n)
		for j := range keyVals[i] {
			dest = append(dest, &keyVals[i][j])
		}
	}
	var count int64
	dest = append(dest, &count)
	vals := make([]any, p.answered)
	rests := make([]any, p.answered)
	cnts := make([]any, p.answered)
	for i, m := range p.measures[:p.answered] {
		dest = append(dest, &vals[i])
		if m.Func == Avg && p.split {
			dest = append(dest, &rests[i])
		}
		if m.Func == Avg {
			dest = append(dest, &cnts[i])
		}
	}
	if err := rows.Scan(dest...); err != nil {
		return Row{}, p.queryError(err, Params{})
	}
	r := Row{Keys: make([]any, len(p.keys)), Count: count, Values: make([]any, p.answered)}
	for i, k := range p.keys {
		v, err := p.keyValue(k, keyVals[i])
		if err != nil {
			return Row{}, err
		}
		r.Keys[i] = v
	}
	for i, m := range p.measures[:p.answered] {
		v, err := measureValue(m, vals[i], rests[i], cnts[i])
		if err != nil {
			return Row{}, err
		}
		r.Values[i] = v
	}
	return r, nil
}

func (p *plan) keyValue(k plannedKey, raw []any) (any, error) {
	if raw[0] == nil {
		return nil, nil
	}
	switch k.key.Type {
	case Time:
		return bucketValue(raw[0], k.bucket, p.zone)
	case Bool:
		switch v := raw[0].(type) {
		case bool:
			return v, nil
		case int64:
			return v != 0, nil
		}
		return nil, fmt.Errorf("aggregate: %s: unexpected %T", k.key.Name, raw[0])
	case Ref:
		rv := RefValue{ID: text(raw[0])}
		for _, l := range raw[1:] {
			if b, ok := l.([]byte); ok {
				l = string(b)
			}
			rv.Labels = append(rv.Labels, l)
		}
		return rv, nil
	}
	return text(raw[0]), nil
}

func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// integer reads an exact integer: SQLite's int64, PostgreSQL's numeric (a
// sum of bigints, as text) or bigint. ok is false beyond int64.
func integer(v any) (*big.Int, error) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), nil
	case int32:
		return big.NewInt(int64(x)), nil
	case string, []byte:
		n, ok := new(big.Int).SetString(strings.TrimSuffix(text(x), ".0"), 10)
		if !ok {
			return nil, fmt.Errorf("aggregate: %q is not an integer", text(x))
		}
		return n, nil
	case float64: // never for integer columns; refuse rather than round
		return nil, fmt.Errorf("aggregate: unexpected float %v", x)
	}
	return nil, fmt.Errorf("aggregate: unexpected %T", v)
}

var (
	maxInt64 = big.NewInt(1<<63 - 1)
	minInt64 = new(big.Int).Neg(new(big.Int).Add(maxInt64, big.NewInt(1)))
	thousand = big.NewInt(decimal.Scale)
	bigTwo   = big.NewInt(2)
)

func fitsInt64(n *big.Int) bool { return n.Cmp(maxInt64) <= 0 && n.Cmp(minInt64) >= 0 }

// measureValue reads an aggregate: v, and for avg rest (SQLite: the sum of
// the remainders below a million, v being the sum of the millions) and cnt.
func measureValue(m plannedMeasure, v, rest, cnt any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch {
	case m.field.Type == Time:
		return timeValue(v)
	case m.Func == Min || m.Func == Max:
		n, err := integer(v)
		if err != nil {
			return nil, err
		}
		if m.field.Type == Int {
			return n.Int64(), nil
		}
		return decimal.Decimal(n.Int64()), nil
	}
	s, err := integer(v)
	if err != nil {
		return nil, err
	}
	if rest != nil {
		r, err := integer(rest)
		if err != nil {
			return nil, err
		}
		s.Mul(s, big.NewInt(1_000_000)).Add(s, r)
	}
	if m.field.Type == Int {
		s.Mul(s, thousand)
	}
	if m.Func == Sum {
		if !fitsInt64(s) {
			return nil, overflow()
		}
		return decimal.Decimal(s.Int64()), nil
	}
	c, err := integer(cnt)
	if err != nil {
		return nil, err
	}
	if c.Sign() == 0 {
		return nil, nil
	}
	// avg = floor((2S + C) / 2C): S/C rounded half up, in thousandths.
	num := new(big.Int).Add(new(big.Int).Mul(s, bigTwo), c)
	den := new(big.Int).Mul(c, bigTwo)
	a := new(big.Int).Div(num, den) // Euclidean: floor for a positive divisor
	if !fitsInt64(a) {
		return nil, overflow()
	}
	return decimal.Decimal(a.Int64()), nil
}

// timeValue reads a time: PostgreSQL's time.Time, SQLite's text as
// go-sqlite3 writes it.
func timeValue(v any) (any, error) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), nil
	case string, []byte:
		s := strings.TrimSuffix(text(x), "Z")
		for _, layout := range sqliteTimeLayouts {
			if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
				return t.UTC(), nil
			}
		}
		return nil, fmt.Errorf("aggregate: %q is not a time", text(x))
	}
	return nil, fmt.Errorf("aggregate: unexpected time %T", v)
}

// sqliteTimeLayouts are go-sqlite3's SQLiteTimestampFormats.
var sqliteTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}
