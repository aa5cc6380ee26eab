package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/count"
	"logistics/internal/environment"
)

type countedPage struct {
	Data           []map[string]any `json:"data"`
	HasMore        bool             `json:"has_more"`
	TotalCount     *int             `json:"total_count"`
	TotalCountKind *string          `json:"total_count_kind"`
}

// TestPreferCount: each Prefer: count=… answers its count, labelled in
// total_count_kind and Preference-Applied, on the database the test runs
// on; without it a list counts nothing; a bad one is a 400.
func TestPreferCount(t *testing.T) {
	s := apptest.New(t)
	c := s.Env(environment.Production).DB.Client
	const n = count.Cap + 5
	for start := 0; start < n; start += 500 {
		var b []*ent.PartCreate
		for i := start; i < min(n, start+500); i++ {
			b = append(b, c.Part.Create().SetSku(fmt.Sprintf("CNT-%04d", i)).SetPartName("counted part"))
		}
		if err := c.Part.CreateBulk(b...).Exec(s.Ctx(environment.Production)); err != nil {
			t.Fatal(err)
		}
	}
	pg := apptest.Postgres()
	list := s.Base(environment.Production) + "/v1/parts?limit=2"
	few := s.Base(environment.Production) + "/v1/parts?limit=2&sku=*CNT-000*"

	get := func(url, prefer string) (*apptest.Response, countedPage) {
		t.Helper()
		h := http.Header{}
		if prefer != "" {
			h.Set("Prefer", prefer)
		}
		resp := s.Do(t, http.MethodGet, url, nil, h)
		var p countedPage
		if resp.StatusCode == http.StatusOK {
			resp.JSON(t, &p)
		}
		return resp, p
	}

	// No preference: no count, no Preference-Applied, the page as before.
	resp, p := get(list, "")
	if resp.StatusCode != 200 || p.TotalCount != nil || p.TotalCountKind != nil || resp.Header.Get("Preference-Applied") != "" || len(p.Data) != 2 || !p.HasMore {
		t.Fatalf("no preference: %d %s %s", resp.StatusCode, resp.Header.Get("Preference-Applied"), resp.Body)
	}

	cheap := "bounded"
	if pg {
		cheap = "" // the mode asked for
	}
	for _, c := range []struct {
		url, prefer, applied, kind string
		value                      int // -1: an estimate, at least min
		min                        int
	}{
		{list, "count=exact", "count=exact", "exact", n, 0},
		{few, "count=exact", "count=exact", "exact", 10, 0},
		{list, "count=bounded", "count=bounded", "at_least", count.Cap, 0},
		{few, "count=bounded", "count=bounded", "exact", 10, 0},
		// Other preferences are ignored; the cursor's position is not
		// counted: the list is.
		{few, "return=minimal, count=estimated", "count=" + or(cheap, "estimated"), "exact", 10, 0},
		{list, `count="exact"; x=1`, "count=exact", "exact", n, 0},
		{list, "count=planned", "count=" + or(cheap, "planned"), map[bool]string{true: "estimate", false: "at_least"}[pg], map[bool]int{true: -1, false: count.Cap}[pg], 1},
		{list, "count=estimated", "count=" + or(cheap, "estimated"), map[bool]string{true: "estimate", false: "at_least"}[pg], map[bool]int{true: -1, false: count.Cap}[pg], count.Cap},
	} {
		resp, p := get(c.url, c.prefer)
		if resp.StatusCode != 200 || p.TotalCount == nil || p.TotalCountKind == nil {
			t.Errorf("%s with %s: %d %s", c.url, c.prefer, resp.StatusCode, resp.Body)
			continue
		}
		if got := resp.Header.Get("Preference-Applied"); got != c.applied {
			t.Errorf("%s with %s: Preference-Applied %q, want %q", c.url, c.prefer, got, c.applied)
		}
		if *p.TotalCountKind != c.kind || c.value >= 0 && *p.TotalCount != c.value || c.value < 0 && *p.TotalCount < c.min {
			t.Errorf("%s with %s: %d %s, want %d (min %d) %s", c.url, c.prefer, *p.TotalCount, *p.TotalCountKind, c.value, c.min, c.kind)
		}
	}

	// The count is of the whole list, not of what follows the cursor.
	resp0 := s.Do(t, http.MethodGet, few, nil, nil)
	var p0 struct {
		NextCursor *string `json:"next_cursor"`
	}
	resp0.JSON(t, &p0)
	if p0.NextCursor == nil {
		t.Fatal("no next_cursor")
	}
	if _, p := get(few+"&cursor="+*p0.NextCursor, "count=exact"); p.TotalCount == nil || *p.TotalCount != 10 {
		t.Errorf("second page's count: %+v", p)
	}

	for _, bad := range []string{"count=maybe", "count=", "count=exact, count=planned", "count=" + strings.Repeat("x", 300)} {
		resp, _ := get(list, bad)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(resp.Body), `"invalid_count"`) {
			t.Errorf("Prefer: %.40s: %d %s", bad, resp.StatusCode, resp.Body)
		}
	}
	// The bound holds on every route, counted or not, with or without a
	// replica: a read of one part, the status and GraphQL.
	long := http.Header{"Prefer": {"return=minimal, " + strings.Repeat("x", 250)}}
	base := s.Base(environment.Production)
	for _, tc := range []struct {
		method, url string
		body        any
	}{
		{http.MethodGet, base + "/v1/parts/" + string(c.Part.Query().FirstIDX(s.Ctx(environment.Production))), nil},
		{http.MethodGet, base + "/v1/status", nil},
		{http.MethodPost, base + "/graphql", map[string]any{"query": "{ parts(first: 1) { edges { node { sku } } } }"}},
	} {
		if resp := s.Do(t, tc.method, tc.url, tc.body, long); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(resp.Body), "256 bytes") {
			t.Errorf("%s %s with a Prefer over 256 bytes: %d %s, want 400", tc.method, tc.url, resp.StatusCode, resp.Body)
		}
	}
	if resp := s.Do(t, http.MethodGet, base+"/v1/status", nil, http.Header{"Prefer": {"return=minimal"}}); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/status with a short Prefer: %d %s", resp.StatusCode, resp.Body)
	}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
