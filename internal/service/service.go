// Package service is the one write path of the API: validation, workflow
// transitions, stock effects and domain events. GraphQL resolvers and REST
// handlers both call it; it reads the environment's ent client (or the
// current transaction) from the context, never a stored client.
package service

import (
	"context"
	"log/slog"
	"time"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
)

// Service holds what the write path needs besides the request context.
type Service struct {
	log *slog.Logger
	// Shipped, when set, runs in the ship transition's transaction with the
	// label_created entry it wrote: the sandbox's simulated carriers
	// schedule a test tracking number's history there (internal/sandbox).
	Shipped func(ctx context.Context, label *ent.TrackingEntry) error
}

// New returns a Service.
func New(log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{log: log}
}

// client returns the ent client of the request: the environment's, or the
// transaction's inside WithTx.
func client(ctx context.Context) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	c := ent.FromContext(ctx)
	if c == nil {
		panic("service: no ent client in the context (missing environment middleware)")
	}
	return c
}

// WithTx runs fn in a database transaction, or in the current one when the
// context already holds one. fn's context carries the transaction, so every
// service call inside it joins it. Any error rolls everything back.
func WithTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if ent.TxFromContext(ctx) != nil {
		return fn(ctx)
	}
	tx, err := client(ctx).Tx(ctx)
	if err != nil {
		return apperr.From(err)
	}
	txCtx := ent.NewTxContext(ctx, tx)
	txCtx = ent.NewContext(txCtx, tx.Client())
	txCtx = eventlog.Begin(txCtx, tx)
	defer func() {
		if v := recover(); v != nil {
			_ = tx.Rollback()
			panic(v)
		}
	}()
	if err := fn(txCtx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback() // a failed commit hook leaves it open
		return apperr.From(err)
	}
	return nil
}

// clockNow is the time of a write that gives none: the environment's clock
// (the sandbox's test clock, read once per transaction) where it has one,
// the real time otherwise.
func clockNow(ctx context.Context, real time.Time) (time.Time, error) {
	if eventlog.ClockFromContext(ctx) == nil {
		return real, nil
	}
	t, err := eventlog.Occurred(ctx)
	if err != nil {
		return time.Time{}, apperr.From(err)
	}
	return t, nil
}

// checkID refuses an id of the wrong type with a 400 naming the field, so an
// itm_ id passed as a hub never reaches the database.
func checkID(field string, id resourceid.ID, prefix string) error {
	if _, err := resourceid.Parse(string(id), prefix); err != nil {
		return apperr.Invalid(field, "%v", err)
	}
	return nil
}

// mustExist turns a missing referenced record into a 422 on the field.
func mustExist(ctx context.Context, field string, exists func(context.Context) (bool, error), id resourceid.ID) error {
	return problemsOrErr(missing(ctx, field, exists, id))
}

// revisionMismatch tells a stale revision (412) from a missing record (404).
func revisionMismatch(ctx context.Context, what string, id resourceid.ID, exists func(context.Context) (bool, error)) error {
	ok, err := exists(ctx)
	if err != nil {
		return apperr.From(err)
	}
	if !ok {
		return apperr.NotFound("%s %s not found", what, id)
	}
	return apperr.Precondition("%s %s was changed by someone else: fetch it again and retry with its current revision", what, id)
}

// notFound is a 404 for one id.
func notFound(what string, id resourceid.ID) error {
	return apperr.NotFound("%s %s not found", what, id)
}

// stillReferenced is the 409 of a delete refused because other records point here.
func stillReferenced(what string, id resourceid.ID, by map[string]int) error {
	e := apperr.Conflict("still_referenced", "%s %s is still referenced and cannot be deleted", what, id)
	return e.WithDetail("referenced_by", by)
}
