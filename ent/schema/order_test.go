package schema

import (
	"regexp"
	"testing"
)

// Assigned order numbers must not collide on a busy day: 200,000 of them,
// all different. With six random characters (30 bits) this expected about
// 19 pairs and failed; with twelve it expects 2·10⁻⁸.
func TestOrderNumbersDoNotCollide(t *testing.T) {
	shape := regexp.MustCompile(`^ORD-\d{8}-[0-9A-HJKMNP-TV-Z]{12}$`)
	seen := make(map[string]struct{}, 200_000)
	for range 200_000 {
		n := newOrderNumber()
		if _, dup := seen[n]; dup {
			t.Fatalf("order number %s assigned twice in %d", n, len(seen)+1)
		}
		seen[n] = struct{}{}
	}
	for n := range seen {
		if !shape.MatchString(n) || len(n) > 40 {
			t.Fatalf("order number %q: want ORD-YYYYMMDD- and 12 Crockford characters, at most 40", n)
		}
		break
	}
}
