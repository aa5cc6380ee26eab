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
)

//go:embed web
var webFS embed.FS

var page = template.Must(template.ParseFS(webFS, "web/index.html"))

// Deps is what the console needs.
type Deps struct {
	Prefix  string // "/console" under the production base address
	GraphQL string // the production GraphQL path
	// SandboxGraphQL is the sandbox's GraphQL path when it is on the same
	// host (the session cookie reaches it); empty otherwise.
	SandboxGraphQL string
	BaseURL        *url.URL
	Store          *auth.Store
	Guard          *auth.LoginGuard
	Log            *slog.Logger
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
		_ = page.Execute(w, map[string]string{"Prefix": d.Prefix, "GraphQL": d.GraphQL, "SandboxGraphQL": d.SandboxGraphQL})
	}
	mux.HandleFunc("GET "+d.Prefix, index)
	mux.HandleFunc("GET "+d.Prefix+"/{$}", index)
	for _, f := range []string{"app.js", "app.css", "webhooks.js"} {
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
	mux.Handle("POST "+d.Prefix+"/api/login", d.login())
	mux.Handle("POST "+d.Prefix+"/api/logout", d.logout())
}

func (d Deps) secure() bool { return d.BaseURL.Scheme == "https" }

// sameOrigin refuses cross-site posts: JSON bodies already need a CORS
// preflight, and a browser's Origin, when sent, must be ours.
func (d Deps) sameOrigin(r *http.Request) error {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		return apperr.UnsupportedMedia("send application/json")
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, d.BaseURL.Scheme+"://"+d.BaseURL.Host) {
		return apperr.Forbidden("cross_origin", "requests from %s are not accepted", o)
	}
	return nil
}

func (d Deps) login() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := d.sameOrigin(r); err != nil {
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
		if ok, wait := d.Guard.Allow(in.Email, addr); !ok {
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
		auth.SetSessionCookies(w, ns, d.secure())
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"user": map[string]string{"id": string(ns.User.ID), "email": ns.User.Email, "role": string(ns.User.Role)},
		})
	})
}

// logout ends the session. It needs the CSRF token like any unsafe request.
func (d Deps) logout() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		auth.ClearSessionCookies(w, d.secure())
		w.WriteHeader(http.StatusNoContent)
	})
}
