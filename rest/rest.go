// Package rest is the /v1 interface: a thin layer that turns query strings
// into the same ent predicates as GraphQL's where: inputs and calls the same
// service layer for every write.
package rest

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	trusted "logistics/internal/documents"
	"logistics/internal/sandbox"
	"logistics/internal/service"
	"logistics/internal/webhooks"
)

// Deps is what the handlers need.
type Deps struct {
	Service      *service.Service
	Webhooks     *webhooks.Manager
	Documents    *trusted.Store // trusted GraphQL documents
	Sandbox      *sandbox.Clock // the sandbox's test clock (rest/sandbox.go)
	Log          *slog.Logger
	Version      string
	Commit       string // the VCS revision the binary was built from (app.BuildInfo)
	BuildDate    string // when it was built, RFC 3339 UTC
	MaxBodyBytes int64  // largest JSON request body (default 1 MiB)
	// WriteTimeout is the server's write time-out: an export moves the
	// connection's write deadline on by this much with every batch it sends.
	WriteTimeout time.Duration
	// HoldAfterCommit is a fault for tests (LOGISTICS_TEST_HOLD_AFTER_COMMIT):
	// a keyed POST whose Idempotency-Key equals it commits, logs "fault
	// injection: holding the response after commit" and never answers, so
	// a test can kill -9 the process between the commit and the response.
	HoldAfterCommit string
	// HoldBeforeCommit (LOGISTICS_TEST_HOLD_BEFORE_COMMIT) is the same fault
	// one step earlier: the write and its response are stored but not yet
	// committed ("fault injection: holding the transaction before commit").
	HoldBeforeCommit string
	// Servers are the base addresses the OpenAPI document names (production
	// and sandbox, as configured).
	Servers []Server

	prefix  string      // the environment's base path, set by Mount
	sweeper *keySweeper // when expired idempotency keys go, set by Mount
}

// WriteJSON writes v as JSON with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	if writeAppended(w, status, v) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
