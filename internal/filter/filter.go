// Package filter turns a REST query string into the generated ent
// <T>WhereInput — the very type GraphQL's where: argument receives — so both
// interfaces filter through one core.
//
// The grammar is the source specification's §4.2:
//
//	f=v          exact match
//	f=*text*     case-insensitive substring match (ContainsFold)
//	f!=*text*    no case-insensitive substring match
//	f[]=a&f[]=b  IN
//	f[]!=a&f[]!=b NOT IN
//	f!=v         not equal
//	f<v f<=v f>v f>=v comparisons
//
// Filters are ANDed. The raw query string is parsed once: "quantity>=10"
// arrives as the key "quantity>" with the value "10", "quantity>10" has no
// "=" at all, and a percent-encoded operator means the same as a raw one.
// Fields not in the endpoint's table are ignored and reported; a known field
// with a malformed value is an apperr.Invalid naming the field and the type.
//
// Each endpoint's table (Hubs, Parts, …) lists its fields, their types,
// operators and sort keys; the OpenAPI document is generated from the same
// tables.
package filter

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
)

// Type is the type of a filterable field's values.
type Type string

// The value types.
const (
	String  Type = "string"
	Enum    Type = "enum"
	Decimal Type = "decimal"
	Int     Type = "integer"
	Float   Type = "number"
	Time    Type = "time"
	Bool    Type = "boolean"
	ID      Type = "id"
)

// Op is one operator of the grammar.
type Op string

// The operators.
const (
	Eq       Op = "="
	Ne       Op = "!="
	Lt       Op = "<"
	Lte      Op = "<="
	Gt       Op = ">"
	Gte      Op = ">="
	In       Op = "[]="
	NotIn    Op = "[]!="
	Contains Op = "=*…*"
)

// Operators returns the operators that fit a type.
func (t Type) Operators() []Op {
	switch t {
	case String:
		return []Op{Eq, Ne, In, NotIn, Contains, Lt, Lte, Gt, Gte}
	case Enum, ID:
		return []Op{Eq, Ne, In, NotIn}
	case Bool:
		return []Op{Eq, Ne}
	default: // Decimal, Int, Float, Time
		return []Op{Eq, Ne, In, NotIn, Lt, Lte, Gt, Gte}
	}
}

// Expect describes the values a type accepts, for error messages and docs.
func (t Type) Expect() string {
	switch t {
	case Decimal:
		return "a decimal number with at most 3 fractional digits"
	case Int:
		return "an integer"
	case Float:
		return "a number"
	case Time:
		return "an RFC 3339 time such as 2025-01-31T12:00:00Z"
	case Bool:
		return "true or false"
	case ID:
		return "an id"
	case Enum:
		return "one of the listed values"
	}
	return "a string"
}

// Field is one filterable (and possibly sortable) field of an endpoint.
type Field struct {
	Name        string   // the REST name, snake_case
	Type        Type     // the value type
	Where       string   // the WhereInput base name, e.g. "partName"; derived from Name when empty
	Edge        string   // when set, the field lives on an edge: "hasHubWith"
	Values      []string // enum values
	Prefix      string   // id prefix of ID fields
	Sort        string   // the ent OrderField ("QUANTITY"); "" when not sortable
	Nullable    bool     // may be null: sorts with the nulls last, and only as the first key
	Description string
}

// Table is the filter and sort table of one list endpoint.
type Table struct {
	Resource  string       // "items"
	WhereType reflect.Type // the ent <T>WhereInput the table builds
	Fields    []Field
}

// FieldScopes returns the read scopes a filter on f needs besides the
// endpoint's own: those of the related type when f filters through a
// relation (hub on items: hubs:read), from the policy table (auth).
func (t *Table) FieldScopes(f Field) []string {
	if f.Edge == "" {
		return nil
	}
	return auth.EdgeScopes(t.WhereType, f.Edge)
}

// Limits that keep a query within what every database accepts, so that an
// over-long or over-wide filter is the same 400 on SQLite and PostgreSQL and
// never a database error (SQLite refuses LIKE patterns over 50,000 bytes,
// more than 32,766 variables or expressions deeper than 1,000; PostgreSQL
// more than 65,535 parameters). GraphQL's where: inputs have the same limits
// (graph/inputlimits.go).
const (
	MaxConditions  = 64   // filters in one query string
	MaxValues      = 100  // values of one IN / NOT IN list
	MaxValueLength = 1000 // characters of one filter value
	MaxParamLength = 2048 // characters of a reserved parameter (a cursor is the longest)
)

// Reserved query parameters are not filters.
var Reserved = []string{"limit", "cursor", "sort", "format"}

// Field returns the named field.
func (t *Table) Field(name string) (Field, bool) {
	for _, f := range t.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// SortFields lists the REST names of the sortable fields.
func (t *Table) SortFields() []string {
	var out []string
	for _, f := range t.Fields {
		if f.Sort != "" {
			out = append(out, f.Name)
		}
	}
	return out
}

// SortKey is one key of a sort parameter.
type SortKey struct {
	Field string // the ent OrderField, "QUANTITY"
	Desc  bool
	Type  Type // the field's value type (to check cursors against)
	// Nullable: the field may be null (a cursor's value then is), and the
	// nulls come last in either direction.
	Nullable bool
}

// ParseSort reads "field,-field" against the table's sortable fields.
func (t *Table) ParseSort(s string) ([]SortKey, error) {
	if s == "" {
		return nil, nil
	}
	var keys []SortKey
	seen := map[string]bool{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		desc := strings.HasPrefix(part, "-")
		name := strings.TrimPrefix(strings.TrimPrefix(part, "-"), "+")
		if name == "id" && !desc {
			continue // id is always the final, ascending tiebreaker
		}
		f, ok := t.Field(name)
		if !ok || f.Sort == "" {
			return nil, apperr.Invalid("sort", "%q is not sortable; sortable fields: %s", name, strings.Join(t.SortFields(), ", "))
		}
		if seen[name] {
			return nil, apperr.Invalid("sort", "%q is given twice", name)
		}
		seen[name] = true
		if f.Nullable && len(keys) > 0 {
			return nil, apperr.Invalid("sort", "%q sorts only as the first key (its nulls come last, in either direction)", name)
		}
		keys = append(keys, SortKey{Field: f.Sort, Desc: desc, Type: f.Type, Nullable: f.Nullable})
	}
	return keys, nil
}

// Condition is one parsed filter, before it becomes a where input.
type Condition struct {
	Field  Field
	Op     Op
	Values []any // typed: string, decimal.Decimal, int, float64, time.Time, bool
}

// Parse reads the raw query string against the table. It returns the
// conditions, the names of the ignored (unknown) fields in the order they
// appear, and an *apperr.Error for a known field with a bad operator or value.
func (t *Table) Parse(rawQuery string) ([]Condition, []string, error) {
	var (
		conds   []Condition
		ignored []string
		in      = map[string]int{} // field+op → index in conds of its IN / NOT IN list
	)
	for seg := range strings.SplitSeq(rawQuery, "&") {
		if seg == "" {
			continue
		}
		dec, err := url.QueryUnescape(seg)
		if err != nil {
			return nil, nil, apperr.BadRequest("malformed query string: %q is not valid percent-encoding", truncate(seg))
		}
		name, op, value := split(dec)
		if name == "" {
			continue
		}
		if slices.Contains(Reserved, name) {
			continue
		}
		f, ok := t.Field(name)
		if !ok {
			if n := truncate(name); !slices.Contains(ignored, n) {
				ignored = append(ignored, n)
			}
			continue
		}
		if op == Eq || op == Ne {
			if len(value) >= 2 && strings.HasPrefix(value, "*") && strings.HasSuffix(value, "*") && slices.Contains(f.Type.Operators(), Contains) {
				if err := checkText(f.Name, value[1:len(value)-1]); err != nil {
					return nil, nil, err
				}
				if len(conds) >= MaxConditions {
					return nil, nil, apperr.Invalid(truncate(name), "at most %d filters in one query", MaxConditions).WithCode("limit_exceeded")
				}
				c := Condition{Field: f, Op: Contains, Values: []any{value[1 : len(value)-1]}}
				if op == Ne {
					c.Op = "!" + Contains
				}
				conds = append(conds, c)
				continue
			}
		}
		if op == "" || !slices.Contains(f.Type.Operators(), op) {
			return nil, nil, apperr.Invalid(name, "operator %q is not supported for this %s field; use one of %s", opText(op, dec, name), f.Type, opsText(f.Type.Operators()))
		}
		v, err := f.parse(value)
		if err != nil {
			return nil, nil, err
		}
		if op == In || op == NotIn {
			if i, ok := in[name+string(op)]; ok {
				if len(conds[i].Values) >= MaxValues {
					return nil, nil, apperr.Invalid(name, "at most %d values in one list", MaxValues).WithCode("limit_exceeded")
				}
				conds[i].Values = append(conds[i].Values, v)
				continue
			}
			in[name+string(op)] = len(conds)
		}
		if len(conds) >= MaxConditions {
			return nil, nil, apperr.Invalid(truncate(name), "at most %d filters in one query", MaxConditions).WithCode("limit_exceeded")
		}
		conds = append(conds, Condition{Field: f, Op: op, Values: []any{v}})
	}
	return conds, ignored, nil
}

// split cuts "name[]!=value" into its parts. The name is everything before
// the first of "[]=<>!"; the value is everything after the operator.
func split(s string) (name string, op Op, value string) {
	i := strings.IndexAny(s, "[]=<>!")
	if i < 0 {
		return s, "", ""
	}
	name, rest := s[:i], s[i:]
	arr := strings.HasPrefix(rest, "[]")
	if arr {
		rest = rest[2:]
	}
	switch {
	case strings.HasPrefix(rest, "!="):
		op, value = Ne, rest[2:]
	case strings.HasPrefix(rest, "<="):
		op, value = Lte, rest[2:]
	case strings.HasPrefix(rest, ">="):
		op, value = Gte, rest[2:]
	case strings.HasPrefix(rest, "="):
		op, value = Eq, rest[1:]
	case strings.HasPrefix(rest, "<"):
		op, value = Lt, rest[1:]
	case strings.HasPrefix(rest, ">"):
		op, value = Gt, rest[1:]
	default:
		return name, "", ""
	}
	if arr {
		switch op {
		case Eq:
			op = In
		case Ne:
			op = NotIn
		default:
			op = "[]" + op // not an operator: rejected by the caller
		}
	}
	return name, op, value
}

func opText(op Op, dec, name string) string {
	if op != "" {
		return string(op)
	}
	return truncate(strings.TrimPrefix(dec, name))
}

func opsText(ops []Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, " ")
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// checkText refuses text no database can compare: invalid UTF-8, NUL, or
// more than MaxValueLength characters.
func checkText(field, s string) error {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return apperr.Invalid(field, "must be valid UTF-8 text without NUL characters")
	}
	if len(s) > MaxValueLength && utf8.RuneCountInString(s) > MaxValueLength {
		return apperr.Invalid(field, "a filter value has at most %d characters", MaxValueLength).WithCode("limit_exceeded")
	}
	return nil
}

// Params reads the reserved parameters (limit, cursor, sort, format) from the raw
// query string, segment by segment as Parse reads filters: each at most
// once, percent-decoded, never dropped. (net/url drops a whole segment that
// holds a ";", so "limit=0;x" would silently mean no limit at all.)
func Params(rawQuery string) (map[string]string, error) {
	out := map[string]string{}
	for seg := range strings.SplitSeq(rawQuery, "&") {
		dec, err := url.QueryUnescape(seg)
		if err != nil {
			continue // Parse reports it
		}
		name, value, _ := strings.Cut(dec, "=")
		if !slices.Contains(Reserved, name) {
			continue
		}
		if _, dup := out[name]; dup {
			return nil, apperr.Invalid(name, "is given more than once")
		}
		if len(value) > MaxParamLength {
			return nil, apperr.Invalid(name, "has at most %d characters", MaxParamLength).WithCode("limit_exceeded")
		}
		if err := checkText(name, value); err != nil {
			return nil, err
		}
		out[name] = value
	}
	return out, nil
}

// parse reads one value of the field's type.
func (f Field) parse(s string) (any, error) {
	if err := checkText(f.Name, s); err != nil {
		return nil, err
	}
	bad := func() error {
		return apperr.Invalid(f.Name, "%q is not %s", truncate(s), f.Type.Expect())
	}
	switch f.Type {
	case Enum:
		if !slices.Contains(f.Values, s) {
			return nil, apperr.Invalid(f.Name, "%q is not one of %s", truncate(s), strings.Join(f.Values, ", "))
		}
		return s, nil
	case Decimal:
		d, err := decimal.Parse(s)
		if err != nil || strings.ContainsAny(s, " \t\n") {
			return nil, bad()
		}
		return d, nil
	case Int:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, bad()
		}
		return int(n), nil
	case Float:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, bad()
		}
		return x, nil
	case Time:
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			// "+" in a query string decodes to a space: "…T12:00:00 02:00".
			t, err = time.Parse(time.RFC3339Nano, strings.Replace(s, " ", "+", 1))
		}
		if err != nil || t.Year() < 1 || t.Year() > 9999 {
			return nil, bad()
		}
		return t.UTC(), nil
	case Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, bad()
		}
		return b, nil
	case ID:
		if f.Prefix != "" {
			if _, err := resourceid.Parse(s, f.Prefix); err != nil {
				return nil, apperr.Invalid(f.Name, "%q is not a %s_… id", truncate(s), f.Prefix)
			}
		}
		return s, nil
	}
	return s, nil
}

// Where turns conditions into the JSON form of a where input: exactly the
// object a GraphQL client would send as where:. Several conditions are
// ANDed with "and" (so two conditions on one field never collide).
func Where(conds []Condition) map[string]any {
	clauses := make([]map[string]any, 0, len(conds))
	for _, c := range conds {
		clauses = append(clauses, c.clause())
	}
	switch len(clauses) {
	case 0:
		return map[string]any{}
	case 1:
		return clauses[0]
	}
	return map[string]any{"and": clauses}
}

func (c Condition) clause() map[string]any {
	base := c.Field.Where
	if base == "" {
		base = camel(c.Field.Name)
	}
	one := func(suffix string, v any) map[string]any { return map[string]any{base + suffix: v} }
	var m map[string]any
	negate := false
	switch c.Op {
	case Eq:
		m = one("", c.Values[0])
	case Ne:
		if c.Field.Edge != "" {
			m, negate = one("", c.Values[0]), true
		} else {
			m = one("NEQ", c.Values[0])
		}
	case Lt:
		m = one("LT", c.Values[0])
	case Lte:
		m = one("LTE", c.Values[0])
	case Gt:
		m = one("GT", c.Values[0])
	case Gte:
		m = one("GTE", c.Values[0])
	case In:
		m = one("In", c.Values)
	case NotIn:
		if c.Field.Edge != "" {
			m, negate = one("In", c.Values), true
		} else {
			m = one("NotIn", c.Values)
		}
	case Contains:
		m = one("ContainsFold", c.Values[0])
	case "!" + Contains:
		m, negate = one("ContainsFold", c.Values[0]), true
	}
	if c.Field.Edge != "" {
		// hub!=X and hub[]!=X are NOT (has a hub with code X): rows with no
		// hub match them, so hub[]=X and hub[]!=X split the rows in two.
		m = map[string]any{c.Field.Edge: []any{m}}
	}
	if negate {
		m = map[string]any{"not": m}
	}
	return m
}

// camel converts snake_case to the where input's names: "part_id" → "partID".
func camel(s string) string {
	var b strings.Builder
	for i, p := range strings.Split(s, "_") {
		switch {
		case i == 0:
			b.WriteString(p)
		case p == "id":
			b.WriteString("ID")
		case p != "":
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// Build parses rawQuery against t into the where input type W (an ent
// <T>WhereInput), through the same JSON names a GraphQL client uses.
func Build[W any](t *Table, rawQuery string) (*W, []string, error) {
	conds, ignored, err := t.Parse(rawQuery)
	if err != nil {
		return nil, ignored, err
	}
	b, err := json.Marshal(Where(conds))
	if err != nil {
		return nil, ignored, apperr.Internal(fmt.Errorf("filter: %w", err))
	}
	w := new(W)
	if err := json.Unmarshal(b, w); err != nil {
		return nil, ignored, apperr.Internal(fmt.Errorf("filter: %s: %w", b, err))
	}
	return w, ignored, nil
}
