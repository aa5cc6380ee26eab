package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/auth"
)

// A signed-in user changes their password: the current one is required,
// the CSRF token too; afterwards the old password fails, the new one signs
// in, this session goes on and the user's other sessions have ended — on
// every instance sharing the database.
func TestChangePassword(t *testing.T) {
	s := apptest.New(t)
	this := s.Session(t, s.AdminEmail, s.AdminPassword)
	// The sign-in guard allows 5 attempts per account at once, and the
	// password endpoint takes from it too: the second session and the check
	// of the old password below go to the store directly.
	ns, err := s.App.Auth.Store.Login(context.Background(), s.AdminEmail, s.AdminPassword, "test", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	other := http.Header{"Authorization": {""}, "Cookie": {auth.SessionCookie + "=" + ns.Secret}}
	url := s.URL + "/console/api/password"
	const next = "a-brand-new-password"

	noCSRF := this.Clone()
	noCSRF.Del(auth.CSRFHeader)
	if r := s.Do(t, http.MethodPost, url, map[string]string{"currentPassword": s.AdminPassword, "newPassword": next}, noCSRF); r.StatusCode != http.StatusForbidden {
		t.Fatalf("without the CSRF token: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, http.MethodPost, url, map[string]string{"currentPassword": "wrong-password!", "newPassword": next}, this); r.StatusCode != http.StatusBadRequest ||
		!strings.Contains(string(r.Body), "currentPassword") {
		t.Fatalf("wrong current password: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, http.MethodPost, url, map[string]string{"currentPassword": s.AdminPassword, "newPassword": "short"}, this); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("short new password: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, http.MethodPost, url, map[string]string{"currentPassword": s.AdminPassword, "newPassword": next}, apptest.Bearer(s.Keys["production"])); r.StatusCode != http.StatusForbidden {
		t.Fatalf("with an API key: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, http.MethodPost, url, map[string]string{"currentPassword": s.AdminPassword, "newPassword": next}, this); r.StatusCode != http.StatusNoContent {
		t.Fatalf("change: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, http.MethodGet, s.URL+"/v1/status", nil, this); r.StatusCode != http.StatusOK {
		t.Errorf("the session that changed the password: %d", r.StatusCode)
	}
	if r := s.Do(t, http.MethodGet, s.URL+"/v1/status", nil, other); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("another session of the user: %d, want 401", r.StatusCode)
	}
	// A second instance on the same database agrees at once.
	twin := s.Twin(t)
	if r := twin.Do(t, http.MethodGet, twin.URL+"/v1/status", nil, other); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("another session of the user, on a second instance: %d, want 401", r.StatusCode)
	}
	if r := twin.Do(t, http.MethodGet, twin.URL+"/v1/status", nil, this); r.StatusCode != http.StatusOK {
		t.Errorf("the session that changed the password, on a second instance: %d", r.StatusCode)
	}
	if _, err := s.App.Auth.Store.Login(context.Background(), s.AdminEmail, s.AdminPassword, "test", "127.0.0.1"); err == nil {
		t.Error("the old password still signs in")
	}
	s.Session(t, s.AdminEmail, next)
}
