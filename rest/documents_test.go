package rest_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/documents"
	"logistics/internal/environment"
)

// TestTrustedDocumentsREST registers each manifest format through
// POST /v1/trusted-documents and runs its documents by hash (POST and GET
// of /graphql); it checks the refusals, the list's pages, the scopes and
// retirement.
func TestTrustedDocumentsREST(t *testing.T) {
	srv := apptest.New(t)
	base := srv.URL + "/v1/trusted-documents"
	const (
		hubs  = "query Hubs { hubs(first: 2) { totalCount } }"
		parts = "query Parts { parts(first: 2) { totalCount } }"
		items = "query Items { items(first: 2) { totalCount } }"
	)
	md5hex := func(s string) string { sum := md5.Sum([]byte(s)); return hex.EncodeToString(sum[:]) }
	apollo := map[string]any{"format": "apollo-persisted-query-manifest", "version": 1,
		"operations": []map[string]string{{"id": documents.Hash(items), "name": "Items", "type": "query", "body": items}}}
	for _, m := range []any{
		map[string]string{documents.Hash(hubs): hubs}, // graphql-codegen
		map[string]string{md5hex(parts): parts},       // Relay
		apollo,
	} {
		if r := srv.Do(t, http.MethodPost, base+"?client_name=spa&client_version=2.1.0", m, nil); r.StatusCode != http.StatusCreated || !strings.Contains(string(r.Body), `"created":1`) {
			t.Fatalf("register %v: %d %s", m, r.StatusCode, r.Body)
		}
	}
	for _, doc := range []string{hubs, parts, items} {
		h := documents.Hash(doc)
		ext := `{"persistedQuery":{"version":1,"sha256Hash":"` + h + `"}}`
		for _, r := range []*apptest.Response{
			srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"documentId": "sha256:" + h}, nil),
			srv.Do(t, http.MethodPost, srv.URL+"/graphql", json.RawMessage(`{"extensions":`+ext+`}`), nil),
			srv.Do(t, http.MethodGet, srv.URL+"/graphql?documentId=sha256:"+h, nil, nil),
			srv.Do(t, http.MethodGet, srv.URL+"/graphql?extensions="+strings.NewReplacer(`"`, "%22", "{", "%7B", "}", "%7D", ":", "%3A", ",", "%2C").Replace(ext), nil, nil),
		} {
			if r.StatusCode != 200 || !strings.Contains(string(r.Body), `"totalCount":0`) {
				t.Errorf("%s by hash: %d %s", doc, r.StatusCode, r.Body)
			}
		}
	}

	limited := apptest.Bearer(mustKey(t, srv, "documents:read"))
	wrong := documents.Hash(parts)
	for _, tc := range []struct {
		name, method, url string
		body              any
		header            http.Header
		want              int
		wantBody          string
	}{
		{"hash mismatch names the key", "POST", base + "?client_name=spa", map[string]string{wrong: hubs}, nil, 400, wrong},
		{"apollo id mismatch", "POST", base + "?client_name=spa", map[string]any{"format": "apollo-persisted-query-manifest", "version": 1, "operations": []map[string]string{{"id": wrong, "body": hubs}}}, nil, 400, "hash_mismatch"},
		{"not GraphQL", "POST", base + "?client_name=spa", map[string]string{documents.Hash("{"): "{"}, nil, 400, "invalid_manifest"},
		{"client required", "POST", base, map[string]string{documents.Hash(hubs): hubs}, nil, 400, "client_name"},
		{"not JSON", "POST", base + "?client_name=spa", "x", http.Header{"Content-Type": {"text/plain"}}, 415, "application/json"},
		{"too large", "POST", base + "?client_name=spa", map[string]string{"k": strings.Repeat("a", documents.MaxManifestBytes)}, nil, 413, "larger"},
		{"write needs documents:write", "POST", base + "?client_name=spa", map[string]string{documents.Hash(hubs): hubs}, limited, 403, "documents:write"},
		{"read with documents:read", "GET", base, nil, limited, 200, hubs},
		{"read needs documents:read", "GET", base, nil, apptest.Bearer(mustKey(t, srv, "hubs:read")), 403, "documents:read"},
		{"bad limit", "GET", base + "?limit=0", nil, nil, 400, "limit"},
		{"bad cursor", "GET", base + "?cursor=zz", nil, nil, 400, "cursor"},
		{"unknown hash", "GET", base + "/" + documents.Hash("nope"), nil, nil, 404, "not_found"},
		{"by Relay id", "GET", base + "/" + md5hex(parts), nil, nil, 200, `"alias":"` + md5hex(parts)},
		{"retire unknown", "DELETE", base + "/" + documents.Hash("nope"), nil, nil, 404, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := srv.Do(t, tc.method, tc.url, tc.body, tc.header)
			if r.StatusCode != tc.want || !strings.Contains(string(r.Body), tc.wantBody) {
				t.Fatalf("%d %s, want %d with %q", r.StatusCode, r.Body, tc.want, tc.wantBody)
			}
		})
	}

	// Pages of one, newest first, to the end.
	var seen []string
	next := ""
	for range 5 {
		u := base + "?limit=1"
		if next != "" {
			u += "&cursor=" + next
		}
		var page struct {
			Data []struct {
				OperationName string `json:"operation_name"`
			}
			HasMore    bool    `json:"has_more"`
			NextCursor *string `json:"next_cursor"`
		}
		srv.Do(t, http.MethodGet, u, nil, nil).JSON(t, &page)
		for _, d := range page.Data {
			seen = append(seen, d.OperationName)
		}
		if !page.HasMore {
			break
		}
		next = *page.NextCursor
	}
	if fmt.Sprint(seen) != "[Items Parts Hubs]" {
		t.Fatalf("pages: %v", seen)
	}

	// Retired: gone from the list and from documentId, still readable.
	h := documents.Hash(hubs)
	if r := srv.Do(t, http.MethodDelete, base+"/"+h, nil, nil); r.StatusCode != 200 || !strings.Contains(string(r.Body), `"trusted":false`) {
		t.Fatalf("retire: %d %s", r.StatusCode, r.Body)
	}
	if r := srv.Do(t, http.MethodGet, base, nil, nil); strings.Contains(string(r.Body), h) {
		t.Errorf("the list still shows the retired document: %s", r.Body)
	}
	if r := srv.Do(t, http.MethodGet, base+"?include_retired=true", nil, nil); !strings.Contains(string(r.Body), h) {
		t.Errorf("include_retired lacks it: %s", r.Body)
	}
	if r := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"documentId": h}, nil); !strings.Contains(string(r.Body), "PERSISTED_DOCUMENT_NOT_FOUND") {
		t.Errorf("retired, by documentId: %s", r.Body)
	}
}

func mustKey(t *testing.T, srv *apptest.Server, scopes ...string) string {
	t.Helper()
	secret, _, err := srv.App.Auth.Store.CreateToken(srv.Ctx(environment.Production), auth.TokenInput{Name: "docs " + strings.Join(scopes, ","), Environment: environment.Production, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}
