package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/decimal"
	"logistics/internal/environment"
)

// The aggregates (internal/aggregate through rest/aggregate.go and
// graph/aggregate.go), against real servers: run with LOGISTICS_TEST_POSTGRES
// for PostgreSQL.

// aggWorld is the fixture plus varied stock and shipments: quantities with
// thousandths, reservations (an allocated order), statuses, lots, expiry
// times, tracking entries spread over 2025 (both daylight-saving changes)
// with and without hubs.
func aggWorld(t *testing.T, rng *rand.Rand) *fixture {
	t.Helper()
	f := newFixture(t)
	skus, hubs := []string{"BOLT-M8", "NUT-M8", "OIL-5L"}, []string{"AMS1", "RTM2", "BER3"}
	statuses := []string{"available", "available", "quarantined", "damaged"}
	for range 36 {
		it := map[string]any{
			"sku": skus[rng.IntN(3)], "hub": hubs[rng.IntN(3)], "status": statuses[rng.IntN(4)],
			"quantity": decimal.Decimal(rng.Int64N(500_000)).String(), "lot": []string{"", "L1", "L2"}[rng.IntN(3)],
		}
		if rng.IntN(2) == 0 {
			it["expires_at"] = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(365*24*3600)) * time.Second).Format(time.RFC3339)
		}
		f.post(t, "/v1/items", it)
	}
	// Reservations: an order of bolts at AMS1, allocated.
	f.post(t, "/v1/items", map[string]any{"sku": "BOLT-M8", "hub": "AMS1", "quantity": "50.125"})
	o := f.post(t, "/v1/orders", map[string]any{"hub": "AMS1", "priority": "urgent", "lines": []any{map[string]any{"sku": "BOLT-M8", "quantity": "3.333"}}})
	for _, tr := range []string{"submit", "allocate"} {
		if r := f.s.Do(t, "POST", f.s.URL+"/v1/orders/"+o["id"].(string)+"/transitions", map[string]any{"transition": tr}, nil); r.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", tr, r.StatusCode, r.Body)
		}
	}
	carriers := []string{"DHL", "UPS", "PostNL"}
	tstatus := []string{"label_created", "in_transit", "delivered", "exception"}
	for range 40 {
		e := map[string]any{"order_id": f.ids[fmt.Sprintf("order%d", rng.IntN(3))], "tracking_number": "TN", "carrier": carriers[rng.IntN(3)],
			"status": tstatus[rng.IntN(4)], "occurred_at": time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(365*24*3600)) * time.Second).Format(time.RFC3339)}
		if rng.IntN(3) > 0 {
			e["hub"] = hubs[rng.IntN(3)]
		}
		f.post(t, "/v1/tracking-entries", e)
	}
	return f
}

// aggSeed is the seed of the random tests: AGG_SEED, or logged.
func aggSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("AGG_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (AGG_SEED=%d repeats this run)", seed, seed)
	return seed
}

// aggCase is one random aggregate request.
type aggCase struct {
	resource string // REST path segment: items, orders, tracking-entries
	filter   filterPair
	groupBy  []string
	bucket   string
	zone     string
	measures []string // "sum.quantity"
	having   string   // "count>=2" or ""
}

type filterPair struct{ rest, graphql string } // a REST filter and the same GraphQL where:

// aggResources describes what the random cases draw from, per resource.
var aggResources = map[string]struct {
	gqlField, gqlType string
	keys              []string // group_by keys (time keys need a bucket)
	times             []string
	fields            map[string][]string // function → fields
	filters           []filterPair
}{
	"items": {"itemAggregate", "Item", []string{"hub", "part", "status", "lot", "expires_at"}, []string{"expires_at"},
		map[string][]string{"sum": {"quantity", "reserved_quantity", "available_quantity"}, "avg": {"quantity", "available_quantity"},
			"min": {"quantity", "expires_at"}, "max": {"reserved_quantity", "expires_at", "created_at"}},
		[]filterPair{{"", `{}`}, {"quantity>=100", `{"quantityGTE":"100"}`}, {"hub[]=AMS1&hub[]=RTM2", `{"hasHubWith":[{"codeIn":["AMS1","RTM2"]}]}`},
			{"status!=damaged", `{"statusNEQ":"damaged"}`}, {"sku=BOLT-M8&quantity<250.5", `{"hasPartWith":[{"sku":"BOLT-M8"}],"quantityLT":"250.5"}`},
			{"lot=L1", `{"lot":"L1"}`}, {"expires_at>2025-06-01T00:00:00Z", `{"expiresAtGT":"2025-06-01T00:00:00Z"}`}}},
	"orders": {"orderAggregate", "Order", []string{"status", "hub", "priority", "workflow", "created_at"}, []string{"created_at"},
		map[string][]string{"min": {"created_at"}, "max": {"created_at", "due_at"}},
		[]filterPair{{"", `{}`}, {"priority[]!=normal", `{"priorityNotIn":["normal"]}`}, {"hub=AMS1", `{"hasHubWith":[{"code":"AMS1"}]}`}}},
	"tracking-entries": {"trackingEntryAggregate", "TrackingEntry", []string{"status", "carrier", "hub", "occurred_at"}, []string{"occurred_at"},
		map[string][]string{"min": {"occurred_at"}, "max": {"occurred_at"}},
		[]filterPair{{"", `{}`}, {"carrier=DHL", `{"carrier":"DHL"}`}, {"status[]=in_transit&status[]=delivered", `{"statusIn":["in_transit","delivered"]}`},
			{"hub[]!=AMS1", `{"not":{"hasHubWith":[{"codeIn":["AMS1"]}]}}`}, {"occurred_at<2025-07-01T00:00:00Z", `{"occurredAtLT":"2025-07-01T00:00:00Z"}`}}},
}

var zones = []string{"UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"}

func randomCase(rng *rand.Rand) aggCase {
	names := []string{"items", "orders", "tracking-entries"}
	res := names[rng.IntN(len(names))]
	r := aggResources[res]
	c := aggCase{resource: res, filter: r.filters[rng.IntN(len(r.filters))]}
	keys := slices.Clone(r.keys)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	c.groupBy = keys[:rng.IntN(3)]
	for _, k := range c.groupBy {
		if slices.Contains(r.times, k) {
			c.bucket = []string{"hour", "day", "week", "month"}[rng.IntN(4)]
			c.zone = zones[rng.IntN(len(zones))]
		}
	}
	for fn, fields := range r.fields {
		for _, f := range fields {
			if rng.IntN(2) == 0 {
				c.measures = append(c.measures, fn+"."+f)
			}
		}
	}
	sort.Strings(c.measures)
	if rng.IntN(4) == 0 {
		c.having = "count>=2"
	}
	return c
}

func (c aggCase) restURL() string {
	q := []string{}
	if c.filter.rest != "" {
		q = append(q, c.filter.rest)
	}
	if len(c.groupBy) > 0 {
		q = append(q, "group_by="+strings.Join(c.groupBy, ","))
	}
	if c.bucket != "" {
		q = append(q, "bucket="+c.bucket, "tz="+url.QueryEscape(c.zone))
	}
	byFn := map[string][]string{}
	for _, m := range c.measures {
		fn, f, _ := strings.Cut(m, ".")
		byFn[fn] = append(byFn[fn], f)
	}
	for _, fn := range []string{"sum", "avg", "min", "max"} {
		if len(byFn[fn]) > 0 {
			q = append(q, fn+"="+strings.Join(byFn[fn], ","))
		}
	}
	if c.having != "" {
		q = append(q, "having="+url.QueryEscape(c.having))
	}
	q = append(q, "limit=1000")
	return "/v1/" + c.resource + "/aggregate?" + strings.Join(q, "&")
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

var refLabels = map[string][]string{"hub": {"code"}, "part": {"sku"}, "order": {"number"}, "workflow": {"key", "version"}}

func (c aggCase) graphQL() string {
	r := aggResources[c.resource]
	args := []string{"where: $where", "first: 1000"}
	if len(c.groupBy) > 0 {
		var up []string
		for _, k := range c.groupBy {
			up = append(up, strings.ToUpper(k))
		}
		args = append(args, "groupBy: ["+strings.Join(up, ", ")+"]")
	}
	if c.bucket != "" {
		args = append(args, "bucket: "+strings.ToUpper(c.bucket), fmt.Sprintf("timeZone: %q", c.zone))
	}
	if c.having != "" {
		args = append(args, "having: [{aggregate: COUNT, op: GTE, value: 2}]")
	}
	var keys []string
	for _, k := range c.groupBy {
		if l, ok := refLabels[k]; ok {
			keys = append(keys, camel(k)+" { id "+strings.Join(l, " ")+" }")
		} else {
			keys = append(keys, camel(k))
		}
	}
	sel := "count"
	if len(keys) > 0 {
		sel += " keys { " + strings.Join(keys, " ") + " }"
	}
	byFn := map[string][]string{}
	for _, m := range c.measures {
		fn, f, _ := strings.Cut(m, ".")
		byFn[fn] = append(byFn[fn], camel(f))
	}
	for _, fn := range []string{"sum", "avg", "min", "max"} {
		if len(byFn[fn]) > 0 {
			sel += " " + fn + " { " + strings.Join(byFn[fn], " ") + " }"
		}
	}
	return "query($where: " + r.gqlType + "WhereInput) { " + r.gqlField + "(" + strings.Join(args, ", ") + ") { " + sel + " } }"
}

// group is one group in a comparable form: its keys and aggregates as
// canonical strings (decimals exact, times RFC 3339 as the API writes them).
type group struct {
	Keys   []string
	Count  int64
	Values map[string]string // "sum.quantity" → "12.5" or "null"
	order  []any             // the keys, for sorting expected groups
}

func (g group) String() string {
	var vs []string
	for k, v := range g.Values {
		vs = append(vs, k+"="+v)
	}
	sort.Strings(vs)
	return fmt.Sprintf("%v n=%d %v", g.Keys, g.Count, vs)
}

func canon(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		d, err := decimal.Parse(string(x))
		if err != nil {
			return "bad:" + string(x)
		}
		return d.String()
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case map[string]any: // a related record: its id and labels
		var parts []string
		for k, e := range x {
			parts = append(parts, k+":"+canon(e))
		}
		sort.Strings(parts)
		return strings.Join(parts, ",")
	}
	return fmt.Sprintf("%v", v)
}

func decodeNumbers(t *testing.T, b []byte, v any) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

// restGroups runs a case through REST.
func restGroups(t *testing.T, s *apptest.Server, c aggCase) []group {
	t.Helper()
	resp := s.Do(t, "GET", s.URL+c.restURL(), nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", c.restURL(), resp.StatusCode, resp.Body)
	}
	var body struct {
		Data []map[string]any
	}
	decodeNumbers(t, resp.Body, &body)
	var out []group
	for _, d := range body.Data {
		g := group{Values: map[string]string{}}
		keys, _ := d["keys"].(map[string]any)
		for _, k := range c.groupBy {
			g.Keys = append(g.Keys, canon(keys[k]))
		}
		n, _ := d["count"].(json.Number).Int64()
		g.Count = n
		for _, m := range c.measures {
			fn, f, _ := strings.Cut(m, ".")
			obj, _ := d[fn].(map[string]any)
			g.Values[m] = canon(obj[f])
		}
		out = append(out, g)
	}
	return out
}

// graphQLGroups runs a case through GraphQL.
func graphQLGroups(t *testing.T, s *apptest.Server, c aggCase) []group {
	t.Helper()
	q := c.graphQL()
	var where any
	if err := json.Unmarshal([]byte(c.filter.graphql), &where); err != nil {
		t.Fatal(err)
	}
	resp := s.Do(t, "POST", s.URL+"/graphql", map[string]any{"query": q, "variables": map[string]any{"where": where}}, nil)
	var body struct {
		Data   map[string][]map[string]any
		Errors []any
	}
	decodeNumbers(t, resp.Body, &body)
	if resp.StatusCode != http.StatusOK || len(body.Errors) > 0 {
		t.Fatalf("%s: %d %s", q, resp.StatusCode, resp.Body)
	}
	var out []group
	for _, d := range body.Data[aggResources[c.resource].gqlField] {
		g := group{Values: map[string]string{}}
		keys, _ := d["keys"].(map[string]any)
		for _, k := range c.groupBy {
			g.Keys = append(g.Keys, canon(keys[camel(k)]))
		}
		n, _ := d["count"].(json.Number).Int64()
		g.Count = n
		for _, m := range c.measures {
			fn, f, _ := strings.Cut(m, ".")
			obj, _ := d[fn].(map[string]any)
			g.Values[m] = canon(obj[camel(f)])
		}
		out = append(out, g)
	}
	return out
}

// listRows reads every row of a REST list with the filter, page by page.
func listRows(t *testing.T, s *apptest.Server, resource, filter string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	cursor := ""
	for {
		u := s.URL + "/v1/" + resource + "?limit=500"
		if filter != "" {
			u += "&" + filter
		}
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		resp := s.Do(t, "GET", u, nil, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, resp.Body)
		}
		var page struct {
			Data       []map[string]any
			NextCursor *string `json:"next_cursor"`
		}
		decodeNumbers(t, resp.Body, &page)
		rows = append(rows, page.Data...)
		if page.NextCursor == nil {
			return rows
		}
		cursor = *page.NextCursor
	}
}

// expectedGroups computes a case's groups in Go from the listed rows:
// buckets with Go's time zone rules, sums exact, avg rounded half up.
func expectedGroups(t *testing.T, c aggCase, rows []map[string]any) []group {
	t.Helper()
	loc := time.UTC
	if c.zone != "" {
		var err error
		if loc, err = time.LoadLocation(c.zone); err != nil {
			t.Fatal(err)
		}
	}
	type acc struct {
		keys []any
		n    int64
		vals map[string][]any
	}
	groups := map[string]*acc{}
	var names []string
	for _, row := range rows {
		var keys []any
		for _, k := range c.groupBy {
			keys = append(keys, rowKey(t, row, k, c.bucket, loc))
		}
		id := fmt.Sprint(keys)
		g := groups[id]
		if g == nil {
			g = &acc{keys: keys, vals: map[string][]any{}}
			groups[id] = g
			names = append(names, id)
		}
		g.n++
		seen := map[string]bool{}
		for _, m := range c.measures {
			_, f, _ := strings.Cut(m, ".")
			if v := rowValue(row, f); v != nil && !seen[f] {
				seen[f] = true
				g.vals[f] = append(g.vals[f], v)
			}
		}
	}
	if len(c.groupBy) == 0 && len(groups) == 0 {
		groups["[]"] = &acc{vals: map[string][]any{}}
		names = append(names, "[]")
	}
	var out []group
	for _, id := range names {
		a := groups[id]
		if c.having == "count>=2" && a.n < 2 {
			continue
		}
		g := group{Count: a.n, Values: map[string]string{}}
		for _, k := range a.keys {
			g.Keys = append(g.Keys, canonKey(k, loc))
		}
		for _, m := range c.measures {
			fn, f, _ := strings.Cut(m, ".")
			g.Values[m] = reduce(fn, a.vals[f])
		}
		g.order = a.keys
		out = append(out, g)
	}
	// The API's default order: the grouped keys ascending, nulls last.
	sort.SliceStable(out, func(i, j int) bool { return keyLess(out[i].order, out[j].order) })
	for i := range out {
		out[i].order = nil
	}
	return out
}

// rowKey is a row's value of a group key: a string, a related record's
// {id, label}, or a bucket's first instant.
func rowKey(t *testing.T, row map[string]any, k, bucket string, loc *time.Location) any {
	v := row[k]
	if m, ok := v.(map[string]any); ok { // hub, part: {id, code|sku}
		if m["id"] == nil {
			return nil
		}
		out := map[string]any{"id": m["id"]}
		for _, l := range refLabels[k] {
			out[l] = m[l]
		}
		return out
	}
	if bucket != "" && (k == "created_at" || k == "expires_at" || k == "occurred_at" || k == "due_at") {
		if v == nil {
			return nil
		}
		tm, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return bucketStart(tm, bucket, loc)
	}
	return v
}

// bucketStart is the first instant of t's bucket in loc, by Go's rules.
func bucketStart(t time.Time, bucket string, loc *time.Location) time.Time {
	l := t.In(loc)
	switch bucket {
	case "hour": // a whole local hour of elapsed time
		return l.Add(-time.Duration(l.Minute())*time.Minute - time.Duration(l.Second())*time.Second - time.Duration(l.Nanosecond()))
	case "day":
		return firstInstant(l.Year(), l.Month(), l.Day(), loc)
	case "week":
		d := time.Date(l.Year(), l.Month(), l.Day(), 12, 0, 0, 0, time.UTC).AddDate(0, 0, -((int(l.Weekday()) + 6) % 7))
		return firstInstant(d.Year(), d.Month(), d.Day(), loc)
	}
	return firstInstant(l.Year(), l.Month(), 1, loc)
}

// firstInstant is the first instant of a local date, found by walking
// minutes (a daylight-saving gap may swallow midnight).
func firstInstant(y int, m time.Month, d int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 12, 0, 0, 0, loc)
	for {
		p := t.Add(-time.Minute)
		if py, pm, pd := p.Date(); py != y || pm != m || pd != d {
			return t
		}
		t = p
	}
}

func canonKey(k any, loc *time.Location) string {
	if tm, ok := k.(time.Time); ok {
		return tm.In(loc).Format(time.RFC3339Nano)
	}
	return canon(k)
}

func keyLess(a, b []any) bool {
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return false // nulls last
		case y == nil:
			return true
		}
		var c int
		switch xv := x.(type) {
		case time.Time:
			c = xv.Compare(y.(time.Time))
		case map[string]any: // a related record sorts by its first label
			c = strings.Compare(fmt.Sprint(xv[refLabelOf(xv)]), fmt.Sprint(y.(map[string]any)[refLabelOf(xv)]))
		default:
			c = strings.Compare(fmt.Sprint(x), fmt.Sprint(y))
		}
		if c != 0 {
			return c < 0
		}
	}
	return false
}

func refLabelOf(m map[string]any) string {
	for _, l := range []string{"code", "sku", "number", "key"} {
		if _, ok := m[l]; ok {
			return l
		}
	}
	return "id"
}

func rowValue(row map[string]any, f string) any {
	return row[f]
}

// reduce computes an aggregate of listed values exactly.
func reduce(fn string, vals []any) string {
	if len(vals) == 0 {
		return "null"
	}
	if _, isTime := vals[0].(string); isTime {
		var best time.Time
		for i, v := range vals {
			tm, _ := time.Parse(time.RFC3339Nano, v.(string))
			if i == 0 || (fn == "min" && tm.Before(best)) || (fn == "max" && tm.After(best)) {
				best = tm
			}
		}
		return best.UTC().Format(time.RFC3339Nano)
	}
	var ds []decimal.Decimal
	for _, v := range vals {
		d, err := decimal.Parse(string(v.(json.Number)))
		if err != nil {
			return "bad"
		}
		ds = append(ds, d)
	}
	sum := new(big.Int)
	for _, d := range ds {
		sum.Add(sum, big.NewInt(int64(d)))
	}
	switch fn {
	case "sum":
		return decimal.Decimal(sum.Int64()).String()
	case "avg": // floor((2S + n) / 2n)
		n := big.NewInt(int64(len(ds)))
		num := new(big.Int).Add(new(big.Int).Mul(sum, big.NewInt(2)), n)
		return decimal.Decimal(new(big.Int).Div(num, new(big.Int).Mul(n, big.NewInt(2))).Int64()).String()
	case "min":
		return slices.Min(ds).String()
	}
	return slices.Max(ds).String()
}

func diffGroups(want, got []group) string {
	var b strings.Builder
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i].String()
		}
		if i < len(got) {
			g = got[i].String()
		}
		if w != g {
			fmt.Fprintf(&b, "  #%d want %s\n      got  %s\n", i, w, g)
		}
	}
	return b.String()
}

// TestAggregatesMatchTheLists is the property test: random filters,
// groupings (with buckets in random zones), aggregates and having, each
// through REST and GraphQL, equal what Go computes from the rows the list
// endpoint returns for the same filter — groups, values and order.
func TestAggregatesMatchTheLists(t *testing.T) {
	seed := aggSeed(t)
	rng := rand.New(rand.NewPCG(seed, 13))
	f := aggWorld(t, rng)
	for i := range 40 {
		c := randomCase(rng)
		want := expectedGroups(t, c, listRows(t, f.s, c.resource, c.filter.rest))
		rest := restGroups(t, f.s, c)
		if d := diffGroups(want, rest); d != "" {
			t.Errorf("case %d REST %s:\n%s", i, c.restURL(), d)
		}
		gql := graphQLGroups(t, f.s, c)
		if d := diffGroups(rest, gql); d != "" {
			t.Errorf("case %d GraphQL %s differs from REST:\n%s", i, c.graphQL(), d)
		}
	}
}

// TestAggregateParity: fixed requests, through both interfaces, with every
// feature at once (filters across relations, related keys, buckets in a
// zone, every function, having on avg at its rounding boundary, order by an
// aggregate, a limit).
func TestAggregateParity(t *testing.T) {
	f := aggWorld(t, rand.New(rand.NewPCG(1, 2)))
	for _, tc := range []struct {
		rest, graphql, field string
		keys                 []string
		measures             []string
	}{
		{"/v1/items/aggregate?hub[]=AMS1&hub[]=RTM2&quantity>0&group_by=hub,status&sum=quantity,available_quantity&avg=quantity&min=expires_at&max=reserved_quantity&having=sum.quantity>1&sort=-sum.quantity&limit=4",
			`{ itemAggregate(where: {hasHubWith: [{codeIn: ["AMS1", "RTM2"]}], quantityGT: 0}, groupBy: [HUB, STATUS], having: [{aggregate: SUM, field: QUANTITY, op: GT, value: 1}], orderBy: [{aggregate: SUM, field: QUANTITY, direction: DESC}], first: 4) {
			  keys { hub { id code } status } count sum { quantity availableQuantity } avg { quantity } min { expiresAt } max { reservedQuantity } } }`,
			"itemAggregate", []string{"hub", "status"}, []string{"sum.quantity", "sum.available_quantity", "avg.quantity", "min.expires_at", "max.reserved_quantity"}},
		{"/v1/tracking-entries/aggregate?group_by=occurred_at,carrier&bucket=week&tz=Europe/Paris&min=occurred_at&sort=-count,carrier",
			`{ trackingEntryAggregate(groupBy: [OCCURRED_AT, CARRIER], bucket: WEEK, timeZone: "Europe/Paris", orderBy: [{aggregate: COUNT, direction: DESC}, {key: CARRIER}]) { keys { occurredAt carrier } count min { occurredAt } } }`,
			"trackingEntryAggregate", []string{"occurred_at", "carrier"}, []string{"min.occurred_at"}},
		{"/v1/orders/aggregate?group_by=status,hub,priority,workflow&max=created_at",
			`{ orderAggregate(groupBy: [STATUS, HUB, PRIORITY, WORKFLOW]) { keys { status hub { id code } priority workflow { id key version } } count max { createdAt } } }`,
			"orderAggregate", []string{"status", "hub", "priority", "workflow"}, []string{"max.created_at"}},
		{"/v1/order-lines/aggregate?group_by=part&sum=quantity,allocated_quantity&avg=quantity",
			`{ orderLineAggregate(groupBy: [PART]) { keys { part { id sku } } count sum { quantity allocatedQuantity } avg { quantity } } }`,
			"orderLineAggregate", []string{"part"}, []string{"sum.quantity", "sum.allocated_quantity", "avg.quantity"}},
		{"/v1/events/aggregate?group_by=type,created_at&bucket=day&min=sequence&max=sequence",
			`{ eventAggregate(groupBy: [TYPE, CREATED_AT], bucket: DAY) { keys { type createdAt } count min { sequence } max { sequence } } }`,
			"eventAggregate", []string{"type", "created_at"}, []string{"min.sequence", "max.sequence"}},
		{"/v1/order-events/aggregate?group_by=transition,to_state", `{ orderEventAggregate(groupBy: [TRANSITION, TO_STATE]) { keys { transition toState } count } }`,
			"orderEventAggregate", []string{"transition", "to_state"}, nil},
		{"/v1/hubs/aggregate?group_by=country,active", `{ hubAggregate(groupBy: [COUNTRY, ACTIVE]) { keys { country active } count } }`,
			"hubAggregate", []string{"country", "active"}, nil},
		{"/v1/parts/aggregate?group_by=unit&sum=unit_weight_kg&max=unit_weight_kg", `{ partAggregate(groupBy: [UNIT]) { keys { unit } count sum { unitWeightKg } max { unitWeightKg } } }`,
			"partAggregate", []string{"unit"}, []string{"sum.unit_weight_kg", "max.unit_weight_kg"}},
		{"/v1/workflows/aggregate?group_by=key,built_in&max=version", `{ workflowAggregate(groupBy: [KEY, BUILT_IN]) { keys { key builtIn } count max { version } } }`,
			"workflowAggregate", []string{"key", "built_in"}, []string{"max.version"}},
	} {
		rc := aggCase{groupBy: tc.keys, measures: tc.measures}
		resp := f.s.Do(t, "GET", f.s.URL+tc.rest, nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", tc.rest, resp.StatusCode, resp.Body)
		}
		var rb struct{ Data []map[string]any }
		decodeNumbers(t, resp.Body, &rb)
		gr := f.s.Do(t, "POST", f.s.URL+"/graphql", map[string]any{"query": tc.graphql}, nil)
		var gb struct {
			Data   map[string][]map[string]any
			Errors []any
		}
		decodeNumbers(t, gr.Body, &gb)
		if len(gb.Errors) > 0 {
			t.Fatalf("%s: %s", tc.graphql, gr.Body)
		}
		rest, gql := groupsOf(rc, rb.Data, false), groupsOf(rc, gb.Data[tc.field], true)
		if len(rest) == 0 {
			t.Errorf("%s: no groups: the comparison shows nothing", tc.rest)
		}
		if d := diffGroups(rest, gql); d != "" {
			t.Errorf("%s ≠ GraphQL:\n%s", tc.rest, d)
		}
	}
}

func groupsOf(c aggCase, data []map[string]any, graphql bool) []group {
	name := func(s string) string {
		if graphql {
			return camel(s)
		}
		return s
	}
	var out []group
	for _, d := range data {
		g := group{Values: map[string]string{}}
		keys, _ := d["keys"].(map[string]any)
		for _, k := range c.groupBy {
			g.Keys = append(g.Keys, canon(keys[name(k)]))
		}
		g.Count, _ = d["count"].(json.Number).Int64()
		for _, m := range c.measures {
			fn, f, _ := strings.Cut(m, ".")
			obj, _ := d[fn].(map[string]any)
			g.Values[m] = canon(obj[name(f)])
		}
		out = append(out, g)
	}
	return out
}

// TestAggregateBucketsAcrossDST buckets tracking entries around both 2025
// changes in Europe/Paris (and one in America/New_York) by hour, day, week
// and month, through REST and GraphQL, against hand-written buckets.
func TestAggregateBucketsAcrossDST(t *testing.T) {
	f := newFixture(t)
	for _, at := range []string{
		// Spring forward: 2025-03-30 02:00 CET → 03:00 CEST (01:00Z).
		"2025-03-29T22:59:59Z", // 03-29 23:59:59 CET
		"2025-03-29T23:00:00Z", // 03-30 00:00 CET
		"2025-03-30T00:30:00Z", // 01:30 CET
		"2025-03-30T00:59:59Z", // 01:59:59 CET
		"2025-03-30T01:00:00Z", // 03:00 CEST
		"2025-03-30T01:30:00Z", // 03:30 CEST
		"2025-03-30T21:59:59Z", // 23:59:59 CEST: the 23-hour day's last second
		"2025-03-30T22:00:00Z", // 03-31 00:00 CEST
		// Fall back: 2025-10-26 03:00 CEST → 02:00 CET (01:00Z).
		"2025-10-25T22:00:00Z", // 10-26 00:00 CEST
		"2025-10-26T00:30:00Z", // 02:30 CEST
		"2025-10-26T01:30:00Z", // 02:30 CET: the same wall clock, an hour later
		"2025-10-26T22:59:59Z", // 23:59:59 CET: the 25-hour day's last second
		"2025-10-26T23:00:00Z", // 10-27 00:00 CET
	} {
		f.post(t, "/v1/tracking-entries", map[string]any{"order_id": f.ids["order1"], "tracking_number": "DST", "carrier": "DST", "status": "in_transit", "occurred_at": at})
	}
	for _, tc := range []struct {
		bucket, zone string
		want         map[string]int64 // bucket → count
	}{
		{"hour", "Europe/Paris", map[string]int64{
			"2025-03-29T23:00:00+01:00": 1, "2025-03-30T00:00:00+01:00": 1, "2025-03-30T01:00:00+01:00": 2,
			"2025-03-30T03:00:00+02:00": 2, "2025-03-30T23:00:00+02:00": 1, "2025-03-31T00:00:00+02:00": 1,
			"2025-10-26T00:00:00+02:00": 1, "2025-10-26T02:00:00+02:00": 1, "2025-10-26T02:00:00+01:00": 1,
			"2025-10-26T23:00:00+01:00": 1, "2025-10-27T00:00:00+01:00": 1}},
		{"day", "Europe/Paris", map[string]int64{
			"2025-03-29T00:00:00+01:00": 1, "2025-03-30T00:00:00+01:00": 6, "2025-03-31T00:00:00+02:00": 1,
			"2025-10-26T00:00:00+02:00": 4, "2025-10-27T00:00:00+01:00": 1}},
		{"week", "Europe/Paris", map[string]int64{
			"2025-03-24T00:00:00+01:00": 7, "2025-03-31T00:00:00+02:00": 1,
			"2025-10-20T00:00:00+02:00": 4, "2025-10-27T00:00:00+01:00": 1}},
		{"month", "Europe/Paris", map[string]int64{"2025-03-01T00:00:00+01:00": 8, "2025-10-01T00:00:00+02:00": 5}},
		{"day", "UTC", map[string]int64{"2025-03-29T00:00:00Z": 2, "2025-03-30T00:00:00Z": 6, "2025-10-25T00:00:00Z": 1, "2025-10-26T00:00:00Z": 4}},
		// New York is on EDT (-04:00) on all these days (its changes are
		// on March 9 and November 2): the same instants fall on other days.
		{"day", "America/New_York", map[string]int64{
			"2025-03-29T00:00:00-04:00": 6, "2025-03-30T00:00:00-04:00": 2,
			"2025-10-25T00:00:00-04:00": 3, "2025-10-26T00:00:00-04:00": 2}},
	} {
		rest := f.s.Do(t, "GET", f.s.URL+"/v1/tracking-entries/aggregate?carrier=DST&group_by=occurred_at&bucket="+tc.bucket+"&tz="+tc.zone, nil, nil)
		var rb struct {
			Data []struct {
				Keys struct {
					OccurredAt string `json:"occurred_at"`
				}
				Count int64
			}
		}
		rest.JSON(t, &rb)
		got := map[string]int64{}
		var order []string
		for _, d := range rb.Data {
			got[d.Keys.OccurredAt] = d.Count
			order = append(order, d.Keys.OccurredAt)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("REST %s in %s: %v, want %v", tc.bucket, tc.zone, got, tc.want)
		}
		if !slices.IsSortedFunc(order, func(a, b string) int {
			ta, _ := time.Parse(time.RFC3339, a)
			tb, _ := time.Parse(time.RFC3339, b)
			return ta.Compare(tb)
		}) {
			t.Errorf("REST %s in %s: buckets out of order: %v", tc.bucket, tc.zone, order)
		}
		var gb struct {
			Data struct {
				TrackingEntryAggregate []struct {
					Keys  struct{ OccurredAt string }
					Count int64
				}
			}
		}
		f.s.MustGraphQL(t, environment.Production, fmt.Sprintf(`{ trackingEntryAggregate(where: {carrier: "DST"}, groupBy: [OCCURRED_AT], bucket: %s, timeZone: %q) { keys { occurredAt } count } }`,
			strings.ToUpper(tc.bucket), tc.zone), nil, &gb.Data)
		gotGQL := map[string]int64{}
		for _, d := range gb.Data.TrackingEntryAggregate {
			gotGQL[d.Keys.OccurredAt] = d.Count
		}
		if fmt.Sprint(gotGQL) != fmt.Sprint(tc.want) {
			t.Errorf("GraphQL %s in %s: %v, want %v", tc.bucket, tc.zone, gotGQL, tc.want)
		}
	}
}

// TestAggregateScopes: aggregates need what the list needs — the
// resource's read scope, and the related type's for a filter through a
// relation — and grouping by a related record needs that type's read scope
// too, through both interfaces.
func TestAggregateScopes(t *testing.T) {
	f := newFixture(t)
	key := func(scopes ...string) http.Header {
		secret, _, err := f.s.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{Name: strings.Join(scopes, " "), Environment: environment.Production, Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return apptest.Bearer(secret)
	}
	items, itemsHubs, hubs := key("items:read"), key("items:read", "hubs:read"), key("hubs:read")
	allButTracking := key("hubs:read", "parts:read", "items:read", "orders:read", "workflows:read")
	for _, tc := range []struct {
		name   string
		header http.Header
		rest   string
		gql    string
		want   int // HTTP status of REST; GraphQL: 200 = no error, 403 = FORBIDDEN
	}{
		{"own scope", items, "/v1/items/aggregate?group_by=status&sum=quantity", `{ itemAggregate(groupBy: [STATUS]) { count sum { quantity } } }`, 200},
		{"connection totals", items, "/v1/items/aggregate", `{ items(first: 1) { aggregate { count } } }`, 200},
		{"without the resource's scope", hubs, "/v1/items/aggregate", `{ itemAggregate { count } }`, 403},
		{"connection totals without it", hubs, "/v1/items/aggregate?sum=quantity", `{ items(first: 1) { aggregate { count } } }`, 403},
		{"filter through a relation", items, "/v1/items/aggregate?hub=AMS1", `{ itemAggregate(where: {hasHubWith: [{code: "AMS1"}]}) { count } }`, 403},
		{"filter through a relation, with its scope", itemsHubs, "/v1/items/aggregate?hub=AMS1", `{ itemAggregate(where: {hasHubWith: [{code: "AMS1"}]}) { count } }`, 200},
		{"group by a related record", items, "/v1/items/aggregate?group_by=hub", `{ itemAggregate(groupBy: [HUB]) { count } }`, 403},
		{"group by a related record, with its scope", itemsHubs, "/v1/items/aggregate?group_by=hub", `{ itemAggregate(groupBy: [HUB]) { keys { hub { code } } count } }`, 200},
		{"events count what the key may read", allButTracking, "/v1/events/aggregate?group_by=type", `{ eventAggregate(groupBy: [TYPE]) { count } }`, 200},
		{"events of a type asked for by name need its scope", allButTracking, "/v1/events/aggregate?type=tracking_entry.created", `{ eventAggregate(where: {type: "tracking_entry.created"}) { count } }`, 403},
	} {
		r := f.s.Do(t, "GET", f.s.URL+tc.rest, nil, tc.header)
		if r.StatusCode != tc.want {
			t.Errorf("%s: REST %s: %d, want %d: %s", tc.name, tc.rest, r.StatusCode, tc.want, r.Body)
		}
		g := f.s.GraphQLWith(t, environment.Production, tc.gql, nil, tc.header)
		switch {
		case tc.want == 200 && len(g.Errors) > 0:
			t.Errorf("%s: GraphQL %s: %v", tc.name, tc.gql, g.Errors)
		case tc.want == 403 && (len(g.Errors) == 0 || g.Errors[0].Code() != "FORBIDDEN"):
			t.Errorf("%s: GraphQL %s: want FORBIDDEN, got %v %s", tc.name, tc.gql, g.Errors, g.Data)
		}
	}
}

// TestAggregateBadInput: unknown or misused names are 400s that name them,
// every input is bounded, and nothing reaches the database as a 500.
func TestAggregateBadInput(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("x", 3000)
	for _, tc := range []struct {
		url, code, field, detail string
	}{
		{"/v1/items/aggregate?group_by=hub,colour", "invalid_group_by", "group_by", `"colour"`},
		{"/v1/items/aggregate?sum=colour", "invalid_aggregate", "sum", `"colour"`},
		{"/v1/items/aggregate?avg=created_at", "invalid_aggregate", "avg", `"created_at"`},
		{"/v1/items/aggregate?max=lot", "invalid_aggregate", "max", `"lot"`},
		{"/v1/items/aggregate?having=median.quantity>1", "invalid_aggregate", "having", `"median"`},
		{"/v1/items/aggregate?having=sum.colour>1", "invalid_aggregate", "having", `"colour"`},
		{"/v1/items/aggregate?having=count~1", "invalid_parameter", "having", "count~1"},
		{"/v1/items/aggregate?having=count>1.5", "invalid_parameter", "having", "whole"},
		{"/v1/items/aggregate?having=max.created_at>yesterday", "invalid_parameter", "having", "RFC 3339"},
		{"/v1/items/aggregate?having=sum.quantity>2025-01-01T00:00:00Z", "invalid_parameter", "having", "decimal"},
		{"/v1/items/aggregate?sort=colour", "invalid_group_by", "sort", `"colour"`},
		{"/v1/items/aggregate?group_by=status&sort=hub", "invalid_group_by", "sort", `"hub"`},
		{"/v1/items/aggregate?sort=-sum.colour", "invalid_aggregate", "sort", `"colour"`},
		{"/v1/items/aggregate?group_by=created_at", "invalid_group_by", "bucket", "created_at"},
		{"/v1/items/aggregate?group_by=created_at&bucket=year", "invalid_group_by", "bucket", `"year"`},
		{"/v1/items/aggregate?group_by=status&bucket=day", "invalid_group_by", "bucket", "no time field"},
		{"/v1/items/aggregate?group_by=status,status", "invalid_group_by", "group_by", "twice"},
		{"/v1/items/aggregate?group_by=hub,part,status,lot,created_at,updated_at&bucket=day", "limit_exceeded", "group_by", "at most 5"},
		{"/v1/items/aggregate?tz=Mars/Olympus", "invalid_parameter", "tz", "Mars/Olympus"},
		{"/v1/items/aggregate?tz=Local", "invalid_parameter", "tz", "Local"},
		{"/v1/items/aggregate?tz=../../etc/passwd", "invalid_parameter", "tz", "IANA"},
		{"/v1/items/aggregate?limit=0", "invalid_parameter", "limit", "1 to 1000"},
		{"/v1/items/aggregate?limit=1001", "invalid_parameter", "limit", "1 to 1000"},
		{"/v1/items/aggregate?limit=1&limit=2", "invalid_parameter", "limit", "more than once"},
		{"/v1/items/aggregate?cursor=abc", "invalid_parameter", "cursor", "not paged"},
		{"/v1/items/aggregate?group_by=" + long, "limit_exceeded", "group_by", "2048"},
		{"/v1/items/aggregate?" + strings.Repeat("having=count>1&", 11), "limit_exceeded", "having", "at most 10"},
		{"/v1/items/aggregate?quantity>abc", "invalid_parameter", "quantity", "decimal"},
	} {
		r := f.s.Do(t, "GET", f.s.URL+tc.url, nil, nil)
		var p struct {
			Code   string
			Detail string
			Errors []struct{ Field string }
		}
		json.Unmarshal(r.Body, &p)
		if r.StatusCode != 400 || p.Code != tc.code || len(p.Errors) == 0 || p.Errors[0].Field != tc.field || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%.120s: %d %s; want 400 %s naming %s (%s)", tc.url, r.StatusCode, r.Body, tc.code, tc.field, tc.detail)
		}
	}
	// Unknown filters are ignored and named, as on the list.
	if r := f.s.Do(t, "GET", f.s.URL+"/v1/items/aggregate?colour=red", nil, nil); r.StatusCode != 200 || r.Header.Get("X-Ignored-Filters") != "colour" {
		t.Errorf("unknown filter: %d %q", r.StatusCode, r.Header.Get("X-Ignored-Filters"))
	}
	// GraphQL: the schema refuses unknown names; the core refuses misuse.
	for _, tc := range []struct{ q, reason string }{
		{`{ itemAggregate(groupBy: [COLOUR]) { count } }`, "GRAPHQL_VALIDATION_FAILED"},
		{`{ itemAggregate(groupBy: [CREATED_AT]) { count } }`, "invalid_group_by"},
		{`{ itemAggregate(having: [{aggregate: SUM, field: CREATED_AT, op: GT, value: 1}]) { count } }`, "invalid_aggregate"},
		{`{ itemAggregate(having: [{aggregate: SUM, op: GT, value: 1}]) { count } }`, "invalid_aggregate"},
		{`{ itemAggregate(having: [{aggregate: COUNT, op: GT}]) { count } }`, "invalid_parameter"},
		{`{ itemAggregate(groupBy: [STATUS], orderBy: [{key: HUB}]) { count } }`, "invalid_group_by"},
		{`{ itemAggregate(orderBy: [{key: HUB, aggregate: COUNT}]) { count } }`, "invalid_parameter"},
		{`{ itemAggregate(first: 1001) { count } }`, "invalid_parameter"},
		{`{ itemAggregate(first: 0) { count } }`, "invalid_parameter"},
		{`{ itemAggregate(timeZone: "Nowhere/Else") { count } }`, "invalid_parameter"},
		{`{ hubs { edges { node { items { aggregate { count } } } } } }`, "invalid_aggregate"},
		// An empty object inside a where input: a 400, for aggregates and lists alike (was INTERNAL).
		{`{ itemAggregate(where: {not: {}}) { count } }`, "invalid_parameter"},
		{`{ items(where: {and: [{}]}) { totalCount } }`, "invalid_parameter"},
	} {
		g := f.s.GraphQL(t, environment.Production, tc.q, nil)
		if len(g.Errors) == 0 || g.Errors[0].Code() != "BAD_USER_INPUT" || g.Errors[0].Extensions["reason"] != tc.reason {
			t.Errorf("%s: %v, want BAD_USER_INPUT %s", tc.q, g.Errors, tc.reason)
		}
	}
}

// TestAggregateExactDecimals: sums of thousandths are exact (0.1 + 0.2 is
// 0.3), avg rounds half up, and having on avg compares the rounded value.
func TestAggregateExactDecimals(t *testing.T) {
	f := newFixture(t)
	f.post(t, "/v1/hubs", map[string]any{"code": "DEC1", "name": "Decimals", "address": map[string]any{"country": "NL"}})
	for _, q := range []string{"0.1", "0.2", "0.001", "0.002"} {
		f.post(t, "/v1/items", map[string]any{"sku": "NUT-M8", "hub": "DEC1", "quantity": q})
	}
	// sum 0.303, avg 0.07575 → 0.076 (half up).
	for _, tc := range []struct {
		having string
		groups int
	}{{"", 1}, {"&having=avg.quantity>=0.076", 1}, {"&having=avg.quantity>0.076", 0}, {"&having=avg.quantity=0.076", 1}, {"&having=avg.quantity<0.076", 0}, {"&having=sum.quantity=0.303", 1}} {
		r := f.s.Do(t, "GET", f.s.URL+"/v1/items/aggregate?hub=DEC1&sum=quantity&avg=quantity"+tc.having, nil, nil)
		var body struct {
			Data []struct {
				Sum, Avg struct{ Quantity json.Number }
			}
		}
		decodeNumbers(t, r.Body, &body)
		if len(body.Data) != tc.groups {
			t.Errorf("%s: %d groups, want %d: %s", tc.having, len(body.Data), tc.groups, r.Body)
			continue
		}
		if tc.groups == 1 && (body.Data[0].Sum.Quantity != "0.303" || body.Data[0].Avg.Quantity != "0.076") {
			t.Errorf("%s: sum %s avg %s, want 0.303 and 0.076", tc.having, body.Data[0].Sum.Quantity, body.Data[0].Avg.Quantity)
		}
	}
	var g struct {
		ItemAggregate []struct {
			Sum, Avg struct{ Quantity json.Number }
		}
	}
	f.s.MustGraphQL(t, environment.Production, `{ itemAggregate(where: {hasHubWith: [{code: "DEC1"}]}) { sum { quantity } avg { quantity } } }`, nil, &g)
	if len(g.ItemAggregate) != 1 || g.ItemAggregate[0].Sum.Quantity != "0.303" || g.ItemAggregate[0].Avg.Quantity != "0.076" {
		t.Errorf("GraphQL: %+v", g)
	}
}

// TestAggregateStatementsAreConstant: one statement per aggregate request,
// whatever the number of groups, through both interfaces.
func TestAggregateStatementsAreConstant(t *testing.T) {
	var counter apptest.StatementCounter
	s := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	f := &fixture{s: s, ids: map[string]string{}}
	f.post(t, "/v1/hubs", map[string]any{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}})
	s.Do(t, "GET", s.URL+"/v1/status", nil, nil)
	counter.Reset()
	s.Do(t, "GET", s.URL+"/v1/status", nil, nil)
	overhead := counter.Count()
	for n := range 12 {
		sku := fmt.Sprintf("P-%02d", n)
		f.post(t, "/v1/parts", map[string]any{"sku": sku, "part_name": sku})
		f.post(t, "/v1/items", map[string]any{"sku": sku, "hub": "AMS1", "quantity": n + 1})
		if n == 1 || n == 11 {
			for _, tc := range []struct{ method, path, gql string }{
				{"GET", "/v1/items/aggregate?group_by=part,hub,created_at&bucket=hour&tz=Europe/Paris&sum=quantity&min=created_at", ""},
				{"POST", "/graphql", `{ itemAggregate(groupBy: [PART, HUB, CREATED_AT], bucket: HOUR, timeZone: "Europe/Paris") { keys { part { sku } hub { code } createdAt } sum { quantity } } }`},
				{"POST", "/graphql", `{ items(first: 5) { edges { node { id } } aggregate { count sum { quantity } } } }`},
			} {
				var body any
				if tc.gql != "" {
					body = map[string]any{"query": tc.gql}
				}
				counter.Reset()
				r := s.Do(t, tc.method, s.URL+tc.path, body, nil)
				if r.StatusCode != 200 || strings.Contains(string(r.Body), `"errors"`) {
					t.Fatalf("%s: %d %s", tc.path, r.StatusCode, r.Body)
				}
				want := int64(1)
				if tc.gql != "" && strings.Contains(tc.gql, "edges") {
					want = 2 // the page, and its totals
				}
				if got := counter.Count() - overhead; got != want {
					t.Errorf("%s %s with %d items: %d statements, want %d", tc.path, tc.gql, n+1, got, want)
				}
			}
		}
	}
}

// TestAggregateOverflow: a sum beyond what an exact decimal holds is a 422
// naming the problem, on both databases (SQLite's SUM fails, PostgreSQL's
// numeric is checked), never a 500; the average of the same rows is exact.
func TestAggregateOverflow(t *testing.T) {
	f := newFixture(t)
	var csv strings.Builder
	csv.WriteString("sku,hub,quantity\n")
	for range 9300 { // 9,300 × 10^12 > 9.22 × 10^15 (int64 thousandths)
		csv.WriteString("NUT-M8,RTM2,1000000000000\n")
	}
	if r := f.s.Do(t, "POST", f.s.URL+"/v1/items/import", csv.String(), http.Header{"Content-Type": {"text/csv"}}); r.StatusCode != http.StatusCreated {
		t.Fatalf("import: %d %.300s", r.StatusCode, r.Body)
	}
	r := f.s.Do(t, "GET", f.s.URL+"/v1/items/aggregate?hub=RTM2&sum=quantity", nil, nil)
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), `"code":"aggregate_overflow"`) {
		t.Errorf("sum: %d %s", r.StatusCode, r.Body)
	}
	g := f.s.GraphQL(t, environment.Production, `{ itemAggregate(where: {hasHubWith: [{code: "RTM2"}]}) { sum { quantity } } }`, nil)
	if len(g.Errors) == 0 || g.Errors[0].Extensions["reason"] != "aggregate_overflow" {
		t.Errorf("GraphQL sum: %v", g.Errors)
	}
	r = f.s.Do(t, "GET", f.s.URL+"/v1/items/aggregate?hub=RTM2&sku=NUT-M8&avg=quantity&max=quantity", nil, nil)
	if r.StatusCode != 200 || !strings.Contains(string(r.Body), `"avg":{"quantity":1000000000000},"max":{"quantity":1000000000000}`) {
		t.Errorf("avg: %d %s", r.StatusCode, r.Body)
	}
}

// TestAggregateExport: asked for CSV or NDJSON (Accept or format=), an
// aggregate answers every group (limit does not apply) through the lists'
// export writer: the same groups as the JSON answer, flattened in CSV,
// formulas neutralised; the same scopes and errors as the JSON answer.
func TestAggregateExport(t *testing.T) {
	f := newFixture(t)
	f.post(t, "/v1/items", map[string]any{"sku": "NUT-M8", "hub": "RTM2", "quantity": "1.5", "lot": "=HYPERLINK(\"x\")"})
	const q = "/v1/items/aggregate?group_by=hub,lot&sum=quantity&min=expires_at&sort=-count"
	r := f.s.Do(t, "GET", f.s.URL+q+"&limit=1000", nil, nil)
	var want struct{ Data []json.RawMessage }
	r.JSON(t, &want)
	if len(want.Data) < 4 {
		t.Fatalf("%d groups: %s", len(want.Data), r.Body)
	}

	nd := f.s.Do(t, "GET", f.s.URL+q+"&limit=1&format=ndjson", nil, nil)
	lines := strings.Split(strings.TrimSuffix(string(nd.Body), "\n"), "\n")
	if nd.StatusCode != 200 || nd.Header.Get("Content-Type") != "application/x-ndjson" || !strings.Contains(nd.Header.Get("Content-Disposition"), `filename=items-aggregate.ndjson`) {
		t.Errorf("ndjson: %d %v", nd.StatusCode, nd.Header)
	}
	if len(lines) != len(want.Data) {
		t.Fatalf("ndjson: %d lines for %d groups (limit must not apply):\n%s", len(lines), len(want.Data), nd.Body)
	}
	for i, l := range lines {
		if l != string(want.Data[i]) {
			t.Errorf("ndjson line %d: %s, want %s", i, l, want.Data[i])
		}
	}

	// The aggregate's export operation answers the same NDJSON.
	if ex := f.s.Do(t, "GET", f.s.URL+strings.Replace(q, "/aggregate?", "/aggregate/export?", 1)+"&format=ndjson", nil, nil); ex.StatusCode != 200 || string(ex.Body) != string(nd.Body) {
		t.Errorf("aggregate/export: %d %s\nwant %s", ex.StatusCode, ex.Body, nd.Body)
	}

	csv := f.s.Do(t, "GET", f.s.URL+q, nil, http.Header{"Accept": {"text/csv"}})
	if csv.StatusCode != 200 || !strings.HasPrefix(csv.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %v %s", csv.StatusCode, csv.Header, csv.Body)
	}
	records := strings.Split(strings.TrimSuffix(string(csv.Body), "\r\n"), "\r\n")
	if records[0] != "keys.hub.id,keys.hub.code,keys.lot,count,sum.quantity,min.expires_at" || len(records) != len(want.Data)+1 {
		t.Fatalf("csv: %d records, header %q:\n%s", len(records), records[0], csv.Body)
	}
	for i, g := range want.Data {
		var v struct {
			Keys struct {
				Hub struct{ ID, Code string }
				Lot string
			}
			Count int
			Sum   struct{ Quantity json.Number }
			Min   struct {
				ExpiresAt *string `json:"expires_at"`
			}
		}
		decodeNumbers(t, g, &v)
		lot := v.Keys.Lot
		if strings.HasPrefix(lot, "=") {
			lot = `"'` + strings.ReplaceAll(lot, `"`, `""`) + `"` // neutralised, then quoted
		}
		exp := ""
		if v.Min.ExpiresAt != nil {
			exp = *v.Min.ExpiresAt
		}
		if rec := fmt.Sprintf("%s,%s,%s,%d,%s,%s", v.Keys.Hub.ID, v.Keys.Hub.Code, lot, v.Count, v.Sum.Quantity, exp); records[i+1] != rec {
			t.Errorf("csv record %d: %s, want %s", i+1, records[i+1], rec)
		}
	}
	if !strings.Contains(string(csv.Body), `"'=HYPERLINK(""x"")"`) {
		t.Errorf("a formula was not neutralised:\n%s", csv.Body)
	}

	secret, _, err := f.s.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{Name: "items", Environment: environment.Production, Scopes: []string{"items:read"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url    string
		header http.Header
		status int
	}{
		{q + "&format=xml", nil, 400},
		{q, http.Header{"Accept": {"image/png"}}, 406},
		{"/v1/items/aggregate?group_by=colour&format=csv", nil, 400},
		{q + "&format=csv", apptest.Bearer(secret), 403}, // grouping by hub needs hubs:read
		{"/v1/items/aggregate?group_by=status&format=csv", apptest.Bearer(secret), 200},
		{"/v1/items/aggregate/export?group_by=status", apptest.Bearer(secret), 200},
		{strings.Replace(q, "/aggregate?", "/aggregate/export?", 1), apptest.Bearer(secret), 403},
		{strings.Replace(q, "/aggregate?", "/aggregate/export?", 1), http.Header{"Accept": {"application/json"}}, 406},
		{strings.Replace(q, "/aggregate?", "/aggregate/export?", 1) + "&format=json", nil, 400},
	} {
		if r := f.s.Do(t, "GET", f.s.URL+tc.url, nil, tc.header); r.StatusCode != tc.status {
			t.Errorf("%s %v: %d, want %d: %s", tc.url, tc.header, r.StatusCode, tc.status, r.Body)
		}
	}
}
