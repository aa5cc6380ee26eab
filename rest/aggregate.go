package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"logistics/internal/aggregate"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/decimal"
	"logistics/internal/export"
	"logistics/internal/filter"
	"logistics/internal/view"
)

// GET /v1/<resources>/aggregate: the aggregation core (internal/aggregate)
// over the rows the list's own filter grammar selects (docs/analytics.md),
// a method of the per-resource adapter like list and get:
//
//	GET /v1/items/aggregate?group_by=hub,status&sum=quantity,available_quantity&quantity>0
//	    &having=sum.quantity<100&sort=-sum.quantity&limit=50
//	GET /v1/orders/aggregate?group_by=status,created_at&bucket=day&tz=Europe/Paris
//
// Parameters: group_by (keys, comma-separated), bucket (hour, day, week,
// month: the width of the grouped time fields' buckets), sum, avg, min, max
// (fields, comma-separated; count always comes), having (an aggregate, a
// comparison and a value: count>5, sum.quantity<100, max.created_at>=2025-01-01T00:00:00Z;
// repeated or comma-separated, all must hold), sort (grouped keys or
// aggregates, - for descending), limit (groups, 100 by default, at most
// 1,000), tz (UTC or an IANA zone for the buckets), format. Every other
// parameter is a filter of the list, with its grammar, its ignored names
// and its scope rule. Asked for CSV or NDJSON (Accept, format=), the answer
// is every group, streamed through the lists' export writer (limit does not
// apply, as on a list's export).

// aggregateParams are the reserved parameters of an aggregate request.
var aggregateParams = []string{"group_by", "bucket", "sum", "avg", "min", "max", "having", "sort", "limit", "tz", "cursor", export.Param}

// aggregate serves the resource's aggregates with spec, its aggregation
// spec. Its filter is the list's (rs.parse); a nested list's parent does
// not apply: the aggregates are of every row.
func (rs *resource[T, W, J, In]) aggregate(d Deps, spec *aggregate.Spec) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		f, err := negotiate(r)
		if err != nil {
			return err
		}
		params, filters, err := splitAggregateQuery(r.URL.RawQuery)
		if err != nil {
			return err
		}
		where, ignored, err := rs.parse(filters)
		if len(ignored) > 0 {
			w.Header().Set("X-Ignored-Filters", headerSafe(strings.Join(ignored, ",")))
		}
		if err != nil {
			return err
		}
		// The filter rule of the policy, as on the list.
		if err := auth.RequireFilter(r.Context(), where); err != nil {
			return err
		}
		q, err := aggregateQuery(spec, params)
		if err != nil {
			return err
		}
		if f != export.JSON {
			q.All = true
			return exportGroups(d, w, r, f, spec, q, where)
		}
		res, err := aggregate.Run(r.Context(), spec, where, q)
		if err != nil {
			return err
		}
		out := aggregateJSON{Data: make([]groupJSON, len(res.Rows)), HasMore: res.HasMore}
		for i, row := range res.Rows {
			out.Data[i] = renderGroup(spec, q, row)
		}
		WriteJSON(w, http.StatusOK, out)
		return nil
	})
}

// exportGroups streams every group through the export writer: NDJSON, one
// group per line as the JSON answer renders it; CSV, one group per record
// with the group flattened (keys.hub.id, keys.hub.code, keys.status, count,
// sum.quantity…), the columns fixed by the request.
func exportGroups(d Deps, w http.ResponseWriter, r *http.Request, f export.Format, spec *aggregate.Spec, q aggregate.Query, where any) error {
	opt := export.Options{WriteTimeout: d.WriteTimeout, Log: d.Log}
	if p, _ := filter.Params(r.URL.RawQuery); p[export.Param] != "" {
		opt.Filename = strings.ReplaceAll(spec.Resource, " ", "-") + "-aggregate." + f.String()
	}
	ew := export.NewWriter(w, r, f, opt)
	if err := ew.Header(groupColumns(spec, q)); err != nil {
		return ew.Fail(err)
	}
	if r.Method == http.MethodHead {
		return ew.Flush()
	}
	var cells []string
	n := 0
	_, err := aggregate.Stream(r.Context(), spec, where, q, func(row aggregate.Row) error {
		g := renderGroup(spec, q, row)
		if f == export.CSV {
			cells = groupCells(cells[:0], spec, q, row)
		}
		if err := ew.Row(g, cells); err != nil {
			return err
		}
		if n++; n%int(exportBatch.Load()) == 0 {
			return ew.Flush()
		}
		return nil
	})
	if err != nil {
		return ew.Fail(err)
	}
	if err := ew.Flush(); err != nil {
		return ew.Fail(err)
	}
	return nil
}

// groupColumns names the CSV columns of q's groups.
func groupColumns(spec *aggregate.Spec, q aggregate.Query) []string {
	var out []string
	for _, name := range q.GroupBy {
		k, _ := spec.Key(name)
		if k.Ref == nil {
			out = append(out, "keys."+name)
			continue
		}
		out = append(out, "keys."+name+".id")
		for _, l := range k.Ref.Labels {
			out = append(out, "keys."+name+"."+l)
		}
	}
	out = append(out, "count")
	for _, m := range q.Select {
		out = append(out, string(m.Func)+"."+m.Field)
	}
	return out
}

// groupCells writes a group's cells in groupColumns' order; null is empty.
func groupCells(dst []string, spec *aggregate.Spec, q aggregate.Query, row aggregate.Row) []string {
	for i, name := range q.GroupBy {
		k, _ := spec.Key(name)
		v := row.Keys[i]
		if k.Ref == nil {
			dst = append(dst, cell(keyJSON(spec, name, v)))
			continue
		}
		ref, _ := v.(aggregate.RefValue)
		dst = append(dst, ref.ID)
		for j := range k.Ref.Labels {
			var l any
			if j < len(ref.Labels) {
				l = ref.Labels[j]
			}
			dst = append(dst, cell(l))
		}
	}
	dst = append(dst, strconv.FormatInt(row.Count, 10))
	for _, v := range row.Values {
		if t, ok := v.(time.Time); ok {
			v = view.Timestamp(t)
		}
		dst = append(dst, cell(v))
	}
	return dst
}

func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case decimal.Decimal:
		return x.String()
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// splitAggregateQuery takes the aggregate's parameters out of the raw
// query string (each at most once but having, percent-decoded, bounded)
// and returns the rest, the filters, as it came.
func splitAggregateQuery(raw string) (map[string][]string, string, error) {
	params := map[string][]string{}
	var rest []string
	for seg := range strings.SplitSeq(raw, "&") {
		if seg == "" {
			continue
		}
		dec, err := url.QueryUnescape(seg)
		if err != nil {
			rest = append(rest, seg) // the filter parser reports it
			continue
		}
		name, value, _ := strings.Cut(dec, "=")
		if !slices.Contains(aggregateParams, name) {
			rest = append(rest, seg)
			continue
		}
		if name == "cursor" {
			return nil, "", apperr.Invalid("cursor", "aggregates are not paged: narrow them with having and limit")
		}
		if _, dup := params[name]; dup && name != "having" {
			return nil, "", apperr.Invalid(name, "is given more than once")
		}
		if len(value) > filter.MaxParamLength {
			return nil, "", apperr.Invalid(name, "has at most %d characters", filter.MaxParamLength).WithCode("limit_exceeded")
		}
		if name == "having" && len(params["having"]) >= aggregate.MaxHaving {
			return nil, "", apperr.Invalid("having", "at most %d conditions", aggregate.MaxHaving).WithCode("limit_exceeded")
		}
		params[name] = append(params[name], value)
	}
	return params, strings.Join(rest, "&"), nil
}

// commaList splits a comma-separated parameter.
func commaList(v []string) []string {
	var out []string
	for _, s := range v {
		for part := range strings.SplitSeq(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// aggregateQuery reads the parameters into the core's query.
func aggregateQuery(spec *aggregate.Spec, p map[string][]string) (aggregate.Query, error) {
	q := aggregate.Query{Params: aggregate.RESTParams, GroupBy: commaList(p["group_by"])}
	if b := p["bucket"]; len(b) > 0 {
		q.Bucket = aggregate.Bucket(b[0])
	}
	for _, fn := range []aggregate.Func{aggregate.Sum, aggregate.Avg, aggregate.Min, aggregate.Max} {
		for _, f := range commaList(p[string(fn)]) {
			q.Select = append(q.Select, aggregate.Measure{Func: fn, Field: f})
		}
	}
	if l := p["limit"]; len(l) > 0 {
		n, err := strconv.Atoi(l[0])
		if err != nil || n < 1 || n > aggregate.MaxLimit || strconv.Itoa(n) != l[0] {
			return q, apperr.Invalid("limit", "must be an integer from 1 to %d", aggregate.MaxLimit)
		}
		q.Limit = n
	}
	if z := p["tz"]; len(z) > 0 {
		loc, err := aggregate.ParseZone(z[0], "tz")
		if err != nil {
			return q, err
		}
		q.Zone = loc
	}
	for _, h := range commaList(p["having"]) {
		c, err := havingCondition(spec, h)
		if err != nil {
			return q, err
		}
		q.Having = append(q.Having, c)
	}
	for _, s := range commaList(p["sort"]) {
		o := aggregate.Order{Desc: strings.HasPrefix(s, "-")}
		name := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
		if m, ok := measureName(name); ok {
			o.Measure = &m
		} else {
			o.Key = name
		}
		q.Order = append(q.Order, o)
	}
	return q, nil
}

// measureName reads "count" or "<function>.<field>".
func measureName(s string) (aggregate.Measure, bool) {
	if s == string(aggregate.Count) {
		return aggregate.Measure{Func: aggregate.Count}, true
	}
	fn, f, ok := strings.Cut(s, ".")
	if !ok {
		return aggregate.Measure{}, false
	}
	return aggregate.Measure{Func: aggregate.Func(fn), Field: f}, true
}

// havingOps are the comparisons of a having condition, longest first.
var havingOps = []aggregate.Op{aggregate.Lte, aggregate.Gte, aggregate.Ne, aggregate.Lt, aggregate.Gt, aggregate.Eq}

// havingCondition reads "sum.quantity<100", "count>=5",
// "max.created_at>2025-01-01T00:00:00Z".
func havingCondition(spec *aggregate.Spec, s string) (aggregate.Condition, error) {
	i := strings.IndexAny(s, "<>=!")
	if i < 0 {
		return aggregate.Condition{}, apperr.Invalid("having", "%q is not a condition such as sum.quantity<100 or count>=5", truncate(s))
	}
	m, ok := measureName(s[:i])
	if !ok {
		return aggregate.Condition{}, apperr.Invalid("having", "%q is not an aggregate: count, or sum, avg, min or max of a field (sum.quantity)", truncate(s[:i])).WithCode("invalid_aggregate")
	}
	typ, err := spec.MeasureType(m, "having")
	if err != nil {
		return aggregate.Condition{}, err
	}
	c := aggregate.Condition{Measure: m}
	rest := s[i:]
	for _, op := range havingOps {
		if strings.HasPrefix(rest, string(op)) {
			c.Op, rest = op, rest[len(op):]
			break
		}
	}
	if c.Op == "" {
		return c, apperr.Invalid("having", "%q: use one of = != < <= > >=", truncate(s))
	}
	if typ == aggregate.Time {
		t, err := time.Parse(time.RFC3339Nano, strings.Replace(rest, " ", "+", 1)) // "+" decodes to a space
		if err != nil || t.Year() < 1 || t.Year() > 9999 {
			return c, apperr.Invalid("having", "%s: %q is not an RFC 3339 time such as 2025-01-31T12:00:00Z", m, truncate(rest))
		}
		c.Value = t
		return c, nil
	}
	v, err := decimal.Parse(rest)
	if err != nil || strings.ContainsAny(rest, " \t\n") {
		return c, apperr.Invalid("having", "%s: %q is not a decimal number with at most 3 fractional digits", m, truncate(rest))
	}
	c.Value = v
	return c, nil
}

// ---- rendering ----

// aggregateJSON is the body of an aggregate response.
type aggregateJSON struct {
	Data    []groupJSON `json:"data"`
	HasMore bool        `json:"has_more"`
}

// groupJSON is one group: keys (in group_by order), count, and the asked
// aggregates by function, each with its fields in the order asked.
type groupJSON struct {
	Keys  ordered `json:"keys"`
	Count int64   `json:"count"`
	Sum   ordered `json:"sum,omitempty"`
	Avg   ordered `json:"avg,omitempty"`
	Min   ordered `json:"min,omitempty"`
	Max   ordered `json:"max,omitempty"`
}

// ordered is a JSON object whose members keep their order.
type ordered []member

type member struct {
	name  string
	value any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.name)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func renderGroup(spec *aggregate.Spec, q aggregate.Query, r aggregate.Row) groupJSON {
	g := groupJSON{Keys: ordered{}, Count: r.Count}
	for i, name := range q.GroupBy {
		g.Keys = append(g.Keys, member{name, keyJSON(spec, name, r.Keys[i])})
	}
	for i, m := range q.Select {
		v := r.Values[i]
		if t, ok := v.(time.Time); ok {
			v = view.Timestamp(t)
		}
		mm := member{m.Field, v}
		switch m.Func {
		case aggregate.Sum:
			g.Sum = append(g.Sum, mm)
		case aggregate.Avg:
			g.Avg = append(g.Avg, mm)
		case aggregate.Min:
			g.Min = append(g.Min, mm)
		case aggregate.Max:
			g.Max = append(g.Max, mm)
		}
	}
	return g
}

// keyJSON renders a key's value: a related record as in the lists ({id,
// code}), a bucket as its first instant in the query's zone (with its
// offset: 2025-03-30T00:00:00+01:00).
func keyJSON(spec *aggregate.Spec, name string, v any) any {
	switch x := v.(type) {
	case aggregate.RefValue:
		k, _ := spec.Key(name)
		o := ordered{{"id", x.ID}}
		for i, l := range k.Ref.Labels {
			if i < len(x.Labels) {
				o = append(o, member{l, x.Labels[i]})
			}
		}
		return o
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return v
}

// ---- OpenAPI ----

// aggregateSpecs is each list's aggregation spec, for the document.
var aggregateSpecs = map[*filter.Table]*aggregate.Spec{
	filter.HubTable: aggregate.Hubs, filter.PartTable: aggregate.Parts, filter.ItemTable: aggregate.Items,
	filter.OrderTable: aggregate.Orders, filter.OrderLineTable: aggregate.OrderLines, filter.OrderEventTable: aggregate.OrderEvents,
	filter.TrackingEntryTable: aggregate.TrackingEntries, filter.WorkflowTable: aggregate.Workflows, filter.EventTable: aggregate.Events,
}

// aggregateParamsDoc documents an aggregate endpoint's parameters: its
// own, then the list's filters.
func aggregateParamsDoc(t *filter.Table) []obj {
	spec := aggregateSpecs[t]
	var keys, times []string
	for _, k := range spec.Keys {
		keys = append(keys, k.Name)
		if k.Type == aggregate.Time {
			times = append(times, k.Name)
		}
	}
	fields := func(fn aggregate.Func) []string {
		var out []string
		for _, f := range spec.Fields {
			if slices.Contains(f.Funcs(), fn) {
				out = append(out, f.Name)
			}
		}
		return out
	}
	str := obj{"type": "string", "maxLength": filter.MaxParamLength}
	params := []obj{
		{"name": "group_by", "in": "query", "schema": str, "description": "Keys to group by, comma-separated, at most " + strconv.Itoa(aggregate.MaxGroupBy) + ": " + strings.Join(keys, ", ") + ". A related record (hub, part, order, workflow) is shown as {id, code|sku|number|key and version} and needs its read scope too. Without group_by: one group of every row."},
		{"name": "bucket", "in": "query", "schema": obj{"type": "string", "enum": aggregate.Buckets}, "description": "Width of the buckets of the grouped time fields (" + strings.Join(times, ", ") + "); a week starts on Monday. Required when one is grouped."},
		{"name": "tz", "in": "query", "schema": obj{"type": "string", "maxLength": aggregate.MaxZone, "default": "UTC"}, "description": "Time zone of the buckets: UTC or an IANA name (Europe/Paris); buckets follow its calendar across daylight-saving changes."},
	}
	for _, fn := range []aggregate.Func{aggregate.Sum, aggregate.Avg, aggregate.Min, aggregate.Max} {
		if f := fields(fn); len(f) > 0 {
			desc := "Fields to " + string(fn) + ", comma-separated: " + strings.Join(f, ", ") + "."
			if fn == aggregate.Avg {
				desc += " Averages are exact sums over counts, rounded half up to thousandths."
			}
			params = append(params, obj{"name": string(fn), "in": "query", "schema": str, "description": desc})
		}
	}
	params = append(params,
		obj{"name": "having", "in": "query", "schema": obj{"type": "array", "items": str, "maxItems": aggregate.MaxHaving}, "style": "form", "explode": true,
			"description": "Conditions on the groups' aggregates, all of which must hold: count>5, sum.quantity<100, avg.quantity>=2.5, max.created_at>=2025-01-01T00:00:00Z (= != < <= > >=). Repeat the parameter or separate with commas."},
		obj{"name": "sort", "in": "query", "schema": str, "description": "Order of the groups: grouped keys or aggregates (count, sum.quantity), comma-separated, - for descending; then the grouped keys ascending. Nulls last."},
		obj{"name": "limit", "in": "query", "schema": obj{"type": "integer", "minimum": 1, "maximum": aggregate.MaxLimit, "default": aggregate.DefaultLimit}, "description": "Most groups answered; has_more says whether more matched."},
	)
	for _, p := range listParams(t) {
		if n := p["name"]; n != "limit" && n != "cursor" && n != "sort" {
			params = append(params, p)
		}
	}
	return params
}

// aggregateResponseDoc is the schema of an aggregate response.
func aggregateResponseDoc(t *filter.Table) obj {
	spec := aggregateSpecs[t]
	typeOf := func(ty aggregate.Type, values []string) obj {
		switch ty {
		case aggregate.Decimal:
			return obj{"type": []string{"number", "null"}}
		case aggregate.Int:
			return obj{"type": []string{"integer", "null"}}
		case aggregate.Time:
			return obj{"type": []string{"string", "null"}, "format": "date-time"}
		case aggregate.Bool:
			return obj{"type": []string{"boolean", "null"}}
		case aggregate.Enum:
			enum := make([]any, 0, len(values)+1)
			for _, v := range values {
				enum = append(enum, v)
			}
			return obj{"type": []string{"string", "null"}, "enum": append(enum, nil)}
		}
		return obj{"type": []string{"string", "null"}}
	}
	keys := obj{}
	for _, k := range spec.Keys {
		switch k.Type {
		case aggregate.Ref:
			props := obj{"id": obj{"type": "string"}}
			for _, l := range k.Ref.Labels {
				props[l] = obj{"type": "string"}
				if l == "version" {
					props[l] = obj{"type": "integer"}
				}
			}
			keys[k.Name] = obj{"type": []string{"object", "null"}, "properties": props, "description": k.Description}
		case aggregate.Time:
			keys[k.Name] = obj{"type": []string{"string", "null"}, "format": "date-time", "description": "The bucket's first instant, with the zone's offset."}
		default:
			keys[k.Name] = typeOf(k.Type, k.Values)
		}
	}
	numbers, extremes := obj{}, obj{}
	for _, f := range spec.Fields {
		if f.Type != aggregate.Time {
			numbers[f.Name] = obj{"type": []string{"number", "null"}}
		}
		extremes[f.Name] = typeOf(f.Type, nil)
	}
	group := obj{"type": "object", "required": []string{"keys", "count"}, "properties": obj{
		"keys":  obj{"type": "object", "properties": keys, "description": "The grouped keys, in group_by order."},
		"count": obj{"type": "integer", "description": "Rows in the group."},
		"min":   obj{"type": "object", "properties": extremes},
		"max":   obj{"type": "object", "properties": extremes},
	}}
	if len(numbers) > 0 {
		group["properties"].(obj)["sum"] = obj{"type": "object", "properties": numbers}
		group["properties"].(obj)["avg"] = obj{"type": "object", "properties": numbers}
	}
	return obj{"type": "object", "required": []string{"data", "has_more"}, "properties": obj{
		"data":     obj{"type": "array", "items": group},
		"has_more": obj{"type": "boolean", "description": "More groups matched than limit."},
	}}
}
