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
	"io"
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
func Check(b []byte) error {
	if !utf8.Valid(b) {
		return &Error{Message: "the body is not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []frame // the open objects and arrays
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
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, frame{object: t == '{', wantKey: true, keys: map[string]bool{}})
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
					return &Error{Path: strings.TrimSuffix(pathOf(stack), "."), Message: "a member name " + msg}
				}
				top.key = t
				if top.keys[t] {
					return &Error{Path: pathOf(stack), Message: "is given more than once"}
				}
				top.keys[t] = true
				continue
			}
			if msg := surrogate(raw); msg != "" {
				return &Error{Path: pathOf(stack), Message: msg}
			}
		}
		if top != nil {
			top.done()
		}
	}
}

// frame is one open object or array.
type frame struct {
	object  bool
	wantKey bool            // an object: the next string is a member name
	keys    map[string]bool // an object: the member names read so far
	key     string          // an object: the member being read
	index   int             // an array: the element being read
}

func (f *frame) done() {
	if f.object {
		f.wantKey = true
	} else {
		f.index++
	}
}

// pathOf names the value being read: "lines[2].sku".
func pathOf(stack []frame) string {
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
