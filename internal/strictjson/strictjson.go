// Package strictjson refuses the JSON that encoding/json accepts quietly:
// an object with the same member twice (the last would win, so a body's
// meaning depends on which copy a reader keeps), text that is not UTF-8 and
// \u escapes of half a surrogate pair (both would be stored as U+FFFD).
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a refusal; Path names the member ("lines[2].sku"), "" for the
// document as a whole.
type Error struct {
	Path    string
	Message string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Check reports the first duplicate member, invalid UTF-8 or lone surrogate
// escape in b, which must be valid JSON (check with json.Valid first).
//
// It walks the bytes once (every GraphQL request and every REST body passes
// here): encoding/json's token stream, which it used before, allocated a
// token, and an object's map, for every value, and cost more than decoding
// the body itself.
func Check(b []byte) error {
	if !utf8.Valid(b) {
		return &Error{Message: "the body is not valid UTF-8"}
	}
	c := checker{b: b}
	if err := c.value(); err != nil {
		return err
	}
	if c.ws(); c.i != len(b) {
		return errInvalid
	}
	return nil
}

var errInvalid = &Error{Message: "the body is not valid JSON"}

// checker walks one JSON text; path holds the open objects and arrays.
type checker struct {
	b    []byte
	i    int
	path []frame
}

// frame is one open object or array: the member (its name, decoded) or
// the element being read.
type frame struct {
	object bool
	key    []byte
	index  int
}

func (c *checker) ws() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// str moves past the string starting at i and returns its source text,
// quotes included.
func (c *checker) str() ([]byte, error) {
	start := c.i
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, errInvalid
	}
	for c.i++; c.i < len(c.b); c.i++ {
		switch c.b[c.i] {
		case '\\':
			c.i++
		case '"':
			c.i++
			return c.b[start:c.i], nil
		}
	}
	return nil, errInvalid
}

func (c *checker) value() error {
	c.ws()
	if c.i >= len(c.b) {
		return errInvalid
	}
	switch c.b[c.i] {
	case '{':
		return c.object()
	case '[':
		return c.array()
	case '"':
		raw, err := c.str()
		if err != nil {
			return err
		}
		if msg := surrogate(raw); msg != "" {
			return &Error{Path: pathOf(c.path), Message: msg}
		}
		return nil
	}
	for c.i < len(c.b) { // a number, true, false or null
		switch c.b[c.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return nil
		}
		c.i++
	}
	return nil
}

func (c *checker) object() error {
	c.i++ // {
	depth := len(c.path)
	c.path = append(c.path, frame{object: true})
	var keys names
	for first := true; ; first = false {
		if done, err := c.next('}', depth, first); done || err != nil {
			return err
		}
		raw, err := c.str()
		if err != nil {
			return err
		}
		if msg := surrogate(raw); msg != "" {
			c.path[depth].key = nil
			return &Error{Path: strings.TrimSuffix(pathOf(c.path), "."), Message: "a member name " + msg}
		}
		key, err := name(raw)
		if err != nil {
			return err
		}
		c.path[depth].key = key
		if keys.seen(key) {
			return &Error{Path: pathOf(c.path), Message: "is given more than once"}
		}
		if c.ws(); c.i >= len(c.b) || c.b[c.i] != ':' {
			return errInvalid
		}
		c.i++
		if err := c.value(); err != nil {
			return err
		}
	}
}

func (c *checker) array() error {
	c.i++ // [
	depth := len(c.path)
	c.path = append(c.path, frame{})
	for first := true; ; first = false {
		if done, err := c.next(']', depth, first); done || err != nil {
			return err
		}
		if !first {
			c.path[depth].index++
		}
		if err := c.value(); err != nil {
			return err
		}
	}
}

// next moves to the next member or element of the container opened at
// depth: done at its closing byte end (the container leaves the path),
// past the comma before any but the first.
func (c *checker) next(end byte, depth int, first bool) (bool, error) {
	c.ws()
	if c.i < len(c.b) && c.b[c.i] == end {
		c.i++
		c.path = c.path[:depth]
		return true, nil
	}
	if !first {
		if c.i >= len(c.b) || c.b[c.i] != ',' {
			return false, errInvalid
		}
		c.i++
		c.ws()
	}
	return false, nil
}

// names are the member names of one object read so far: a list while it
// is short (most bodies), a set past that, so that an object of many
// members (a body can hold a hundred thousand) is checked in linear time.
type names struct {
	list [][]byte
	set  map[string]struct{}
}

const namesListMax = 16

// seen reports whether key was read before, and records it.
func (n *names) seen(key []byte) bool {
	if n.set != nil {
		if _, ok := n.set[string(key)]; ok {
			return true
		}
		n.set[string(key)] = struct{}{}
		return false
	}
	for _, k := range n.list {
		if bytes.Equal(k, key) {
			return true
		}
	}
	n.list = append(n.list, key)
	if len(n.list) > namesListMax {
		n.set = make(map[string]struct{}, 2*len(n.list))
		for _, k := range n.list {
			n.set[string(k)] = struct{}{}
		}
		n.list = nil
	}
	return false
}

// name is a member name's value: its source text without the quotes when
// it has no escape, decoded otherwise ("\u0061" and "a" are one name).
func name(raw []byte) ([]byte, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errInvalid
	}
	return []byte(s), nil
}

// pathOf names the value being read: "lines[2].sku".
func pathOf(stack []frame) string {
	var b strings.Builder
	for i, f := range stack {
		switch {
		case !f.object:
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		case i == 0:
			b.Write(f.key)
		default:
			b.WriteString(".")
			b.Write(f.key)
		}
	}
	return b.String()
}

// surrogate checks the \u escapes of one JSON string's source text.
func surrogate(raw []byte) string {
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' || i+6 > len(raw) {
			i++
			continue
		}
		n, _ := strconv.ParseUint(string(raw[i+2:i+6]), 16, 32)
		switch {
		case n >= 0xD800 && n <= 0xDBFF: // high: a low one must follow
			if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if m, _ := strconv.ParseUint(string(raw[i+8:i+12]), 16, 32); m >= 0xDC00 && m <= 0xDFFF {
					i += 11
					continue
				}
			}
			return fmt.Sprintf(`holds \u%s, half of a UTF-16 surrogate pair`, raw[i+2:i+6])
		case n >= 0xDC00 && n <= 0xDFFF:
			return fmt.Sprintf(`holds \u%s, half of a UTF-16 surrogate pair`, raw[i+2:i+6])
		}
		i += 5
	}
	return ""
}

// SyntaxError describes why b is not valid JSON, with where: the byte
// offset of the first byte that does not fit (0-based, as encoding/json
// counts) and its line and column (1-based), so that a client can find the
// mistake in a large body. Offset, Line and Column are the position; Error
// reads "…at byte 17 (line 2, column 5)". It returns nil for valid JSON.
func SyntaxError(b []byte) *Position {
	var v json.RawMessage
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	off := int(se.Offset)
	msg := se.Error()
	if off > 0 && off <= len(b) && !strings.HasPrefix(msg, "unexpected end") {
		off-- // the scanner's Offset is just past the offending byte
	}
	off = min(off, len(b))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := 1 + utf8.RuneCount(b[bytes.LastIndexByte(b[:off], '\n')+1:off])
	return &Position{Message: msg, Offset: off, Line: line, Column: col}
}

// Position is a syntax error of a JSON text and where it is.
type Position struct {
	Message              string
	Offset, Line, Column int
}

func (p *Position) Error() string {
	return fmt.Sprintf("%s at byte %d (line %d, column %d)", p.Message, p.Offset, p.Line, p.Column)
}
