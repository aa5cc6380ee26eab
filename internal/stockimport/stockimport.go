// Package stockimport reads a CSV file of stock (items) row by row and
// validates each row on its own, without touching the database: the service
// resolves SKUs and hub codes and inserts the rows.
//
// Columns (header row required, any order, names case-insensitive):
//
//	sku         required  the part's SKU
//	hub         required  the hub's code, e.g. AMS1
//	quantity    required  exact decimal ≥ 0 with up to 3 fractional digits
//	lot         optional  ≤ 64 characters
//	serial      optional  ≤ 64 characters
//	status      optional  available (default), quarantined or damaged
//	expires_at  optional  RFC 3339 time or YYYY-MM-DD (midnight UTC)
//
// Rows are numbered as records of the file with the header as row 1, so the
// first data row is row 2 (what a spreadsheet shows).
package stockimport

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"logistics/internal/decimal"
)

// Columns are the known columns, required ones first.
var Columns = []string{"sku", "hub", "quantity", "lot", "serial", "status", "expires_at"}

var required = []string{"sku", "hub", "quantity"}

// Statuses are the item statuses a row may give.
var Statuses = []string{"available", "quarantined", "damaged"}

// Row is one valid data row.
type Row struct {
	Row       int
	SKU       string
	Hub       string
	Quantity  decimal.Decimal
	Lot       string
	Serial    string
	Status    string
	ExpiresAt *time.Time
}

// RowError is why one row was refused.
type RowError struct {
	Row     int    `json:"row"`
	Column  string `json:"column,omitempty"`
	Message string `json:"message"`
}

func (e RowError) Error() string {
	if e.Column != "" {
		return fmt.Sprintf("row %d, %s: %s", e.Row, e.Column, e.Message)
	}
	return fmt.Sprintf("row %d: %s", e.Row, e.Message)
}

// HeaderError is a header row that cannot be used (missing or unknown columns).
type HeaderError struct{ Problems []string }

func (e *HeaderError) Error() string { return "header row: " + strings.Join(e.Problems, "; ") }

// Reader streams rows from a CSV file.
type Reader struct {
	csv *csv.Reader
	col map[string]int
	row int
}

// NewReader reads and checks the header row.
func NewReader(r io.Reader) (*Reader, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &HeaderError{Problems: []string{"the file is empty: a header row is required (" + strings.Join(Columns, ",") + ")"}}
	}
	if err != nil {
		return nil, &HeaderError{Problems: []string{err.Error()}}
	}
	rd := &Reader{csv: cr, col: map[string]int{}, row: 1}
	var problems []string
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")))
		known := false
		for _, c := range Columns {
			known = known || c == h
		}
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("unknown column %q (known: %s)", h, strings.Join(Columns, ", ")))
		case rd.has(h):
			problems = append(problems, fmt.Sprintf("column %q appears twice", h))
		default:
			rd.col[h] = i
		}
	}
	for _, c := range required {
		if !rd.has(c) {
			problems = append(problems, fmt.Sprintf("required column %q is missing", c))
		}
	}
	if len(problems) > 0 {
		return nil, &HeaderError{Problems: problems}
	}
	return rd, nil
}

func (rd *Reader) has(c string) bool { _, ok := rd.col[c]; return ok }

// Next returns the next row. A row that is not valid comes back as a
// non-empty []RowError with a zero Row; io.EOF ends the file; any other
// error is a broken file (the rest cannot be read).
func (rd *Reader) Next() (Row, []RowError, error) {
	rec, err := rd.csv.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			rd.row++
			return Row{}, []RowError{{Row: rd.row, Message: "malformed CSV: " + pe.Err.Error()}}, nil
		}
		return Row{}, nil, err
	}
	rd.row++
	n := rd.row
	var errs []RowError
	bad := func(col, format string, a ...any) {
		errs = append(errs, RowError{Row: n, Column: col, Message: fmt.Sprintf(format, a...)})
	}
	get := func(c string) string {
		i, ok := rd.col[c]
		if !ok || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	r := Row{Row: n, SKU: get("sku"), Hub: strings.ToUpper(get("hub")), Lot: get("lot"), Serial: get("serial"), Status: strings.ToLower(get("status"))}
	if r.SKU == "" {
		bad("sku", "is required")
	} else if len(r.SKU) > 64 || !utf8.ValidString(r.SKU) {
		bad("sku", "is not a valid SKU")
	}
	if r.Hub == "" {
		bad("hub", "is required")
	}
	if q := get("quantity"); q == "" {
		bad("quantity", "is required")
	} else if d, err := decimal.Parse(q); err != nil {
		bad("quantity", "%q is not a decimal number with at most 3 fractional digits", q)
	} else if d < 0 {
		bad("quantity", "must not be negative")
	} else {
		r.Quantity = d
	}
	if len(r.Lot) > 64 {
		bad("lot", "is longer than 64 characters")
	}
	if len(r.Serial) > 64 {
		bad("serial", "is longer than 64 characters")
	}
	if r.Status == "" {
		r.Status = "available"
	} else if r.Status != "available" && r.Status != "quarantined" && r.Status != "damaged" {
		bad("status", "%q is not one of %s", r.Status, strings.Join(Statuses, ", "))
	}
	if e := get("expires_at"); e != "" {
		t, err := time.Parse(time.RFC3339, e)
		if err != nil {
			t, err = time.Parse(time.DateOnly, e)
		}
		if err != nil {
			bad("expires_at", "%q is neither an RFC 3339 time nor a YYYY-MM-DD date", e)
		} else {
			t = t.UTC()
			r.ExpiresAt = &t
		}
	}
	if len(errs) > 0 {
		return Row{}, errs, nil
	}
	return r, nil, nil
}
