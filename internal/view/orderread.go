// Orders are read as the REST documents and GraphQL's
// node(id:) answer them, in statements written by hand and scanned by hand
// instead of ent's eager loads.

package view

import (
	"context"
	stdsql "database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/trackingentry"
	"logistics/internal/resourceid"
)

// LatestTracking is how many of its newest tracking entries an order embeds.
const LatestTracking = 3

// One order, as GET /v1/orders/{id}, every order event and GraphQL's node(id:) read it, is read
// in three statements scanned by hand: the order with its hub's code, its
// newest tracking entries with their hubs' codes, and its lines with their
// parts (linesQuery). ent's eager loads took five (order, hub, entries, their
// hubs, lines), each built anew by ent's SQL builder and scanned through its
// generic scanners, which were most of the cost of W6 (one order by id).
// The texts are built once per dialect; a column added to the
// schema and not here is caught by TestOrderLoadMatchesEnt.
//
// Both compare the id with "IN (?)", not "= ?": for the same plan, SQLite
// marks a statement whose planner looked at an "= ?" term it did not use
// for the loop (a join's other table, an ORDER BY's other index) to be
// prepared again whenever its bindings are cleared, and go-sqlite3 clears
// them at every use — a cached statement was re-parsed every time, 27% of
// W6's CPU. Timestamps
// are read through view.Time, not go-sqlite3's parser.

// statements are the texts of one dialect.
type statements struct {
	order, tracking string
	// orderLocked is order taking the row lock an UPDATE of the order takes
	// (PostgreSQL; order itself on SQLite): ForUpdate.
	orderLocked string
	// pageTracking is the text of PageWith's tracking statement up to
	// "o.id IN (", one per set of optional columns (by TrackingColumns).
	pageTracking [AllTrackingColumns + 1]string
	// lines is the text of the lines' statement up to "IN (", one per
	// set of optional columns (by LineColumns); linesQuery appends one
	// placeholder per order.
	lines [AllLineColumns + 1]string
}

// in appends n placeholders and the closing parenthesis to an "IN (" text,
// as ent's builder writes them: "?, ?" on SQLite, "$1, $2" on PostgreSQL.
// Building the lines' statement anew through ent's builder was 6% of W6's CPU
// through GraphQL.
func in(name, prefix string, n int) string {
	var b strings.Builder
	b.Grow(len(prefix) + 5*n + 1)
	b.WriteString(prefix)
	WritePlaceholders(&b, name, 1, n, ", ")
	b.WriteByte(')')
	return b.String()
}

// upToIn cuts a statement built with one "IN (?)" placeholder (the last
// one in its text) after "IN (".
func upToIn(q string) string {
	i := strings.LastIndex(q, " IN (")
	if i < 0 {
		panic("view: no IN in " + q)
	}
	return q[:i+len(" IN (")]
}

var byDialect = map[string]statements{
	dialect.SQLite:   buildStatements(dialect.SQLite),
	dialect.Postgres: buildStatements(dialect.Postgres),
}

func buildStatements(name string) statements {
	b := sql.Dialect(name)
	o, h := b.Table(order.Table).As("o"), b.Table(hub.Table).As("h")
	ts := TimeColumns(name)
	oq, _ := b.Select(
		o.C(order.FieldID), ts(o.C(order.FieldCreatedAt)), ts(o.C(order.FieldUpdatedAt)), o.C(order.FieldRevision),
		o.C(order.FieldNumber), o.C(order.FieldStatus), o.C(order.FieldWorkflowID), o.C(order.FieldHubID),
		o.C(order.FieldCustomerRef), o.C(order.FieldPriority), o.C(order.FieldShipToName),
		o.C(order.FieldShipToLine1), o.C(order.FieldShipToLine2), o.C(order.FieldShipToCity),
		o.C(order.FieldShipToPostalCode), o.C(order.FieldShipToCountry), ts(o.C(order.FieldDueAt)),
		h.C(hub.FieldCode),
	).From(o).Join(h).On(o.C(order.FieldHubID), h.C(hub.FieldID)).
		Where(sql.In(o.C(order.FieldID), "")).Query()

	// Newest first, ties by id: the order of GraphQL's pager, read from the
	// index trackingentry_order_id_occurred_at_id.
	t, th := b.Table(trackingentry.Table).As("t"), b.Table(hub.Table).As("h")
	tq, _ := b.Select(trackingColumns(name, t, th, AllTrackingColumns)...).
		From(t).LeftJoin(th).On(t.C(trackingentry.FieldHubID), th.C(hub.FieldID)).
		Where(sql.In(t.C(trackingentry.FieldOrderID), "")).
		OrderExpr(sql.DescExpr(sql.Expr(t.C(trackingentry.FieldOccurredAt))), sql.Expr(t.C(trackingentry.FieldID))).
		Limit(LatestTracking).Query()
	locked := oq
	if name == dialect.Postgres {
		locked += ` FOR NO KEY UPDATE OF "o"`
	}
	st := statements{order: oq, orderLocked: locked, tracking: tq}
	for c := range st.pageTracking {
		st.pageTracking[c] = buildPageTracking(name, o.C(order.FieldID), TrackingColumns(c), trackingColumns(name, t, th, TrackingColumns(c)))
	}
	for c := range st.lines {
		st.lines[c] = buildLines(name, LineColumns(c))
	}
	return st
}

// trackingColumns are the columns scanTracking reads with cols: an entry
// of t and, with TrackingHub, its hub's code from th.
func trackingColumns(name string, t, th *sql.SelectTable, cols TrackingColumns) []string {
	ts := TimeColumns(name)
	out := []string{
		t.C(trackingentry.FieldID), t.C(trackingentry.FieldOrderID), t.C(trackingentry.FieldTrackingNumber),
		t.C(trackingentry.FieldCarrier), t.C(trackingentry.FieldStatus), t.C(trackingentry.FieldLocation),
		ts(t.C(trackingentry.FieldOccurredAt)),
	}
	if cols&TrackingTimes != 0 {
		out = append(out, ts(t.C(trackingentry.FieldCreatedAt)), ts(t.C(trackingentry.FieldUpdatedAt)))
	}
	if cols&TrackingRevision != 0 {
		out = append(out, t.C(trackingentry.FieldRevision))
	}
	if cols&TrackingHub != 0 {
		out = append(out, t.C(trackingentry.FieldHubID), th.C(hub.FieldCode))
	}
	if cols&TrackingDescription != 0 {
		out = append(out, t.C(trackingentry.FieldDescription))
	}
	return out
}

// buildPageTracking returns the text of the newest entries of a page of
// orders up to the list of their ids ("o.id IN ("): an index seek per order that
// stops after LatestTracking rows, as the floor of W3 does (LATERAL on
// PostgreSQL; SQLite has none, so a join on "id IN" the same subquery).
func buildPageTracking(name, pageID string, tc TrackingColumns, cols []string) string {
	newest := `WHERE l.` + trackingentry.FieldOrderID + ` = o.` + order.FieldID +
		` ORDER BY l.` + trackingentry.FieldOccurredAt + ` DESC, l.` + trackingentry.FieldID + ` LIMIT ` + strconv.Itoa(LatestTracking)
	from := `FROM ` + order.Table + ` o JOIN ` + trackingentry.Table + ` t ON t.` + trackingentry.FieldID +
		` IN (SELECT l.` + trackingentry.FieldID + ` FROM ` + trackingentry.Table + ` l ` + newest + `)`
	if name == dialect.Postgres {
		from = `FROM ` + order.Table + ` o CROSS JOIN LATERAL (SELECT * FROM ` + trackingentry.Table + ` l ` + newest + `) t`
	}
	// No ORDER BY: PageWith sorts each order's few entries (on SQLite the
	// statement's sort was a temporary B-tree, 9% of its time).
	if tc&TrackingHub != 0 {
		from += ` LEFT JOIN ` + hub.Table + ` h ON h.` + hub.FieldID + ` = t.` + trackingentry.FieldHubID
	}
	return `SELECT ` + strings.Join(cols, ", ") + ` ` + from + ` WHERE ` + pageID + ` IN (`
}

// Lock says whether an Order read with ForUpdate's context took the row
// lock.
type Lock struct{ taken bool }

type lockKey struct{}

// ForUpdate returns a context in which Order, on PostgreSQL, reads the
// order with the lock an UPDATE of its row takes (FOR NO KEY UPDATE OF its
// row, held until the transaction ends): the service locks an order before
// it renders the "before" of a change (service.snapshotRow), and this makes
// the lock and the read one statement where they were two (every
// transition: W4). The hub's code is read as that statement sees it, as
// the read after a separate lock saw it (the hub is not locked). On SQLite, whose write transactions hold the
// database's lock already, Order reads as always and the Lock stays
// untaken.
func ForUpdate(ctx context.Context) (context.Context, *Lock) {
	l := &Lock{}
	return context.WithValue(ctx, lockKey{}, l), l
}

// Taken reports whether an Order read under the lock's context took it.
func (l *Lock) Taken() bool { return l.taken }

// orderText is the order's statement on dialect name: under ForUpdate on
// PostgreSQL the one that takes the row's lock (and the Lock is taken).
func orderText(ctx context.Context, name string) string {
	if l, ok := ctx.Value(lockKey{}).(*Lock); ok && name == dialect.Postgres {
		l.taken = true
		return byDialect[name].orderLocked
	}
	return byDialect[name].order
}

// errNoOrder ends a read whose order does not exist: the statements after
// the order's are not run (or, in a pipeline, not scanned).
var errNoOrder = errors.New("view: no such order")

// found is o and err, or nil and no error when err is errNoOrder.
func found(o *ent.Order, err error) (*ent.Order, error) {
	switch {
	case errors.Is(err, errNoOrder):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return o, nil
}

// orderQuery reads the order whose id is args[0] into o (with its hub);
// errNoOrder when there is none.
func orderQuery(text string, args []any, o *ent.Order) query {
	return query{text: text, args: args, scan: func(rows rowScanner) error {
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return err
			}
			return errNoOrder
		}
		h := new(ent.Hub)
		err := rows.Scan((*string)(&o.ID), Time{T: &o.CreatedAt}, Time{T: &o.UpdatedAt}, &o.Revision,
			&o.Number, &o.Status, (*string)(&o.WorkflowID), (*string)(&o.HubID),
			&o.CustomerRef, (*string)(&o.Priority), &o.ShipToName,
			&o.ShipToLine1, &o.ShipToLine2, &o.ShipToCity,
			&o.ShipToPostalCode, &o.ShipToCountry, NullTime{T: &o.DueAt},
			&h.Code)
		if err != nil {
			return err
		}
		h.ID = o.HubID
		o.Edges.Hub = h
		return nil
	}}
}

// OrderRead says what OrderWith reads besides the order.
type OrderRead struct {
	// Tracking: the newest tracking entries (at most LatestTracking).
	Tracking bool
	// Lines: the lines with their parts (linesQuery), in LineOrder, with
	// the optional LineColumns.
	Lines       bool
	LineOrder   LineOrder
	LineColumns LineColumns
	// TrackingColumns are the optional columns of PageWith's entries
	// (OrderWith reads them all).
	TrackingColumns TrackingColumns
	// LineRows and TrackingRows, when not nil, have PageWith read the
	// lines, or the newest tracking entries, with every column as rows,
	// not entities (rows.go); Lines and Tracking then leave the orders'
	// edges alone. OrderWith ignores them.
	LineRows     *Rows[Line]
	TrackingRows *Rows[Tracking]
	// LineMemory, when not nil, lends PageWith the entities of the lines
	// and their parts (Lines), which are then the LineMemory's until its
	// Release. OrderWith ignores it.
	LineMemory *LineMemory
}

// OrderWith returns order id with its hub (id and code), or nil when there
// is none, read through the context's ent client (under ForUpdate, with the
// lock), with what r asks for: its newest tracking entries (in
// Edges.TrackingEntries, never nil) and its lines (in Edges.Lines, never
// nil). Outside a transaction on PostgreSQL the statements go in one round
// trip (pipeline.go); otherwise one after the other, stopping when there is
// no order.
func OrderWith(ctx context.Context, id resourceid.ID, r OrderRead) (*ent.Order, error) {
	drv := ent.FromContext(ctx).Driver()
	stmts := byDialect[drv.Dialect()]
	o := new(ent.Order)
	args := []any{id} // every statement's one argument
	qs := []query{orderQuery(orderText(ctx, drv.Dialect()), args, o)}
	if r.Tracking {
		o.Edges.TrackingEntries = make([]*ent.TrackingEntry, 0, LatestTracking)
		qs = append(qs, trackingQuery(stmts.tracking, args, &o.Edges.TrackingEntries))
	}
	if r.Lines {
		o.Edges.SetLines([]*ent.OrderLine{})
		qs = append(qs, linesQuery(drv.Dialect(), args, map[resourceid.ID]*ent.Order{id: o}, r.LineOrder, r.LineColumns, nil))
	}
	return found(o, run(ctx, drv, true, qs...))
}

// trackingQuery appends the newest tracking entries of the order whose id is
// args[0] to *out.
func trackingQuery(text string, args []any, out *[]*ent.TrackingEntry) query {
	return query{text: text, args: args, scan: func(rows rowScanner) error {
		dest := make([]any, 0, 13)
		for rows.Next() {
			t, err := scanTracking(rows, AllTrackingColumns, dest)
			if err != nil {
				return err
			}
			*out = append(*out, t)
		}
		return nil
	}}
}

// scanTracking reads a row of trackingColumns with cols: an entry with,
// when TrackingHub is among them, its hub (id and code) if it has one.
// dest is room for the row's destinations, reused from row to row.
func scanTracking(rows rowScanner, cols TrackingColumns, dest []any) (*ent.TrackingEntry, error) {
	t := new(ent.TrackingEntry)
	var hubID, hubCode stdsql.NullString
	dest = append(dest[:0], (*string)(&t.ID), (*string)(&t.OrderID), &t.TrackingNumber, &t.Carrier, (*string)(&t.Status),
		&t.Location, Time{T: &t.OccurredAt})
	if cols&TrackingTimes != 0 {
		dest = append(dest, Time{T: &t.CreatedAt}, Time{T: &t.UpdatedAt})
	}
	if cols&TrackingRevision != 0 {
		dest = append(dest, &t.Revision)
	}
	if cols&TrackingHub != 0 {
		dest = append(dest, &hubID, &hubCode)
	}
	if cols&TrackingDescription != 0 {
		dest = append(dest, &t.Description)
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, err
	}
	if hubID.Valid {
		hid := resourceid.ID(hubID.String)
		t.HubID = &hid
		t.Edges.Hub = &ent.Hub{ID: hid, Code: hubCode.String}
	}
	return t, nil
}

// TrackingColumns are the optional columns of a tracking entry PageWith
// reads; it always reads the entry's id, order, tracking number, carrier,
// status, location and time. A column left out leaves its field zero (the
// hub's: HubID nil, no hub edge). A GraphQL page reads the columns its
// selection names (W3s none: 7 columns of 13, no join with the hubs); REST
// reads them all.
type TrackingColumns uint8

const (
	// TrackingTimes: the entry's created_at and updated_at.
	TrackingTimes TrackingColumns = 1 << iota
	// TrackingRevision: the entry's revision.
	TrackingRevision
	// TrackingHub: the entry's hub_id and its hub's code.
	TrackingHub
	// TrackingDescription: the entry's description.
	TrackingDescription
	// AllTrackingColumns: every column (REST's documents).
	AllTrackingColumns = TrackingTimes | TrackingRevision | TrackingHub | TrackingDescription
)

// PageWith fills, as r asks, the newest tracking entries (at most LatestTracking,
// with their hubs' codes) of every order of a page — one statement, where
// ent's eager load took two (entries, then their hubs) and read them for
// the page's look-ahead row too — and their lines (as Lines; Edges.Lines
// never nil): one statement each, in one round trip outside a transaction
// on PostgreSQL (pipeline.go) unless read as rows (below).
func PageWith(ctx context.Context, orders []*ent.Order, r OrderRead) error {
	if len(orders) == 0 {
		return nil // "IN ()" is an error on PostgreSQL
	}
	drv := ent.FromContext(ctx).Driver()
	ids := make([]any, len(orders)) // both statements' arguments
	entTracking, entLines := r.Tracking && r.TrackingRows == nil, r.Lines && r.LineRows == nil
	var byID map[resourceid.ID]*ent.Order // for the entities' statements
	var place map[resourceid.ID]int       // for the rows' (rows.go)
	if entTracking || entLines {
		byID = make(map[resourceid.ID]*ent.Order, len(orders))
	}
	if r.TrackingRows != nil || r.LineRows != nil {
		place = make(map[resourceid.ID]int, len(orders))
	}
	for i, o := range orders {
		ids[i] = o.ID
		if byID != nil {
			byID[o.ID] = o
		}
		if place != nil {
			place[o.ID] = i
		}
		if entTracking {
			o.Edges.TrackingEntries = []*ent.TrackingEntry{}
		}
		if entLines {
			o.Edges.SetLines([]*ent.OrderLine{})
		}
	}
	name := drv.Dialect()
	var qs []query
	switch {
	case r.TrackingRows != nil:
		qs = append(qs, rowsQuery(trackingRows, in(name, byDialect[name].pageTracking[AllTrackingColumns], len(ids)), ids, place, r.TrackingRows))
	case r.Tracking:
		qs = append(qs, pageTrackingQuery(name, ids, byID, r.TrackingColumns))
	}
	switch {
	case r.LineRows != nil:
		qs = append(qs, rowsQuery(lineRows, in(name, byDialect[name].lines[AllLineColumns], len(ids)), ids, place, r.LineRows))
	case r.Lines:
		qs = append(qs, linesQuery(name, ids, byID, r.LineOrder, r.LineColumns, r.LineMemory))
	}
	return run(ctx, drv, pipelinesPage(r), qs...)
}

// pipelinesPage says whether PageWith sends a page's statements in one
// pipeline on PostgreSQL. A page read as rows with every column (REST's:
// twice the bytes of the columns GraphQL selects) goes one statement after
// the other: pipelined, PostgreSQL W3s REST had a tail of 100–250 ms
// stalls (p99 93–196 ms against 45–82 one after the other, six alternated
// runs each) for one round trip saved out of a request's ~900 µs of CPU.
// The entities' narrower answers keep their
// pipeline: without it GraphQL's pages cost 6–13% more CPU and their tail
// did not change.
func pipelinesPage(r OrderRead) bool { return r.TrackingRows == nil && r.LineRows == nil }

// pageTrackingQuery is PageWith's statement of the newest tracking entries
// of the orders whose ids are args (not empty).
func pageTrackingQuery(name string, args []any, byID map[resourceid.ID]*ent.Order, cols TrackingColumns) query {
	cols &= AllTrackingColumns
	return query{text: in(name, byDialect[name].pageTracking[cols], len(args)), args: args, scan: func(rows rowScanner) error {
		dest := make([]any, 0, 13)
		for rows.Next() {
			t, err := scanTracking(rows, cols, dest)
			if err != nil {
				return err
			}
			if o := byID[t.OrderID]; o != nil {
				o.Edges.TrackingEntries = append(o.Edges.TrackingEntries, t)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for _, o := range byID {
			if !slices.IsSortedFunc(o.Edges.TrackingEntries, newestFirst) {
				slices.SortFunc(o.Edges.TrackingEntries, newestFirst)
			}
		}
		return nil
	}}
}

// newestFirst is the order of an order's latest entries: occurred_at
// descending, then id ascending (the index's tie-break).
func newestFirst(a, b *ent.TrackingEntry) int {
	if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
		return c
	}
	return strings.Compare(string(a.ID), string(b.ID))
}

// The lines come with their parts in one statement (a join), not ent's two
// (lines, then parts by id): on SQLite the second statement cost about as
// much as the first, for 200 parts looked up by primary key either way
// (W3, a page of 50 orders with about 200 lines).

// LineOrder is the order of an order's lines.
type LineOrder int

const (
	// ByID: REST's documents. The statement has no ORDER BY: each order's
	// lines are sorted here (they come in the index's order, which is
	// nearly always theirs already). On SQLite, sorting 200 lines by
	// (order_id, id) took a temporary B-tree and a sixth of the
	// statement's time.
	ByID LineOrder = iota
	// AsIndexed: no ORDER BY, the order of the index on order_lines.order_id,
	// which is the order of ent's eager load of the lines edge (GraphQL's
	// Order.lines, whose order is not specified): the same plan, rows in
	// the same order.
	AsIndexed
)

// LineColumns are the optional columns of a line linesQuery reads; it
// always reads the line's id, order, quantities and its part's sku and name.
// A column left out leaves its field zero. On SQLite every column read
// costs about a tenth of a microsecond per line (go-sqlite3 copies and
// boxes each value), so a GraphQL selection that
// asks for fewer reads fewer: W3 and W3s ask for none of them.
type LineColumns uint8

const (
	// LinePartID: the line's part_id (PartID, and the part's ID).
	LinePartID LineColumns = 1 << iota
	// LineRevision: the line's revision.
	LineRevision
	// LineTimes: the line's created_at and updated_at.
	LineTimes
	// AllLineColumns: every column (REST's documents).
	AllLineColumns = LinePartID | LineRevision | LineTimes
)

// linesQuery reads the lines of the orders in byID, whose ids are args (not
// empty), with their parts' sku and name and the optional columns cols, in
// one statement scanned by hand (ent's scanners would need one statement
// per type, or reflection per row); their timestamps through view.Time, not
// go-sqlite3's parser. The entities come from mem (nil: fresh ones).
func linesQuery(name string, args []any, byID map[resourceid.ID]*ent.Order, order LineOrder, cols LineColumns, mem *LineMemory) query {
	cols &= AllLineColumns
	return query{text: in(name, byDialect[name].lines[cols], len(args)), args: args, scan: func(rows rowScanner) error {
		dest := make([]any, 0, 11)
		for rows.Next() {
			ln, pt := mem.next()
			dest = append(dest[:0], (*string)(&ln.ID), (*string)(&ln.OrderID), (*int64)(&ln.Quantity),
				(*int64)(&ln.AllocatedQuantity), (*int64)(&ln.ShippedQuantity), &pt.Sku, &pt.PartName)
			if cols&LinePartID != 0 {
				dest = append(dest, (*string)(&ln.PartID))
			}
			if cols&LineRevision != 0 {
				dest = append(dest, &ln.Revision)
			}
			if cols&LineTimes != 0 {
				dest = append(dest, Time{T: &ln.CreatedAt}, Time{T: &ln.UpdatedAt})
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			pt.ID = ln.PartID
			ln.Edges.Part = pt
			if o := byID[ln.OrderID]; o != nil {
				o.Edges.Lines = append(o.Edges.Lines, ln)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if order == ByID {
			for _, o := range byID {
				if !slices.IsSortedFunc(o.Edges.Lines, lineByID) {
					slices.SortFunc(o.Edges.Lines, lineByID)
				}
			}
		}
		return nil
	}}
}

// buildLines returns the text of the lines' statement up to "IN (" with
// the optional columns cols: the columns linesQuery scans, in that order.
func buildLines(name string, cols LineColumns) string {
	b := sql.Dialect(name)
	l, p := b.Table(orderline.Table), b.Table(part.Table).As("p")
	names := []string{
		l.C(orderline.FieldID), l.C(orderline.FieldOrderID), l.C(orderline.FieldQuantity),
		l.C(orderline.FieldAllocatedQuantity), l.C(orderline.FieldShippedQuantity),
		p.C(part.FieldSku), p.C(part.FieldPartName),
	}
	if cols&LinePartID != 0 {
		names = append(names, l.C(orderline.FieldPartID))
	}
	if cols&LineRevision != 0 {
		names = append(names, l.C(orderline.FieldRevision))
	}
	if cols&LineTimes != 0 {
		names = append(names, TimeColumn(name, l.C(orderline.FieldCreatedAt)),
			TimeColumn(name, l.C(orderline.FieldUpdatedAt)))
	}
	q, _ := b.Select(names...).
		From(l).
		Join(p).On(l.C(orderline.FieldPartID), p.C(part.FieldID)).
		Where(sql.In(l.C(orderline.FieldOrderID), "")).
		Query()
	return upToIn(q)
}

func lineByID(a, b *ent.OrderLine) int { return strings.Compare(string(a.ID), string(b.ID)) }

// OrderStatements returns the statements' texts on the dialect (for tests): the order's,
// the newest tracking entries' and PageWith's tracking statement for a page
// of one order.
func OrderStatements(dialect string) []string {
	s := byDialect[dialect]
	return []string{s.order, s.tracking, in(dialect, s.pageTracking[AllTrackingColumns], 1)}
}
