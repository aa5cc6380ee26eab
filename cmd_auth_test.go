package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"logistics/ent/user"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// The CLI runs against the databases of a server that is running.
func TestTokensCreatePrintsOnlyTheSecret(t *testing.T) {
	s := apptest.New(t)
	getenv := func(string) string { return "" }
	dbFlags := []string{"--db", s.App.Config.DB, "--sandbox-db", s.App.Config.SandboxDB,
		"--base-url", s.URL, "--sandbox-url", s.SandboxURL}
	for _, c := range []struct {
		env    environment.Name
		prefix string
	}{{environment.Production, "lsk_live_"}, {environment.Sandbox, "lsk_test_"}} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"tokens", "create", "--name", "ci", "--env", string(c.env), "--scopes", "all"}, dbFlags...)
		if err := run(context.Background(), args, getenv, &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		if !regexp.MustCompile(`^` + c.prefix + `[A-Z2-7]{26}\n$`).MatchString(stdout.String()) {
			t.Fatalf("stdout %q", stdout.String())
		}
		secret := strings.TrimSpace(stdout.String())
		if strings.Contains(stderr.String(), secret) {
			t.Fatal("the secret went to the log")
		}
		if r := s.Do(t, "GET", s.Base(c.env)+"/v1/status", nil, apptest.Bearer(secret)); r.StatusCode != http.StatusOK {
			t.Fatalf("%s key: %d", c.env, r.StatusCode)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"tokens", "create", "--name", "x", "--scopes", "hubs:delete"}, dbFlags...), getenv, &stdout, &stderr); err == nil {
		t.Fatal("unknown scope accepted")
	}
}

func TestUsersCreate(t *testing.T) {
	s := apptest.New(t)
	getenv := func(string) string { return "" }
	dbFlags := []string{"--db", s.App.Config.DB, "--sandbox-db", s.App.Config.SandboxDB}
	stdin = strings.NewReader("a-long-password\n")
	defer func() { stdin = nil }()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"users", "create", "--email", "ops@example.com", "--role", "admin", "--password-stdin"}, dbFlags...), getenv, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout %q", stdout.String())
	}
	s.Session(t, "ops@example.com", "a-long-password")

	stdout.Reset()
	if err := run(context.Background(), append([]string{"users", "create", "--email", "gen@example.com", "--role", "viewer"}, dbFlags...), getenv, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	s.Session(t, "gen@example.com", strings.TrimSpace(stdout.String()))
	u := s.App.Envs.Production().DB.Client.User.Query().Where(user.Email("gen@example.com")).OnlyX(context.Background())
	if u.Role != user.RoleViewer || strings.Contains(u.PasswordHash, strings.TrimSpace(stdout.String())) {
		t.Fatalf("%+v", u)
	}
	if err := run(context.Background(), append([]string{"users", "create", "--email", "gen@example.com"}, dbFlags...), getenv, &stdout, &stderr); err == nil {
		t.Fatal("duplicate email accepted")
	}
}

// users reset-password sets a new password and ends every session of the
// user: the old session is refused, the new password signs in.
func TestUsersResetPassword(t *testing.T) {
	s := apptest.New(t)
	getenv := func(string) string { return "" }
	dbFlags := []string{"--db", s.App.Config.DB, "--sandbox-db", s.App.Config.SandboxDB}
	old := s.Session(t, s.AdminEmail, s.AdminPassword)
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, old); r.StatusCode != http.StatusOK {
		t.Fatalf("session before: %d", r.StatusCode)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"users", "reset-password", "--email", s.AdminEmail}, dbFlags...), getenv, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	password := strings.TrimSpace(stdout.String())
	if len(password) < 20 || strings.Contains(stderr.String(), password) {
		t.Fatalf("stdout %q (the password must be printed there only)", stdout.String())
	}
	if r := s.Do(t, "GET", s.URL+"/v1/status", nil, old); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("old session after the reset: %d, want 401", r.StatusCode)
	}
	s.Session(t, s.AdminEmail, password)
	if err := run(context.Background(), append([]string{"users", "reset-password", "--email", "nobody@example.com"}, dbFlags...), getenv, &stdout, &stderr); err == nil {
		t.Fatal("unknown email accepted")
	}
}
