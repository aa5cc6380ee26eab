package decimal

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"
)

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Decimal
		out  string
	}{
		{"0", 0, "0"},
		{"12", 12000, "12"},
		{"0.1", 100, "0.1"},
		{"-0.125", -125, "-0.125"},
		{"1.500", 1500, "1.5"},
		{"1e2", 100000, "100"},
		{" 7 ", 7000, "7"},
		{"+3.25", 3250, "3.25"},
	} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			continue
		}
		if got.String() != tc.out {
			t.Errorf("String(%d) = %q; want %q", got, got.String(), tc.out)
		}
	}
	for _, bad := range []string{"", "abc", "1.2345", "1/3", "0x10", "1_000", "NaN", "Inf", "1e40", "--1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestNoFloatDrift(t *testing.T) {
	sum := MustParse("0.1") + MustParse("0.2")
	if sum != MustParse("0.3") || sum.String() != "0.3" {
		t.Fatalf("0.1+0.2 = %s", sum)
	}
}

func TestJSON(t *testing.T) {
	var v struct{ Q Decimal }
	for _, in := range []string{`{"Q":0.3}`, `{"Q":"0.3"}`} {
		if err := json.Unmarshal([]byte(in), &v); err != nil || v.Q != 300 {
			t.Fatalf("Unmarshal(%s) = %d, %v", in, v.Q, err)
		}
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"Q":0.3}` {
		t.Fatalf("Marshal = %s", b)
	}
	if err := json.Unmarshal([]byte(`{"Q":0.0001}`), &v); err == nil {
		t.Fatal("four decimals accepted")
	}
	if err := json.Unmarshal([]byte(`{"Q":true}`), &v); err == nil {
		t.Fatal("a boolean accepted")
	}
}

func TestUnmarshalGQL(t *testing.T) {
	for _, in := range []any{json.Number("2.5"), "2.5", 2.5, Decimal(2500)} {
		var d Decimal
		if err := d.UnmarshalGQL(in); err != nil || d != 2500 {
			t.Errorf("UnmarshalGQL(%#v) = %d, %v", in, d, err)
		}
	}
	var d Decimal
	if err := d.UnmarshalGQL(true); err == nil {
		t.Error("UnmarshalGQL(true) accepted")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-0.001", "1e3", "abc", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(d.String())
		if err != nil || back != d {
			t.Fatalf("round trip %q → %s → %d, %v", s, d, back, err)
		}
	})
}

// FuzzString checks String (and so MarshalJSON and MarshalGQL, which share
// Append) against a reading of the value through math/big: the same number,
// in canonical form, and Parse gives the value back.
func FuzzString(f *testing.F) {
	for _, n := range []int64{0, 1, -1, 10, 100, 999, 1000, 1001, 1010, 1100, -1500, 123456789, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		d := Decimal(n)
		s := d.String()
		want := new(big.Rat).SetFrac(big.NewInt(n), big.NewInt(Scale)).FloatString(3)
		if strings.Contains(want, ".") {
			want = strings.TrimSuffix(strings.TrimRight(want, "0"), ".")
		}
		if s != want {
			t.Fatalf("String(%d) = %q, want %q", n, s, want)
		}
		if j, _ := d.MarshalJSON(); string(j) != s {
			t.Fatalf("MarshalJSON(%d) = %s, want %s", n, j, s)
		}
		var buf bytes.Buffer
		d.MarshalGQL(&buf)
		var sb strings.Builder // no spare buffer to borrow
		d.MarshalGQL(&sb)
		if buf.String() != s || sb.String() != s {
			t.Fatalf("MarshalGQL(%d) = %s and %s, want %s", n, buf.String(), sb.String(), s)
		}
		if d > -Max && d < Max {
			if back, err := Parse(s); err != nil || back != d {
				t.Fatalf("Parse(String(%d)) = %d, %v", n, back, err)
			}
		}
	})
}

// A bytes.Buffer with room gets the digits without an allocation.
func TestMarshalGQLNoAlloc(t *testing.T) {
	var buf bytes.Buffer
	buf.Grow(1024)
	d := MustParse("-1234.5")
	if n := testing.AllocsPerRun(100, func() { buf.Reset(); d.MarshalGQL(&buf) }); n != 0 {
		t.Errorf("%v allocations per MarshalGQL", n)
	}
	if buf.String() != "-1234.5" {
		t.Errorf("wrote %q", buf.String())
	}
}
