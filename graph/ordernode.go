package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"logistics/ent"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// node(id:) for an order whose selection asks only for what
// internal/view reads — the order's own fields, its hub's id and code,
// its lines' own fields with their parts' id, sku and name — is read in two
// statements scanned by hand (the order with its hub's code; the lines with
// their parts) instead of ent's four eager loads (order, hub, lines, parts)
// through its generic scanners, which were most of the CPU of W6 (one
// order by id) through GraphQL. Any other selection (the workflow, tracking entries, events,
// allowedTransitions, another field of the hub or the part), and an order
// that is not there, goes through ent's Noder, so its answer and its errors
// are ent's own. The lines come in the order of ent's eager load (the index
// on order_lines.order_id, view.AsIndexed), set under each alias the
// selection gives them, where entgql's Order.lines resolver reads them.
// The answers of mutations on an order are read again the same way
// (eagerOrder, helpers.go).

// The fields view fills, per type; __typename is every type's.
var (
	orderReadFields = fieldSet("id", "createdAt", "updatedAt", "revision", "number", "status", "workflowID", "hubID",
		"customerRef", "priority", "shipToName", "shipToLine1", "shipToLine2", "shipToCity", "shipToPostalCode",
		"shipToCountry", "dueAt")
	hubReadFields  = fieldSet("id", "code")
	lineReadFields = fieldSet("id", "createdAt", "updatedAt", "revision", "orderID", "partID", "quantity",
		"allocatedQuantity", "shippedQuantity")
	partReadFields = fieldSet("id", "sku", "partName")
)

func fieldSet(names ...string) map[string]bool {
	m := map[string]bool{"__typename": true}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// orderNode returns order id read by view when the node field's
// selection fits what it reads, and ok false (nothing read) otherwise.
func orderNode(ctx context.Context, id resourceid.ID) (o *ent.Order, ok bool, err error) {
	if id.Prefix() != resourceid.Order {
		return nil, false, nil
	}
	lineFields, ok := orderReadFits(ctx)
	if !ok {
		return nil, false, nil
	}
	return readOrder(ctx, id, lineFields)
}

// readOrder is orderNode for a selection orderReadFits accepted, with its
// lines fields.
func readOrder(ctx context.Context, id resourceid.ID, lineFields []graphql.CollectedField) (o *ent.Order, ok bool, err error) {
	r := view.OrderRead{Lines: len(lineFields) > 0, LineOrder: view.AsIndexed}
	if r.Lines {
		r.LineColumns = lineColumns(graphql.GetOperationContext(ctx), lineFields)
	}
	// The lines are set on the order's own edge, which entgql's Order.lines
	// resolver reads under any alias (ent/template/edge.tmpl).
	if o, err = view.OrderWith(ctx, id, r); err != nil || o == nil {
		return nil, false, err
	}
	return o, true, nil
}

// orderReadFits reports whether the field's selection on an order asks
// only for what view reads (the *ReadFields above), with the fields
// that select its lines.
func orderReadFits(ctx context.Context) (lineFields []graphql.CollectedField, ok bool) {
	fc, oc := graphql.GetFieldContext(ctx), graphql.GetOperationContext(ctx)
	if fc == nil || oc == nil {
		return nil, false
	}
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, []string{"Order", "Node"}) {
		switch {
		case orderReadFields[f.Name] && len(f.Selections) == 0:
		case f.Name == "hub" && only(oc, f.Selections, "Hub", hubReadFields, nil):
		case f.Name == "lines" && only(oc, f.Selections, "OrderLine", lineReadFields, map[string]func([]ast.Selection) bool{
			"part": func(s []ast.Selection) bool { return only(oc, s, "Part", partReadFields, nil) },
		}):
			lineFields = append(lineFields, f)
		default:
			return nil, false
		}
	}
	return lineFields, true
}

// renderedOrder is a mutation's answer from the row its order's event was
// rendered from in this transaction (view.Renderings; REST answers its
// writes from it too) when the selection fits what view reads, which
// that row holds as well: the order's fields, its hub's id and code, its
// lines with their parts' id, sku and name. Without it the answer was read
// again inside the write transaction: two statements after createOrder and
// after each transitionOrder (W4), under SQLite's one write lock. Its lines
// come in id order, the representation's (a query's come in the index's
// order, which Order.lines does not specify; for lines created by one
// instance it is the same). lineFields are the selection's lines fields, as
// orderReadFits returned them for a selection it accepted; ok is false when
// there is no such row.
func renderedOrder(memo *view.Renderings, id resourceid.ID, lineFields []graphql.CollectedField) (*ent.Order, bool) {
	if memo == nil {
		return nil, false
	}
	row, _ := memo.Row(id)
	o, _ := row.(*ent.Order)
	if o == nil || o.Edges.Hub == nil {
		return nil, false
	}
	for _, l := range o.Edges.Lines {
		if l.Edges.Part == nil {
			return nil, false
		}
	}
	out := *o
	out.Edges = ent.OrderEdges{Hub: o.Edges.Hub}
	if len(lineFields) > 0 {
		lines := o.Edges.Lines // the memo's row is read, never changed
		if lines == nil {
			lines = []*ent.OrderLine{} // [] for none, as a query answers
		}
		out.Edges.SetLines(lines)
	}
	return &out, true
}

// only reports whether the selection of an object of type typ asks for the
// fields in scalars, without a selection of their own, and for the edges
// of edges, each with a selection that its function accepts.
func only(oc *graphql.OperationContext, set ast.SelectionSet, typ string, scalars map[string]bool, edges map[string]func([]ast.Selection) bool) bool {
	for _, f := range graphql.CollectFields(oc, set, []string{typ, "Node"}) {
		if scalars[f.Name] && len(f.Selections) == 0 {
			continue
		}
		if accept, ok := edges[f.Name]; !ok || !accept(f.Selections) {
			return false
		}
	}
	return true
}
