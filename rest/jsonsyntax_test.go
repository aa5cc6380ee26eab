package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"logistics/internal/apptest"
)

// TestJSONSyntaxErrorPosition: a body that is not JSON is a 400 that says
// where the mistake is — byte offset, line and column — in REST's detail
// (and its offset, line and column members) and in GraphQL's message.
func TestJSONSyntaxErrorPosition(t *testing.T) {
	s := apptest.New(t)
	ct := http.Header{"Content-Type": {"application/json"}}
	body := "{\n  \"code\": \"AMS1\",\n  \"name\": \"x\"\n  \"address\": {}\n}"
	r := s.Do(t, "POST", s.URL+"/v1/hubs", body, ct)
	var p struct {
		Code                 string `json:"code"`
		Detail               string `json:"detail"`
		Offset, Line, Column int
	}
	r.JSON(t, &p)
	want := "at byte 36 (line 4, column 3)"
	if r.StatusCode != 400 || p.Code != "bad_request" || !strings.Contains(p.Detail, want) || p.Offset != 36 || p.Line != 4 || p.Column != 3 {
		t.Errorf("REST: %d %s (want 400 bad_request %s)", r.StatusCode, r.Body, want)
	}
	r = s.Do(t, "POST", s.URL+"/graphql", `{"query": "{ hubs { totalCount } }",}`, ct)
	if want := "at byte 36 (line 1, column 37)"; r.StatusCode != 400 || !strings.Contains(string(r.Body), want) {
		t.Errorf("GraphQL: %d %s (want 400 %s)", r.StatusCode, r.Body, want)
	}
}
