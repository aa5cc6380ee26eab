// Package export streams rows as CSV (RFC 4180) or NDJSON: the format a
// client asks for (Negotiate), the CSV columns of a row type (ColumnsOf),
// and a Writer that sends rows in batches with constant memory, neutralises
// spreadsheet formulas and never ends a failed export as if it were whole.
// REST lists export through it (rest/export.go); so can anything else that
// produces rows (aggregates).
package export

import (
	"bufio"
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"logistics/internal/apperr"
	"logistics/internal/requestlog"
)

// Format is how a list is answered.
type Format int

// The formats: JSON is the paged list itself; CSV and NDJSON are exports.
const (
	JSON Format = iota
	CSV
	NDJSON
)

// Media types of the exports.
const (
	MediaCSV    = "text/csv"
	MediaNDJSON = "application/x-ndjson"
)

// Param is the query parameter that names a format (it wins over Accept),
// for links a browser follows.
const Param = "format"

var names = map[string]Format{"json": JSON, "csv": CSV, "ndjson": NDJSON}

// String is the format's name in the format parameter.
func (f Format) String() string {
	switch f {
	case CSV:
		return "csv"
	case NDJSON:
		return "ndjson"
	}
	return "json"
}

// MediaType is the Content-Type of the format.
func (f Format) MediaType() string {
	switch f {
	case CSV:
		return MediaCSV + "; charset=utf-8; header=present"
	case NDJSON:
		return MediaNDJSON
	}
	return "application/json"
}

// offers are the media types a list answers in, in the server's order of
// preference (it breaks ties of q): JSON, then CSV, then NDJSON.
var offers = []struct {
	typ string
	f   Format
}{
	{"application/json", JSON},
	{"text/csv", CSV},
	{"application/x-ndjson", NDJSON},
	{"application/ndjson", NDJSON}, // the name without x-, as some clients send it
}

// Negotiate picks the format of a list response: param (format=json, csv or
// ndjson; anything else is a 400) when given, otherwise the Accept header
// (RFC 9110 §12.5.1: the highest q wins, the most specific range gives a
// type its q, ties go to JSON). No Accept, or one that allows anything, is
// JSON; an Accept that allows none of them is a 406.
func Negotiate(accept, param string) (Format, error) {
	if param != "" {
		f, ok := names[param]
		if !ok {
			return JSON, apperr.Invalid(Param, "must be json, csv or ndjson, not %q", truncate(param))
		}
		return f, nil
	}
	if strings.TrimSpace(accept) == "" {
		return JSON, nil
	}
	best, ok := bestOffer(accept, JSON)
	if !ok {
		return JSON, apperr.NotAcceptable("this list answers in application/json, %s or %s (or ask with format=json|csv|ndjson), not %q",
			MediaCSV, MediaNDJSON, truncate(accept))
	}
	return best, nil
}

// NegotiateExport picks the format of an export operation (GET
// /v1/<list>/export), which answers in CSV or NDJSON only: param (csv or
// ndjson; json or anything else is a 400) when given, otherwise the Accept
// header as Negotiate reads it, ties going to CSV. No Accept, or one that
// allows anything, is CSV; an Accept that allows neither is a 406.
func NegotiateExport(accept, param string) (Format, error) {
	if param != "" {
		f, ok := names[param]
		if !ok || f == JSON {
			return CSV, apperr.Invalid(Param, "must be csv or ndjson, not %q (pages of JSON are the list's own operation)", truncate(param))
		}
		return f, nil
	}
	if strings.TrimSpace(accept) == "" {
		return CSV, nil
	}
	best, ok := bestOffer(accept, CSV, JSON)
	if !ok {
		return CSV, apperr.NotAcceptable("an export answers in %s or %s (or ask with format=csv|ndjson), not %q",
			MediaCSV, MediaNDJSON, truncate(accept))
	}
	return best, nil
}

// bestOffer is the offer accept ranks highest, leaving out the formats in
// without (ties go to the earlier offer); false when accept allows none.
func bestOffer(accept string, fallback Format, without ...Format) (Format, bool) {
	ranges := parseAccept(accept)
	best, bestQ := fallback, 0.0
	for _, o := range offers {
		if slices.Contains(without, o.f) {
			continue
		}
		if q := qualityOf(o.typ, ranges); q > bestQ {
			best, bestQ = o.f, q
		}
	}
	return best, bestQ > 0
}

type mediaRange struct {
	typ, sub string
	q        float64
}

func parseAccept(accept string) []mediaRange {
	var out []mediaRange
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue // a malformed range allows nothing
		}
		typ, sub, _ := strings.Cut(mt, "/")
		q := 1.0
		if s, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(s, 64); err != nil || q < 0 || q > 1 {
				continue
			}
		}
		out = append(out, mediaRange{typ, sub, q})
	}
	return out
}

// qualityOf is the q the most specific range matching typ gives it.
func qualityOf(typ string, ranges []mediaRange) float64 {
	t, s, _ := strings.Cut(typ, "/")
	q, spec := 0.0, 0
	for _, r := range ranges {
		n := 0
		switch {
		case r.typ == t && r.sub == s:
			n = 3
		case r.typ == t && r.sub == "*":
			n = 2
		case r.typ == "*" && r.sub == "*":
			n = 1
		}
		if n > spec {
			q, spec = r.q, n
		}
	}
	return q
}

// Neutralise keeps a spreadsheet from running a CSV cell as a formula
// (OWASP, CSV injection): a cell starting with =, +, -, @, a tab or a
// carriage return gets a leading apostrophe. A number (-12.5) is left as
// it is: it cannot be a formula, and a negative latitude stays a number.
func Neutralise(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if cell[0] == '-' && isNumber(cell) {
			return cell
		}
		return "'" + cell
	}
	return cell
}

// isNumber reports whether s is a JSON number.
func isNumber(s string) bool {
	if !json.Valid([]byte(s)) {
		return false
	}
	c := s[len(s)-1]
	return c >= '0' && c <= '9' && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Options adjust a Writer.
type Options struct {
	// Filename, when set, makes the response an attachment of that name
	// (Content-Disposition), for a link a browser follows.
	Filename string
	// WriteTimeout is how long each flush may take: the connection's write
	// deadline moves on with every batch, so a long export is bounded by its
	// progress, not by the server's write time-out (0: left as it is).
	WriteTimeout time.Duration
	Log          *slog.Logger
}

// Writer streams rows. Nothing reaches the client before the first flush
// (or a full buffer): until then a failure can still be answered with a
// problem document and its status.
type Writer struct {
	f    Format
	w    http.ResponseWriter
	r    *http.Request
	opt  Options
	wire *wire
	buf  *bufio.Writer
	enc  *json.Encoder
	line []byte // a CSV record being built
	rows int64
}

// bufferSize is what is held before it is sent (about one batch of rows).
const bufferSize = 64 << 10

// NewWriter prepares a CSV or NDJSON response to r.
func NewWriter(w http.ResponseWriter, r *http.Request, f Format, opt Options) *Writer {
	ew := &Writer{f: f, w: w, r: r, opt: opt}
	ew.wire = &wire{w: w, start: ew.start}
	ew.buf = bufio.NewWriterSize(ew.wire, bufferSize)
	ew.enc = json.NewEncoder(ew.buf)
	return ew
}

// Format is the writer's format.
func (ew *Writer) Format() Format { return ew.f }

// start sends the status and headers, with the first bytes.
func (ew *Writer) start() {
	h := ew.w.Header()
	h.Set("Content-Type", ew.f.MediaType())
	h.Set("X-Content-Type-Options", "nosniff")
	if ew.opt.Filename != "" {
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": ew.opt.Filename}))
	}
	ew.w.WriteHeader(http.StatusOK)
}

// Header writes the CSV header row (NDJSON has none).
func (ew *Writer) Header(columns []string) error {
	if ew.f != CSV {
		return nil
	}
	return ew.record(columns)
}

// record writes one CSV record as RFC 4180 says: fields separated by commas,
// quoted when they hold a comma, a quote, CR or LF (a quote doubled), the
// record ended by CRLF. (encoding/csv's writer drops a lone CR inside a
// field when it ends lines with CRLF.)
func (ew *Writer) record(fields []string) error {
	b := ew.line[:0]
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		if !strings.ContainsAny(f, ",\"\r\n") {
			b = append(b, f...)
			continue
		}
		b = append(b, '"')
		for j := 0; j < len(f); j++ {
			if f[j] == '"' {
				b = append(b, '"')
			}
			b = append(b, f[j])
		}
		b = append(b, '"')
	}
	b = append(b, '\r', '\n')
	ew.line = b
	_, err := ew.buf.Write(b)
	return err
}

// Row writes one row: v as a JSON line (NDJSON), or cells, neutralised, as
// a CSV record.
func (ew *Writer) Row(v any, cells []string) error {
	ew.rows++
	if ew.f != CSV {
		return ew.enc.Encode(v)
	}
	for i, c := range cells {
		cells[i] = Neutralise(c)
	}
	return ew.record(cells)
}

// Flush sends what is buffered and moves the write deadline on.
func (ew *Writer) Flush() error {
	if err := ew.buf.Flush(); err != nil {
		return err
	}
	if !ew.wire.started {
		ew.wire.begin()
	}
	rc := http.NewResponseController(ew.w)
	if ew.opt.WriteTimeout > 0 {
		_ = rc.SetWriteDeadline(time.Now().Add(ew.opt.WriteTimeout))
	}
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// Started reports whether the response has begun: after that, a failure
// can no longer change its status.
func (ew *Writer) Started() bool { return ew.wire.started }

// Fail ends an export that could not be completed. Before anything was sent
// it discards what is buffered and returns err, for the caller to answer
// with a problem document. Once the response has begun, a client must still
// be able to tell a failed export from a whole one: an NDJSON export ends
// with one line {"error": <problem>}, and then (CSV at once) the connection
// is closed without ending the response, so the transfer is incomplete
// (panic(http.ErrAbortHandler): net/http drops the connection and its
// chunked encoding never terminates). Fail does not return then.
func (ew *Writer) Fail(err error) error {
	if !ew.wire.started {
		ew.buf.Reset(ew.wire)
		return err
	}
	if ew.f == NDJSON {
		p, _ := apperr.ProblemOf(ew.r, err)
		_ = ew.enc.Encode(map[string]any{"error": p})
	}
	_ = ew.Flush()
	if log := ew.opt.Log; log != nil {
		ctx := ew.r.Context()
		msg, level := "export failed after it began: connection closed before the end", slog.LevelWarn
		if ctx.Err() != nil {
			msg, level = "export ended early: the client went away", slog.LevelInfo
		}
		log.Log(ctx, level, msg, "request_id", requestlog.ID(ctx), "path", ew.r.URL.Path, "format", ew.f.String(), "rows", ew.rows, "err", err)
	}
	panic(http.ErrAbortHandler)
}

// wire sends the status and headers before the first bytes.
type wire struct {
	w       http.ResponseWriter
	start   func()
	started bool
}

func (x *wire) begin() {
	x.started = true
	x.start()
}

func (x *wire) Write(p []byte) (int, error) {
	if !x.started {
		x.begin()
	}
	return x.w.Write(p)
}
