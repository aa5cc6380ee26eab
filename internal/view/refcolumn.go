// A page reads a reference's text — a part's sku, a hub's code —
// in the statement of the page that refers to it, as a correlated scalar
// subquery (a primary-key lookup per row, as the benchmark's floors read
// references), instead of a second statement by the page's ids (ent's eager
// loads, or a hand-written one). The column is named with ent.TextColumn's
// prefix, so ent scans it as text (ent/template/selected.tmpl), and the
// entity's Value method gives it back.

package view

import (
	"fmt"
	"slices"

	"entgo.io/ent/dialect/sql"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/part"
	"logistics/internal/resourceid"
)

// AddRefColumn adds to the page's statement s the text column name: the column col
// of the row of table whose id is s's column fk, and fk itself when s does
// not select it (a GraphQL page selects only the columns its selection
// asks for, and the reference's id comes from fk). name must start with
// ent.TextColumn.
func AddRefColumn(s *sql.Selector, table, col, fk, name string) {
	if !slices.Contains(s.UnqualifiedColumns(), fk) {
		s.AppendSelect(s.C(fk))
	}
	d := sql.Dialect(s.Dialect())
	t := d.Table(table).As("r_" + name[len(ent.TextColumn):])
	s.AppendSelectExprAs(d.Select(t.C(col)).From(t).Where(sql.ColumnsEQ(t.C("id"), s.C(fk))), name)
}

// RefText is the text of a column AddRefColumn added to the statement that read v
// (ent keeps it in the entity: ent/template/selected.tmpl).
func RefText(v interface {
	SelectedText(string) (string, bool)
}, name string) (string, error) {
	if s, ok := v.SelectedText(name); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s: no text column of that name in the statement", name)
}

// The columns' names.
const (
	PartSku = ent.TextColumn + "part_sku"
	HubCode = ent.TextColumn + "hub_code"
)

// ItemRefs has an items query read its rows' parts' skus and hubs' codes
// (ItemRefEdges sets them). A count of the query's rows replaces the
// statement's selection, these columns with it.
func ItemRefs(q *ent.ItemQuery) *ent.ItemQuery {
	q.Modify(func(s *sql.Selector) {
		AddRefColumn(s, part.Table, part.FieldSku, item.FieldPartID, PartSku)
		AddRefColumn(s, hub.Table, hub.FieldCode, item.FieldHubID, HubCode)
	})
	return q
}

// ItemRefEdges sets the part (id and sku) and the hub (id and code) of items
// read through ItemRefs. The page's parts are one allocation, and items of one
// hub share its ent.Hub (pageHubs): these entities are read, never changed.
func ItemRefEdges(items []*ent.Item) error {
	parts := make([]ent.Part, len(items))
	var hubs pageHubs
	for i, it := range items {
		sku, err := RefText(it, PartSku)
		if err != nil {
			return err
		}
		code, err := RefText(it, HubCode)
		if err != nil {
			return err
		}
		parts[i] = ent.Part{ID: it.PartID, Sku: sku}
		it.Edges.Part = &parts[i]
		it.Edges.Hub = hubs.get(it.HubID, code)
	}
	return nil
}

// OrderRefs has an orders query read its rows' hubs' codes (OrderRefEdges sets
// them).
func OrderRefs(q *ent.OrderQuery) *ent.OrderQuery {
	q.Modify(func(s *sql.Selector) { AddRefColumn(s, hub.Table, hub.FieldCode, order.FieldHubID, HubCode) })
	return q
}

// OrderRefEdges sets the hub (id and code) of orders read through OrderRefs.
func OrderRefEdges(orders []*ent.Order) error {
	var hubs pageHubs
	for _, o := range orders {
		code, err := RefText(o, HubCode)
		if err != nil {
			return err
		}
		o.Edges.Hub = hubs.get(o.HubID, code)
	}
	return nil
}

// pageHubs hands out the hubs of one page's rows, one ent.Hub per
// distinct hub for the first len(seen) of them: a page names few hubs (W1's
// fifty items two), and an ent.Hub is 408 bytes of fresh memory — 20 KB a
// page when every row had its own. Rows past that many distinct hubs get
// their own: the bound keeps the linear search short (an orders page names
// about 30 of the demo data's 50 hubs; a map was not measured against it).
type pageHubs struct {
	n    int
	seen [16]*ent.Hub
}

func (p *pageHubs) get(id resourceid.ID, code string) *ent.Hub {
	for _, h := range p.seen[:p.n] {
		if h.ID == id {
			return h
		}
	}
	h := &ent.Hub{ID: id, Code: code}
	if p.n < len(p.seen) {
		p.seen[p.n] = h
		p.n++
	}
	return h
}
