package graph

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"

	"logistics/graph/model"
	"logistics/internal/aggregate"
	"logistics/internal/apperr"
	"logistics/internal/database"
	"logistics/internal/decimal"
)

// The aggregates (graph/schema/aggregate.graphqls, written from the core's
// specs) go through the aggregation core, as REST's do: the resolvers turn
// the arguments and the selection into an aggregate.Query, and the rows it
// answers into the generated group types (by their JSON names, which are
// the GraphQL names). The where: argument is the list's where input, its
// filter rule applied by scopeGuard like any where:; the read scope of the
// resource comes from its group type (auth: <T>Group), and grouping by a
// related record needs that type's read scope too (checked by the core).

// groups answers <t>Aggregate(where, groupBy, bucket, having, orderBy,
// first, timeZone) as a list of the generated group type G (groupBy: the
// generated enum F's values, the core's key names in upper case).
func groups[G any, F ~string](ctx context.Context, spec *aggregate.Spec, where any, groupBy []F, bucket *model.TimeBucket, having, orderBy any, first *int, timeZone *string) ([]*G, error) {
	q, err := aggregateQuery(having, orderBy, first, timeZone)
	if err != nil {
		return nil, err
	}
	for _, f := range groupBy {
		q.GroupBy = append(q.GroupBy, strings.ToLower(string(f)))
	}
	if bucket != nil {
		q.Bucket = aggregate.Bucket(strings.ToLower(string(*bucket)))
	}
	q.Select = selectedMeasures(ctx)
	res, err := aggregate.Run(database.AcceptStale(ctx), spec, where, q)
	if err != nil {
		return nil, err
	}
	out := make([]*G, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = fillGroup[G](q, r)
	}
	return out, nil
}

// connectionTotals answers <T>Connection.aggregate: the totals of the rows
// the connection's where: selects. A nested connection (hub.items) would
// need one statement per parent: refused, with the root field to use.
func connectionTotals[G any](ctx context.Context, spec *aggregate.Spec) (*G, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Parent == nil || fc.Parent.Object != "Query" {
		return nil, apperr.BadRequest("aggregate is answered on root connections only; use %s(where:, groupBy:) for totals per related record", spec.QueryField()).WithCode("invalid_aggregate")
	}
	q := aggregate.Query{Select: selectedMeasures(ctx), Params: aggregate.GraphQLParams}
	res, err := aggregate.Run(database.AcceptStale(ctx), spec, fc.Parent.Args["where"], q)
	if err != nil {
		return nil, err
	}
	if len(res.Rows) == 0 { // no GROUP BY: one row, always
		return nil, apperr.Internal(fmt.Errorf("aggregate: no totals row"))
	}
	return fillGroup[G](q, res.Rows[0]), nil
}

// aggregateQuery reads the arguments: generated input types per resource,
// read by their fields (Field, Bucket, Aggregate, Op, …), whose enum values
// are the core's names in upper case.
func aggregateQuery(having, orderBy any, first *int, timeZone *string) (aggregate.Query, error) {
	q := aggregate.Query{Params: aggregate.GraphQLParams}
	if first != nil {
		if *first < 1 {
			return q, apperr.Invalid("first", "must be an integer from 1 to %d", aggregate.MaxLimit)
		}
		q.Limit = *first
	}
	if timeZone != nil {
		loc, err := aggregate.ParseZone(*timeZone, "timeZone")
		if err != nil {
			return q, err
		}
		q.Zone = loc
	}
	for i, h := range inputs(having) {
		c := aggregate.Condition{
			Measure: aggregate.Measure{Func: aggregate.Func(enumName(h.FieldByName("Aggregate"))), Field: enumName(h.FieldByName("Field"))},
			Op:      comparisons[enumName(h.FieldByName("Op"))],
		}
		v, t := h.FieldByName("Value").Interface().(*decimal.Decimal), h.FieldByName("Time").Interface().(*time.Time)
		switch {
		case v != nil && t != nil:
			return q, apperr.Invalid(fmt.Sprintf("having[%d]", i), "give value or time, not both")
		case v != nil:
			c.Value = *v
		case t != nil:
			c.Value = *t
		}
		q.Having = append(q.Having, c)
	}
	for i, o := range inputs(orderBy) {
		key, fn := enumName(o.FieldByName("Key")), enumName(o.FieldByName("Aggregate"))
		ord := aggregate.Order{Key: key, Desc: o.FieldByName("Direction").Interface().(entgql.OrderDirection) == entgql.OrderDirectionDesc}
		switch {
		case (key == "") == (fn == ""):
			return q, apperr.Invalid(fmt.Sprintf("orderBy[%d]", i), "give a key or an aggregate (with its field), one of them")
		case fn != "":
			ord.Measure = &aggregate.Measure{Func: aggregate.Func(fn), Field: enumName(o.FieldByName("Field"))}
		}
		q.Order = append(q.Order, ord)
	}
	return q, nil
}

var comparisons = map[string]aggregate.Op{"eq": aggregate.Eq, "neq": aggregate.Ne, "lt": aggregate.Lt, "lte": aggregate.Lte, "gt": aggregate.Gt, "gte": aggregate.Gte}

// inputs are the structs of a list argument ([]*model.ItemGrouping …).
func inputs(list any) []reflect.Value {
	v := reflect.ValueOf(list)
	if !v.IsValid() || v.Kind() != reflect.Slice {
		return nil
	}
	out := make([]reflect.Value, 0, v.Len())
	for i := range v.Len() {
		if e := v.Index(i); !e.IsNil() {
			out = append(out, e.Elem())
		}
	}
	return out
}

// enumName is the core's name of a generated enum value (or a pointer to
// one): "AVAILABLE_QUANTITY" → "available_quantity"; "" for none.
func enumName(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	return strings.ToLower(v.String())
}

// selectedMeasures are the aggregates the group's selection asks for:
// sum { quantity } is sum of quantity. count always comes.
func selectedMeasures(ctx context.Context) []aggregate.Measure {
	oc := graphql.GetOperationContext(ctx)
	fc := graphql.GetFieldContext(ctx)
	var out []aggregate.Measure
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, []string{fc.Field.Definition.Type.Name()}) {
		fn := aggregate.Func(f.Name)
		if fn == aggregate.Count || f.Name == "keys" || f.Name == "__typename" || f.Definition == nil {
			continue
		}
		for _, sub := range graphql.CollectFields(oc, f.Selections, []string{f.Definition.Type.Name()}) {
			if sub.Name != "__typename" {
				out = append(out, aggregate.Measure{Func: fn, Field: aggregate.Snake(sub.Name)})
			}
		}
	}
	return out
}

// fillGroup builds a generated group (G: model.ItemGroup …) from a row.
func fillGroup[G any](q aggregate.Query, r aggregate.Row) *G {
	g := new(G)
	v := reflect.ValueOf(g).Elem()
	// keys, sum, avg, min and max are non-null objects, whose fields are
	// null when not grouped by or not asked for.
	for _, name := range []string{"keys", "sum", "avg", "min", "max"} {
		if f := field(v, name); f.IsValid() {
			f.Set(reflect.New(f.Type().Elem()))
		}
	}
	keys := field(v, "keys")
	for i, k := range q.GroupBy {
		setValue(field(keys, aggregate.Camel(k)), r.Keys[i])
	}
	v.FieldByName("Count").SetInt(r.Count)
	for i, m := range q.Select {
		if m.Func == aggregate.Count {
			continue
		}
		setValue(field(field(v, string(m.Func)), aggregate.Camel(m.Field)), r.Values[i])
	}
	return g
}

// field returns the struct field with the JSON name (through a pointer to
// the struct); an invalid Value when there is none.
func field(v reflect.Value, name string) reflect.Value {
	if !v.IsValid() {
		return v
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	t := v.Type()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

// setValue stores a core value (a string, bool, int64, decimal, time or
// RefValue) into a generated field (a pointer to the GraphQL type's Go
// type: an ent enum, *string, *HubRef …).
func setValue(dst reflect.Value, val any) {
	if !dst.IsValid() || val == nil {
		return
	}
	if ref, ok := val.(aggregate.RefValue); ok {
		dst.Set(reflect.New(dst.Type().Elem())) // the *HubRef
		field(dst, "id").SetString(ref.ID)
		t := dst.Elem().Type()
		n := 0
		for i := range t.NumField() {
			if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag != "id" && n < len(ref.Labels) {
				setValue(dst.Elem().Field(i), ref.Labels[n])
				n++
			}
		}
		return
	}
	target := dst
	if dst.Kind() == reflect.Pointer {
		target = reflect.New(dst.Type().Elem()).Elem()
	}
	src := reflect.ValueOf(val)
	if !src.Type().ConvertibleTo(target.Type()) {
		return
	}
	target.Set(src.Convert(target.Type()))
	if dst.Kind() == reflect.Pointer {
		dst.Set(target.Addr())
	}
}
