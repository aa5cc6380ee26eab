package auth

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"logistics/internal/apperr"
	"logistics/internal/environment"
)

// Cookie names. The CSRF cookie is readable by scripts (the console and the
// playground copy it into the X-CSRF-Token header); the session cookie is not.
const (
	SessionCookie = "lsk_session"
	CSRFCookie    = "lsk_csrf"
	CSRFHeader    = "X-CSRF-Token"
)

// Authenticator is the authenticate and rate-limit middleware.
type Authenticator struct {
	Store   *Store
	Envs    *environment.Set
	Limiter RateLimiter // per key / per session; nil: no limit
	Log     *slog.Logger
	// Origins are the browser origins whose session requests are accepted
	// (the CORS middleware's list): a session's unsafe request whose Origin
	// header names another is refused. nil: only the Origin check is skipped.
	Origins *Origins
}

// Authenticate requires a caller: an API key (Authorization: Bearer) or a
// console session cookie. A session's unsafe requests (anything but GET,
// HEAD, OPTIONS — so every GraphQL POST, query or mutation) must carry the
// session's CSRF token in X-CSRF-Token. The caller goes into the context.
//
// Failures are problem+json; under /graphql (see GraphQLErrors) they are a
// GraphQL response whose errors[].extensions.code is UNAUTHENTICATED,
// FORBIDDEN or RATE_LIMITED, with the same status and headers.
func (a *Authenticator) Authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gql, _ := r.Context().Value(gqlErrorsKey{}).(bool); gql && IsWebSocketUpgrade(r) &&
			r.Header.Get("Authorization") == "" && !hasCookie(r, SessionCookie) {
			// A browser cannot set Authorization on a WebSocket: the
			// GraphQL transport authenticates the connection_init payload
			// (AuthenticateHeader) before anything else is read.
			next.ServeHTTP(w, r)
			return
		}
		p, err := a.identify(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		ctx := NewContext(r.Context(), p)
		ctx = withRecheck(ctx, func(ctx context.Context) error {
			_, err := a.identify(r.WithContext(ctx))
			return err
		})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// IsWebSocketUpgrade reports whether r asks to become a WebSocket.
func IsWebSocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func hasCookie(r *http.Request, name string) bool {
	c, err := r.Cookie(name)
	return err == nil && c.Value != ""
}

// AuthenticateHeader authenticates an Authorization header value sent some
// other way than as a header (a WebSocket's connection_init payload): it
// returns ctx carrying the caller, as Authenticate does.
func (a *Authenticator) AuthenticateHeader(ctx context.Context, authorization string) (context.Context, error) {
	p, err := a.bearer(ctx, authorization)
	if err != nil {
		return ctx, err
	}
	ctx = NewContext(ctx, p)
	return withRecheck(ctx, func(ctx context.Context) error {
		_, err := a.bearer(ctx, authorization)
		return err
	}), nil
}

func (a *Authenticator) bearer(ctx context.Context, h string) (*Principal, error) {
	scheme, secret, _ := strings.Cut(strings.TrimSpace(h), " ")
	secret = strings.TrimSpace(secret)
	if !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return nil, errInvalid("use Authorization: Bearer <API key>")
	}
	return a.Store.TokenPrincipal(ctx, secret, environment.FromContext(ctx), a.Envs)
}

type recheckKey struct{}

func withRecheck(ctx context.Context, fn func(context.Context) error) context.Context {
	return context.WithValue(ctx, recheckKey{}, fn)
}

// Recheck authenticates the caller of ctx again, as at the start of its
// request (an API key read again once the key cache's time has passed, a
// session read again): a long-lived stream calls it periodically and ends
// when the key was revoked or the session ended. Nil when there is nothing
// to check again (no caller authenticated by this package).
func Recheck(ctx context.Context) error {
	fn, _ := ctx.Value(recheckKey{}).(func(context.Context) error)
	if fn == nil {
		return nil
	}
	return fn(ctx)
}

type gqlErrorsKey struct{}

// GraphQLErrors marks the requests it passes as GraphQL requests, so that
// Authenticate and RateLimit answer in GraphQL's error shape.
func GraphQLErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gqlErrorsKey{}, true)))
	})
}

func (a *Authenticator) fail(w http.ResponseWriter, r *http.Request, err error) {
	if gql, _ := r.Context().Value(gqlErrorsKey{}).(bool); !gql {
		apperr.Write(w, r, a.Log, err)
		return
	}
	e := apperr.From(err)
	if e.Kind == apperr.KindInternal && a.Log != nil {
		a.Log.ErrorContext(r.Context(), "internal error", "err", err, "path", r.URL.Path)
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	ct := "application/json"
	if strings.Contains(r.Header.Get("Accept"), "application/graphql-response+json") {
		ct = "application/graphql-response+json"
	}
	w.Header().Set("Content-Type", ct+"; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(e.Kind.Status())
	ext := map[string]any{"code": e.Kind.GraphQLCode(), "reason": e.Code}
	for k, v := range e.Details {
		ext[k] = v
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": e.Message, "extensions": ext}}})
}

func (a *Authenticator) identify(r *http.Request) (*Principal, error) {
	ctx := r.Context()
	if h := r.Header.Get("Authorization"); h != "" {
		return a.bearer(ctx, h)
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, ErrMissing()
	}
	p, csrf, err := a.Store.SessionPrincipal(ctx, c.Value)
	if err != nil {
		return nil, err
	}
	if unsafeMethod(r.Method) {
		if o := r.Header.Get("Origin"); o != "" && a.Origins != nil && !a.Origins.Allowed(o) {
			return nil, ErrOrigin(o)
		}
		sent := r.Header.Get(CSRFHeader)
		if sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(csrf)) != 1 {
			return nil, apperr.Forbidden("csrf_token_invalid",
				"a request authenticated by the session cookie must send the %s cookie's value in the %s header", CSRFCookie, CSRFHeader)
		}
	}
	return p, nil
}

// RateLimit counts each caller's requests (Authenticate must run first) and
// answers 429 with Retry-After when its bucket is empty. Every response
// carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.
func (a *Authenticator) RateLimit(next http.Handler) http.Handler {
	if a.Limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := FromContext(r.Context())
		if p == nil {
			next.ServeHTTP(w, r)
			return
		}
		d := a.Limiter.Take(r.Context(), p.RateKey())
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(d.Reset)))
		if !d.Allowed {
			retry := max(1, ceilSeconds(d.RetryAfter))
			a.fail(w, r, apperr.RateLimited("too many requests for this %s: retry in %d s", p.Kind, retry).
				WithHeader("Retry-After", strconv.Itoa(retry)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// LoginGuard limits login attempts per account and per client address.
type LoginGuard struct {
	PerAccount RateLimiter
	PerAddress RateLimiter
}

// NewLoginGuard allows 5 attempts at once per account (then one every 12
// seconds) and 20 per address (then one every 3 seconds), in this
// instance's memory.
func NewLoginGuard() *LoginGuard { return NewLoginGuardWith(MemoryLimits{}) }

// NewLoginGuardWith is NewLoginGuard with the budgets kept by limits (shared
// by every instance with RedisLimits).
func NewLoginGuardWith(limits Limits) *LoginGuard {
	return &LoginGuard{PerAccount: limits.New("login-account", 1.0/12, 5), PerAddress: limits.New("login-address", 1.0/3, 20)}
}

// Allow takes an attempt for the account and the address, or says how long
// to wait.
func (g *LoginGuard) Allow(ctx context.Context, email, addr string) (bool, time.Duration) {
	a := g.PerAddress.Take(ctx, addr)
	b := g.PerAccount.Take(ctx, loginKey(strings.ToLower(strings.TrimSpace(email))))
	if a.Allowed && b.Allowed {
		return true, 0
	}
	return false, max(a.RetryAfter, b.RetryAfter)
}

// ClientAddr is the request's peer address without the port.
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// CookieOptions are the attributes of the session and CSRF cookies.
type CookieOptions struct {
	Secure   bool          // the base address is https
	SameSite http.SameSite // Lax by default; None (with Secure) for SPAs on another site
}

// SetSessionCookies sends the session and CSRF cookies of a new login.
// Both are Path=/ (so the sandbox's GraphQL and playground share the login
// when both environments are on one host), SameSite as configured (Lax by
// default) and Secure when the base address is https.
func SetSessionCookies(w http.ResponseWriter, ns *NewSession, c CookieOptions) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: ns.Secret, Path: "/", Expires: ns.ExpiresAt,
		HttpOnly: true, Secure: c.Secure, SameSite: c.sameSite()})
	http.SetCookie(w, &http.Cookie{Name: CSRFCookie, Value: ns.CSRF, Path: "/", Expires: ns.ExpiresAt,
		HttpOnly: false, Secure: c.Secure, SameSite: c.sameSite()})
}

// ClearSessionCookies removes both cookies.
func ClearSessionCookies(w http.ResponseWriter, c CookieOptions) {
	for _, n := range []string{SessionCookie, CSRFCookie} {
		http.SetCookie(w, &http.Cookie{Name: n, Value: "", Path: "/", MaxAge: -1,
			HttpOnly: n == SessionCookie, Secure: c.Secure, SameSite: c.sameSite()})
	}
}

func (c CookieOptions) sameSite() http.SameSite {
	if c.SameSite == 0 || c.SameSite == http.SameSiteDefaultMode {
		return http.SameSiteLaxMode
	}
	return c.SameSite
}
