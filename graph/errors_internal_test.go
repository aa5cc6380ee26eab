package graph

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"logistics/internal/apperr"
)

// TestUnclassifiedErrorsAreInternal: a database error a resolver returns
// (here the texts SQLite and PostgreSQL gave for oversized filters) reaches
// the client as INTERNAL "internal error", logged, never as BAD_USER_INPUT
// with the database's text; classified errors keep their kind.
func TestUnclassifiedErrorsAreInternal(t *testing.T) {
	var logs bytes.Buffer
	present := presenter(slog.New(slog.NewTextHandler(&logs, nil)))
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	for _, dbErr := range []string{
		"too many SQL variables",
		"Expression tree is too large (maximum depth 1000)",
		"extended protocol limited to 65535 parameters",
		"LIKE or GLOB pattern too complex",
	} {
		err := classify(errors.New(dbErr))
		got := present(ctx, graphql.ErrorOnPath(ctx, err))
		if got.Extensions["code"] != "INTERNAL" || got.Message != "internal error" || strings.Contains(got.Error(), dbErr) {
			t.Errorf("%q presented as %v %q", dbErr, got.Extensions, got.Message)
		}
		if !strings.Contains(logs.String(), dbErr) {
			t.Errorf("%q not logged", dbErr)
		}
	}
	err := classify(apperr.Invalid("ids", "at most 500 ids"))
	if got := present(ctx, graphql.ErrorOnPath(ctx, err)); got.Extensions["code"] != "BAD_USER_INPUT" || got.Message != "ids: at most 500 ids" {
		t.Errorf("apperr.Invalid presented as %v %q", got.Extensions, got.Message)
	}
}
