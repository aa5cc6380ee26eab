package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"logistics/internal/apptest"
	"logistics/internal/browsertest"
	"logistics/internal/documents"
)

// The Trusted documents section: a registered document is listed with its
// operation and client, and retiring it empties the list.
func TestConsoleTrustedDocuments(t *testing.T) {
	s := apptest.New(t)
	const doc = "query SpaHubs { hubs { totalCount } }"
	if r := s.Do(t, http.MethodPost, s.URL+"/v1/trusted-documents?client_name=spa&client_version=3.0.0",
		map[string]string{documents.Hash(doc): doc}, nil); r.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", r.StatusCode, r.Body)
	}
	ctx := browsertest.New(t, browsertest.WithTimeout(2*time.Minute))
	var row string
	err := chromedp.Run(ctx,
		signIn(s),
		chromedp.WaitVisible("#documents tbody tr", chromedp.ByQuery),
		chromedp.Text("#documents tbody tr", &row, chromedp.ByQuery),
		chromedp.Evaluate(`window.confirm = () => true`, nil),
		chromedp.Click("#documents .retire-document", chromedp.ByQuery),
		chromedp.WaitVisible("#no-documents", chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(row, "SpaHubs") || !strings.Contains(row, "spa 3.0.0") {
		t.Errorf("the row shows %q", row)
	}
	var out struct {
		TrustedDocuments struct{ Nodes []struct{ Hash string } }
	}
	s.MustGraphQL(t, "production", `{ trustedDocuments { nodes { hash } } }`, nil, &out)
	if len(out.TrustedDocuments.Nodes) != 0 {
		t.Errorf("still trusted after Retire: %+v", out)
	}
}
