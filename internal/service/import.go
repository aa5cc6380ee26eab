package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/part"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
	"logistics/internal/stockimport"
)

// ImportBatch is how many rows go into one multi-row INSERT (13 columns ×
// 1,000 rows stays under SQLite's and PostgreSQL's parameter limits).
const ImportBatch = 1000

// MaxImportErrors caps the row errors listed in a refused import; the count
// of bad rows is always complete.
const MaxImportErrors = 1000

// ImportResult is a successful import.
type ImportResult struct {
	Imported int `json:"imported"`
	Rows     int `json:"rows"`
}

// ImportItems creates one item per row of a stock CSV file (see package
// stockimport for the columns), all or nothing in one transaction. Every row
// is validated — format, known SKU, known hub — and a file with any bad row
// is refused with a 422 listing the bad rows (row number, column, reason).
func (s *Service) ImportItems(ctx context.Context, body io.Reader) (ImportResult, error) {
	rd, err := stockimport.NewReader(body)
	if err != nil {
		var he *stockimport.HeaderError
		if errors.As(err, &he) {
			fe := make([]apperr.FieldError, len(he.Problems))
			for i, p := range he.Problems {
				fe[i] = apperr.FieldError{Field: "header", Message: p}
			}
			return ImportResult{}, apperr.Validation(fe...).WithCode("invalid_import")
		}
		return ImportResult{}, readError(err)
	}
	var res ImportResult
	err = WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		hubs := map[string]resourceid.ID{}
		hs, err := c.Hub.Query().Select(hub.FieldID, hub.FieldCode).All(ctx)
		if err != nil {
			return apperr.From(err)
		}
		for _, h := range hs {
			hubs[h.Code] = h.ID
		}
		parts := map[string]resourceid.ID{}
		var (
			rowErrs []stockimport.RowError
			badRows int
			nErrs   int
			batch   = make([]stockimport.Row, 0, ImportBatch)
		)
		addErrs := func(es ...stockimport.RowError) {
			badRows++
			nErrs += len(es)
			for _, e := range es {
				if len(rowErrs) < MaxImportErrors {
					rowErrs = append(rowErrs, e)
				}
			}
		}
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			defer func() { batch = batch[:0] }()
			var missing []string
			asked := map[string]bool{}
			for _, r := range batch {
				if _, ok := parts[r.SKU]; !ok && !asked[r.SKU] {
					asked[r.SKU] = true
					missing = append(missing, r.SKU)
				}
			}
			if len(missing) > 0 {
				ps, err := c.Part.Query().Where(part.SkuIn(missing...)).Select(part.FieldID, part.FieldSku).All(ctx)
				if err != nil {
					return apperr.From(err)
				}
				for _, p := range ps {
					parts[p.Sku] = p.ID
				}
			}
			bulk := make([]*ent.ItemCreate, 0, len(batch))
			for _, r := range batch {
				var es []stockimport.RowError
				pid, ok := parts[r.SKU]
				if !ok {
					es = append(es, stockimport.RowError{Row: r.Row, Column: "sku", Message: fmt.Sprintf("no part has the SKU %q", r.SKU)})
				}
				hid, ok := hubs[r.Hub]
				if !ok {
					es = append(es, stockimport.RowError{Row: r.Row, Column: "hub", Message: fmt.Sprintf("no hub has the code %q", r.Hub)})
				}
				if len(es) > 0 {
					addErrs(es...)
					continue
				}
				if badRows > 0 {
					continue // the import fails anyway: only validate
				}
				bulk = append(bulk, c.Item.Create().
					SetPartID(pid).SetHubID(hid).SetQuantity(r.Quantity).
					SetLot(r.Lot).SetSerial(r.Serial).SetStatus(item.Status(r.Status)).
					SetNillableExpiresAt(r.ExpiresAt))
			}
			if badRows > 0 || len(bulk) == 0 {
				return nil
			}
			if err := c.Item.CreateBulk(bulk...).Exec(ctx); err != nil {
				return apperr.From(err)
			}
			res.Imported += len(bulk)
			return nil
		}
		for {
			r, es, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return readError(err)
			}
			res.Rows++
			if len(es) > 0 {
				addErrs(es...)
				continue
			}
			batch = append(batch, r)
			if len(batch) == ImportBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		if badRows > 0 {
			return apperr.Validation(apperr.FieldError{Field: "body", Message: fmt.Sprintf("%d of %d rows are invalid; nothing was imported", badRows, res.Rows)}).
				WithCode("invalid_import").
				WithDetail("invalid_rows", badRows).
				WithDetail("total_rows", res.Rows).
				WithDetail("row_errors", rowErrs).
				WithDetail("row_errors_truncated", nErrs > len(rowErrs))
		}
		if res.Rows == 0 {
			return apperr.Validation(apperr.FieldError{Field: "body", Message: "the file has a header but no rows"}).WithCode("invalid_import")
		}
		// One event for the whole file (not one item.created per row): its
		// object is the import's result.
		return s.record(ctx, "items.imported", "", map[string]any{"imported": res.Imported, "rows": res.Rows}, nil, nil)
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// readError classifies a failure to read the request body.
func readError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.TooLarge("the file is larger than %d bytes", mbe.Limit)
	}
	return apperr.BadRequest("cannot read the request body: %v", err)
}
