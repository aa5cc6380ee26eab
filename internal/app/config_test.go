package app

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestLoadEnvThenFlags(t *testing.T) {
	env := map[string]string{
		"LOGISTICS_ADDR":         "0.0.0.0:9000",
		"LOGISTICS_DATA_DIR":     "/var/lib/logistics",
		"LOGISTICS_SANDBOX_DB":   "postgres://u:secret@db/sbx",
		"LOGISTICS_READ_TIMEOUT": "3s",
		"LOGISTICS_SANDBOX_URL":  "https://sandbox.example.com",
		"LOGISTICS_BASE_URL":     "https://api.example.com",
	}
	cfg := Defaults()
	rest, err := cfg.Load("serve", []string{"--addr", "127.0.0.1:1", "extra"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:1" {
		t.Errorf("flag should win: addr = %s", cfg.Addr)
	}
	if cfg.DB != "/var/lib/logistics/production.db" || cfg.SandboxDB != "postgres://u:secret@db/sbx" {
		t.Errorf("databases = %s, %s", cfg.DB, cfg.SandboxDB)
	}
	if cfg.ReadTimeout != 3*time.Second || len(rest) != 1 || rest[0] != "extra" {
		t.Errorf("read timeout %v, rest %v", cfg.ReadTimeout, rest)
	}
	// The GraphQL cost limits, by environment and by flag.
	g := Defaults()
	if _, err := g.Load("serve", []string{"--graphql-max-list", "20", "--graphql-max-execution-time", "2s"}, func(k string) string {
		return map[string]string{"LOGISTICS_GRAPHQL_MAX_FIELDS": "300", "LOGISTICS_GRAPHQL_MAX_RESPONSE_BYTES": "1000"}[k]
	}); err != nil {
		t.Fatal(err)
	}
	if g.MaxFields != 300 || g.MaxRespBytes != 1000 || g.MaxListLength != 20 || g.MaxExecTime != 2*time.Second {
		t.Errorf("GraphQL limits: %+v", g)
	}
	masked := fmt.Sprint(cfg.Masked()...)
	if strings.Contains(masked, "secret") {
		t.Errorf("password not masked: %s", masked)
	}
}

func TestLoadRejects(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"LOGISTICS_READ_TIMEOUT": "soon"}, nil, "LOGISTICS_READ_TIMEOUT"},
		{nil, []string{"--max-body-bytes", "10"}, "max-body-bytes"},
		{nil, []string{"--sandbox-url", "/sandbox"}, "base URL"},
		{nil, []string{"--nope"}, "nope"},
		{nil, []string{"--graphql-max-execution-time", "90s"}, "write-timeout"},
		{nil, []string{"--graphql-max-list", "0"}, "graphql-max-list"},
		{map[string]string{"LOGISTICS_GRAPHQL_MAX_RESPONSE_BYTES": "-1"}, nil, "graphql-max-response-bytes"},
		{nil, []string{"--sched-turns", "-1"}, "sched-turns"},
		{map[string]string{"LOGISTICS_SCHED_TURNS": "65"}, nil, "sched-turns"},
	} {
		cfg := Defaults()
		_, err := cfg.Load("serve", tc.args, func(k string) string { return tc.env[k] })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: err = %v, want %q", tc.env, tc.args, err, tc.want)
		}
	}
}

func TestDeriveAddresses(t *testing.T) {
	for _, tc := range []struct{ listen, base, sandbox string }{
		{"127.0.0.1:8090", "http://127.0.0.1:8090", "http://127.0.0.1:8090/sandbox"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080/sandbox"},
		{"[::]:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080/sandbox"},
		{":9000", "http://127.0.0.1:9000", "http://127.0.0.1:9000/sandbox"},
		{"[::1]:8080", "http://[::1]:8080", "http://[::1]:8080/sandbox"},
		{"localhost:8080", "http://localhost:8080", "http://localhost:8080/sandbox"},
	} {
		cfg := Defaults()
		if err := cfg.DeriveAddresses(tc.listen); err != nil {
			t.Fatal(err)
		}
		if cfg.BaseURL != tc.base || cfg.SandboxURL != tc.sandbox {
			t.Errorf("%s: %s, %s; want %s, %s", tc.listen, cfg.BaseURL, cfg.SandboxURL, tc.base, tc.sandbox)
		}
	}
	cfg := Defaults()
	cfg.BaseURL = "https://api.example.com"
	if err := cfg.DeriveAddresses("0.0.0.0:8080"); err != nil || cfg.BaseURL != "https://api.example.com" || cfg.SandboxURL != "https://api.example.com/sandbox" {
		t.Errorf("a set base address is kept: %s, %s, %v", cfg.BaseURL, cfg.SandboxURL, err)
	}
}

func TestCORSAndCookieSettings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cors-origins", "*"}, "not allowed"},
		{[]string{"--cors-origins", "localhost:5173"}, "not an origin"},
		{[]string{"--cookie-samesite", "none"}, "https"},
		{[]string{"--cookie-samesite", "sometimes"}, "lax, strict or none"},
	} {
		cfg := Defaults()
		if _, err := cfg.Load("serve", tc.args, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	cfg := Defaults()
	if _, err := cfg.Load("serve", []string{"--cookie-samesite", "none", "--base-url", "https://api.example.com",
		"--cors-origins", "https://app.example.net,http://localhost:*"}, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
}
