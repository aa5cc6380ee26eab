-- Written by hand: PostgreSQL keeps statistics on an index's expression
-- (lower(col)) only once ANALYZE has run after the index exists. Without
-- them the planner guesses how many rows a substring search matches, and on
-- an existing database it guessed enough to prefer walking the primary key
-- over the search index (every row read for a search that matches none),
-- until autovacuum got round to analyzing the table: on a large table that
-- changes little, possibly never. ANALYZE reads a bounded sample of each
-- table, whatever its size.
ANALYZE hubs, parts, items, orders, tracking_entries;
