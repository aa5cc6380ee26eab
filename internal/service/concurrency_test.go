package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"logistics/internal/environment"
	"net/http"
	"sync"
	"testing"
	"time"

	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/ent/reservation"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/resourceid"
	"logistics/internal/service"
)

// TestConcurrentAllocation sends 50 allocations at once over GraphQL, for
// orders that compete for stock covering only 13 of them, and checks that
// nothing is oversold or half-reserved. With twin, the requests alternate
// between two server instances sharing the database.
func TestConcurrentAllocation(t *testing.T) {
	for _, twin := range []bool{false, true} {
		t.Run(fmt.Sprintf("instances=%d", map[bool]int{false: 1, true: 2}[twin]), func(t *testing.T) {
			testConcurrentAllocation(t, twin)
		})
	}
}

func testConcurrentAllocation(t *testing.T, twin bool) {
	f := newFixture(t)
	servers := []*apptest.Server{f.srv}
	if twin {
		servers = append(servers, f.srv.Twin(t))
	}
	// part 0: 40 on hand over three items (13 orders of 3); part 1: plenty.
	for _, q := range []string{"15", "15", "10"} {
		f.stock(t, f.parts[0], f.hub, q, item.StatusAvailable, nil)
	}
	f.stock(t, f.parts[1], f.hub, "30", item.StatusAvailable, nil)
	const orders = 50
	ids := make([]resourceid.ID, orders)
	for i := range ids {
		o := f.order(t, "",
			service.NewLine{PartID: f.parts[0].ID, Quantity: decimal.FromInt(3)},
			service.NewLine{PartID: f.parts[1].ID, Quantity: decimal.MustParse("0.5")})
		f.move(t, o.ID, "submit")
		ids[i] = o.ID
	}

	moves := make([]move, len(ids))
	for i, id := range ids {
		moves[i] = move{id, "allocate"}
	}
	ok, shy := runConcurrently(t, servers, moves)
	if ok != 13 || shy != orders-13 {
		t.Errorf("%d allocated and %d refused, want 13 and %d", ok, shy, orders-13)
	}
	allocated := checkStock(t, f, ids)
	if allocated != ok {
		t.Errorf("%d orders allocated in the database, %d answered OK", allocated, ok)
	}
	var reserved decimal.Decimal
	for _, it := range f.client().Item.Query().Where(item.PartID(f.parts[0].ID)).AllX(f.ctx) {
		reserved += it.ReservedQuantity
	}
	if reserved != decimal.FromInt(int64(3*allocated)) {
		t.Errorf("part 0 reserved %s for %d orders", reserved, allocated)
	}

	// Round two: cancel the allocated orders (release) while the refused ones
	// try again (reserve): locks taken in opposite roles must not deadlock,
	// and the invariants must still hold.
	moves = moves[:0]
	for _, o := range f.client().Order.Query().Where(order.IDIn(ids...)).AllX(f.ctx) {
		tr := "allocate"
		if o.Status == "allocated" {
			tr = "cancel"
		}
		moves = append(moves, move{o.ID, tr})
	}
	runConcurrently(t, servers, moves)
	checkStock(t, f, ids)
}

type move struct {
	id         resourceid.ID
	transition string
}

// runConcurrently sends all moves at once, alternating between servers, and
// counts the successes and the CONFLICT answers; anything else fails the test.
func runConcurrently(t *testing.T, servers []*apptest.Server, moves []move) (ok, conflicts int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const mutation = `mutation($id: ID!, $t: String!) { transitionOrder(id: $id, transition: $t) { id status } }`
	var (
		wg       sync.WaitGroup
		start    = make(chan struct{})
		mu       sync.Mutex
		failures []string
	)
	for i, m := range moves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			s := servers[i%len(servers)]
			code, err := postGraphQL(ctx, s, mutation, map[string]any{"id": m.id, "t": m.transition})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failures = append(failures, fmt.Sprintf("%s %s: %v", m.transition, m.id, err))
			case code == "":
				ok++
			case code == "CONFLICT":
				conflicts++
			default:
				failures = append(failures, fmt.Sprintf("%s %s: %s", m.transition, m.id, code))
			}
		}()
	}
	close(start)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	return ok, conflicts
}

// checkStock checks that no item is oversold, that reservations match the
// items' reserved quantities, and that every order is either fully
// allocated or holds nothing. It returns how many are allocated.
func checkStock(t *testing.T, f *fixture, ids []resourceid.ID) int {
	t.Helper()

	c := f.client()
	items := c.Item.Query().AllX(f.ctx)
	for _, it := range items {
		if it.ReservedQuantity > it.Quantity || it.ReservedQuantity < 0 {
			t.Errorf("item %s: reserved %s of %s", it.ID, it.ReservedQuantity, it.Quantity)
		}
		var held decimal.Decimal
		for _, r := range c.Reservation.Query().Where(reservation.ItemID(it.ID)).AllX(f.ctx) {
			held += r.Quantity
		}
		if held != it.ReservedQuantity {
			t.Errorf("item %s: reserved %s but reservations hold %s", it.ID, it.ReservedQuantity, held)
		}
	}
	allocated := 0
	for _, o := range c.Order.Query().Where(order.IDIn(ids...)).AllX(f.ctx) {
		if o.Status == "cancelled" {
			o.Status = "open" // holds nothing, like an open order
		}
		lines := c.OrderLine.Query().Where(orderline.OrderID(o.ID)).AllX(f.ctx)
		switch o.Status {
		case "allocated":
			allocated++
			for _, l := range lines {
				if l.AllocatedQuantity != l.Quantity {
					t.Errorf("allocated order %s: line %s holds %s of %s", o.ID, l.ID, l.AllocatedQuantity, l.Quantity)
				}
			}
		case "open":
			for _, l := range lines {
				if l.AllocatedQuantity != 0 {
					t.Errorf("open order %s: line %s holds %s", o.ID, l.ID, l.AllocatedQuantity)
				}
			}
			if n := c.Reservation.Query().Where(reservation.OrderID(o.ID)).CountX(f.ctx); n != 0 {
				t.Errorf("open order %s has %d reservations", o.ID, n)
			}
		default:
			t.Errorf("order %s is %s", o.ID, o.Status)
		}
	}
	return allocated
}

// postGraphQL sends one GraphQL request and returns the first error's
// extensions.code ("" on success).
func postGraphQL(ctx context.Context, s *apptest.Server, query string, vars map[string]any) (string, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/graphql", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/graphql-response+json")
	req.Header.Set("Authorization", "Bearer "+s.Keys[environment.Production])
	for k, vs := range s.Header {
		req.Header[k] = vs
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out apptest.GQLResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", fmt.Errorf("status %d: %v", resp.StatusCode, err)
	}
	if len(out.Errors) > 0 {
		if out.Errors[0].Code() != "CONFLICT" {
			return out.Errors[0].Code(), fmt.Errorf("%s", out.Errors[0].Message)
		}
		return out.Errors[0].Code(), nil
	}
	return "", nil
}
