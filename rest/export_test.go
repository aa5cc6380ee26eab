package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"entgo.io/ent/dialect"

	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/export"
	"logistics/rest"
)

// exportCases are a filter and a sort for every list.
var exportCases = map[string]string{
	"/v1/hubs":                    "country=NL&sort=-name",
	"/v1/parts":                   "unit_weight_kg<5&sort=-part_name",
	"/v1/items":                   "hub[]=AMS1&hub[]=RTM2&sort=-quantity",
	"/v1/orders":                  "hub[]=AMS1&hub[]=BER3&sort=status",
	"/v1/orders/{shipped}/lines":  "quantity>0&sort=-quantity",
	"/v1/tracking-entries":        "carrier[]=DHL&carrier[]=UPS&sort=-occurred_at",
	"/v1/workflows":               "version>=1&sort=-version",
	"/v1/orders/{shipped}/events": "to_state!=nowhere&sort=transition",
	"/v1/events":                  "type[]=hub.created&type[]=order.transitioned&sort=-type",
}

// pagedList reads every page of a JSON list, limit rows at a time (by
// next_cursor, or by next_after for events read after= a sequence), and
// returns its rows as raw JSON.
func pagedList(t *testing.T, s *apptest.Server, url string, limit int) []json.RawMessage {
	t.Helper()
	var rows []json.RawMessage
	next := url + "&limit=" + fmt.Sprint(limit)
	for range 1000 {
		resp := s.Do(t, "GET", next, nil, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", next, resp.StatusCode, resp.Body)
		}
		var p struct {
			Data       []json.RawMessage `json:"data"`
			HasMore    bool              `json:"has_more"`
			NextCursor *string           `json:"next_cursor"`
			NextAfter  *int64            `json:"next_after"`
		}
		resp.JSON(t, &p)
		rows = append(rows, p.Data...)
		switch {
		case !p.HasMore:
			return rows
		case p.NextAfter != nil:
			next = afterParam.ReplaceAllString(url, fmt.Sprintf("after=%d", *p.NextAfter)) + "&limit=" + fmt.Sprint(limit)
		default:
			next = url + "&limit=" + fmt.Sprint(limit) + "&cursor=" + *p.NextCursor
		}
	}
	t.Fatal("too many pages")
	return nil
}

var afterParam = regexp.MustCompile(`after=\d+`)

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// cellMatches compares a CSV cell with the JSON value of its column: a
// scalar as its text (neutralised as the export does), null as an empty
// cell, an object or a list as JSON with the same meaning.
func cellMatches(t *testing.T, cell string, v any) bool {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return cell == ""
	case string:
		return cell == export.Neutralise(x)
	case json.Number:
		return cell == export.Neutralise(string(x))
	case bool:
		return cell == fmt.Sprint(x)
	}
	return cell != "" && reflect.DeepEqual(decodeJSON(t, []byte(cell)), v)
}

// checkCSV compares a CSV export with the rows of the JSON list.
func checkCSV(t *testing.T, body []byte, rows []json.RawMessage) {
	t.Helper()
	records, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, body)
	}
	if !bytes.Contains(body, []byte("\r\n")) {
		t.Fatalf("records not ended by CRLF (RFC 4180)")
	}
	header, records := records[0], records[1:]
	if len(records) != len(rows) {
		t.Fatalf("%d CSV rows, %d in the list", len(records), len(rows))
	}
	for i, raw := range rows {
		obj := decodeJSON(t, raw).(map[string]any)
		// Every member of the representation has its column(s).
		for k := range obj {
			covered := false
			for _, c := range header {
				covered = covered || c == k || strings.HasPrefix(c, k+".")
			}
			if !covered {
				t.Fatalf("member %s has no column in %v", k, header)
			}
		}
		for j, c := range header {
			if !cellMatches(t, records[i][j], lookup(obj, c)) {
				t.Fatalf("row %d column %s: %q, the list has %v", i, c, records[i][j], lookup(obj, c))
			}
		}
	}
}

// checkNDJSON compares an NDJSON export with the rows of the JSON list.
func checkNDJSON(t *testing.T, body []byte, rows []json.RawMessage) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	if len(rows) == 0 && len(body) == 0 {
		return
	}
	if len(lines) != len(rows) {
		t.Fatalf("%d NDJSON lines, %d in the list", len(lines), len(rows))
	}
	for i, raw := range rows {
		if !reflect.DeepEqual(decodeJSON(t, []byte(lines[i])), decodeJSON(t, raw)) {
			t.Fatalf("line %d: %s\nthe list: %s", i, lines[i], raw)
		}
	}
}

// TestExportEqualsList: every list's export, in both formats and through
// Accept as through format=, holds the same rows as its JSON pages, in the
// same order, for a filter and a sort; read two rows at a time, so every
// export spans several batches.
func TestExportEqualsList(t *testing.T) {
	defer rest.SetExportBatch(2)()
	f := newFixture(t)
	withMoreRows(t, f)
	cases := map[string]string{"/v1/events?after=5": "type=order.transitioned", "/v1/events?after=0": ""}
	for p, q := range exportCases {
		cases[p] = q
	}
	for path, query := range cases {
		t.Run(path, func(t *testing.T) {
			url := f.s.URL + f.expand(path) + sep(path) + query
			rows := pagedList(t, f.s, url, 2)
			if len(rows) < 2 {
				t.Fatalf("%d rows: the case proves little", len(rows))
			}
			// The list's own export operation (<list>/export) answers the same.
			p, q, _ := strings.Cut(f.expand(path), "?")
			exportURL := f.s.URL + p + "/export?" + strings.Trim(q+"&"+query, "&")
			for _, tc := range []struct {
				format, accept, media string
				export                bool
			}{
				{"csv", "", "text/csv", false},
				{"", "text/csv", "text/csv", false},
				{"ndjson", "", "application/x-ndjson", false},
				{"", "application/x-ndjson", "application/x-ndjson", false},
				{"csv", "", "text/csv", true},
				{"", "", "text/csv", true},
				{"", "*/*", "text/csv", true},
				{"ndjson", "", "application/x-ndjson", true},
				{"", "application/x-ndjson", "application/x-ndjson", true},
			} {
				u, h := url, http.Header{}
				if tc.export {
					u = exportURL
				}
				if tc.format != "" {
					u += "&format=" + tc.format
				} else if tc.accept != "" {
					h.Set("Accept", tc.accept)
				}
				resp := f.s.Do(t, "GET", u+"&limit=1&cursor=ignored", nil, h)
				if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.media) {
					t.Fatalf("%s: %d %s %s", u, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Body)
				}
				if cd := resp.Header.Get("Content-Disposition"); (tc.format != "") != strings.HasPrefix(cd, "attachment; filename=") {
					t.Fatalf("Content-Disposition %q", cd)
				}
				if tc.media == "text/csv" {
					checkCSV(t, resp.Body, rows)
				} else {
					checkNDJSON(t, resp.Body, rows)
				}
			}
		})
	}
}

// TestExportNeutralisesFormulas: cells a spreadsheet would run as a formula
// start with an apostrophe in CSV; numbers stay numbers; NDJSON is JSON and
// keeps the text as it is.
func TestExportNeutralisesFormulas(t *testing.T) {
	s := apptest.New(t)
	for _, p := range []map[string]any{
		{"sku": "F-1", "part_name": `=HYPERLINK("http://evil.example","x")`, "description": "+1+2"},
		{"sku": "F-2", "part_name": "@SUM(A1:A9)", "description": "-2+3"},
		{"sku": "F-3", "part_name": "\tcmd", "description": "\rcmd"},
		{"sku": "F-4", "part_name": "plain, \"quoted\"\nand on two lines", "description": "a=b"},
	} {
		if resp := s.Do(t, "POST", s.URL+"/v1/parts", p, nil); resp.StatusCode != http.StatusCreated {
			t.Fatalf("%d %s", resp.StatusCode, resp.Body)
		}
	}
	if resp := s.Do(t, "POST", s.URL+"/v1/hubs", map[string]any{"code": "CPT1", "name": "-Cape Town", "latitude": -33.92, "longitude": 18.42,
		"address": map[string]any{"country": "ZA"}}, nil); resp.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s", resp.StatusCode, resp.Body)
	}
	cells := func(path string) map[string]string {
		resp := s.Do(t, "GET", s.URL+path, nil, nil)
		records, err := csv.NewReader(bytes.NewReader(resp.Body)).ReadAll()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v %s", resp.StatusCode, err, resp.Body)
		}
		out := map[string]string{}
		for _, r := range records[1:] {
			for j, c := range r {
				out[r[1]+"."+records[0][j]] = c
			}
		}
		return out
	}
	got := cells("/v1/parts?format=csv&sort=sku")
	for k, want := range map[string]string{
		"F-1.part_name": `'=HYPERLINK("http://evil.example","x")`, "F-1.description": "'+1+2",
		"F-2.part_name": "'@SUM(A1:A9)", "F-2.description": "'-2+3",
		"F-3.part_name": "'\tcmd", "F-3.description": "'\rcmd",
		"F-4.part_name": "plain, \"quoted\"\nand on two lines", "F-4.description": "a=b",
		"F-1.unit_weight_kg": "0",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	hub := cells("/v1/hubs?format=csv")
	if hub["CPT1.latitude"] != "-33.92" || hub["CPT1.name"] != "'-Cape Town" {
		t.Errorf("latitude %q, name %q", hub["CPT1.latitude"], hub["CPT1.name"])
	}
	resp := s.Do(t, "GET", s.URL+"/v1/parts?format=ndjson&sku=F-1", nil, nil)
	if !strings.Contains(string(resp.Body), `"part_name":"=HYPERLINK(\"http://evil.example\",\"x\")"`) {
		t.Errorf("NDJSON changed the text: %s", resp.Body)
	}
}

// TestExportScopes: an export needs what its list needs — the list's scope,
// and read scope on every type a filter goes through.
func TestExportScopes(t *testing.T) {
	s := apptest.New(t)
	key := func(scopes ...string) http.Header {
		secret, _, err := s.App.Auth.Store.CreateToken(context.Background(), auth.TokenInput{Name: strings.Join(scopes, " "), Environment: environment.Production, Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return apptest.Bearer(secret)
	}
	items, itemsHubs := key("items:read"), key("items:read", "hubs:read")
	for _, tc := range []struct {
		path   string
		header http.Header
		want   int
	}{
		{"/v1/items?format=csv", items, 200},
		{"/v1/items?format=ndjson&quantity>1", items, 200},
		{"/v1/hubs?format=csv", items, 403},
		{"/v1/orders?format=ndjson", items, 403},
		{"/v1/items?format=csv&hub=AMS1", items, 403},
		{"/v1/items?format=ndjson&sku=X", items, 403},
		{"/v1/items?format=csv&hub=AMS1", itemsHubs, 200},
		{"/v1/items?format=csv", apptest.Anonymous(), 401},
		{"/v1/events?format=csv", items, 200}, // the item events only
		{"/v1/events?format=csv&type[]=order.created", items, 403},
		{"/v1/events?format=ndjson&after=0&types[]=hub.created", items, 403},
		{"/v1/items/export", items, 200},
		{"/v1/items/export?format=ndjson&quantity>1", items, 200},
		{"/v1/hubs/export", items, 403},
		{"/v1/items/export?hub=AMS1", items, 403},
		{"/v1/items/export?hub=AMS1", itemsHubs, 200},
		{"/v1/items/export", apptest.Anonymous(), 401},
		{"/v1/events/export", items, 200}, // the item events only
		{"/v1/events/export?type[]=order.created", items, 403},
	} {
		resp := s.Do(t, "GET", s.URL+tc.path, nil, tc.header)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.path, resp.StatusCode, tc.want, resp.Body)
		}
		if tc.want == 403 && !strings.Contains(resp.Header.Get("WWW-Authenticate"), "insufficient_scope") {
			t.Errorf("%s: WWW-Authenticate %q", tc.path, resp.Header.Get("WWW-Authenticate"))
		}
	}
	// An export of the log holds only the events the key may read.
	s.Create(t, environment.Production, "/v1/hubs", map[string]any{"code": "EXS1", "name": "x", "address": map[string]any{"country": "NL"}})
	s.Create(t, environment.Production, "/v1/parts", map[string]any{"sku": "EXS-1", "part_name": "x", "unit": "ea"})
	s.Create(t, environment.Production, "/v1/items", map[string]any{"sku": "EXS-1", "hub": "EXS1", "quantity": 1})
	for _, q := range []string{"format=csv", "format=ndjson&after=0"} {
		resp := s.Do(t, "GET", s.URL+"/v1/events?"+q, nil, items)
		if !strings.Contains(string(resp.Body), "item.created") || strings.Contains(string(resp.Body), "hub.created") {
			t.Errorf("/v1/events?%s with items:read: %.300s", q, resp.Body)
		}
	}
	// Through Accept, the same.
	h := items.Clone()
	h.Set("Accept", "text/csv")
	if resp := s.Do(t, "GET", s.URL+"/v1/items?hub=AMS1", nil, h); resp.StatusCode != 403 {
		t.Errorf("Accept: text/csv, hub filter without hubs:read: %d", resp.StatusCode)
	}
}

// TestExportNegotiation: format= wins over Accept; a format no list has is
// a 400 naming the parameter, an Accept allowing none a 406; neither is
// ever answered with JSON.
func TestExportNegotiation(t *testing.T) {
	s := apptest.New(t)
	for _, tc := range []struct {
		query, accept string
		want          int
		media, code   string
	}{
		{"", "", 200, "application/json", ""},
		{"", "*/*", 200, "application/json", ""},
		{"", "text/html,application/xhtml+xml,*/*;q=0.8", 200, "application/json", ""},
		{"", "text/csv, application/json", 200, "application/json", ""},
		{"", "application/json;q=0.5, text/csv", 200, "text/csv", ""},
		{"", "text/*", 200, "text/csv", ""},
		{"", "application/ndjson", 200, "application/x-ndjson", ""},
		{"format=json", "text/csv", 200, "application/json", ""},
		{"format=csv", "application/xml", 200, "text/csv", ""},
		{"", "application/xml", 406, "application/problem+json", "not_acceptable"},
		{"", "text/csv;q=0", 406, "application/problem+json", "not_acceptable"},
		{"format=xml", "", 400, "application/problem+json", "invalid_parameter"},
		{"format=CSV", "", 400, "application/problem+json", "invalid_parameter"},
		{"format=csv&format=ndjson", "", 400, "application/problem+json", "invalid_parameter"},
	} {
		h := http.Header{}
		if tc.accept != "" {
			h.Set("Accept", tc.accept)
		}
		for _, path := range []string{"/v1/hubs?", "/v1/events?"} {
			resp := s.Do(t, "GET", s.URL+path+tc.query, nil, h)
			if resp.StatusCode != tc.want || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.media) ||
				(tc.code != "" && !strings.Contains(string(resp.Body), `"code":"`+tc.code+`"`)) {
				t.Errorf("%s%s Accept %q: %d %s %s", path, tc.query, tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Body)
			}
		}
	}
	// An export operation answers CSV or NDJSON, never JSON.
	for _, tc := range []struct {
		query, accept string
		want          int
		media, code   string
	}{
		{"", "", 200, "text/csv", ""},
		{"", "text/html,application/xhtml+xml,*/*;q=0.8", 200, "text/csv", ""},
		{"", "application/json, application/x-ndjson;q=0.5", 200, "application/x-ndjson", ""},
		{"format=ndjson", "text/csv", 200, "application/x-ndjson", ""},
		{"", "application/json", 406, "application/problem+json", "not_acceptable"},
		{"format=json", "", 400, "application/problem+json", "invalid_parameter"},
		{"format=xml", "", 400, "application/problem+json", "invalid_parameter"},
	} {
		for _, path := range []string{"/v1/hubs/export?", "/v1/events/export?"} {
			resp := s.Do(t, "GET", s.URL+path+tc.query, nil, http.Header{"Accept": {tc.accept}})
			if resp.StatusCode != tc.want || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.media) ||
				(tc.code != "" && !strings.Contains(string(resp.Body), `"code":"`+tc.code+`"`)) {
				t.Errorf("%s%s Accept %q: %d %s %s", path, tc.query, tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Body)
			}
		}
	}
	// format is not a filter: it is never reported as ignored.
	if resp := s.Do(t, "GET", s.URL+"/v1/hubs?format=csv&colour=red", nil, nil); resp.Header.Get("X-Ignored-Filters") != "colour" {
		t.Errorf("X-Ignored-Filters %q", resp.Header.Get("X-Ignored-Filters"))
	}
	if resp := s.Do(t, "GET", s.URL+"/v1/events?after=0&wait=1s&format=csv", nil, nil); resp.StatusCode != 400 || !strings.Contains(string(resp.Body), `"field":"wait"`) {
		t.Errorf("wait with an export: %d %s", resp.StatusCode, resp.Body)
	}
	// The webhook lists (configuration, JSON only) refuse exports rather
	// than answer JSON in their place.
	for _, tc := range []struct {
		query, accept string
		want          int
	}{{"", "", 200}, {"format=json", "", 200}, {"format=csv", "", 406}, {"", "application/x-ndjson", 406}, {"format=xls", "", 400}} {
		resp := s.Do(t, "GET", s.URL+"/v1/webhook-endpoints?"+tc.query, nil, http.Header{"Accept": {tc.accept}})
		if resp.StatusCode != tc.want {
			t.Errorf("webhook endpoints ?%s Accept %q: %d %s", tc.query, tc.accept, resp.StatusCode, resp.Body)
		}
	}
}

// gate watches the statements that read items (a page of them: LIMIT),
// through the drivers it wraps: it counts them and can hold or fail one.
type gate struct {
	reads   atomic.Int64
	holdAt  int64         // the read to hold until release is closed (0: none)
	release chan struct{} // closed by the test
	failAt  int64         // the read to fail (0: none)
}

func (g *gate) wrap(d dialect.Driver) dialect.Driver { return &gatedDriver{d, g} }

type gatedDriver struct {
	dialect.Driver
	g *gate
}

// itemsPage matches a statement reading a page of items (SQLite quotes
// names with backticks, PostgreSQL with double quotes).
var itemsPage = regexp.MustCompile("FROM [`\"]items[`\"].* LIMIT ")

func (d *gatedDriver) Query(ctx context.Context, q string, args, v any) error {
	if g := d.g; itemsPage.MatchString(q) {
		n := g.reads.Add(1)
		if n == g.holdAt {
			select {
			case <-g.release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if n == g.failAt {
			return errors.New("injected failure")
		}
	}
	return d.Driver.Query(ctx, q, args, v)
}

// importItems adds n items at one hub through the CSV import.
func importItems(t *testing.T, s *apptest.Server, n int) {
	t.Helper()
	for _, body := range []map[string]any{
		{"code": "AMS1", "name": "Amsterdam", "address": map[string]any{"country": "NL"}},
	} {
		if resp := s.Do(t, "POST", s.URL+"/v1/hubs", body, nil); resp.StatusCode != 201 {
			t.Fatalf("%d %s", resp.StatusCode, resp.Body)
		}
	}
	if resp := s.Do(t, "POST", s.URL+"/v1/parts", map[string]any{"sku": "BOLT-M8", "part_name": "Bolt"}, nil); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, resp.Body)
	}
	var b strings.Builder
	b.WriteString("sku,hub,quantity,lot\n")
	for i := range n {
		fmt.Fprintf(&b, "BOLT-M8,AMS1,%d,L%05d\n", i+1, i)
	}
	resp := s.Do(t, "POST", s.URL+"/v1/items/import", b.String(), http.Header{"Content-Type": {"text/csv"}})
	if resp.StatusCode != 201 {
		t.Fatalf("import: %d %s", resp.StatusCode, resp.Body)
	}
}

// TestLargeExportStreamsInBatches: an export of 2,345 items reads them 500
// at a time (one statement per batch: the items with their parts' skus and
// hubs' codes; the count grows with the rows only by whole batches) and
// sends each batch
// before it reads the next: the client holds rows of the first batch while
// the server is held before reading the second. The server never has more
// than a batch.
func TestLargeExportStreamsInBatches(t *testing.T) {
	const n = 2345
	var counter apptest.StatementCounter
	g := &gate{release: make(chan struct{})}
	s := apptest.New(t, apptest.Options{Driver: func(d dialect.Driver) dialect.Driver { return g.wrap(counter.Wrap(d)) }})
	importItems(t, s, n)

	s.Do(t, "GET", s.URL+"/v1/status", nil, nil)
	counter.Reset()
	s.Do(t, "GET", s.URL+"/v1/status", nil, nil)
	overhead := counter.Count()

	for _, format := range []string{"csv", "ndjson"} {
		counter.Reset()
		g.reads.Store(0)
		resp := s.Do(t, "GET", s.URL+"/v1/items?quantity>0&format="+format, nil, nil)
		lines := bytes.Count(resp.Body, []byte("\n"))
		want := n
		if format == "csv" {
			want++ // the header
		}
		if resp.StatusCode != 200 || lines != want {
			t.Fatalf("%s: %d, %d lines, want %d", format, resp.StatusCode, lines, want)
		}
		batches := int64((n + 499) / 500)
		// One statement per batch: the items with their parts' skus and
		// hubs' codes (internal/view).
		if got := counter.Count() - overhead; got != batches || g.reads.Load() != batches {
			t.Errorf("%s: %d statements, %d item reads; want %d and %d", format, got, g.reads.Load(), batches, batches)
		}
	}

	// Streamed: the second read waits until the client has rows.
	g.reads.Store(0)
	g.holdAt = 2
	req, _ := http.NewRequest("GET", s.URL+"/v1/items?format=csv", nil)
	req.Header.Set("Authorization", "Bearer "+s.Keys[environment.Production])
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := range 2 { // the header and a first row, while the second batch is held
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	close(g.release)
	rest, err := io.ReadAll(br)
	if err != nil || bytes.Count(rest, []byte("\n")) != n-1 {
		t.Fatalf("rest of the export: %v, %d lines", err, bytes.Count(rest, []byte("\n")))
	}
}

// TestExportFailureIsNeverATruncation: when reading a batch fails after the
// export has begun, a CSV export's connection is closed before the response
// ends (the client's read fails: never a short file taken for a whole one),
// and an NDJSON export ends with an {"error": problem} line before the same.
// A failure before anything was sent is an ordinary problem response.
func TestExportFailureIsNeverATruncation(t *testing.T) {
	defer rest.SetExportBatch(2)()
	g := &gate{}
	s := apptest.New(t, apptest.Options{Driver: g.wrap})
	importItems(t, s, 7)
	get := func(format string, failAt int64) (*http.Response, []byte, error) {
		g.reads.Store(0)
		g.failAt = failAt
		req, _ := http.NewRequest("GET", s.URL+"/v1/items?format="+format, nil)
		req.Header.Set("Authorization", "Bearer "+s.Keys[environment.Production])
		resp, err := s.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}

	resp, body, err := get("csv", 2)
	if resp.StatusCode != 200 || err == nil || !strings.HasPrefix(string(body), "id,") {
		t.Fatalf("csv: %d, read error %v, %q", resp.StatusCode, err, body)
	}
	resp, body, err = get("ndjson", 3)
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	if resp.StatusCode != 200 || err == nil || len(lines) != 5 {
		t.Fatalf("ndjson: %d, read error %v, %d lines: %s", resp.StatusCode, err, len(lines), body)
	}
	var last struct {
		Error *struct {
			Status int    `json:"status"`
			Code   string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(lines[4]), &last) != nil || last.Error == nil || last.Error.Status != 500 || last.Error.Code != "internal" {
		t.Fatalf("last line %s", lines[4])
	}
	if strings.Contains(string(body), "injected failure") {
		t.Fatal("the error's internals reached the client")
	}

	for _, format := range []string{"csv", "ndjson"} {
		resp, body, err = get(format, 1)
		if resp.StatusCode != 500 || err != nil || resp.Header.Get("Content-Type") != "application/problem+json" || resp.Header.Get("Content-Disposition") != "" {
			t.Fatalf("%s, failing at once: %d %v %s %s", format, resp.StatusCode, err, resp.Header, body)
		}
	}
	g.failAt = 0
	if _, body, err = get("csv", 0); err != nil || bytes.Count(body, []byte("\n")) != 8 {
		t.Fatalf("after the failures: %v %s", err, body)
	}
}

// TestOpenAPIDocumentsExports: every list operation answers JSON only (a
// typed client needs no cast), with the 406; its export operation
// (<list>/export) documents the format parameter, both export media types
// and the 406.
func TestOpenAPIDocumentsExports(t *testing.T) {
	s := apptest.New(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name string } `json:"parameters"`
			Responses  map[string]struct {
				Content map[string]any `json:"content"`
				Ref     string         `json:"$ref"`
			} `json:"responses"`
		} `json:"paths"`
	}
	s.Do(t, "GET", s.URL+"/v1/openapi.json", nil, nil).JSON(t, &doc)
	placeholder := regexp.MustCompile(`\{\w+\}`)
	for _, ep := range listEndpoints {
		path := placeholder.ReplaceAllString(ep.path, "{id}")
		list, ok := doc.Paths[path]["get"]
		if !ok {
			t.Fatalf("no GET %s", path)
		}
		if c := list.Responses["200"].Content; len(c) != 1 || c["application/json"] == nil || list.Responses["406"].Ref != "#/components/responses/NotAcceptable" {
			t.Errorf("GET %s: 200 content %v, 406 %v", path, c, list.Responses["406"])
		}
		exp, ok := doc.Paths[path+"/export"]["get"]
		if !ok {
			t.Fatalf("no GET %s/export", path)
		}
		hasFormat := false
		for _, p := range exp.Parameters {
			hasFormat = hasFormat || p.Name == "format"
		}
		ok200 := exp.Responses["200"].Content
		if !hasFormat || len(ok200) != 2 || ok200["text/csv"] == nil || ok200["application/x-ndjson"] == nil ||
			exp.Responses["406"].Ref != "#/components/responses/NotAcceptable" {
			t.Errorf("GET %s/export: format parameter %v, 200 content %v, 406 %v", path, hasFormat, ok200, exp.Responses["406"])
		}
	}
}
