package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/part"
	"logistics/internal/decimal"
	"logistics/internal/service"
)

// W4's contended stock: 20 parts of its own (sku BENCH-W4-01…20), one item
// of each at a hub of its own (BNCH), so every W4 order draws on the same
// 20 item rows and nothing else in the dataset touches them.
const (
	w4HubCode = "BNCH"
	w4Parts   = 20
)

// prepareW4 creates (or finds, on a database used before) W4's hub, parts
// and items through the service, in the environment of ctx.
func prepareW4(ctx context.Context, svc *service.Service, fix *fixture) error {
	c := ent.FromContext(ctx)
	h, err := c.Hub.Query().Where(hub.Code(w4HubCode)).Only(ctx)
	if ent.IsNotFound(err) {
		city, tz := "Benchmark", "UTC"
		h, err = svc.CreateHub(ctx, ent.CreateHubInput{Code: w4HubCode, Name: "Benchmark hub (W4)", City: &city, Country: "NL", Timezone: &tz})
	}
	if err != nil {
		return fmt.Errorf("W4 hub: %w", err)
	}
	fix.Hub = string(h.ID)
	for i := 1; i <= w4Parts; i++ {
		sku := fmt.Sprintf("BENCH-W4-%02d", i)
		p, err := c.Part.Query().Where(part.Sku(sku)).Only(ctx)
		if ent.IsNotFound(err) {
			p, err = svc.CreatePart(ctx, ent.CreatePartInput{Sku: sku, PartName: fmt.Sprintf("Benchmark part %d", i)})
		}
		if err != nil {
			return fmt.Errorf("W4 part %s: %w", sku, err)
		}
		it, err := c.Item.Query().Where(item.PartID(p.ID), item.HubID(h.ID)).Order(item.ByID()).First(ctx)
		if ent.IsNotFound(err) {
			q := decimal.FromInt(1)
			it, err = svc.CreateItem(ctx, ent.CreateItemInput{PartID: p.ID, HubID: h.ID, Quantity: &q})
		}
		if err != nil {
			return fmt.Errorf("W4 item of %s: %w", sku, err)
		}
		fix.Parts = append(fix.Parts, string(p.ID))
		fix.Items = append(fix.Items, string(it.ID))
	}
	return nil
}

// findOrders fills W5's and W6's order lists: up to 100 orders with lines
// (not W4's), and up to 100 shipped ones.
func findOrders(ctx context.Context, db *sql.DB, postgres bool, fix *fixture) error {
	q := func(status string) ([]string, error) {
		s := `SELECT o.id FROM orders o WHERE EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id) AND o.hub_id <> ?`
		args := []any{fix.Hub}
		if status != "" {
			s += ` AND o.status = ?`
			args = append(args, status)
		}
		s += ` ORDER BY o.id LIMIT 100`
		if postgres {
			s = dollarPlaceholders(s)
		}
		rows, err := db.QueryContext(ctx, s, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, rows.Err()
	}
	var err error
	if fix.Orders, err = q(""); err != nil {
		return err
	}
	fix.Shipped, err = q("shipped")
	return err
}

// topUpW4 makes stock units available on each of W4's items, whatever is
// reserved: quantity = reserved_quantity + stock. Reservations are left as
// they are, so the invariant checked after a row still covers every earlier
// row. Run it while no server writes (between rows).
func topUpW4(ctx context.Context, db *sql.DB, postgres bool, fix fixture, stock int64) error {
	if len(fix.Items) == 0 {
		return errors.New("W4 items not prepared")
	}
	args := []any{int64(decimal.FromInt(stock))}
	for _, id := range fix.Items {
		args = append(args, id)
	}
	q := `UPDATE items SET quantity = reserved_quantity + ?, revision = revision + 1 WHERE id IN (` + placeholders(len(fix.Items)) + `)`
	if postgres {
		q = dollarPlaceholders(q)
	}
	res, err := db.ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != int64(len(fix.Items)) {
		return fmt.Errorf("W4 top-up updated %d of %d items", n, len(fix.Items))
	}
	return nil
}

// checkW4 is the post-run check of W4's reservations: on the 20 items,
// reserved_quantity is never negative nor above quantity and equals the sum
// of the item's reservations; each line of W4's parts has allocated between
// 0 and its quantity, equal to the sum of its reservations (no double
// reservation), all of it when its order is allocated and none otherwise;
// and the items' reserved total equals the allocated quantities of the
// allocated orders' lines (no lost reservation). It returns a summary when
// all of that holds.
func checkW4(ctx context.Context, db *sql.DB, postgres bool, fix fixture) (string, error) {
	query := func(q string, args []any, scan func(*sql.Rows) error) error {
		if postgres {
			q = dollarPlaceholders(q)
		}
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	var items, parts []any
	for _, id := range fix.Items {
		items = append(items, id)
	}
	for _, id := range fix.Parts {
		parts = append(parts, id)
	}
	if len(items) == 0 {
		return "", errors.New("W4 items not prepared")
	}
	var problems []string
	var reservedTotal, allocatedTotal decimal.Decimal
	seen := 0
	err := query(`SELECT i.id, i.quantity, i.reserved_quantity, (SELECT COALESCE(SUM(r.quantity), 0) FROM reservations r WHERE r.item_id = i.id)
FROM items i WHERE i.id IN (`+placeholders(len(items))+`) ORDER BY i.id`, items, func(rows *sql.Rows) error {
		var id string
		var qty, reserved, held decimal.Decimal
		if err := rows.Scan(&id, &qty, &reserved, &held); err != nil {
			return err
		}
		seen++
		reservedTotal += reserved
		switch {
		case reserved < 0:
			problems = append(problems, fmt.Sprintf("item %s: reserved %s is negative", id, reserved))
		case reserved > qty:
			problems = append(problems, fmt.Sprintf("item %s: reserved %s above its quantity %s", id, reserved, qty))
		}
		if reserved != held {
			problems = append(problems, fmt.Sprintf("item %s: reserved %s but its reservations hold %s", id, reserved, held))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if seen != len(items) {
		problems = append(problems, fmt.Sprintf("%d of W4's %d items found", seen, len(items)))
	}
	lines, allocatedOrders := 0, map[string]bool{}
	err = query(`SELECT l.id, o.id, o.status, l.quantity, l.allocated_quantity, (SELECT COALESCE(SUM(r.quantity), 0) FROM reservations r WHERE r.order_line_id = l.id)
FROM order_lines l JOIN orders o ON o.id = l.order_id WHERE l.part_id IN (`+placeholders(len(parts))+`) ORDER BY l.id`, parts, func(rows *sql.Rows) error {
		var id, orderID, status string
		var qty, alloc, held decimal.Decimal
		if err := rows.Scan(&id, &orderID, &status, &qty, &alloc, &held); err != nil {
			return err
		}
		lines++
		switch {
		case alloc < 0:
			problems = append(problems, fmt.Sprintf("line %s: allocated %s is negative", id, alloc))
		case alloc > qty:
			problems = append(problems, fmt.Sprintf("line %s: allocated %s above its quantity %s (double reservation)", id, alloc, qty))
		}
		if alloc != held {
			problems = append(problems, fmt.Sprintf("line %s: allocated %s but its reservations hold %s", id, alloc, held))
		}
		if status == "allocated" {
			allocatedOrders[orderID] = true
			allocatedTotal += alloc
			if alloc != qty {
				problems = append(problems, fmt.Sprintf("line %s of allocated order %s: allocated %s of %s", id, orderID, alloc, qty))
			}
		} else if alloc != 0 {
			problems = append(problems, fmt.Sprintf("line %s of %s order %s: allocated %s", id, status, orderID, alloc))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if reservedTotal != allocatedTotal {
		problems = append(problems, fmt.Sprintf("the items hold %s reserved, the allocated orders' lines %s", reservedTotal, allocatedTotal))
	}
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = append(problems[:5], fmt.Sprintf("… %d more", len(problems)-5))
		}
		return "", errors.New(strings.Join(problems, "; "))
	}
	return fmt.Sprintf("%d items hold %s reserved = the allocated quantity of %d allocated orders; %d lines checked", len(items), reservedTotal, len(allocatedOrders), lines), nil
}
