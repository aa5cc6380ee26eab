package rest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"reflect"
	"testing"

	"logistics/internal/view"
)

// appendable is every type with a registered writer but the page: one
// random value of each, many times over, must come out of view.Append
// exactly as it comes out of encoding/json. The filler sets every field
// (pointers and slices sometimes nil, strings sometimes empty for
// omitempty), so a field AppendJSON forgets, misnames or misorders fails
// here; a type registered later is tested without being listed.
func appendable(t *testing.T) []reflect.Type {
	var ts []reflect.Type
	for _, ty := range view.Registered() {
		// Pointers to registered types are registered with them; the
		// tests make their values from the types themselves.
		if ty != reflect.TypeFor[listJSON]() && ty.Kind() != reflect.Pointer {
			ts = append(ts, ty)
		}
	}
	if len(ts) < 10 {
		t.Fatalf("%d types registered, want the 10 of internal/view/jsonappend.go at least", len(ts))
	}
	return ts
}

func randomString(r *rand.Rand) string {
	pieces := []string{"a", "Z", "0", " ", "-", "\"", "\\", "<", ">", "&", "\x7f", "\n", "\x01",
		"é", "日本", "\u2028", "\u2029", "\xff", "\xed\xa0\x80"}
	if r.IntN(3) == 0 {
		return ""
	}
	b := []byte{}
	for range 1 + r.IntN(8) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return string(b)
}

func fill(t *testing.T, r *rand.Rand, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(randomString(r))
	case reflect.Int, reflect.Int64: // int64: decimal.Decimal
		switch r.IntN(6) {
		case 0:
			v.SetInt(0)
		case 1:
			if v.Kind() == reflect.Int64 {
				v.SetInt([]int64{math.MinInt64, math.MaxInt64, -1, 1000, 1500, 1}[r.IntN(6)])
				return
			}
			v.SetInt(-1)
		default:
			v.SetInt(r.Int64N(2_000_000_000) - 1_000_000_000)
		}
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(t, r, p.Elem())
		v.Set(p)
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), 1+r.IntN(3), 4)
			for i := range s.Len() {
				fill(t, r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, r, v.Field(i))
			}
		}
	default:
		t.Fatalf("fill: a field of kind %s: teach the filler (and AppendJSON) about it", v.Kind())
	}
}

func randomValue(t *testing.T, r *rand.Rand, ty reflect.Type) any {
	v := reflect.New(ty).Elem()
	fill(t, r, v)
	return v.Interface()
}

func sameAsEncodingJSON(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := view.Append(nil, v)
	if !ok {
		t.Fatalf("%T: no writer", v)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%T:\njsonw         %s\nencoding/json %s", v, got, want)
	}
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	types := appendable(t)
	for _, ty := range types {
		for range 3000 {
			sameAsEncodingJSON(t, randomValue(t, r, ty))
		}
	}
	// Pages of them, as WriteJSON writes them.
	for range 500 {
		l := listJSON{HasMore: r.IntN(2) == 0}
		if r.IntN(5) > 0 {
			l.Data = []any{}
			for range r.IntN(4) {
				v := randomValue(t, r, types[r.IntN(len(types))])
				if r.IntN(2) == 0 { // pageJSON's elements point into a slice
					p := reflect.New(reflect.TypeOf(v))
					p.Elem().Set(reflect.ValueOf(v))
					v = p.Interface()
				}
				l.Data = append(l.Data, v)
			}
		}
		if r.IntN(2) == 0 {
			s := randomString(r)
			l.NextCursor = &s
		}
		if r.IntN(2) == 0 { // Prefer: count=…
			n := r.IntN(3000)
			l.TotalCount, l.TotalCountKind = &n, []string{"exact", "at_least", "estimate"}[r.IntN(3)]
		}
		sameAsEncodingJSON(t, l)
	}
}

// Whatever has no writer goes through encoding/json: a page holding a value
// without one (hubs, workflows), a struct embedding a registered type (the
// events page embeds listJSON and adds next_after). WriteJSON's answer is
// encoding/json's bytes either way.
func TestWriteJSONEitherWay(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	order := randomValue(t, r, reflect.TypeFor[view.OrderJSON]())
	mixed := listJSON{Data: []any{randomValue(t, r, reflect.TypeFor[view.ItemJSON]()), map[string]string{"id": "hub_1"}}}
	if _, ok := view.Append(nil, mixed); ok {
		t.Fatal("a page with a map in it was written by view")
	}
	next := int64(7)
	events := eventsPageJSON{listJSON: listJSON{Data: []any{order}}, NextAfter: &next}
	for _, v := range []any{mixed, events, order, listJSON{Data: []any{order}}} {
		rec := httptest.NewRecorder()
		WriteJSON(rec, 201, v)
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(v); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 201 || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != want.String() {
			t.Fatalf("WriteJSON(%T): %d %q\n%s\nwant\n%s", v, rec.Code, rec.Header().Get("Content-Type"), rec.Body, want.String())
		}
	}
}
