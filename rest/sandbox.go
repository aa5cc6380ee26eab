package rest

import (
	"net/http"
	"strings"
	"time"

	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/internal/sandbox"
	"logistics/internal/sandboxreset"
)

// The sandbox's test clock: /v1/sandbox/clock. The handlers call the same
// internal/sandbox code as the GraphQL resolvers and the console. Every
// /v1/sandbox/ route answers 404 in production, before its scope is
// checked (sandboxOnly): production has no such door.

// sandboxPrefix begins the path of every sandbox-only route.
const sandboxPrefix = "/v1/sandbox/"

// clockAdvanceIn is the body of POST /v1/sandbox/clock/advance.
type clockAdvanceIn struct {
	// By is a Go duration: more than zero, at most 8784h (a year).
	By string `json:"by"`
}

// clockSetIn is the body of POST /v1/sandbox/clock/set.
type clockSetIn struct {
	// To is the new time (RFC 3339): not before the clock's, at most a year ahead.
	To *time.Time `json:"to"`
}

// sandboxOnly answers 404 outside the sandbox.
func sandboxOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if env := environment.FromContext(r.Context()); env == nil || env.Name != environment.Sandbox {
			apperr.Write(w, r, nil, apperr.NotFound("%s exists only in the sandbox", r.URL.Path))
			return
		}
		h.ServeHTTP(w, r)
	})
}

func isSandboxRoute(path string) bool { return strings.HasPrefix(path, sandboxPrefix) }

func handleSandboxClock(d Deps, move func(d Deps, r *http.Request) (sandbox.State, error)) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		s, err := move(d, r)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, s)
		return nil
	})
}

func clockGet(d Deps, r *http.Request) (sandbox.State, error) { return d.Sandbox.Get(r.Context()) }

func clockFreeze(d Deps, r *http.Request) (sandbox.State, error) {
	return d.Sandbox.Freeze(r.Context())
}

func clockResume(d Deps, r *http.Request) (sandbox.State, error) {
	return d.Sandbox.Resume(r.Context())
}

func clockAdvance(d Deps, r *http.Request) (sandbox.State, error) {
	var in clockAdvanceIn
	if _, err := d.decode(r, &in); err != nil {
		return sandbox.State{}, err
	}
	if in.By == "" {
		return sandbox.State{}, apperr.Validation(apperr.FieldError{Field: "by", Message: "is required: a duration such as 36h"})
	}
	by, err := sandbox.ParseDuration("by", in.By)
	if err != nil {
		return sandbox.State{}, err
	}
	return d.Sandbox.Advance(r.Context(), by)
}

func clockSet(d Deps, r *http.Request) (sandbox.State, error) {
	var in clockSetIn
	if _, err := d.decode(r, &in); err != nil {
		return sandbox.State{}, err
	}
	if in.To == nil {
		return sandbox.State{}, apperr.Validation(apperr.FieldError{Field: "to", Message: "is required: an RFC 3339 time"})
	}
	return d.Sandbox.Set(r.Context(), *in.To)
}

// sandboxResetIn is the body of POST /v1/sandbox/reset.
type sandboxResetIn struct {
	// Confirm must be "sandbox": a reset erases the sandbox's data.
	Confirm *string `json:"confirm"`
	// Scale of the demo data loaded (default 0.05, at most 1).
	Scale *float64 `json:"scale"`
	// Seed of the demo data (default 0: the dataset of every first start).
	Seed *int64 `json:"seed"`
}

func handleResetSandbox(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		var in sandboxResetIn
		if _, err := d.decode(r, &in); err != nil {
			return err
		}
		if in.Confirm == nil {
			return apperr.Validation(apperr.FieldError{Field: "confirm", Message: `is required: send "confirm": "` + sandboxreset.Confirm + `"`})
		}
		res, err := sandboxreset.Reset(r.Context(), environment.FromContext(r.Context()),
			sandboxreset.Options{Confirm: *in.Confirm, Scale: deref(in.Scale), Seed: deref(in.Seed)})
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, res)
		return nil
	})
}
