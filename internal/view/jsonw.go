// JSON is written by appending to a byte slice by appending to a byte slice, for the documents
// the API writes most: REST pages and resources, and the representations
// events carry. encoding/json finds each field by reflection, calls
// MarshalJSON on every decimal and checks what it returned; a page of 50
// orders holds about 600 decimals, and encoding/json was 14% of the CPU of
// such a page.
//
// What a type's AppendJSON writes is byte for byte what encoding/json writes
// for the same value (HTML-safe escaping included): the types that implement
// Appender are held to that by a property test on random values
// (rest/jsonappend_test.go), so a field added to a struct and not to its
// AppendJSON fails a test.

package view

import (
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Appender is a value that writes its own JSON.
type Appender interface {
	AppendJSON(b []byte) []byte
}

// writers maps a type to the function that writes its values. Marshal and
// Append look a value's type up exactly: a struct that embeds a registered
// type (and so has its AppendJSON method, promoted) is not registered, and
// goes through encoding/json with all its fields.
var (
	mu      sync.RWMutex
	writers = map[reflect.Type]func(b []byte, v any) ([]byte, bool){}
)

// Register makes Append and Marshal write T's values, and pointers to them
// (null for nil, as encoding/json), with T's AppendJSON.
func Register[T Appender]() {
	RegisterFunc(func(b []byte, v T) ([]byte, bool) { return v.AppendJSON(b), true })
	RegisterFunc(func(b []byte, v *T) ([]byte, bool) {
		if v == nil {
			return append(b, "null"...), true
		}
		return (*v).AppendJSON(b), true
	})
}

// RegisterFunc makes Append and Marshal write T's values with f, which may
// decline a value by returning false (a page holding a value nothing is
// registered for); Append then returns b as it was.
func RegisterFunc[T any](f func(b []byte, v T) ([]byte, bool)) {
	mu.Lock()
	defer mu.Unlock()
	writers[reflect.TypeFor[T]()] = func(b []byte, v any) ([]byte, bool) { return f(b, v.(T)) }
}

// Append appends v's JSON when its type is registered and its writer
// accepts it; otherwise it returns b and false.
func Append(b []byte, v any) ([]byte, bool) {
	mu.RLock()
	f := writers[reflect.TypeOf(v)]
	mu.RUnlock()
	if f == nil {
		return b, false
	}
	if out, ok := f(b, v); ok {
		return out, true
	}
	return b, false
}

// JSONText is JSON text as encoding/json writes it — valid, compact, HTML-safe
// — such as Marshal returns or a member cut from it. Its MarshalJSON gives
// it back as it is (encoding/json still checks and compacts it); writers of
// this project's own (eventlog) append it without looking at it again.
type JSONText []byte

// MarshalJSON returns t (null when t is nil).
func (t JSONText) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	return t, nil
}

// Marshal is json.Marshal, through the registered writer when v has one.
func Marshal(v any) ([]byte, error) {
	if b, ok := Append(make([]byte, 0, 512), v); ok {
		return b, nil
	}
	return json.Marshal(v)
}

const hex = "0123456789abcdef"

// safe holds the ASCII bytes encoding/json writes as they are when it
// escapes HTML (its default): printable ASCII but `"`, `\`, `<`, `>`, `&`.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// AppendString appends s as a JSON string, escaped as encoding/json escapes it:
// `"` and `\` with a backslash; \b, \f, \n, \r, \t by name; other control
// bytes and `<`, `>`, `&` as \u00XX; an invalid UTF-8 byte as \ufffd; U+2028
// and U+2029 as \u2028 and \u2029.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendStringOrNull appends *s, or null when s is nil.
func AppendStringOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendString(b, *s)
}

// AppendInt appends n.
func AppendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// AppendStrings appends a JSON array of strings; null for a nil slice, as
// encoding/json writes it.
func AppendStrings(b []byte, s []string) []byte { return list(b, s, AppendString) }

// AppendArray appends a JSON array of values that write themselves; null for a
// nil slice.
func AppendArray[T Appender](b []byte, s []T) []byte {
	return list(b, s, func(b []byte, v T) []byte { return v.AppendJSON(b) })
}

// list appends s as a JSON array, each element by f; null for a nil slice.
func list[T any](b []byte, s []T, f func([]byte, T) []byte) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = f(b, v)
	}
	return append(b, ']')
}

// Registered returns the types that have a writer, for tests that hold each
// writer to encoding/json.
func Registered() []reflect.Type {
	mu.RLock()
	defer mu.RUnlock()
	ts := make([]reflect.Type, 0, len(writers))
	for t := range writers {
		ts = append(ts, t)
	}
	return ts
}
