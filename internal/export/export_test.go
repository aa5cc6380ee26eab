package export_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"logistics/internal/apperr"
	"logistics/internal/export"
)

// negotiation is a case of a negotiation: an Accept header and a format
// parameter, and the format answered or the kind of the error.
type negotiation struct {
	accept, param string
	want          export.Format
	kind          apperr.Kind // of the error; 0: none
}

// checkNegotiations runs negotiate on every case.
func checkNegotiations(t *testing.T, cases []negotiation, negotiate func(accept, param string) (export.Format, error)) {
	t.Helper()
	for _, tc := range cases {
		f, err := negotiate(tc.accept, tc.param)
		var ae *apperr.Error
		if tc.kind != 0 {
			if !errors.As(err, &ae) || ae.Kind != tc.kind {
				t.Errorf("Accept %q format %q: %v, want kind %v", tc.accept, tc.param, err, tc.kind)
			}
			continue
		}
		if err != nil || f != tc.want {
			t.Errorf("Accept %q format %q: %v %v, want %v", tc.accept, tc.param, f, err, tc.want)
		}
	}
}

func TestNegotiate(t *testing.T) {
	checkNegotiations(t, []negotiation{
		{"", "", export.JSON, 0},
		{"application/json", "", export.JSON, 0},
		{"*/*", "", export.JSON, 0},
		{"text/csv", "", export.CSV, 0},
		{"text/csv; charset=utf-8", "", export.CSV, 0},
		{"TEXT/CSV", "", export.CSV, 0},
		{"text/*;q=0.9, application/json;q=0.8", "", export.CSV, 0},
		{"application/*", "", export.JSON, 0},
		{"application/x-ndjson", "", export.NDJSON, 0},
		{"application/ndjson;q=1, text/csv;q=0.5", "", export.NDJSON, 0},
		{"text/csv, application/x-ndjson", "", export.CSV, 0},          // a tie: the server's order
		{"text/csv;q=0, */*;q=0.1", "", export.JSON, 0},                // refused explicitly, the rest allowed
		{"application/xml", "", export.JSON, apperr.KindNotAcceptable}, // nothing it answers in
		{"text/csv;q=0", "", export.JSON, apperr.KindNotAcceptable},
		{"text/csv;q=2", "", export.JSON, apperr.KindNotAcceptable}, // a malformed range allows nothing
		{"garbage", "", export.JSON, apperr.KindNotAcceptable},
		{"application/xml", "csv", export.CSV, 0}, // the parameter wins
		{"text/csv", "json", export.JSON, 0},
		{"", "ndjson", export.NDJSON, 0},
		{"", "xlsx", export.JSON, apperr.KindBadRequest},
		{"", "Csv", export.JSON, apperr.KindBadRequest},
	}, export.Negotiate)
}

// NegotiateExport is Negotiate without JSON: what an export operation
// answers in.
func TestNegotiateExport(t *testing.T) {
	checkNegotiations(t, []negotiation{
		{"", "", export.CSV, 0},
		{"*/*", "", export.CSV, 0},
		{"application/json, */*;q=0.1", "", export.CSV, 0},
		{"application/x-ndjson", "", export.NDJSON, 0},
		{"application/ndjson;q=1, text/csv;q=0.5", "", export.NDJSON, 0},
		{"text/csv, application/x-ndjson", "", export.CSV, 0},
		{"application/json", "", export.CSV, apperr.KindNotAcceptable},
		{"text/csv;q=0, application/x-ndjson;q=0", "", export.CSV, apperr.KindNotAcceptable},
		{"application/json", "ndjson", export.NDJSON, 0},
		{"", "csv", export.CSV, 0},
		{"", "json", export.CSV, apperr.KindBadRequest},
		{"", "xlsx", export.CSV, apperr.KindBadRequest},
	}, export.NegotiateExport)
}

func TestNeutralise(t *testing.T) {
	for in, want := range map[string]string{
		"":            "",
		"plain":       "plain",
		"=1+1":        "'=1+1",
		"+1":          "'+1",
		"-1+1":        "'-1+1",
		"@SUM(A1)":    "'@SUM(A1)",
		"\tx":         "'\tx",
		"\rx":         "'\rx",
		"-12.5":       "-12.5",
		"-1e-7":       "-1e-7",
		"-":           "'-",
		"-1 ":         "'-1 ",
		"a=b":         "a=b",
		"2025-01-01Z": "2025-01-01Z",
	} {
		if got := export.Neutralise(in); got != want {
			t.Errorf("Neutralise(%q) = %q, want %q", in, got, want)
		}
	}
}

type ref struct {
	ID   string `json:"id"`
	Code string `json:"code"`
}

type money int64

func (m money) MarshalJSON() ([]byte, error) { return []byte("12.5"), nil }

type row struct {
	ID       string            `json:"id"`
	Hub      ref               `json:"hub"`
	Opt      *ref              `json:"opt"`
	Amount   money             `json:"amount"`
	Lat      *float64          `json:"lat"`
	Big      float64           `json:"big"`
	Count    int               `json:"count"`
	OK       bool              `json:"ok"`
	Tags     []string          `json:"tags"`
	Extra    map[string]string `json:"extra"`
	Any      any               `json:"any"`
	Hidden   string            `json:"-"`
	internal string
}

func TestColumns(t *testing.T) {
	c := export.ColumnsOf[row]()
	wantNames := []string{"id", "hub.id", "hub.code", "opt.id", "opt.code", "amount", "lat", "big", "count", "ok", "tags", "extra", "any"}
	if !reflect.DeepEqual(c.Names(), wantNames) {
		t.Fatalf("names %v", c.Names())
	}
	lat := -33.92
	r := row{ID: "x", Hub: ref{"h1", "AMS1"}, Amount: 3, Lat: &lat, Big: 1e21, Count: -4, OK: true, Tags: []string{"a", "b"}, Any: map[string]any{"k": 1}, internal: "no"}
	got := c.Cells(nil, &r)
	want := []string{"x", "h1", "AMS1", "", "", "12.5", "-33.92", "1e+21", "-4", "true", `["a","b"]`, "", `{"k":1}`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cells\n%q\nwant\n%q", got, want)
	}
	if export.ColumnsOf[row]() != c {
		t.Fatal("the layout is worked out again")
	}
}

// TestWriterCSV: RFC 4180 records (CRLF, quoting), formulas neutralised,
// nothing sent before the first flush, and a failure before it is the
// caller's to answer.
func TestWriterCSV(t *testing.T) {
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/v1/items?format=csv", nil)
	ew := export.NewWriter(rec, r, export.CSV, export.Options{Filename: "items.csv"})
	if err := ew.Header([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if err := ew.Row(nil, []string{"x,y", "say \"hi\"\r\n=1"}); err != nil {
		t.Fatal(err)
	}
	if ew.Started() || rec.Body.Len() > 0 {
		t.Fatal("sent before the first flush")
	}
	if err := ew.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "a,b\r\n\"x,y\",\"say \"\"hi\"\"\r\n=1\"\r\n"
	if rec.Body.String() != want || rec.Code != http.StatusOK {
		t.Fatalf("%d %q", rec.Code, rec.Body.String())
	}
	if h := rec.Header(); h.Get("Content-Type") != "text/csv; charset=utf-8; header=present" || h.Get("Content-Disposition") != "attachment; filename=items.csv" {
		t.Fatalf("headers %v", h)
	}
	records, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	if err != nil || records[1][1] != "say \"hi\"\n=1" { // encoding/csv reads CRLF in a field as LF

		t.Fatalf("%v %q", err, records)
	}

	rec = httptest.NewRecorder()
	ew = export.NewWriter(rec, r, export.NDJSON, export.Options{})
	_ = ew.Row(map[string]int{"n": 1}, nil)
	boom := errors.New("boom")
	if err := ew.Fail(boom); err != boom || rec.Body.Len() > 0 || rec.Header().Get("Content-Type") != "" {
		t.Fatalf("Fail before the start: %v, %q %v", err, rec.Body.String(), rec.Header())
	}
}
