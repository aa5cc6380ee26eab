package rest

import (
	"net/http"
	"time"

	"logistics/internal/environment"
)

// statusJSON is the body of GET /v1/status.
type statusJSON struct {
	Status      string       `json:"status"` // ok, or degraded when the database does not answer
	Service     string       `json:"service"`
	Version     string       `json:"version"`    // what `logistics version` prints: a release, a git describe, or dev
	Commit      string       `json:"commit"`     // the revision it was built from, or unknown
	BuildDate   string       `json:"build_date"` // RFC 3339 UTC, or unknown
	APIVersion  string       `json:"api_version"`
	Environment string       `json:"environment"`
	BaseURL     string       `json:"base_url"`
	Database    databaseJSON `json:"database"`
	ServerTime  string       `json:"server_time"`
}

type databaseJSON struct {
	Reachable bool   `json:"reachable"`
	Dialect   string `json:"dialect"`
}

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
		WriteJSON(w, http.StatusOK, statusJSON{
			Status: status, Service: "logistics", Version: d.Version, Commit: d.Commit, BuildDate: d.BuildDate, APIVersion: "v1",
			Environment: string(env.Name), BaseURL: env.BaseURL.String(),
			Database:   databaseJSON{Reachable: reachable, Dialect: env.DB.Dialect},
			ServerTime: time.Now().UTC().Format(time.RFC3339Nano),
		})
	})
}
