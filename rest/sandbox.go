package rest

import (
	"net/http"

	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/internal/sandboxreset"
)

// Sandbox-only doors: the routes guarded by sandbox:write, for which
// production answers 404 (auth.Require), whatever the caller holds.

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
