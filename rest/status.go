package rest

import (
	"net/http"
	"time"

	"logistics/internal/environment"
)

// handleStatus answers GET /v1/status: who is serving, for which environment,
// whether its database answers, and the server's clock.
func handleStatus(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env := environment.FromContext(r.Context())
		reachable := env.DB.Ping(r.Context()) == nil
		status := "ok"
		if !reachable {
			status = "degraded"
		}
		WriteJSON(w, http.StatusOK, map[string]any{
			"status":      status,
			"service":     "logistics",
			"version":     d.Version,
			"api_version": "v1",
			"environment": env.Name,
			"base_url":    env.BaseURL.String(),
			"database": map[string]any{
				"reachable": reachable,
				"dialect":   env.DB.Dialect,
			},
			"server_time": time.Now().UTC().Format(time.RFC3339Nano),
		})
	})
}
