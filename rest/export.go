package rest

import (
	"net/http"
	"strings"
	"sync/atomic"

	"logistics/internal/apperr"
	"logistics/internal/export"
	"logistics/internal/filter"
)

// Exports: every list answers Accept: text/csv and application/x-ndjson
// (or format=csv|ndjson) with all the rows its filter selects, in its sort,
// read in keyset batches through the list's own query (resource.page) and
// sent batch by batch: memory stays that of one batch whatever the count.
// limit and cursor do not apply. docs/rest.md#exports.

// exportBatch is how many rows an export reads at a time (one statement per
// batch, plus those of the references it embeds); tests make it smaller.
var exportBatch atomic.Int64

func init() { exportBatch.Store(500) }

// negotiate picks the list's format from format= and Accept.
func negotiate(r *http.Request) (export.Format, error) {
	q, err := filter.Params(r.URL.RawQuery)
	if err != nil {
		return export.JSON, err
	}
	return export.Negotiate(r.Header.Get("Accept"), q[export.Param])
}

// exportOnly serves GET /v1/<list>/export through the list's own handler
// (the same filters, sort, scopes and streaming): the export has its own
// operation so that the list's is JSON only, which typed clients take as
// it is. format= or Accept picks CSV or NDJSON (CSV when neither does).
func exportOnly(d Deps, list http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := filter.Params(r.URL.RawQuery)
		if err == nil {
			var f export.Format
			if f, err = export.NegotiateExport(r.Header.Get("Accept"), q[export.Param]); err == nil {
				media := export.MediaCSV
				if f == export.NDJSON {
					media = export.MediaNDJSON
				}
				r = r.Clone(r.Context())
				r.Header.Set("Accept", media)
				list.ServeHTTP(w, r)
				return
			}
		}
		apperr.Write(w, r, d.Log, err)
	})
}

// export streams every row of the list q selects.
func (rs *resource[T, W, J, In]) export(d Deps, w http.ResponseWriter, r *http.Request, q listQuery[W], f export.Format) error {
	p := q.page
	p.first, p.after = int(exportBatch.Load()), nil
	return exportRows(d, w, r, f, rs.table.Resource, rs.renderRows, func() ([]T, bool, error) {
		rows, next, err := rs.page(r, q.where, p)
		p.after = next
		return rows, next != nil, err
	})
}

// exportRows writes the rows next returns, batch after batch, until it says
// there are no more; each batch is flushed to the client before the next is
// read. A failure before the first flush is answered as a problem document
// (the caller writes the error returned); after it, export.Writer.Fail ends
// the response so that the client cannot take it for a whole export.
func exportRows[T, J any](d Deps, w http.ResponseWriter, r *http.Request, f export.Format, resource string,
	render func(*http.Request, []T) ([]J, func(), error), next func() ([]T, bool, error)) error {
	opt := export.Options{WriteTimeout: d.WriteTimeout, Log: d.Log}
	if q, _ := filter.Params(r.URL.RawQuery); q[export.Param] != "" {
		opt.Filename = strings.ReplaceAll(resource, " ", "-") + "." + f.String()
	}
	ew := export.NewWriter(w, r, f, opt)
	cols := export.ColumnsOf[J]()
	if err := ew.Header(cols.Names()); err != nil {
		return ew.Fail(err)
	}
	var cells []string
	for more := r.Method != http.MethodHead; more; {
		var rows []T
		var err error
		if rows, more, err = next(); err != nil {
			return ew.Fail(err)
		}
		js, release, err := render(r, rows)
		if err != nil {
			return ew.Fail(err)
		}
		for i := range js {
			if f == export.CSV {
				cells = cols.Cells(cells[:0], &js[i])
			}
			if err = ew.Row(&js[i], cells); err != nil {
				break
			}
		}
		release()
		if err != nil {
			return ew.Fail(err)
		}
		if err := ew.Flush(); err != nil {
			return ew.Fail(err)
		}
	}
	if err := ew.Flush(); err != nil {
		return ew.Fail(err)
	}
	return nil
}
