package service

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// References of a write (an order's hub, a line's part, a tracking entry's
// order and hub) are ids that the database's foreign keys check on every
// INSERT and UPDATE (SQLite runs with _fk=1; database.Open refuses it
// without). A valid write therefore does not read them first: that was a
// statement per reference inside the write transaction, under SQLite's one
// write lock. Only when the write fails do the checks run, and
// their 422 field errors (the same fields, messages and grouping as when
// they ran first) take the place of the write's error, as they came before
// it: a missing reference is reported as such whatever else went wrong
// afterwards, and a foreign-key violation never reaches the client as a bare
// constraint error while the missing record can be named.
//
// The checks run where the failed write leaves a usable view: on SQLite in
// the same transaction (a failed statement undoes only itself); in a
// transaction of the write's own after its rollback, on a fresh read. On
// PostgreSQL inside a caller's transaction a failed statement aborts that
// whole transaction. When the caller opened it for this one call
// (SingleCall: a GraphQL mutation operation of one root field), the
// transaction is rolled back there and then — it can only fail now, and its
// connection goes back to the pool before the fresh read takes one, so
// concurrent failures cannot wait on each other for connections — and the
// checks run on a fresh read, which sees what they would have seen first:
// nothing else wrote in that transaction, and the call itself creates or
// deletes none of the records its references name. Elsewhere (several root
// fields, whose earlier writes a fresh read would not see; a REST request
// with an Idempotency-Key, whose transaction holds the key's row) they keep
// running first: a savepoint around the write would cost as many
// statements as the checks save.
//
// A violation that the checks cannot attribute (the missing record was
// created meanwhile) keeps apperr's answer to a foreign-key error: 409
// still_referenced, never a 500.

// refsAfter reports whether a write in ctx may leave its references to the
// foreign keys and check them only after it failed.
func refsAfter(ctx context.Context) bool {
	return ent.TxFromContext(ctx) == nil || client(ctx).Driver().Dialect() != dialect.Postgres || singleCall(ctx) != nil
}

type singleCallKey struct{}

// SingleCall marks ctx's transaction as opened for one service call, which
// fails the transaction as a whole when it fails (a GraphQL mutation
// operation of one root field): on PostgreSQL a write there may leave its
// references to the foreign keys, and after a failure roll the transaction
// back and check them with outside, the environment's client outside the
// transaction (refs.go).
func SingleCall(ctx context.Context, outside *ent.Client) context.Context {
	return context.WithValue(ctx, singleCallKey{}, outside)
}

// singleCall is SingleCall's client outside the transaction, or nil.
func singleCall(ctx context.Context) *ent.Client {
	c, _ := ctx.Value(singleCallKey{}).(*ent.Client)
	return c
}

// refCheck finds a write's references that do not exist, as field problems.
type refCheck func(ctx context.Context) ([]apperr.FieldError, error)

// refs are the reference checks of one write, run first or after a failure.
type refs struct {
	after bool
	check refCheck
}

func newRefs(ctx context.Context, check refCheck) refs {
	return refs{after: refsAfter(ctx), check: check}
}

// first runs the checks when they must come before the write: a 422 with
// their problems, or nil.
func (r refs) first(ctx context.Context) error {
	if r.after || r.check == nil {
		return nil
	}
	return problemsOrErr(r.check(ctx))
}

// failed is the error of the write that failed with err: the references'
// 422 when the checks, run now, find any missing; err otherwise (also when
// the checks themselves fail).
func (r refs) failed(ctx context.Context, err error) error {
	if err == nil || !r.after || r.check == nil {
		return err
	}
	if tx, outside := ent.TxFromContext(ctx), singleCall(ctx); tx != nil && outside != nil && client(ctx).Driver().Dialect() == dialect.Postgres {
		// Aborted by the failed statement: released before the fresh read
		// takes a connection of its own.
		_ = tx.Rollback()
		ctx = ent.NewContext(ent.NewTxContext(ctx, nil), outside)
	}
	if p, cerr := r.check(ctx); cerr == nil && len(p) > 0 {
		return apperr.Validation(p...)
	}
	return err
}

// problemsOrErr is a check's result as an error: its failure, a 422 with its
// problems, or nil.
func problemsOrErr(p []apperr.FieldError, err error) error {
	if err != nil {
		return err
	}
	if len(p) > 0 {
		return apperr.Validation(p...)
	}
	return nil
}

// missing checks that one referenced record exists: its field problem
// ("<id> does not exist") when it does not.
func missing(ctx context.Context, field string, exists func(context.Context) (bool, error), id resourceid.ID) ([]apperr.FieldError, error) {
	ok, err := exists(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	if !ok {
		return []apperr.FieldError{{Field: field, Message: fmt.Sprintf("%s does not exist", id)}}, nil
	}
	return nil, nil
}
