package rest

import (
	"net/http"
	"strings"

	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/internal/sandboxreset"
)

// Sandbox-only doors: every route under sandboxPrefix. Production answers
// 404 for each, before authentication's scope check, as it does for a path
// that does not exist: production has no such thing (docs/sandbox.md).
const sandboxPrefix = "/v1/sandbox/"

// sandboxOnly answers 404 outside the sandbox.
func sandboxOnly(d Deps, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if env := environment.FromContext(r.Context()); env == nil || env.Name != environment.Sandbox {
			d.fail(w, r, sandboxreset.NotFound())
			return
		}
		h.ServeHTTP(w, r)
	})
}

// isSandboxOnly reports whether the route at path is sandbox-only.
func isSandboxOnly(path string) bool { return strings.HasPrefix(path, sandboxPrefix) }

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
