package rest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/decimal"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/strictjson"
)

// Page sizes of list endpoints.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// fail writes err as problem+json.
func (d Deps) fail(w http.ResponseWriter, r *http.Request, err error) {
	apperr.Write(w, r, d.Log, err)
}

// writeResource writes one resource with its ETag (when it has one).
func writeResource(w http.ResponseWriter, status int, etag string, v any) {
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	WriteJSON(w, status, v)
}

// etag is the strong entity tag of a revision.
func etag(rev int) string { return `"` + strconv.Itoa(rev) + `"` }

// ifMatch reads If-Match into the revision the service must find: nil when
// absent or "*". A tag that is not one of ours can never match: 412.
func ifMatch(r *http.Request) (*int, error) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" || h == "*" {
		return nil, nil
	}
	h = strings.TrimPrefix(h, "W/")
	n, err := strconv.Atoi(strings.Trim(h, `"`))
	if err != nil || n < 1 || !strings.HasPrefix(h, `"`) || !strings.HasSuffix(h, `"`) {
		return nil, apperr.Precondition("If-Match %q does not match the current revision", truncate(h))
	}
	return &n, nil
}

// notModified answers 304 when If-None-Match names the current tag.
func notModified(w http.ResponseWriter, r *http.Request, tag string) bool {
	inm := r.Header.Get("If-None-Match")
	if inm == "" || tag == "" {
		return false
	}
	for t := range strings.SplitSeq(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == tag || t == "*" {
			w.Header().Set("ETag", tag)
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	return false
}

// headerSafe replaces what is not printable ASCII with "?".
func headerSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// pathID reads the {id} path value; an id of another type is a 404.
func pathID(r *http.Request, prefix, what string) (resourceid.ID, error) {
	s := r.PathValue("id")
	id, err := resourceid.Parse(s, prefix)
	if err != nil {
		return "", apperr.NotFound("%s %s not found", what, truncate(s))
	}
	return id, nil
}

// ---- request bodies ----

// renamed gives the field errors of err the body's names (names maps the
// model's to the body's: "country" → "address.country").
func renamed(err error, names map[string]string) error {
	var ae *apperr.Error
	if !errors.As(err, &ae) || len(ae.Fields) == 0 {
		return err
	}
	out := *ae
	out.Fields = make([]apperr.FieldError, len(ae.Fields))
	msgs := make([]string, len(ae.Fields))
	for i, f := range ae.Fields {
		if n, ok := names[f.Field]; ok {
			f.Field = n
		}
		out.Fields[i] = f
		msgs[i] = f.Field + ": " + f.Message
	}
	out.Message = strings.Join(msgs, "; ")
	return &out
}

// collect adds the field problems of a validation error to problems; any
// other error is returned as it is.
func collect(problems []apperr.FieldError, err error) ([]apperr.FieldError, error) {
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Kind == apperr.KindValidation {
		return append(problems, ae.Fields...), nil
	}
	return problems, err
}

// readBody checks the content type and reads at most max bytes.
func (d Deps) readBody(r *http.Request) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil, apperr.UnsupportedMedia("the body must be application/json, not %q", truncate(ct))
	}
	max := d.MaxBodyBytes
	if max <= 0 {
		max = 1 << 20
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apperr.TooLarge("the body is larger than %d bytes", max)
		}
		return nil, apperr.BadRequest("could not read the body")
	}
	if int64(len(b)) > max {
		return nil, apperr.TooLarge("the body is larger than %d bytes", max)
	}
	return b, nil
}

// decodeJSON decodes a JSON object into v (a pointer to a struct with json
// tags) strictly: an unknown member or a value of the wrong type is a 400
// naming the field (dotted, e.g. "lines[0].quantity"). It returns the
// members that were null (so PATCH can clear optional fields).
func decodeJSON(body []byte, v any) (nulls map[string]bool, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, apperr.BadRequest("the body is empty: send a JSON object")
	}
	if !json.Valid(body) {
		p := strictjson.SyntaxError(body)
		if p == nil { // json.Valid and encoding/json's decoder disagree: not expected
			return nil, apperr.BadRequest("the body is not valid JSON")
		}
		return nil, apperr.BadRequest("the body is not valid JSON: %s", p).
			WithDetail("offset", p.Offset).WithDetail("line", p.Line).WithDetail("column", p.Column)
	}
	// encoding/json keeps the last of two equal members and turns bad text
	// into U+FFFD: refuse both rather than guess.
	var se *strictjson.Error
	if err := strictjson.Check(body); errors.As(err, &se) {
		if se.Path == "" {
			return nil, apperr.BadRequest("%s", se.Message)
		}
		return nil, apperr.Invalid(truncate(se.Path), "%s", se.Message)
	}
	nulls = map[string]bool{}
	return nulls, decodeObject(body, reflect.ValueOf(v).Elem(), "", nulls)
}

var (
	timeType    = reflect.TypeOf(time.Time{})
	decimalType = reflect.TypeOf(decimal.Decimal(0))
)

func decodeObject(raw []byte, v reflect.Value, path string, nulls map[string]bool) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		name := strings.TrimSuffix(path, ".")
		if name == "" {
			return apperr.BadRequest("the body must be a JSON object")
		}
		return apperr.Invalid(name, "must be an object")
	}
	fields := map[string]int{}
	t := v.Type()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			fields[name] = i
		}
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := path + k
		i, ok := fields[k]
		if !ok {
			return apperr.Invalid(truncate(name), "unknown field; known fields: %s", strings.Join(sortedKeys(fields), ", "))
		}
		raw := members[k]
		if string(bytes.TrimSpace(raw)) == "null" {
			nulls[name] = true
			continue
		}
		fv := v.Field(i)
		ft := fv.Type()
		elem := ft
		if elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		switch {
		case elem.Kind() == reflect.Struct && elem != timeType:
			nv := reflect.New(elem)
			if err := decodeObject(raw, nv.Elem(), name+".", nulls); err != nil {
				return err
			}
			if ft.Kind() == reflect.Pointer {
				fv.Set(nv)
			} else {
				fv.Set(nv.Elem())
			}
		case elem.Kind() == reflect.Slice && elem.Elem().Kind() == reflect.Struct:
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return apperr.Invalid(name, "must be an array")
			}
			sl := reflect.MakeSlice(elem, len(items), len(items))
			for j, it := range items {
				if err := decodeObject(it, sl.Index(j), fmt.Sprintf("%s[%d].", name, j), nulls); err != nil {
					return err
				}
			}
			fv.Set(sl)
		default:
			if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
				return apperr.Invalid(name, "must be %s", describe(elem))
			}
			if elem.Kind() == reflect.String && strings.ContainsRune(reflect.Indirect(fv).String(), 0) {
				return apperr.Invalid(name, "must not contain NUL characters")
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func describe(t reflect.Type) string {
	switch {
	case t == timeType:
		return "an RFC 3339 time such as 2025-01-31T12:00:00Z"
	case t == decimalType:
		return "a decimal number with at most 3 fractional digits"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Int:
		return "an integer"
	case t.Kind() == reflect.Slice:
		return "an array"
	}
	return "a valid value"
}

// ---- lists ----

// page is a list request's paging: the page size, where to start and the order.
type page struct {
	first int
	after *ent.Cursor
	sort  []filter.SortKey
	key   string // the sort parameter, bound into cursors
}

// cursorJSON is the opaque REST cursor: ent's Relay cursor plus the sort it
// belongs to, so a cursor cannot be replayed under another order.
type cursorJSON struct {
	Sort   string `json:"s"`
	Cursor string `json:"c"`
}

// readPage reads the paging parameters of a list request; an export reads
// all the rows in the sort, so it ignores limit and cursor.
func readPage(r *http.Request, t *filter.Table, exporting bool) (page, error) {
	q, err := filter.Params(r.URL.RawQuery)
	if err != nil {
		return page{}, err
	}
	p := page{first: DefaultLimit, key: q["sort"]}
	if exporting {
		delete(q, "limit")
		delete(q, "cursor")
	}
	if s := q["limit"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxLimit || strconv.Itoa(n) != s {
			return p, apperr.Invalid("limit", "must be an integer from 1 to %d", MaxLimit)
		}
		p.first = n
	}
	if p.sort, err = t.ParseSort(p.key); err != nil {
		return p, err
	}
	if s := q["cursor"]; s != "" {
		bad := apperr.Invalid("cursor", "is not a cursor returned by this list")
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			return p, bad
		}
		var c cursorJSON
		if json.Unmarshal(b, &c) != nil || c.Cursor == "" {
			return p, bad
		}
		if c.Sort != p.key {
			return p, apperr.Invalid("cursor", "belongs to sort=%q: repeat the sort of the first page", truncate(c.Sort))
		}
		var ec ent.Cursor
		if err := ec.UnmarshalGQL(c.Cursor); err != nil || ec.ID == "" || !cursorFits(ec.Value, p.sort) {
			return p, bad
		}
		p.after = &ec
	}
	return p, nil
}

// cursorFits checks that a decoded cursor holds one value of the right type
// per sort key, so that a forged cursor is a 400, never a database error.
func cursorFits(v any, keys []filter.SortKey) bool {
	if len(keys) == 0 {
		vs, ok := v.([]any)
		return v == nil || (ok && len(vs) == 0)
	}
	vs, ok := v.([]any)
	if !ok || len(vs) != len(keys) {
		return false
	}
	for i, k := range keys {
		if vs[i] == nil && !k.Nullable {
			return false
		}
		if !valueFits(vs[i], k.Type) {
			return false
		}
	}
	return true
}

func valueFits(v any, t filter.Type) bool {
	switch v.(type) {
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return t == filter.Decimal || t == filter.Int || t == filter.Float
	case float32, float64:
		return t == filter.Float
	case string:
		return t == filter.String || t == filter.Enum || t == filter.ID
	case time.Time:
		return t == filter.Time
	case bool:
		return t == filter.Bool
	case nil:
		return t == filter.Time // a nullable time (expires_at, due_at): cursorFits checks the key
	}
	return false
}

// listJSON is the body of every list response.
type listJSON struct {
	Data       []any   `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
	// With Prefer: count=… (countpref.go): the list's matches, and what
	// kind of number that is (exact, at_least, estimate).
	TotalCount     *int   `json:"total_count,omitempty"`
	TotalCountKind string `json:"total_count_kind,omitempty"`
}

// encodeCursor is the next_cursor of a page that ends at c, in the order
// named by the sort parameter key.
func encodeCursor(key string, c *ent.Cursor) *string {
	var buf bytes.Buffer
	c.MarshalGQL(&buf)
	b, _ := json.Marshal(cursorJSON{Sort: key, Cursor: strings.Trim(buf.String(), `"`)})
	s := base64.RawURLEncoding.EncodeToString(b)
	return &s
}

// orderField is an ent <T>OrderField.
type orderField interface{ UnmarshalGQL(any) error }
