package rest

import "logistics/internal/view"

// SetExportBatch makes exports read n rows at a time until the returned
// function restores the size (tests of batching with a handful of rows).
func SetExportBatch(n int) (restore func()) {
	old := exportBatch.Swap(int64(n))
	return func() { exportBatch.Store(old) }
}

// ItemLoadStatement returns the text view.LoadItem runs on the dialect.
func ItemLoadStatement(dialect string) string { return view.ItemLoadStatement[dialect] }
