package strictjson

import (
	"encoding/json"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" when accepted
	}{
		{`{"a":1,"b":{"c":[1,{"d":"x"}]}}`, ""},
		{`{"a":1,"a":2}`, "a: is given more than once"},
		{`{"query":"{ a }","query":"{ b }"}`, "query: is given more than once"},
		{`{"a":{"b":1,"b":1}}`, "a.b: is given more than once"},
		{`{"lines":[{"sku":"x"},{"sku":"y","quantity":1,"sku":"z"}]}`, "lines[1].sku: is given more than once"},
		{`[{"a":1},{"a":1}]`, ""},
		{`{"a":{"x":1},"b":{"x":1}}`, ""},
		{`{"name":"\ud800"}`, `name: holds \ud800, half of a UTF-16 surrogate pair`},
		{`{"name":"a\udc00b"}`, `name: holds \udc00, half of a UTF-16 surrogate pair`},
		{`{"l":["ok","\ud83dx"]}`, `l[1]: holds \ud83d, half of a UTF-16 surrogate pair`},
		{`{"name":"\ud83d\ude00 \u00e9 \\ud800"}`, ""},
		{"{\"name\":\"\xff\"}", "the body is not valid UTF-8"},
		{`{"\ud800":1}`, `a member name holds \ud800, half of a UTF-16 surrogate pair`},
		{`{"a":{"\ud800":1}}`, `a: a member name holds \ud800, half of a UTF-16 surrogate pair`},
	} {
		if !json.Valid([]byte(tc.in)) {
			if tc.want != "the body is not valid UTF-8" {
				t.Fatalf("%s: not JSON", tc.in)
			}
		}
		err := Check([]byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Check(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[{"b":"\ud800"}]}`, `[1,[2,{"c":{}}]]`, `"x"`, `{"a":"\\u"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if json.Valid([]byte(s)) {
			_ = Check([]byte(s)) // must not panic
		}
	})
}
