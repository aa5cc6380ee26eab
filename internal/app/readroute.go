package app

import (
	"context"
	"net/http"
	"strings"
	"time"

	"logistics/internal/apperr"
	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/postgres"
	"logistics/rest"
)

// The request's side of the read replicas (internal/database/replica.go,
// docs/operations.md: Read replicas, decision record 0029).
const (
	// ReadAfterHeader carries a WAL position: answered by a request that
	// wrote (the primary's position after its commit), and sent back by
	// the client so that its later reads see the write: a replica serves
	// them only once it has replayed that position.
	ReadAfterHeader = "X-Read-After"
	// readAfterCookie carries the same position for browser clients,
	// whose later requests send it without the app's help.
	readAfterCookie = "logistics_read_after"
)

// boundedPrefer refuses a request whose Prefer is over 256 bytes (a 400
// invalid_count), on every route and whether or not a replica is
// configured: the bound is part of the contract, not of a deployment.
func (a *App) boundedPrefer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := rest.CheckPreferSize(r); err != nil {
			apperr.Write(w, r, a.Log, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// routeReads serves next with the client's read preference (Prefer:
// read=replica or read=primary) and the position of its last write
// (X-Read-After, or the cookie) in the request's context, every read of a
// write's request sent to the primary (GraphQL decides by the operation's
// type: graph/readroute.go), and the position of the request's own last
// write answered by the request's statusWriter.
func (a *App) routeReads(env *environment.Env, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, err := a.readContext(r.Context(), env, statusWriterOf(w), r)
		if err != nil {
			apperr.Write(w, r, a.Log, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// statusWriterOf finds the request's statusWriter under w, or nil.
func statusWriterOf(w http.ResponseWriter) *statusWriter {
	for w != nil {
		if sw, ok := w.(*statusWriter); ok {
			return sw
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// readContext is routeReads's context; sw (nil: none) answers the writes.
func (a *App) readContext(ctx context.Context, env *environment.Env, sw *statusWriter, r *http.Request) (context.Context, error) {
	var after postgres.LSN
	if v := r.Header.Get(ReadAfterHeader); v != "" {
		if len(v) > 17 {
			return ctx, apperr.Invalid(ReadAfterHeader, "a WAL position such as 0/16B3748 is at most 17 characters")
		}
		lsn, err := postgres.ParseLSN(v)
		if err != nil {
			return ctx, apperr.Invalid(ReadAfterHeader, "%v: send back the value a write answered", err)
		}
		after = lsn
	}
	for _, c := range r.Cookies() {
		// A stale or foreign cookie is ignored, not refused: the client
		// did not write it.
		if c.Name == readAfterCookie {
			if lsn, err := postgres.ParseLSN(c.Value); err == nil {
				after = max(after, lsn)
			}
		}
	}
	ctx = database.WithReadPreference(ctx, readPreference(r.Header.Values("Prefer")), after)
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		if !strings.HasSuffix(r.URL.Path, "/graphql") {
			ctx = database.PrimaryOnly(ctx)
		}
	}
	if sw == nil {
		return ctx, nil
	}
	ctx, sw.writes = database.TrackWrites(ctx, env.DB.SQL)
	if r.Header.Get("Cookie") != "" {
		// The cookie outlives its use by little: once the lag bound has
		// passed since the write, a replica that has not replayed it is
		// skipped for its lag anyway.
		lag := env.DB.Replica.MaxLag + a.Config.ReadCheck
		sw.readCookie = &http.Cookie{Name: readAfterCookie, Path: env.Path("/"), MaxAge: int((lag+time.Second-1)/time.Second) + 1,
			HttpOnly: true, Secure: a.Cookies.Secure, SameSite: a.Cookies.SameSite}
	}
	return ctx, nil
}

// readPreference is the read preference of the Prefer header's values
// (RFC 7240: comma-separated preferences, each with optional parameters
// after ";"). An unknown value is ignored, as RFC 7240 asks; the last
// read= wins.
func readPreference(values []string) database.ReadPreference {
	p := database.ReadDefault
	for _, v := range values {
		for _, pref := range strings.Split(v, ",") {
			pref, _, _ = strings.Cut(pref, ";")
			name, val, ok := strings.Cut(pref, "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(name), "read") {
				continue
			}
			switch strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`)) {
			case "replica":
				p = database.ReadReplica
			case "primary":
				p = database.ReadPrimary
			}
		}
	}
	return p
}

// answerWrites sets, before the response's header goes, the position of
// the request's last write: X-Read-After, and the cookie for a browser.
func (w *statusWriter) answerWrites() {
	if w.writes == nil {
		return
	}
	lsn, ok := w.writes.LSN()
	w.writes = nil
	if !ok {
		return
	}
	w.Header().Set(ReadAfterHeader, lsn.String())
	if w.readCookie != nil {
		c := *w.readCookie
		c.Value = lsn.String()
		http.SetCookie(w, &c)
	}
}
