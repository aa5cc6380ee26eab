package environment

import (
	"net/http/httptest"
	"net/url"
	"testing"
)

func mustSet(t *testing.T, prod, sandbox string) *Set {
	t.Helper()
	p, _ := url.Parse(prod)
	s, _ := url.Parse(sandbox)
	set, err := NewSet(&Env{Name: Production, BaseURL: p}, &Env{Name: Sandbox, BaseURL: s})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestMatchByPath(t *testing.T) {
	set := mustSet(t, "http://127.0.0.1:8080", "http://127.0.0.1:8080/sandbox/")
	for _, tc := range []struct {
		host, path string
		want       Name
		rest       string
	}{
		{"127.0.0.1:8080", "/v1/status", Production, "/v1/status"},
		{"localhost:9999", "/graphql", Production, "/graphql"},
		{"127.0.0.1:8080", "/sandbox/v1/status", Sandbox, "/v1/status"},
		{"127.0.0.1:8080", "/sandbox", Sandbox, "/"},
		{"127.0.0.1:8080", "/sandboxes/v1", Production, "/sandboxes/v1"},
	} {
		r := httptest.NewRequest("GET", "http://"+tc.host+tc.path, nil)
		env, rest, ok := set.Match(r)
		if !ok || env.Name != tc.want || rest != tc.rest {
			t.Errorf("%s%s → %v %q %v, want %s %q", tc.host, tc.path, env, rest, ok, tc.want, tc.rest)
		}
	}
}

func TestMatchByHost(t *testing.T) {
	set := mustSet(t, "https://api.example.com", "https://sandbox.example.com")
	for _, tc := range []struct {
		host string
		want Name
		ok   bool
	}{
		{"api.example.com", Production, true},
		{"API.example.com:443", Production, true},
		{"sandbox.example.com", Sandbox, true},
		{"evil.example.com", "", false},
	} {
		env, _, ok := set.Match(httptest.NewRequest("GET", "https://"+tc.host+"/v1/status", nil))
		if ok != tc.ok || (ok && env.Name != tc.want) {
			t.Errorf("%s → %v %v, want %s %v", tc.host, env, ok, tc.want, tc.ok)
		}
	}
}

func TestNewSetRejects(t *testing.T) {
	for _, tc := range [][2]string{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"127.0.0.1:8080", "http://127.0.0.1:8080/sandbox"},
		{"http://127.0.0.1:8080?x=1", "http://127.0.0.1:8080/sandbox"},
	} {
		p, _ := url.Parse(tc[0])
		s, _ := url.Parse(tc[1])
		if _, err := NewSet(&Env{Name: Production, BaseURL: p}, &Env{Name: Sandbox, BaseURL: s}); err == nil {
			t.Errorf("NewSet(%s, %s) accepted", tc[0], tc[1])
		}
	}
}

func TestKeyPrefix(t *testing.T) {
	if Production.KeyPrefix() != "lsk_live_" || Sandbox.KeyPrefix() != "lsk_test_" {
		t.Fatal("key prefixes")
	}
}
