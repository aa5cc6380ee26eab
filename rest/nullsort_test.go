package rest_test

import (
	"net/http"
	"testing"
)

// ent's keyset cursors compare with NULL and so lose rows whose sort value
// is NULL: the optional times (expires_at, due_at) are filterable but not
// sortable over REST.
func TestNullableFieldsNotSortable(t *testing.T) {
	f := newFixture(t)
	for _, url := range []string{"/v1/items?sort=expires_at", "/v1/orders?sort=-due_at"} {
		if r := f.s.Do(t, "GET", f.s.URL+url, nil, nil); r.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d", url, r.StatusCode)
		}
	}
	for _, url := range []string{"/v1/items?limit=1&sort=status,-quantity", "/v1/orders?limit=1&sort=priority", "/v1/tracking-entries?limit=1&sort=-occurred_at"} {
		ids := walk(t, f.s, f.s.URL+url, nil)
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%s: %s twice", url, id)
			}
			seen[id] = true
		}
		if len(ids) < 3 {
			t.Errorf("%s: walked %d rows", url, len(ids))
		}
	}
}
