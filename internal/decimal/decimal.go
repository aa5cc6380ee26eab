// Package decimal holds exact quantities with up to three fractional digits.
//
// A Decimal is stored as a whole number of thousandths in an int64 column, so
// stock arithmetic is exact on SQLite and PostgreSQL alike: 0.1 + 0.2 is 0.3.
// It reads and writes as an unquoted JSON number ("12.5"), and parses numbers
// and strings exactly, refusing more than three fractional digits.
package decimal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is a fixed-point number in thousandths: Decimal(1500) is 1.5.
type Decimal int64

// Scale is the number of units in 1.
const Scale = 1000

// Max is the largest magnitude accepted from input (a trillion units).
const Max = Decimal(1_000_000_000_000 * Scale)

// ErrSyntax is returned for text that is not a decimal number.
var ErrSyntax = errors.New("not a decimal number")

// FromInt returns n units.
func FromInt(n int64) Decimal { return Decimal(n * Scale) }

// Parse reads a decimal such as "12", "-0.125" or "1e2" exactly.
func Parse(s string) (Decimal, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return 0, ErrSyntax
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/_") || strings.HasPrefix(strings.ToLower(strings.TrimLeft(s, "+-")), "0x") {
		return 0, ErrSyntax
	}
	r.Mul(r, big.NewRat(Scale, 1))
	if !r.IsInt() {
		return 0, errors.New("at most 3 decimal places")
	}
	n := r.Num()
	if !n.IsInt64() || n.Int64() > int64(Max) || n.Int64() < -int64(Max) {
		return 0, errors.New("out of range")
	}
	return Decimal(n.Int64()), nil
}

// MustParse is Parse for constants in code and tests.
func MustParse(s string) Decimal {
	d, err := Parse(s)
	if err != nil {
		panic(fmt.Sprintf("decimal.MustParse(%q): %v", s, err))
	}
	return d
}

// String formats d with no trailing zeros: "1.5", "-0.125", "3".
func (d Decimal) String() string {
	var buf [24]byte
	return string(d.Append(buf[:0]))
}

// Append appends the canonical form (String's) to b: the integer part, then
// a point and up to three decimals without trailing zeros.
func (d Decimal) Append(b []byte) []byte {
	n := int64(d)
	var u uint64
	if n < 0 {
		b = append(b, '-')
		u = uint64(-(n + 1)) + 1 // safe for MinInt64
	} else {
		u = uint64(n)
	}
	whole, frac := u/Scale, u%Scale
	b = strconv.AppendUint(b, whole, 10)
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	end := 3
	for digits[end-1] == '0' {
		end--
	}
	b = append(b, '.')
	return append(b, digits[:end]...)
}

// Float64 is for display and statistics only, never for arithmetic.
func (d Decimal) Float64() float64 { return float64(d) / Scale }

// MarshalJSON writes an unquoted JSON number.
func (d Decimal) MarshalJSON() ([]byte, error) { return d.Append(make([]byte, 0, 24)), nil }

// UnmarshalJSON accepts a JSON number or a string holding one.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := string(b)
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return ErrSyntax
		}
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalGQL implements graphql.Marshaler.
func (d Decimal) MarshalGQL(w io.Writer) {
	// Into the buffer's own spare room when it has some (a bytes.Buffer,
	// as gqlgen and the fast path use): no allocation per value.
	if ab, ok := w.(interface{ AvailableBuffer() []byte }); ok {
		_, _ = w.Write(d.Append(ab.AvailableBuffer()))
		return
	}
	_, _ = w.Write(d.Append(make([]byte, 0, 24)))
}

// UnmarshalGQL implements graphql.Unmarshaler. Variables arrive as
// json.Number (exact); inline literals may arrive as float64 or int64.
func (d *Decimal) UnmarshalGQL(v any) error {
	var (
		x   Decimal
		err error
	)
	switch t := v.(type) {
	case string:
		x, err = Parse(t)
	case json.Number:
		x, err = Parse(t.String())
	case int:
		x, err = Parse(strconv.Itoa(t))
	case int64:
		x, err = Parse(strconv.FormatInt(t, 10))
	case int32:
		x, err = Parse(strconv.FormatInt(int64(t), 10))
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return ErrSyntax
		}
		x, err = Parse(strconv.FormatFloat(t, 'f', -1, 64))
	case Decimal:
		x = t
	default:
		return fmt.Errorf("a Decimal must be a number or a string, not %T", v)
	}
	if err != nil {
		return err
	}
	*d = x
	return nil
}
