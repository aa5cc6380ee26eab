package rest

import (
	"errors"
	"testing"

	"logistics/internal/apperr"
)

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"code":"A","address":{"city":"x"}}`, `{"lines":[{"quantity":"1.5"}]}`, `{"ship_to":[]}`, `{"lines":[1]}`, `{"expires_at":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, v := range []any{&hubIn{}, &partIn{}, &itemIn{}, &orderIn{}, &lineIn{}, &trackingIn{}} {
			_, err := decodeJSON([]byte(body), v)
			var ae *apperr.Error
			if err != nil && (!errors.As(err, &ae) || ae.Kind == apperr.KindInternal) {
				t.Fatalf("%T %q: %v", v, body, err)
			}
		}
	})
}

func TestDecodeJSONNames(t *testing.T) {
	var in orderIn
	_, err := decodeJSON([]byte(`{"hub":"A","lines":[{"sku":"X","quantity":1},{"quantity":true}]}`), &in)
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Fields[0].Field != "lines[1].quantity" {
		t.Fatalf("err = %v", err)
	}
	nulls, err := decodeJSON([]byte(`{"due_at":null,"ship_to":{"city":null}}`), &in)
	if err != nil || !nulls["due_at"] || !nulls["ship_to.city"] {
		t.Fatalf("nulls = %v, %v", nulls, err)
	}
}
