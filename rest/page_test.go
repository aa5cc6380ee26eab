package rest_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/decimal"
	"logistics/internal/environment"
)

type listPage struct {
	Data []struct {
		ID       string  `json:"id"`
		PartName string  `json:"part_name"`
		Weight   float64 `json:"unit_weight_kg"`
	} `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// walk reads every page of url and returns the ids in order.
func walk(t *testing.T, s *apptest.Server, url string, between func()) []string {
	t.Helper()
	var ids []string
	next := url
	for range 1000 {
		resp := s.Do(t, "GET", next, nil, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", next, resp.StatusCode, resp.Body)
		}
		var p listPage
		resp.JSON(t, &p)
		for _, d := range p.Data {
			ids = append(ids, d.ID)
		}
		if !p.HasMore {
			if p.NextCursor != nil {
				t.Fatalf("last page has a next_cursor")
			}
			return ids
		}
		if between != nil {
			between()
		}
		sep := "&"
		if !strings.Contains(url, "?") {
			sep = "?"
		}
		next = url + sep + "cursor=" + *p.NextCursor
	}
	t.Fatal("too many pages")
	return nil
}

func TestPaginationUnderConcurrentInserts(t *testing.T) {
	s := apptest.New(t)
	ctx := s.Ctx(environment.Production)
	svc := s.App.Service
	mk := func(i int) string {
		w := decimal.Decimal(i % 7 * 1000)
		p, err := svc.CreatePart(ctx, ent.CreatePartInput{Sku: fmt.Sprintf("SKU-%04d", i), PartName: fmt.Sprintf("part %02d", i%13), UnitWeightKg: &w})
		if err != nil {
			t.Error(err)
			return ""
		}
		return string(p.ID)
	}
	initial := map[string]bool{}
	for i := range 60 {
		initial[mk(i)] = true
	}
	n := 1000
	var mu sync.Mutex
	for _, url := range []string{
		"/v1/parts?limit=7",
		"/v1/parts?limit=5&sort=part_name",
		"/v1/parts?limit=4&sort=-unit_weight_kg,part_name",
		"/v1/parts?limit=9&sort=-created_at",
		"/v1/parts?limit=3&sort=unit_weight_kg&unit_weight_kg<=3",
	} {
		t.Run(url, func(t *testing.T) {
			var wg sync.WaitGroup
			between := func() { // insert a few rows concurrently with every page turn
				wg.Add(1)
				go func() {
					defer wg.Done()
					mu.Lock()
					n++
					i := n
					mu.Unlock()
					mk(i)
				}()
			}
			ids := walk(t, s, s.URL+url, between)
			wg.Wait()
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Fatalf("%s returned %s twice", url, id)
				}
				seen[id] = true
			}
			if !strings.Contains(url, "<=") {
				for id := range initial {
					if !seen[id] {
						t.Fatalf("%s never returned %s", url, id)
					}
				}
			}
		})
	}
	// A cursor is bound to its sort.
	resp := s.Do(t, "GET", s.URL+"/v1/parts?limit=2&sort=part_name", nil, nil)
	var p listPage
	resp.JSON(t, &p)
	resp = s.Do(t, "GET", s.URL+"/v1/parts?limit=2&cursor="+*p.NextCursor, nil, nil)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("cursor under another sort: %d %s", resp.StatusCode, resp.Body)
	}
}

func TestSortOrder(t *testing.T) {
	f := newFixture(t)
	resp := f.s.Do(t, "GET", f.s.URL+"/v1/items?sort=-quantity", nil, nil)
	var p struct {
		Data []struct {
			Quantity float64 `json:"quantity"`
		} `json:"data"`
	}
	resp.JSON(t, &p)
	for i := 1; i < len(p.Data); i++ {
		if p.Data[i-1].Quantity < p.Data[i].Quantity {
			t.Fatalf("not sorted by -quantity: %s", resp.Body)
		}
	}
}

func TestETags(t *testing.T) {
	f := newFixture(t)
	url := f.s.URL + "/v1/parts/" + f.ids["NUT-M8"]
	resp := f.s.Do(t, "GET", url, nil, nil)
	tag := resp.Header.Get("ETag")
	if tag != `"1"` {
		t.Fatalf("ETag = %q", tag)
	}
	if resp := f.s.Do(t, "GET", url, nil, http.Header{"If-None-Match": {tag}}); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", resp.StatusCode)
	}
	resp = f.s.Do(t, "PATCH", url, map[string]any{"part_name": "Nut"}, http.Header{"If-Match": {tag}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != `"2"` {
		t.Fatalf("PATCH with current If-Match: %d %s %q", resp.StatusCode, resp.Body, resp.Header.Get("ETag"))
	}
	resp = f.s.Do(t, "PATCH", url, map[string]any{"part_name": "Nut again"}, http.Header{"If-Match": {tag}})
	if resp.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("PATCH with stale If-Match: %d %s", resp.StatusCode, resp.Body)
	}
	if resp := f.s.Do(t, "GET", url, nil, http.Header{"If-None-Match": {tag}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("If-None-Match with a stale tag: %d", resp.StatusCode)
	}
}

func TestIdempotencyKey(t *testing.T) {
	f := newFixture(t)
	key := http.Header{"Idempotency-Key": {"k-1"}, "Content-Type": {"application/json"}}
	body := `{"sku":"WASHER","part_name":"Washer"}`
	first := f.s.Do(t, "POST", f.s.URL+"/v1/parts", body, key)
	if first.StatusCode != http.StatusCreated {
		t.Fatalf("first: %d %s", first.StatusCode, first.Body)
	}
	again := f.s.Do(t, "POST", f.s.URL+"/v1/parts", body, key)
	if again.StatusCode != http.StatusCreated || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.Header.Get("ETag") != first.Header.Get("ETag") || again.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("replay: %d %s", again.StatusCode, again.Body)
	}
	other := f.s.Do(t, "POST", f.s.URL+"/v1/parts", `{"sku":"WASHER2","part_name":"Washer"}`, key)
	if other.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(other.Body), "idempotency_key_reused") {
		t.Fatalf("same key, other body: %d %s", other.StatusCode, other.Body)
	}
	// A 4xx stores nothing (its transaction, key included, is rolled back):
	// a retry runs again. The key is per environment.
	bad := http.Header{"Idempotency-Key": {"k-2"}, "Content-Type": {"application/json"}}
	r1 := f.s.Do(t, "POST", f.s.URL+"/v1/parts", `{"sku":"BOLT-M8","part_name":"dup"}`, bad)
	r2 := f.s.Do(t, "POST", f.s.URL+"/v1/parts", `{"sku":"BOLT-M8","part_name":"dup"}`, bad)
	if r1.StatusCode != http.StatusConflict || r2.StatusCode != http.StatusConflict || r2.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("a 4xx was stored: %d %d %q", r1.StatusCode, r2.StatusCode, r2.Header.Get("Idempotent-Replayed"))
	}
	if r := f.s.Do(t, "POST", f.s.URL+"/v1/parts", `{"sku":"BOLT-M8-B","part_name":"dup"}`, bad); r.StatusCode != http.StatusCreated {
		t.Fatalf("the key of a 4xx is not free: %d %s", r.StatusCode, r.Body)
	}
	if r := f.s.Do(t, "POST", f.s.SandboxURL+"/v1/parts", body, key); r.StatusCode != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("sandbox with the same key: %d %s", r.StatusCode, r.Body)
	}

	// Concurrent duplicates create once: the others wait for the first and
	// replay its response (before, they got 409 idempotency_key_in_progress).
	var wg sync.WaitGroup
	resps := make([]*apptest.Response, 8)
	ck := http.Header{"Idempotency-Key": {"k-concurrent"}, "Content-Type": {"application/json"}}
	for i := range resps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = f.s.Do(t, "POST", f.s.URL+"/v1/hubs", `{"code":"CON1","name":"c","address":{"country":"NL"}}`, ck)
		}()
	}
	wg.Wait()
	fresh := 0
	for _, r := range resps {
		if r.StatusCode != http.StatusCreated || string(r.Body) != string(resps[0].Body) {
			t.Fatalf("concurrent duplicate: %d %s (first: %s)", r.StatusCode, r.Body, resps[0].Body)
		}
		if r.Header.Get("Idempotent-Replayed") == "" {
			fresh++
		}
	}
	if fresh != 1 {
		t.Fatalf("%d of %d concurrent duplicates ran (not replayed), want 1", fresh, len(resps))
	}
	resp := f.s.Do(t, "GET", f.s.URL+"/v1/hubs?code=CON1", nil, nil)
	var p struct{ Data []any }
	resp.JSON(t, &p)
	if len(p.Data) != 1 {
		t.Fatalf("concurrent duplicates created %d hubs", len(p.Data))
	}
	resp = f.s.Do(t, "GET", f.s.URL+"/v1/events?type=hub.created&subject_id="+"x", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatal(resp.StatusCode)
	}
}

func TestIgnoredFiltersHeader(t *testing.T) {
	s := apptest.New(t)
	resp := s.Do(t, "GET", s.URL+"/v1/items?colour=red&quantity>=1&size<3", nil, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Ignored-Filters") != "colour,size" {
		t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("X-Ignored-Filters"), resp.Body)
	}
}

// A forged cursor is a 400, never a database error.
func TestForgedCursors(t *testing.T) {
	s := apptest.New(t)
	forge := func(sort string, v any) string {
		var buf bytes.Buffer
		(&ent.Cursor{ID: "prt_01JD3K0000000000000000000A", Value: v}).MarshalGQL(&buf)
		c, _ := json.Marshal(map[string]string{"s": sort, "c": strings.Trim(buf.String(), `"`)})
		return base64.RawURLEncoding.EncodeToString(c)
	}
	for _, tc := range []struct {
		sort string
		v    any
	}{
		{"unit_weight_kg", []any{"abc"}},
		{"unit_weight_kg", []any{1, 2}},
		{"unit_weight_kg", "abc"},
		{"created_at", []any{"yesterday"}},
		{"part_name", []any{map[string]any{"a": 1}}},
		{"", []any{1}},
		{"", "x"},
	} {
		url := s.URL + "/v1/parts?cursor=" + forge(tc.sort, tc.v)
		if tc.sort != "" {
			url += "&sort=" + tc.sort
		}
		if r := s.Do(t, "GET", url, nil, nil); r.StatusCode != http.StatusBadRequest {
			t.Errorf("%v: %d %s", tc, r.StatusCode, r.Body)
		}
	}
}

func TestCreateThenDelete(t *testing.T) {
	s := apptest.New(t)
	for _, tc := range []struct{ path, body string }{
		{"/v1/hubs", `{"code":"TMP1","name":"tmp","address":{"country":"NL"}}`},
		{"/v1/parts", `{"sku":"TMP","part_name":"tmp"}`},
	} {
		r := s.Do(t, "POST", s.URL+tc.path, tc.body, http.Header{"Content-Type": {"application/json"}})
		loc := r.Header.Get("Location")
		if r.StatusCode != http.StatusCreated || r.Header.Get("ETag") != `"1"` || !strings.HasPrefix(loc, tc.path+"/") {
			t.Fatalf("POST %s: %d %q %q %s", tc.path, r.StatusCode, r.Header.Get("ETag"), loc, r.Body)
		}
		if r := s.Do(t, "DELETE", s.URL+loc, nil, nil); r.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE %s: %d %s", loc, r.StatusCode, r.Body)
		}
		if r := s.Do(t, "GET", s.URL+loc, nil, nil); r.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s after DELETE: %d", loc, r.StatusCode)
		}
	}
}
