package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"logistics/ent"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// BenchmarkImportItems200k posts a 200,000-row stock CSV to
// POST /v1/items/import over HTTP (20 hubs, 2,000 parts) and reports rows/s.
//
//	go test -run '^$' -bench ImportItems200k -benchtime 3x ./rest
func BenchmarkImportItems200k(b *testing.B) {
	s := apptest.New(b)
	ctx := s.Ctx(environment.Sandbox)
	c := ent.FromContext(ctx)
	hubs := make([]*ent.HubCreate, 20)
	for i := range hubs {
		hubs[i] = c.Hub.Create().SetCode(fmt.Sprintf("H%03d", i)).SetName("Hub").SetCountry("NL")
	}
	c.Hub.CreateBulk(hubs...).ExecX(ctx)
	for from := 0; from < 2000; from += 500 {
		parts := make([]*ent.PartCreate, 500)
		for i := range parts {
			parts[i] = c.Part.Create().SetSku(fmt.Sprintf("SKU-%05d", from+i)).SetPartName("Part")
		}
		c.Part.CreateBulk(parts...).ExecX(ctx)
	}
	const rows = 200_000
	var sb strings.Builder
	sb.WriteString("sku,hub,quantity,lot,serial,status,expires_at\n")
	for i := range rows {
		fmt.Fprintf(&sb, "SKU-%05d,H%03d,%d.%03d,LOT-%d,,available,2027-%02d-15\n", i%2000, i%20, i%500, i%1000, i%97, 1+i%12)
	}
	body := sb.String()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		r := s.Do(b, http.MethodPost, s.SandboxURL+"/v1/items/import", body, http.Header{"Content-Type": {"text/csv"}})
		if r.StatusCode != http.StatusCreated {
			b.Fatalf("%d %s", r.StatusCode, r.Body[:min(len(r.Body), 500)])
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
