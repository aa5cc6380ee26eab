package export

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Columns is the CSV layout of a row type J, a struct with json tags (a
// REST representation): one column per field, named as in its JSON; a
// nested struct is flattened into columns of its own (hub.code,
// address.city); a value that is a list, a map, free JSON or a type with its
// own JSON encoding other than a number or a string (an event's data) is
// one column holding its JSON. null is an empty cell.
type Columns[J any] struct {
	names []string
	cols  []column
}

type column struct {
	path []int // field indexes, from J through nested structs
	cell func(reflect.Value) string
}

var layouts sync.Map // reflect.Type → *Columns[J]

// ColumnsOf returns the layout of J (worked out once per type).
func ColumnsOf[J any]() *Columns[J] {
	t := reflect.TypeFor[J]()
	if c, ok := layouts.Load(t); ok {
		return c.(*Columns[J])
	}
	c := &Columns[J]{}
	c.add(t, "", nil)
	layouts.Store(t, c)
	return c
}

// Names are the column names, for the header row.
func (c *Columns[J]) Names() []string { return c.names }

// Cells appends the cells of v to dst.
func (c *Columns[J]) Cells(dst []string, v *J) []string {
	root := reflect.ValueOf(v).Elem()
	for _, col := range c.cols {
		f, ok := field(root, col.path)
		if !ok {
			dst = append(dst, "")
			continue
		}
		dst = append(dst, col.cell(f))
	}
	return dst
}

// field walks path from v; false when a pointer on the way is nil.
func field(v reflect.Value, path []int) (reflect.Value, bool) {
	for _, i := range path {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, false
		}
		v = v.Elem()
	}
	return v, true
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

func (c *Columns[J]) add(t reflect.Type, prefix string, path []int) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		p := append(append([]int(nil), path...), i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			c.add(ft, prefix, p) // promoted, as encoding/json does
			continue
		}
		if name == "" {
			name = f.Name
		}
		if ft.Kind() == reflect.Struct && !ft.Implements(marshalerType) && !reflect.PointerTo(ft).Implements(marshalerType) {
			c.add(ft, prefix+name+".", p)
			continue
		}
		c.names = append(c.names, prefix+name)
		c.cols = append(c.cols, column{path: p, cell: cellOf(ft)})
	}
}

// cellOf returns how a value of type t is written in a cell.
func cellOf(t reflect.Type) func(reflect.Value) string {
	if t.Implements(marshalerType) {
		return marshaled
	}
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value) string { return v.String() }
	case reflect.Bool:
		return func(v reflect.Value) string { return strconv.FormatBool(v.Bool()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) string { return strconv.FormatInt(v.Int(), 10) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v reflect.Value) string { return strconv.FormatUint(v.Uint(), 10) }
	case reflect.Float32, reflect.Float64:
		return func(v reflect.Value) string { return formatFloat(v.Float(), t.Bits()) }
	}
	return marshaled // lists, maps, interfaces: their JSON
}

// marshaled is the JSON of v, unquoted when it is a string; null is empty.
func marshaled(v reflect.Value) string {
	if (v.Kind() == reflect.Interface || v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.IsNil() {
		return ""
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return ""
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
	}
	if string(b) == "null" {
		return ""
	}
	return string(b)
}

// formatFloat writes f as encoding/json does, so that a cell holds the
// number the JSON list shows.
func formatFloat(f float64, bits int) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return ""
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}
