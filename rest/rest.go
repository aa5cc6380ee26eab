// Package rest is the /v1 interface: a thin layer that turns query strings
// into the same ent predicates as GraphQL's where: inputs and calls the same
// service layer for every write.
package rest

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"logistics/internal/service"
)

// Deps is what the handlers need.
type Deps struct {
	Service *service.Service
	Log     *slog.Logger
	Version string
}

// Mount registers every /v1 route on mux under prefix (the environment's base
// path, "" or "/sandbox").
func Mount(mux *http.ServeMux, prefix string, d Deps) {
	mux.Handle("GET "+prefix+"/v1/status", handleStatus(d))
	mountOrderFlows(mux, prefix, d)
}

// WriteJSON writes v as JSON with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
