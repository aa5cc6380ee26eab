package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
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
			sameAsTokens(t, []byte(s))
		}
	})
}

// sameAsTokens fails the test when Check and the token-stream version it
// replaced answer b differently.
func sameAsTokens(t *testing.T, b []byte) {
	t.Helper()
	str := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	if got, want := str(Check(b)), str(checkTokens(b)); got != want {
		t.Fatalf("Check(%s) = %q, the token stream says %q", b, got, want)
	}
}

// TestCheckAsTokens: on random documents — nested objects and arrays,
// names repeated at random, escaped names equal to plain ones, strings
// with escapes and lone or paired surrogates, white space — Check answers
// as the token-stream version did, error paths included.
func TestCheckAsTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	strs := []string{`"a"`, `"b"`, `"\u0061"`, `"x\\u"`, `"\ud800"`, `"\udc00z"`, `"\ud83d\ude00"`, `"é"`, `""`, `"q\"r"`}
	var gen func(depth int) string
	gen = func(depth int) string {
		ws := []string{"", " ", "\n\t"}[r.IntN(3)]
		switch k := r.IntN(6); {
		case depth > 3 || k == 0:
			return ws + []string{"1", "-2.5e3", "true", "null", "false"}[r.IntN(5)]
		case k == 1:
			return strs[r.IntN(len(strs))]
		case k == 2:
			var parts []string
			for range r.IntN(4) {
				parts = append(parts, gen(depth+1))
			}
			return "[" + ws + strings.Join(parts, ws+","+ws) + "]"
		default:
			var parts []string
			for range r.IntN(5) {
				parts = append(parts, strs[r.IntN(len(strs))]+ws+":"+gen(depth+1))
			}
			return ws + "{" + strings.Join(parts, ",") + ws + "}"
		}
	}
	checked, refused := 0, 0
	for range 20000 {
		doc := []byte(gen(0))
		if !json.Valid(doc) {
			t.Fatalf("generated %s: not JSON", doc)
		}
		sameAsTokens(t, doc)
		checked++
		if Check(doc) != nil {
			refused++
		}
	}
	if refused == 0 || refused == checked {
		t.Fatalf("%d of %d documents refused: the generator does not cover both answers", refused, checked)
	}
}

// TestCheckManyMembers: an object of more members than the short list
// holds finds a repeated name wherever it is (here the first one again
// after 40, and a name escaped differently), and is checked in linear
// time (BenchmarkCheckManyMembers).
func TestCheckManyMembers(t *testing.T) {
	for _, tc := range []struct{ last, want string }{
		{`"k0"`, "k0: is given more than once"},
		{`"k\u0033\u0037"`, "k37: is given more than once"},
		{`"k40"`, ""},
	} {
		doc := manyMembers(40, tc.last)
		sameAsTokens(t, doc)
		got := ""
		if err := Check(doc); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("40 members then %s: %q, want %q", tc.last, got, tc.want)
		}
	}
}

// manyMembers is an object of members "k0" … "k<n-1>" and then last.
func manyMembers(n int, last string) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		b.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	b.WriteString(last + ":2}")
	return []byte(b.String())
}

// BenchmarkCheckManyMembers: 100,000 members in one object (about 1 MB).
func BenchmarkCheckManyMembers(b *testing.B) {
	doc := manyMembers(100000, `"last"`)
	for b.Loop() {
		if err := Check(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck: a GraphQL request body of W6's shape.
func BenchmarkCheck(b *testing.B) {
	body := []byte(`{"query":"query W6($id: ID!) { node(id: $id) { ... on Order { id number status hub { id code } lines { id quantity part { id sku } } } } }","variables":{"id":"ord_01JABCDEFGHJKMNPQRSTVWXYZ0"},"operationName":"W6"}`)
	for b.Loop() {
		if err := Check(body); err != nil {
			b.Fatal(err)
		}
	}
}

// checkTokens is the token-stream Check this package had before its byte
// walk, kept to compare the two: it reports the first duplicate member, invalid UTF-8 or lone surrogate
// escape in b, which must be valid JSON (check with json.Valid first).
func checkTokens(b []byte) error {
	if !utf8.Valid(b) {
		return &Error{Message: "the body is not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []tokenFrame // the open objects and arrays
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &Error{Message: "the body is not valid JSON"}
		}
		raw := b[start:dec.InputOffset()]
		var top *tokenFrame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, tokenFrame{object: t == '{', wantKey: true, keys: map[string]bool{}})
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].done()
			}
			continue
		case string:
			if top != nil && top.object && top.wantKey {
				top.key, top.wantKey = "", false
				if msg := surrogate(raw); msg != "" {
					return &Error{Path: strings.TrimSuffix(tokenPathOf(stack), "."), Message: "a member name " + msg}
				}
				top.key = t
				if top.keys[t] {
					return &Error{Path: tokenPathOf(stack), Message: "is given more than once"}
				}
				top.keys[t] = true
				continue
			}
			if msg := surrogate(raw); msg != "" {
				return &Error{Path: tokenPathOf(stack), Message: msg}
			}
		}
		if top != nil {
			top.done()
		}
	}
}

// frame is one open object or array.
type tokenFrame struct {
	object  bool
	wantKey bool            // an object: the next string is a member name
	keys    map[string]bool // an object: the member names read so far
	key     string          // an object: the member being read
	index   int             // an array: the element being read
}

func (f *tokenFrame) done() {
	if f.object {
		f.wantKey = true
	} else {
		f.index++
	}
}

// tokenPathOf names the value being read: "lines[2].sku".
func tokenPathOf(stack []tokenFrame) string {
	var b strings.Builder
	for i, f := range stack {
		switch {
		case !f.object:
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		case i == 0:
			b.WriteString(f.key)
		default:
			b.WriteString("." + f.key)
		}
	}
	return b.String()
}

func TestSyntaxErrorPosition(t *testing.T) {
	for _, c := range []struct {
		in                   string
		offset, line, column int
	}{
		{`{"a":1,}`, 7, 1, 8},
		{"{\n  \"a\": 1\n  \"b\": 2}", 13, 3, 3},
		{`{"a":`, 5, 1, 6},
		{`{"é": tru}`, 10, 1, 10}, // columns count characters, offsets bytes
		{`{"a":1} x`, 8, 1, 9},
	} {
		p := SyntaxError([]byte(c.in))
		if p == nil || p.Offset != c.offset || p.Line != c.line || p.Column != c.column {
			t.Errorf("%q: %+v, want offset %d line %d column %d", c.in, p, c.offset, c.line, c.column)
		}
	}
	if p := SyntaxError([]byte(`{"a":1}`)); p != nil {
		t.Errorf("valid JSON: %v", p)
	}
}
