package auth

import (
	"log/slog"
	"net/http"
	"strings"

	"logistics/internal/apperr"
)

// The CORS answer's fixed parts: what a browser app may send and read.
const (
	corsAllowMethods  = "GET, HEAD, POST, PUT, PATCH, DELETE"
	corsAllowHeaders  = "Authorization, Content-Type, X-CSRF-Token, Idempotency-Key, If-Match, Prefer, X-Read-After"
	corsExposeHeaders = "ETag, Location, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id, X-Ignored-Filters, X-Read-After, Preference-Applied, Idempotent-Replayed"
	corsMaxAge        = "600"
)

// CORS answers browsers on other origins. A request from an allowed origin
// gets Access-Control-Allow-Origin with that origin (never "*": the answer
// is credentialed), Allow-Credentials and the exposed headers; a preflight
// (OPTIONS with Access-Control-Request-Method) is answered here, before
// authentication, with the allowed methods and headers — 204 for an allowed
// origin, 403 problem+json naming the setting for any other. Every answer
// carries Vary: Origin, so caches keep the origins apart. A request from a
// refused origin that is not a preflight goes on without CORS headers (the
// browser then hides the answer); Authenticate refuses its session.
func CORS(origins *Origins, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Add("Vary", "Origin")
			origin := r.Header.Get("Origin")
			preflight := r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != ""
			if preflight {
				h.Add("Vary", "Access-Control-Request-Method")
				h.Add("Vary", "Access-Control-Request-Headers")
			}
			if origin == "" {
				next.ServeHTTP(w, r)
				return
			}
			allowed := origins.Allowed(origin)
			if allowed {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Credentials", "true")
			}
			if !preflight {
				if allowed {
					h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
				}
				next.ServeHTTP(w, r)
				return
			}
			if !allowed {
				apperr.Write(w, r, log, ErrOrigin(origin))
				return
			}
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
		})
	}
}

// unsafeMethod reports whether a request may change something (and so, sent
// with a session cookie, needs the CSRF token and an allowed origin).
func unsafeMethod(m string) bool {
	switch strings.ToUpper(m) {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}
