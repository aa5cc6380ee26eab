// Package console serves the account console: a small single-page app
// (plain HTML, CSS and JavaScript, embedded in the binary) where users sign
// in and manage their API tokens. It talks to the server through GraphQL with
// its session cookie; only signing in and out are plain JSON endpoints,
// because they set and clear the cookies.
package console

import (
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/eventlog"
)

//go:embed web
var webFS embed.FS

var page = template.Must(template.ParseFS(webFS, "web/index.html"))

// Deps is what the console needs.
type Deps struct {
	Prefix  string // "/console" under the production base address
	GraphQL string // the production GraphQL path
	// Playgrounds are the two environments' GraphQL playground addresses,
	// linked from the header.
	Playground, SandboxPlayground string
	Store                         *auth.Store
	Guard                         *auth.LoginGuard
	Log                           *slog.Logger
	// Auth authenticates the session endpoints (CSRF token, origin).
	Auth *auth.Authenticator
	// Origins may sign in (the CORS list); Cookies are the cookie attributes.
	Origins *auth.Origins
	Cookies auth.CookieOptions
	// SandboxGraphQL is the sandbox's GraphQL path when it is on the same
	// host (the session cookie reaches it); empty otherwise.
	SandboxGraphQL string
	BaseURL        *url.URL
	Favicon        string // the icon's path, linked from the page
}

const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Mount registers the console's routes on mux.
func Mount(mux *http.ServeMux, d Deps) {
	index := func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", csp)
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		_ = page.Execute(w, map[string]any{"Prefix": d.Prefix, "GraphQL": d.GraphQL,
			"Playground": d.Playground, "SandboxPlayground": d.SandboxPlayground, "SandboxGraphQL": d.SandboxGraphQL, "Favicon": d.Favicon,
			"EventTypes": testEventTypes()})
	}
	mux.HandleFunc("GET "+d.Prefix, index)
	mux.HandleFunc("GET "+d.Prefix+"/{$}", index)
	for _, f := range []string{"app.js", "app.css", "webhooks.js", "documents.js", "clock.js", "reset.js"} {
		body, err := webFS.ReadFile("web/" + f)
		if err != nil {
			panic(err)
		}
		ct := mime.TypeByExtension(f[strings.LastIndexByte(f, '.'):])
		mux.HandleFunc("GET "+d.Prefix+"/"+f, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Cache-Control", "no-cache")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			_, _ = w.Write(body)
		})
	}
	MountAPI(mux, d)
}

// MountAPI registers the session endpoints under d.Prefix+"/api": sign in,
// sign out, the current session, and a password change. The console uses
// them, and so may any browser app on an allowed origin (see docs/auth.md);
// they are mounted under both environments' base addresses (users and
// sessions are shared).
func MountAPI(mux *http.ServeMux, d Deps) {
	mux.Handle("POST "+d.Prefix+"/api/login", d.login())
	mux.Handle("POST "+d.Prefix+"/api/logout", d.logout())
	mux.Handle("GET "+d.Prefix+"/api/session", d.Auth.Authenticate(d.session()))
	mux.Handle("POST "+d.Prefix+"/api/password", d.Auth.Authenticate(d.password()))
}

// allowedOrigin refuses cross-site posts: JSON bodies already need a CORS
// preflight, and a browser's Origin, when sent, must be an allowed one.
func (d Deps) allowedOrigin(r *http.Request) error {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		return apperr.UnsupportedMedia("send application/json")
	}
	if o := r.Header.Get("Origin"); o != "" && !d.Origins.Allowed(o) {
		return auth.ErrOrigin(o)
	}
	return nil
}

// sessionJSON is the answer of login and session: the user, and the CSRF
// token to send in X-CSRF-Token (an app on another site cannot read the
// lsk_csrf cookie, which belongs to the API's host).
func sessionJSON(id, email, role, csrf string) map[string]any {
	return map[string]any{"user": map[string]string{"id": id, "email": email, "role": role}, "csrfToken": csrf}
}

// session answers who is signed in, with the session's CSRF token (401
// when the session has ended). Only a session may ask.
func (d Deps) session() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := auth.FromContext(r.Context())
		if p == nil || p.Kind != auth.KindSession {
			apperr.Write(w, r, d.Log, apperr.Forbidden("session_required", "this endpoint is for a signed-in session, not an API key"))
			return
		}
		c, _ := r.Cookie(auth.SessionCookie)
		_, csrf, err := d.Store.SessionPrincipal(r.Context(), c.Value)
		if err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(sessionJSON(p.UserID, p.Email, p.Role, csrf))
	})
}

// password changes the signed-in user's password: {"currentPassword",
// "newPassword"}. The session's other sessions end; this one stays.
func (d Deps) password() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := auth.FromContext(r.Context())
		if p == nil || p.Kind != auth.KindSession {
			apperr.Write(w, r, d.Log, apperr.Forbidden("session_required", "sign in to the console to change your password"))
			return
		}
		if err := d.allowedOrigin(r); err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		var in struct {
			Current string `json:"currentPassword"`
			New     string `json:"newPassword"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&in); err != nil {
			apperr.Write(w, r, d.Log, apperr.BadRequest("send {\"currentPassword\": …, \"newPassword\": …}"))
			return
		}
		addr := auth.ClientAddr(r)
		if ok, wait := d.Guard.Allow(r.Context(), p.Email, addr); !ok {
			secs := max(1, int(wait.Seconds()+0.999))
			apperr.Write(w, r, d.Log, apperr.RateLimited("too many password attempts: retry in %d s", secs).
				WithHeader("Retry-After", strconv.Itoa(secs)))
			return
		}
		if err := d.Store.ChangePassword(r.Context(), p.UserID, p.SessionID, in.Current, in.New); err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		d.Log.InfoContext(r.Context(), "console: password changed; the user's other sessions ended", "user", p.UserID)
		w.WriteHeader(http.StatusNoContent)
	})
}

func (d Deps) login() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := d.allowedOrigin(r); err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		var in struct {
			Email    string `json:"email"`
			Password string `json:"password"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&in); err != nil {
			apperr.Write(w, r, d.Log, apperr.BadRequest("send {\"email\": …, \"password\": …}"))
			return
		}
		addr := auth.ClientAddr(r)
		if ok, wait := d.Guard.Allow(r.Context(), in.Email, addr); !ok {
			secs := max(1, int(wait.Seconds()+0.999))
			apperr.Write(w, r, d.Log, apperr.RateLimited("too many sign-in attempts: retry in %d s", secs).
				WithHeader("Retry-After", strconv.Itoa(secs)))
			return
		}
		ns, err := d.Store.Login(r.Context(), in.Email, in.Password, r.UserAgent(), addr)
		if err != nil {
			if apperr.From(err).Kind == apperr.KindUnauthenticated {
				d.Log.InfoContext(r.Context(), "console: failed sign-in", "addr", addr)
			}
			apperr.Write(w, r, d.Log, err)
			return
		}
		auth.SetSessionCookies(w, ns, d.Cookies)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(sessionJSON(string(ns.User.ID), ns.User.Email, string(ns.User.Role), ns.CSRF))
	})
}

// logout ends the session. It needs the CSRF token like any unsafe request.
func (d Deps) logout() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !d.Origins.Allowed(o) {
			apperr.Write(w, r, d.Log, auth.ErrOrigin(o))
			return
		}
		c, err := r.Cookie(auth.SessionCookie)
		if err == nil && c.Value != "" {
			csrf, _ := r.Cookie(auth.CSRFCookie)
			if csrf == nil || csrf.Value == "" || r.Header.Get(auth.CSRFHeader) != csrf.Value {
				apperr.Write(w, r, d.Log, apperr.Forbidden("csrf_token_invalid", "send the %s cookie's value in %s", auth.CSRFCookie, auth.CSRFHeader))
				return
			}
			if err := d.Store.Logout(r.Context(), c.Value); err != nil {
				apperr.Write(w, r, d.Log, err)
				return
			}
		}
		auth.ClearSessionCookies(w, d.Cookies)
		w.WriteHeader(http.StatusNoContent)
	})
}

// testEventTypes are the types "Send test event" offers: webhook.test, then
// every type of the event catalog.
func testEventTypes() []string {
	out := []string{"webhook.test"}
	for _, t := range eventlog.Catalog {
		out = append(out, t.Name)
	}
	return out
}
