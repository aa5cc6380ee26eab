package main

import (
	"testing"

	"entgo.io/ent/dialect"
)

// BenchmarkGrowth times the reads whose cost grows with the data unless an
// index or a bounded answer keeps it flat, through REST, GraphQL and the
// same statements written by hand, interleaved as BenchmarkAggregateRatios
// does:
//
//   - W7, a substring search that matches nothing (every name is read unless
//     an index answers);
//   - W8, a page with its totalCount (the count reads every match), and
//     W8i, the count of all items (GraphQL's exact totalCount); W8b/W8p and
//     W8ib/W8ip, the same counted bounded and planned (count(mode:),
//     REST's Prefer: count=bounded|planned; on SQLite planned is bounded);
//   - W9h, the quantity of stock by hub, and W9s, orders by status.
//
// Run it on a scale-1 and a scale-10 sandbox and compare the two with
// benchstat: its ratio column is the scale-10 ÷ scale-1 latency of each
// row (bench/README.md, "Growth").
//
//	BENCH_DB=… BENCH_SANDBOX_DB=… go test -run '^$' -bench Growth -benchtime 1x -count 3 ./bench | tee /tmp/growth-1.txt
func BenchmarkGrowth(b *testing.B) {
	ip, token := benchServer(b)
	interleavedRatios(b, ip, token, growthWorkloads(ip.dialect))
}

func growthWorkloads(d string) []aggregateWorkload {
	// As the service writes it on both databases (SQLite runs with
	// case-sensitive LIKE, PostgreSQL's search index is on lower(part_name)).
	like := "lower(part_name) LIKE lower('%zqx%')"
	openPlanned := `SELECT count(*) FROM (SELECT id FROM orders WHERE status = 'open' LIMIT 1001) t`
	itemsPlanned := `SELECT count(*) FROM (SELECT id FROM items LIMIT 1001) t`
	if d == dialect.Postgres {
		openPlanned = `EXPLAIN (FORMAT JSON) SELECT id FROM orders WHERE status = 'open'`
		itemsPlanned = `EXPLAIN (FORMAT JSON) SELECT id FROM items`
	}
	return []aggregateWorkload{
		{
			name:    "W7-search-matching-nothing",
			rest:    "/v1/parts?part_name=*zqx*&limit=50",
			graphql: `{ parts(first: 50, where: {partNameContainsFold: "zqx"}) { edges { node { id sku partName } } pageInfo { hasNextPage } } }`,
			sql:     `SELECT id, sku, part_name FROM parts WHERE ` + like + ` ORDER BY id LIMIT 51`,
		},
		{
			name:    "W8-open-orders-with-count",
			graphql: `{ orders(first: 50, where: {status: "open"}) { totalCount edges { node { id number status } } } }`,
			sql:     `SELECT count(*) FROM orders WHERE status = 'open'`,
			more:    []string{`SELECT id, number, status FROM orders WHERE status = 'open' ORDER BY id LIMIT 51`},
		},
		{
			name:    "W8i-count-of-items",
			graphql: `{ items(first: 1) { totalCount edges { node { id } } } }`,
			sql:     `SELECT count(*) FROM items`,
			more:    []string{`SELECT id FROM items ORDER BY id LIMIT 2`},
		},
		{
			name:    "W8b-open-orders-bounded-count",
			rest:    "/v1/orders?status=open&limit=50",
			prefer:  "count=bounded",
			graphql: `{ orders(first: 50, where: {status: "open"}) { count { value kind } edges { node { id number status } } } }`,
			sql:     `SELECT count(*) FROM (SELECT id FROM orders WHERE status = 'open' LIMIT 1001) t`,
			more:    []string{`SELECT id, number, status FROM orders WHERE status = 'open' ORDER BY id LIMIT 51`},
		},
		{
			name:    "W8p-open-orders-planned-count",
			rest:    "/v1/orders?status=open&limit=50",
			prefer:  "count=planned",
			graphql: `{ orders(first: 50, where: {status: "open"}) { count(mode: PLANNED) { value kind } edges { node { id number status } } } }`,
			sql:     openPlanned,
			more:    []string{`SELECT id, number, status FROM orders WHERE status = 'open' ORDER BY id LIMIT 51`},
		},
		{
			name:    "W8ib-count-of-items-bounded",
			rest:    "/v1/items?limit=1",
			prefer:  "count=bounded",
			graphql: `{ items(first: 1) { count { value kind } edges { node { id } } } }`,
			sql:     `SELECT count(*) FROM (SELECT id FROM items LIMIT 1001) t`,
			more:    []string{`SELECT id FROM items ORDER BY id LIMIT 2`},
		},
		{
			name:    "W8ip-count-of-items-planned",
			rest:    "/v1/items?limit=1",
			prefer:  "count=planned",
			graphql: `{ items(first: 1) { count(mode: PLANNED) { value kind } edges { node { id } } } }`,
			sql:     itemsPlanned,
			more:    []string{`SELECT id FROM items ORDER BY id LIMIT 2`},
		},
		{
			name:    "W9h-quantity-by-hub",
			rest:    "/v1/items/aggregate?group_by=hub&sum=quantity",
			graphql: `{ itemAggregate(groupBy: [HUB]) { keys { hub { code } } sum { quantity } } }`,
			sql:     `SELECT h.code, SUM(i.quantity) FROM items i JOIN hubs h ON h.id = i.hub_id GROUP BY h.code ORDER BY h.code`,
		},
		{
			name:    "W9s-orders-by-status",
			rest:    "/v1/orders/aggregate?group_by=status",
			graphql: `{ orderAggregate(groupBy: [STATUS]) { keys { status } count } }`,
			sql:     `SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status`,
		},
	}
}
