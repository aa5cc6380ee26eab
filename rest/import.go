package rest

import (
	"mime"
	"net/http"

	"logistics/internal/apperr"
)

// MaxImportBytes caps a stock import file. The body is streamed, so the cap
// bounds the time and the transaction, not memory.
const MaxImportBytes = 200 << 20

// handleImportItems answers POST /v1/items/import: a text/csv file of stock
// (columns in package stockimport and docs/workflows.md), imported all or
// nothing. 201 {"imported": n, "rows": n}; 422 invalid_import with
// row_errors [{row, column, message}] for every bad row (the first 1,000).
func handleImportItems(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || (mt != "text/csv" && mt != "application/csv") {
			apperr.Write(w, r, d.Log, apperr.UnsupportedMedia("send the file as text/csv"))
			return
		}
		res, err := d.Service.ImportItems(r.Context(), http.MaxBytesReader(w, r.Body, MaxImportBytes))
		if err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		WriteJSON(w, http.StatusCreated, res)
	})
}
