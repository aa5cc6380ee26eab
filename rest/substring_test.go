package rest_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/casefold"
	"logistics/internal/environment"
	"logistics/internal/migrations"
)

// TestSubstringSearchWithAndWithoutIndex: substring filters answer the same
// with PostgreSQL's search indexes as without them, through REST and
// GraphQL, on a generated corpus of part names and descriptions holding %,
// _, \, mixed case and non-ASCII letters (ß, Greek, CJK, İ, emoji). Each
// answer also equals the semantics computed here: % and _ are literal,
// case is folded — the pattern by Go's strings.ToLower (ent), the column by
// the database's lower(): ASCII only on SQLite, every letter on
// PostgreSQL — and on PostgreSQL each case-folded answer equals ILIKE's
// (what ent wrote before internal/casefold), asked directly.
//
// On PostgreSQL the first half runs with sequential and plain index scans
// off, so that every case-folded statement the service sent uses a search
// index (each one is explained to show it), then the indexes are dropped
// in the test's own databases and the same requests are answered by scans.
// SQLite has no such index (docs/design/0023-substring-search.md): its half
// checks the answers against the semantics and REST against GraphQL.
func TestSubstringSearchWithAndWithoutIndex(t *testing.T) {
	rec := &recorder{}
	opts := apptest.Options{Driver: rec.wrap}
	if apptest.Postgres() {
		opts.Config = func(c *app.Config) { c.DB, c.SandboxDB = preferIndexes(t, c.DB), preferIndexes(t, c.SandboxDB) }
	}
	s := apptest.New(t, opts)
	env := s.Env(environment.Production)
	ctx := s.Ctx(environment.Production)

	parts := substringCorpus(400)
	bulk := make([]*ent.PartCreate, len(parts))
	for i, p := range parts {
		bulk[i] = env.DB.Client.Part.Create().SetSku(fmt.Sprintf("SUB-%04d", i)).SetPartName(p.name).SetDescription(p.description)
	}
	created, err := env.DB.Client.Part.CreateBulk(bulk...).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range parts {
		parts[i].id = string(created[i].ID)
	}

	fold := asciiLower
	if env.DB.Dialect == dialect.Postgres {
		var unicodeFold bool
		if err := env.DB.SQL.QueryRowContext(ctx, `SELECT lower('ÜΣİ') = 'üσi'`).Scan(&unicodeFold); err != nil {
			t.Fatal(err)
		}
		if unicodeFold {
			fold = runeLower
		}
	}
	expected := func(q substringQuery) []string {
		var ids []string
		for _, p := range parts {
			v := p.name
			if q.field == "description" {
				v = p.description
			}
			var ok bool
			switch q.op {
			case "ContainsFold":
				// ent lower-cases the pattern in Go (every letter) and
				// leaves the column to the database's lower().
				ok = strings.Contains(fold(v), fold(strings.ToLower(q.needle)))
			case "Contains":
				ok = strings.Contains(v, q.needle)
			case "HasPrefix":
				ok = strings.HasPrefix(v, q.needle)
			case "HasSuffix":
				ok = strings.HasSuffix(v, q.needle)
			}
			if ok != q.not {
				ids = append(ids, p.id)
			}
		}
		slices.Sort(ids)
		return ids
	}

	queries := substringQueries()
	answer := func(t *testing.T) map[substringQuery][]string {
		out := map[substringQuery][]string{}
		nonEmpty := 0
		for _, q := range queries {
			gql := substringGraphQL(t, s, q)
			if q.rest != "" {
				if r := substringREST(t, s, q); !slices.Equal(r, gql) {
					t.Errorf("%s: REST %d rows, GraphQL %d rows", q, len(r), len(gql))
				}
			}
			if want := expected(q); !slices.Equal(gql, want) {
				t.Errorf("%s: %d rows, want %d (%% and _ literal, case folded)", q, len(gql), len(want))
			}
			if q.op == "ContainsFold" && env.DB.Dialect == dialect.Postgres {
				if want := ilike(t, env.DB.SQL, q); !slices.Equal(gql, want) {
					t.Errorf("%s: %d rows, ILIKE %d", q, len(gql), len(want))
				}
			}
			if len(gql) > 0 && len(gql) < len(parts) {
				nonEmpty++
			}
			out[q] = gql
		}
		if nonEmpty < len(queries)/2 {
			t.Fatalf("only %d of %d queries select some but not all rows: the corpus does not test much", nonEmpty, len(queries))
		}
		return out
	}

	with := answer(t)
	if env.DB.Dialect != dialect.Postgres {
		return
	}

	// Every case-folded statement the service sent for the requests above
	// is served by a search index (NOT LIKE cannot be; the case-sensitive
	// fContains, fHasPrefix and fHasSuffix scan).
	like := rec.take(func(q string) bool {
		return strings.Contains(q, ") LIKE lower(") && !strings.Contains(q, "NOT (")
	})
	if len(like) < len(queries)/2 {
		t.Fatalf("recorded %d case-folded statements for %d queries", len(like), len(queries))
	}
	t.Logf("%d queries, %d case-folded statements explained", len(queries), len(like))
	for _, st := range like {
		plan := explain(t, env.DB.SQL, st)
		if !strings.Contains(plan, "_lower_trgm") {
			t.Errorf("not served by a search index: %s %v\n%s", st.query, st.args, plan)
		}
	}

	// Every other substring filter's column has its index, usable by the
	// statement internal/casefold writes, with an escaped pattern; and no
	// search index serves equality, whose …In lists would otherwise be
	// walked in every combination of their values.
	for table, cols := range migrations.SearchColumns {
		for _, c := range cols {
			idx := migrations.SearchIndex(table, c)
			st := statement{fmt.Sprintf(`SELECT "id" FROM %q WHERE lower(%q) LIKE lower($1)`, table, c), []any{`%a\%b\_c%`}}
			if plan := explain(t, env.DB.SQL, st); !strings.Contains(plan, idx) {
				t.Errorf("%s.%s: not served by %s:\n%s", table, c, idx, plan)
			}
			st = statement{fmt.Sprintf(`SELECT "id" FROM %q WHERE %q = ANY($1) AND %q = ANY($2)`, table, c, c), []any{[]string{"a", "b"}, []string{"c", "d"}}}
			if plan := explain(t, env.DB.SQL, st); strings.Contains(plan, "_trgm") {
				t.Errorf("%s.%s = ANY(…) is served by a trigram index:\n%s", table, c, plan)
			}
		}
	}

	for _, e := range []environment.Name{environment.Production, environment.Sandbox} {
		for table, cols := range migrations.SearchColumns {
			for _, c := range cols {
				if _, err := s.Env(e).DB.SQL.ExecContext(ctx, `DROP INDEX `+migrations.SearchIndex(table, c)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	rec.take(func(string) bool { return true })
	without := answer(t)
	for _, q := range queries {
		if !slices.Equal(with[q], without[q]) {
			t.Errorf("%s: %d rows with the search index, %d without", q, len(with[q]), len(without[q]))
		}
	}
	for _, st := range rec.take(func(q string) bool { return strings.Contains(q, "LIKE ") }) {
		if plan := explain(t, env.DB.SQL, st); strings.Contains(plan, "_trgm") {
			t.Fatalf("a search index after dropping them all: %s", plan)
		}
	}
}

type substringPart struct{ id, name, description string }

// substringFragments are the words names are made of: the wildcards and
// the escape character, case variants, and letters whose folding differs
// between ASCII and Unicode.
var substringFragments = []string{
	"Bolt", "bolt", "BOLT", "Hex", "nut", "M8",
	"50%", "5_0", "a%b", "a_b", `a\b`, "100%_off", "%", "_", "__", "%%", `\`,
	"Straße", "STRASSE", "Ünïcödé", "ÜNÏCÖDÉ", "ünïcödé", "Σίσυφος", "ΣΊΣΥΦΟΣ", "ς",
	"日本語", "ボルト", "İstanbul", "istanbul", "ǅemal", "émigré", "ÉMIGRÉ", "🚚", "x",
}

func substringCorpus(n int) []substringPart {
	r := rand.New(rand.NewPCG(44, 2))
	word := func() string {
		var b strings.Builder
		for k := range 1 + r.IntN(4) {
			if k > 0 {
				b.WriteString([]string{" ", "-", ""}[r.IntN(3)])
			}
			b.WriteString(substringFragments[r.IntN(len(substringFragments))])
		}
		return b.String()
	}
	out := make([]substringPart, n)
	for i := range out {
		out[i] = substringPart{name: word(), description: word()}
	}
	return out
}

type substringQuery struct {
	field  string // partName or description
	op     string // ContainsFold, Contains, HasPrefix, HasSuffix
	needle string
	not    bool
	rest   string // the REST filter, "" when REST has none
}

func (q substringQuery) String() string {
	n := ""
	if q.not {
		n = "not "
	}
	return fmt.Sprintf("%s%s%s(%q)", n, q.field, q.op, q.needle)
}

var substringNeedles = []string{
	"bolt", "BOLT", "Bolt", "olt", "ol", "o", "zqx",
	"%", "_", "50%", "5_0", "0%", "%_", "a%b", "a_b", `a\b`, `\`, "%%", "__", "5%0", "a_",
	"straße", "STRASSE", "STRAßE", "ünï", "ÜNÏ", "Ünïcödé", "σίσ", "ΣΊΣ", "ς", "日本", "ボルト",
	"istanbul", "İst", "ǆemal", "émigré", "ÉMIGRÉ", "🚚", "olt-ne", "x a",
}

func substringQueries() []substringQuery {
	var qs []substringQuery
	for i, n := range substringNeedles {
		rest := "*" + n + "*"
		qs = append(qs,
			substringQuery{field: "partName", op: "ContainsFold", needle: n, rest: "part_name=" + url.QueryEscape(rest)},
			substringQuery{field: "description", op: "ContainsFold", needle: n, rest: "description=" + url.QueryEscape(rest)},
			substringQuery{field: "partName", op: "Contains", needle: n},
		)
		if i%3 == 0 {
			qs = append(qs,
				substringQuery{field: "partName", op: "ContainsFold", needle: n, not: true, rest: "part_name!=" + url.QueryEscape(rest)},
				substringQuery{field: "partName", op: "HasPrefix", needle: n},
				substringQuery{field: "description", op: "HasSuffix", needle: n},
			)
		}
	}
	return qs
}

func substringREST(t *testing.T, s *apptest.Server, q substringQuery) []string {
	t.Helper()
	resp := s.Do(t, "GET", s.URL+"/v1/parts?limit=500&"+q.rest, nil, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: REST %d %s", q, resp.StatusCode, resp.Body)
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		HasMore bool `json:"has_more"`
	}
	resp.JSON(t, &page)
	ids := []string{}
	for _, d := range page.Data {
		ids = append(ids, d.ID)
	}
	slices.Sort(ids)
	return ids
}

func substringGraphQL(t *testing.T, s *apptest.Server, q substringQuery) []string {
	t.Helper()
	var where map[string]any = map[string]any{q.field + q.op: q.needle}
	if q.not {
		where = map[string]any{"not": where}
	}
	var data struct {
		Parts struct {
			Edges []struct {
				Node struct {
					ID string `json:"id"`
				} `json:"node"`
			} `json:"edges"`
		} `json:"parts"`
	}
	s.MustGraphQL(t, environment.Production, `query($w: PartWhereInput) { parts(where: $w, first: 500) { edges { node { id } } } }`, map[string]any{"w": where}, &data)
	ids := []string{}
	for _, e := range data.Parts.Edges {
		ids = append(ids, e.Node.ID)
	}
	slices.Sort(ids)
	return ids
}

// ilike is the ids of the corpus's parts that PostgreSQL's ILIKE selects
// for a ContainsFold query, with ent's pattern (lower-cased in Go, %, _ and
// \ escaped).
func ilike(t *testing.T, db *sql.DB, q substringQuery) []string {
	t.Helper()
	col := "part_name"
	if q.field == "description" {
		col = "description"
	}
	op := "ILIKE"
	if q.not {
		op = "NOT ILIKE"
	}
	rows, err := db.QueryContext(context.Background(),
		fmt.Sprintf(`SELECT id FROM parts WHERE sku LIKE 'SUB-%%' AND %s %s $1`, col, op), "%"+strings.ToLower(casefold.Escape(q.needle))+"%")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// runeLower is PostgreSQL's lower() under a Unicode locale: each
// character's simple lower-case mapping.
func runeLower(s string) string { return strings.Map(unicode.ToLower, s) }

// preferIndexes makes the planner choose any index it can over a scan of
// the table (or of the primary key), as it would at scale: the test's
// tables are too small for the planner to pick one by itself.
func preferIndexes(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("enable_seqscan", "off")
	q.Set("enable_indexscan", "off")
	q.Set("enable_indexonlyscan", "off")
	u.RawQuery = q.Encode()
	return u.String()
}

// recorder keeps the statements read through a driver, with their
// arguments.
type recorder struct {
	mu    sync.Mutex
	stmts []statement
}

type statement struct {
	query string
	args  []any
}

// wrap records every statement read outside a transaction (the list
// requests' reads), through the tests' statement wrapper.
func (r *recorder) wrap(d dialect.Driver) dialect.Driver {
	return apptest.WrapDriver(d, func(q string, args any, inTx bool) {
		a, ok := args.([]any)
		if inTx || !ok || !strings.HasPrefix(q, "SELECT") {
			return
		}
		r.mu.Lock()
		r.stmts = append(r.stmts, statement{q, slices.Clone(a)})
		r.mu.Unlock()
	})
}

// take removes and returns the statements for which keep is true (and
// drops the others).
func (r *recorder) take(keep func(string) bool) []statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []statement
	for _, s := range r.stmts {
		if keep(s.query) {
			out = append(out, s)
		}
	}
	r.stmts = nil
	return out
}

// explain is the plan of a recorded statement with its own arguments, on
// a connection with the service's settings.
func explain(t *testing.T, db *sql.DB, st statement) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "EXPLAIN "+st.query, st.args...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", st.query, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
