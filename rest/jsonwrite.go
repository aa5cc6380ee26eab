package rest

import (
	"net/http"
	"strconv"
	"sync"

	"logistics/internal/view"
)

func init() { view.RegisterFunc(appendList) }

// appendList writes a page whose every element has a registered writer, and
// declines any other (a page of hubs or workflows goes through
// encoding/json).
func appendList(b []byte, l listJSON) ([]byte, bool) {
	b = append(b, `{"data":`...)
	if l.Data == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, v := range l.Data {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = view.Append(b, v); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"has_more":`...)
	b = view.AppendBool(b, l.HasMore)
	b = append(b, `,"next_cursor":`...)
	b = view.AppendStringOrNull(b, l.NextCursor)
	if l.TotalCount != nil {
		b = append(b, `,"total_count":`...)
		b = strconv.AppendInt(b, int64(*l.TotalCount), 10)
		b = append(b, `,"total_count_kind":`...)
		b = strconv.AppendQuote(b, l.TotalCountKind) // exact, at_least, estimate: nothing to escape
	}
	return append(b, '}'), true
}

// documents holds the buffers documents are appended to; one larger than
// maxPooled is left to the collector.
var documents = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooled = 1 << 20

// writeAppended writes v's JSON and a newline (as json.Encoder does) in one
// Write, when v's type has a registered writer; false otherwise, with
// nothing written.
func writeAppended(w http.ResponseWriter, status int, v any) bool {
	bp := documents.Get().(*[]byte)
	b, ok := view.Append((*bp)[:0], v)
	if ok {
		b = append(b, '\n')
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}
	if cap(b) <= maxPooled {
		*bp = b[:0]
		documents.Put(bp)
	}
	return ok
}
