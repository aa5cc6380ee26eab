package view

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// nasty is a string made of what JSON escaping must get right: control
// bytes, quotes and backslashes, HTML's <>&, DEL, U+2028/U+2029, other
// non-ASCII runes and bytes that are not UTF-8.
func nasty(r *rand.Rand) string {
	pieces := []string{
		"a", "Z", "0", " ", "\"", "\\", "/", "<", ">", "&", "\x7f", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f",
		"é", "日本", "😀", "\u2028", "\u2029", "\u2027", "\xff", "\xc3", "\xed\xa0\x80", "\xe2\x80", "\ufffd",
	}
	n := r.IntN(12)
	b := make([]byte, 0, 4*n)
	for range n {
		if r.IntN(5) == 0 {
			b = append(b, byte(r.IntN(256)))
		} else {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
	}
	return string(b)
}

func TestStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		s := nasty(r)
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
	for c := range 256 {
		s := string([]byte{byte(c)})
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("plain")
	f.Add("<script>\u2028\xff\"\\\n")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

func TestHelpersMatchEncodingJSON(t *testing.T) {
	s := "x<y"
	for _, c := range []struct {
		got []byte
		v   any
	}{
		{AppendStringOrNull(nil, nil), (*string)(nil)},
		{AppendStringOrNull(nil, &s), &s},
		{AppendInt(nil, -42), -42},
		{AppendBool(nil, true), true},
		{AppendStrings(nil, nil), []string(nil)},
		{AppendStrings(nil, []string{}), []string{}},
		{AppendStrings(nil, []string{"a", "<b>"}), []string{"a", "<b>"}},
	} {
		want, _ := json.Marshal(c.v)
		if string(c.got) != string(want) {
			t.Errorf("%#v: got %s, encoding/json %s", c.v, c.got, want)
		}
	}
}

type point struct{ X, Y int }

func (p point) AppendJSON(b []byte) []byte {
	b = append(b, `{"X":`...)
	b = AppendInt(b, p.X)
	b = append(b, `,"Y":`...)
	b = AppendInt(b, p.Y)
	return append(b, '}')
}

func TestArrayAndMarshal(t *testing.T) {
	for _, ps := range [][]point{nil, {}, {{1, 2}, {-3, 4}}} {
		want, _ := json.Marshal(ps)
		if got := AppendArray(nil, ps); string(got) != string(want) {
			t.Errorf("AppendArray(%v) = %s, encoding/json %s", ps, got, want)
		}
	}
	Register[point]()
	if got, ok := Append(nil, point{5, 6}); !ok || string(got) != `{"X":5,"Y":6}` {
		t.Errorf("Append(point) = %s, %v", got, ok)
	}
	// A pointer to a registered type is written as encoding/json writes it.
	for _, v := range []*point{{7, 8}, nil} {
		want, _ := json.Marshal(v)
		if got, ok := Append(nil, v); !ok || string(got) != string(want) {
			t.Errorf("Append(%v) = %s, %v; encoding/json %s", v, got, ok, want)
		}
	}
	// A struct embedding a registered type has its AppendJSON (promoted)
	// but no writer: encoding/json writes all its fields.
	type labelled struct {
		point
		Label string
	}
	if _, ok := Append(nil, labelled{point{1, 2}, "a"}); ok {
		t.Error("Append wrote a struct that embeds a registered type")
	}
	got, err := Marshal(labelled{point{1, 2}, "a"})
	if err != nil || string(got) != `{"X":1,"Y":2,"Label":"a"}` {
		t.Errorf("Marshal(labelled) = %s, %v", got, err)
	}
	// A writer may decline; Append then returns b as it was.
	RegisterFunc(func(b []byte, v []int) ([]byte, bool) { return append(b, "nope"...), false })
	if got, ok := Append([]byte("x"), []int{1}); ok || string(got) != "x" {
		t.Errorf("a declined value: %q, %v", got, ok)
	}
}
