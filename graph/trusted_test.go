package graph_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/auth"
	"logistics/internal/documents"
	"logistics/internal/environment"
)

// The SPA's operations: what examples/spa sends (docs/graphql.md).
const (
	docHubs   = "query Hubs { hubs(first: 5) { totalCount edges { node { id code } } } }"
	docParts  = "query Parts { parts(first: 5) { totalCount } }"
	docOrders = "query Orders { orders(first: 5) { totalCount } }"
	docItems  = "query Items { items(first: 5) { totalCount } }"
	docAdhoc  = "{ hubs { totalCount } }"
)

func md5hex(s string) string { sum := md5.Sum([]byte(s)); return hex.EncodeToString(sum[:]) }

// gqlAnswer is a GraphQL response with its status.
type gqlAnswer struct {
	Status int
	Data   json.RawMessage
	Errors []apptest.GQLError
}

// code is the first error's extensions.reason (extensions.code is
// BAD_USER_INPUT for every refusal of the document).
func (a gqlAnswer) code() string {
	if len(a.Errors) == 0 {
		return ""
	}
	if a.Errors[0].Code() != "BAD_USER_INPUT" {
		return "code " + a.Errors[0].Code()
	}
	s, _ := a.Errors[0].Extensions["reason"].(string)
	return s
}

// send posts body (or, with get, sends it as GET parameters) to the
// environment's /graphql with the header's credentials.
func send(t *testing.T, srv *apptest.Server, env environment.Name, h http.Header, get bool, body map[string]any) gqlAnswer {
	t.Helper()
	hh := http.Header{"Accept": {"application/graphql-response+json"}}
	for k, v := range h {
		hh[k] = v
	}
	var resp *apptest.Response
	if get {
		q := url.Values{}
		for k, v := range body {
			if s, ok := v.(string); ok {
				q.Set(k, s)
			} else {
				b, _ := json.Marshal(v)
				q.Set(k, string(b))
			}
		}
		resp = srv.Do(t, http.MethodGet, srv.Base(env)+"/graphql?"+q.Encode(), nil, hh)
	} else {
		resp = srv.Do(t, http.MethodPost, srv.Base(env)+"/graphql", body, hh)
	}
	var out gqlAnswer
	resp.JSON(t, &out)
	out.Status = resp.StatusCode
	return out
}

func byAPQ(hash string) map[string]any {
	return map[string]any{"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}}
}

func register(t *testing.T, srv *apptest.Server, env environment.Name, manifest string) {
	t.Helper()
	r := srv.GraphQL(t, env, `mutation($m: Manifest!) { registerTrustedDocuments(manifest: $m, clientName: "spa", clientVersion: "1.0.0") { created unchanged } }`, map[string]any{"m": manifest})
	if len(r.Errors) > 0 || r.Status != 200 {
		t.Fatalf("register: %d %+v", r.Status, r.Errors)
	}
}

func key(t *testing.T, srv *apptest.Server, env environment.Name, scopes ...string) http.Header {
	t.Helper()
	secret, _, err := srv.App.Auth.Store.CreateToken(srv.Ctx(environment.Production), auth.TokenInput{Name: "t " + strings.Join(scopes, ","), Environment: env, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return apptest.Bearer(secret)
}

// TestTrustedDocumentManifests registers each manifest format and runs its
// documents by hash alone: extensions.persistedQuery and documentId, by
// POST and by GET; a Relay document by its Relay id too.
func TestTrustedDocumentManifests(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	codegen, _ := json.Marshal(map[string]string{documents.Hash(docHubs): docHubs})
	relay, _ := json.Marshal(map[string]string{md5hex(docParts): docParts, "custom-orders-1": docOrders})
	apollo, _ := json.Marshal(map[string]any{"format": "apollo-persisted-query-manifest", "version": 1,
		"operations": []map[string]string{{"id": documents.Hash(docItems), "name": "Items", "type": "query", "body": docItems}}})
	for _, m := range []string{string(codegen), string(relay), string(apollo)} {
		register(t, srv, env, m)
	}
	register(t, srv, env, string(codegen)) // again: nothing changes
	for _, doc := range []string{docHubs, docParts, docOrders, docItems} {
		h := documents.Hash(doc)
		for _, get := range []bool{false, true} {
			for name, body := range map[string]map[string]any{
				"apq":        byAPQ(h),
				"documentId": {"documentId": "sha256:" + h},
				"bare hex":   {"documentId": h},
			} {
				if a := send(t, srv, env, nil, get, body); a.Status != 200 || len(a.Errors) > 0 || !strings.Contains(string(a.Data), "totalCount") {
					t.Errorf("%s by %s (GET %v): %d %s %+v", doc, name, get, a.Status, a.Data, a.Errors)
				}
			}
		}
	}
	for _, id := range []string{md5hex(docParts), "custom-orders-1"} {
		if a := send(t, srv, env, nil, false, map[string]any{"documentId": id}); a.Status != 200 || len(a.Errors) > 0 {
			t.Errorf("relay id %s: %d %+v", id, a.Status, a.Errors)
		}
	}
	// The sandbox has its own documents: none.
	if a := send(t, srv, environment.Sandbox, nil, false, map[string]any{"documentId": "sha256:" + documents.Hash(docHubs)}); a.code() != "PERSISTED_DOCUMENT_NOT_FOUND" {
		t.Errorf("sandbox: %d %+v", a.Status, a.Errors)
	}
	// The list, and a page of it.
	var list struct {
		TrustedDocuments struct {
			Nodes []struct {
				Hash, OperationName, ClientName, Alias string
				Trusted                                bool
			}
			PageInfo struct {
				HasNextPage bool
				EndCursor   string
			}
		}
	}
	srv.MustGraphQL(t, env, `{ trustedDocuments(first: 3) { nodes { hash operationName clientName alias trusted } pageInfo { hasNextPage endCursor } } }`, nil, &list)
	if n := list.TrustedDocuments.Nodes; len(n) != 3 || !list.TrustedDocuments.PageInfo.HasNextPage || n[0].ClientName != "spa" || !n[0].Trusted {
		t.Fatalf("first page: %+v", list)
	}
	srv.MustGraphQL(t, env, `query($a: Cursor) { trustedDocuments(first: 3, after: $a) { nodes { hash operationName clientName alias trusted } pageInfo { hasNextPage endCursor } } }`,
		map[string]any{"a": list.TrustedDocuments.PageInfo.EndCursor}, &list)
	if len(list.TrustedDocuments.Nodes) != 1 || list.TrustedDocuments.PageInfo.HasNextPage {
		t.Fatalf("second page: %+v", list)
	}
}

// TestTrustedDocumentErrors: an unknown hash, a hash that does not match
// its text, a manifest that is not one.
func TestTrustedDocumentErrors(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	unknown := documents.Hash("query Unknown { hubs { totalCount } }")
	if a := send(t, srv, env, nil, false, byAPQ(unknown)); a.code() != "PERSISTED_QUERY_NOT_FOUND" || a.Status != 400 {
		t.Errorf("unknown APQ hash: %d %+v", a.Status, a.Errors)
	}
	for _, get := range []bool{false, true} {
		if a := send(t, srv, env, nil, get, map[string]any{"documentId": "sha256:" + unknown}); a.code() != "PERSISTED_DOCUMENT_NOT_FOUND" || a.Status != 400 {
			t.Errorf("unknown documentId (GET %v): %d %+v", get, a.Status, a.Errors)
		}
	}
	if a := send(t, srv, env, nil, false, map[string]any{"documentId": strings.Repeat("a", 500)}); a.Status != 400 {
		t.Errorf("long documentId: %d %+v", a.Status, a.Errors)
	}
	if a := send(t, srv, env, nil, false, map[string]any{"documentId": unknown, "query": docAdhoc}); a.Status != 400 || a.code() != "BAD_USER_INPUT" {
		t.Errorf("documentId and query: %d %+v", a.Status, a.Errors)
	}
	wrong := documents.Hash(docParts)
	for name, m := range map[string]string{
		"codegen hash mismatch": fmt.Sprintf(`{%q: %q}`, wrong, docHubs),
		"relay md5 mismatch":    fmt.Sprintf(`{%q: %q}`, md5hex(docParts), docHubs),
		"apollo id mismatch":    fmt.Sprintf(`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":%q,"name":"Hubs","type":"query","body":%q}]}`, wrong, docHubs),
		"not GraphQL":           fmt.Sprintf(`{%q: "query {"}`, documents.Hash("query {")),
		"not a manifest":        `[1]`,
		"unknown format":        `{"format":"x","version":1,"operations":[]}`,
		"empty":                 `{}`,
	} {
		r := srv.GraphQL(t, env, `mutation($m: Manifest!) { registerTrustedDocuments(manifest: $m, clientName: "spa", clientVersion: "1") { created } }`, map[string]any{"m": m})
		if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_USER_INPUT" || (strings.Contains(name, "mismatch") && !strings.Contains(r.Errors[0].Message, "not the key")) {
			t.Errorf("%s: %+v", name, r.Errors)
		}
	}
	// Nothing of a refused manifest was registered.
	if a := send(t, srv, env, nil, false, map[string]any{"documentId": documents.Hash(docHubs)}); a.code() != "PERSISTED_DOCUMENT_NOT_FOUND" {
		t.Errorf("after refused manifests: %+v", a.Errors)
	}
}

// TestTrustedDocumentParsedOnce counts, not times: N requests of a trusted
// document by hash parse and validate it once, read the database once, and
// go through the fast path every time.
func TestTrustedDocumentParsedOnce(t *testing.T) {
	srv := apptest.New(t)
	env := environment.Production
	m, _ := json.Marshal(map[string]string{documents.Hash(docHubs): docHubs})
	register(t, srv, env, string(m))
	h := documents.Hash(docHubs)
	parses, lookups, served := srv.App.Parses.Load(), srv.App.Documents.Lookups, srv.App.FastPath.Served.Load()
	const n = 20
	for i := range n {
		body := byAPQ(h)
		if i%2 == 1 {
			body = map[string]any{"documentId": "sha256:" + h}
		}
		if a := send(t, srv, env, nil, i%3 == 0, body); a.Status != 200 || len(a.Errors) > 0 {
			t.Fatalf("request %d: %d %+v", i, a.Status, a.Errors)
		}
	}
	if got := srv.App.Parses.Load() - parses; got != 1 {
		t.Errorf("%d requests by hash parsed the document %d times, want 1", n, got)
	}
	if got := srv.App.Documents.Lookups - lookups; got != 1 {
		t.Errorf("%d requests by hash read the database %d times, want 1", n, got)
	}
	if got := srv.App.FastPath.Served.Load() - served; got != n {
		t.Errorf("the fast path served %d of %d requests by hash", got, n)
	}
}

// TestTrustedDocumentEnforcement runs each mode for sessions and keys, with
// and without graphql:adhoc: production enforces for sessions and reports
// for keys, the sandbox the other way round; off is the default elsewhere.
func TestTrustedDocumentEnforcement(t *testing.T) {
	var log strings.Builder
	srv := apptest.New(t, apptest.Options{Log: &log, Config: func(c *app.Config) {
		c.TrustedSessions, c.TrustedKeys = "enforce", "report"
		c.SandboxTrustedSessions, c.SandboxTrustedKeys = "report", "enforce"
	}})
	m, _ := json.Marshal(map[string]string{documents.Hash(docHubs): docHubs})
	for _, env := range []environment.Name{environment.Production, environment.Sandbox} {
		register(t, srv, env, string(m)) // the default key holds graphql:adhoc
	}
	ctx := srv.Ctx(environment.Production)
	if _, err := srv.App.Auth.Store.CreateUser(ctx, "member@apptest.local", "member-password-1", "member"); err != nil {
		t.Fatal(err)
	}
	member := srv.Session(t, "member@apptest.local", "member-password-1")
	owner := srv.Session(t, srv.AdminEmail, srv.AdminPassword) // owners hold graphql:adhoc
	creds := map[environment.Name]map[string]http.Header{}
	for _, env := range []environment.Name{environment.Production, environment.Sandbox} {
		creds[env] = map[string]http.Header{
			"member session": member, "owner session": owner,
			"key": key(t, srv, env, "hubs:read"), "adhoc key": key(t, srv, env, "hubs:read", "graphql:adhoc"),
		}
	}
	h := documents.Hash(docHubs)
	for _, tc := range []struct {
		env            environment.Name
		cred           string
		adhocRefused   bool // an ad hoc document is TRUSTED_DOCUMENT_REQUIRED
		adhocCountedAs string
	}{
		{environment.Production, "member session", true, "refused"},
		{environment.Production, "owner session", false, ""},
		{environment.Production, "key", false, "ran"},
		{environment.Production, "adhoc key", false, ""},
		{environment.Sandbox, "member session", false, "ran"},
		{environment.Sandbox, "owner session", false, ""},
		{environment.Sandbox, "key", true, "refused"},
		{environment.Sandbox, "adhoc key", false, ""},
	} {
		hdr := creds[tc.env][tc.cred]
		name := string(tc.env) + " " + tc.cred
		for _, get := range []bool{false, true} {
			// Trusted: by hash, by documentId, and its full text.
			for _, body := range []map[string]any{byAPQ(h), {"documentId": "sha256:" + h}, {"query": docHubs}} {
				if a := send(t, srv, tc.env, hdr, get, body); a.Status != 200 || len(a.Errors) > 0 {
					t.Errorf("%s: trusted %v (GET %v): %d %+v", name, body, get, a.Status, a.Errors)
				}
			}
			a := send(t, srv, tc.env, hdr, get, map[string]any{"query": docAdhoc})
			if tc.adhocRefused {
				if a.Status != 400 || a.code() != "TRUSTED_DOCUMENT_REQUIRED" || a.Data != nil {
					t.Errorf("%s: ad hoc (GET %v): %d %s %+v, want TRUSTED_DOCUMENT_REQUIRED", name, get, a.Status, a.Data, a.Errors)
				}
			} else if a.Status != 200 || len(a.Errors) > 0 {
				t.Errorf("%s: ad hoc (GET %v): %d %+v", name, get, a.Status, a.Errors)
			}
		}
	}
	// An untrusted document in APQ's own cache does not get through either.
	adhocHash := documents.Hash(docAdhoc)
	body := byAPQ(adhocHash)
	body["query"] = docAdhoc
	if a := send(t, srv, environment.Sandbox, creds[environment.Sandbox]["key"], false, body); a.code() != "TRUSTED_DOCUMENT_REQUIRED" {
		t.Errorf("APQ registration of an untrusted document: %+v", a.Errors)
	}
	// Counted by environment, credential and action; logged with the client.
	metrics := srv.Do(t, http.MethodGet, srv.URL+"/metrics", nil, apptest.Anonymous())
	for _, want := range []string{
		`logistics_graphql_untrusted_operations_total{action="refused",credential="session",environment="production"} 2`,
		`logistics_graphql_untrusted_operations_total{action="ran",credential="key",environment="production"} 2`,
		`logistics_graphql_untrusted_operations_total{action="ran",credential="session",environment="sandbox"} 2`,
		`logistics_graphql_untrusted_operations_total{action="refused",credential="key",environment="sandbox"} 3`,
	} {
		if !strings.Contains(string(metrics.Body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	r := srv.Do(t, http.MethodPost, srv.URL+"/graphql", map[string]any{"query": docAdhoc}, http.Header{"Authorization": creds[environment.Production]["key"]["Authorization"], "Apollographql-Client-Name": {"analytics-notebook"}})
	_, _ = io.Copy(io.Discard, strings.NewReader(string(r.Body)))
	if !strings.Contains(log.String(), "client=analytics-notebook") || !strings.Contains(log.String(), "untrusted GraphQL operation") {
		t.Errorf("the report is not logged with its client: %s", log.String())
	}

	// Retired: refused at once on this instance, by hash and by text.
	if r := srv.GraphQL(t, environment.Sandbox, `mutation($h: String!) { retireTrustedDocument(hash: $h) { trusted retiredAt } }`, map[string]any{"h": h}); len(r.Errors) > 0 {
		t.Fatalf("retire: %+v\n%s", r.Errors, log.String())
	}
	k := creds[environment.Sandbox]["key"]
	if a := send(t, srv, environment.Sandbox, k, false, map[string]any{"documentId": h}); a.code() != "PERSISTED_DOCUMENT_NOT_FOUND" {
		t.Errorf("retired, by documentId: %+v", a.Errors)
	}
	for _, body := range []map[string]any{byAPQ(h), {"query": docHubs}} {
		if a := send(t, srv, environment.Sandbox, k, false, body); a.code() != "TRUSTED_DOCUMENT_REQUIRED" && a.code() != "PERSISTED_QUERY_NOT_FOUND" {
			t.Errorf("retired %v: %+v", body, a.Errors)
		}
	}
	// Registered again: trusted again.
	register(t, srv, environment.Sandbox, string(m))
	if a := send(t, srv, environment.Sandbox, k, false, map[string]any{"documentId": h}); a.Status != 200 || len(a.Errors) > 0 {
		t.Errorf("registered again: %+v", a.Errors)
	}
}
