package rest

// SetExportBatch makes exports read n rows at a time until the returned
// function restores the size (tests of batching with a handful of rows).
func SetExportBatch(n int) (restore func()) {
	old := exportBatch.Swap(int64(n))
	return func() { exportBatch.Store(old) }
}

// OrderLoadStatements returns the texts loadOrder runs on the dialect, and
// embedLatestTracking's for a page of one order.
func OrderLoadStatements(dialect string) []string {
	s := orderLoadStatements[dialect]
	return []string{s.order, s.tracking, s.pageTracking[0] + "o.id IN (?)" + s.pageTracking[1]}
}

// ItemLoadStatement returns the text loadItem runs on the dialect.
func ItemLoadStatement(dialect string) string { return itemLoadStatement[dialect] }
