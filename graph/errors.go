package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"logistics/ent"
	"logistics/graph/generated"
	"logistics/internal/apperr"
	"logistics/internal/requestlog"
)

// presenter gives every error one code of the fixed set in
// errors[].extensions.code: UNAUTHENTICATED, FORBIDDEN, BAD_USER_INPUT,
// NOT_FOUND, CONFLICT, RATE_LIMITED or INTERNAL (responseLimits adds
// TOO_MANY_ERRORS after the errors it keeps). The finer reason goes in
// extensions.reason, field errors in extensions.fields. Internal errors are
// logged with the request id and shown only as "internal error".
func presenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		var ae *apperr.Error
		var ge *gqlerror.Error
		switch {
		case apperr.IsDatabaseUnavailable(err):
			// Before the deadline: a connection attempt that timed out is
			// the database's absence (database_unavailable, transport.go's 503).
			ae = apperr.From(err)
		case errors.Is(err, context.DeadlineExceeded):
			// The execution time limit (cost.go replaces the errors with
			// its own) or the client's deadline: not an internal error.
			gerr.Extensions = map[string]any{"code": "BAD_USER_INPUT", "reason": "TIME_LIMIT_EXCEEDED"}
			return gerr
		case errors.As(err, &ae):
		case isEntError(err):
			ae = apperr.From(err)
		case errors.As(err, &ge) && ge.Err == nil:
			// A parse or validation error, or a limit: the document is at fault.
			reason, _ := ge.Extensions["code"].(string)
			if reason == "" {
				reason = "GRAPHQL_VALIDATION_FAILED"
			}
			fields, hasFields := ge.Extensions["fields"] // an input limit names its fields
			gerr.Extensions = map[string]any{"code": "BAD_USER_INPUT", "reason": reason}
			if allowed := enumValues(gerr.Message); allowed != nil {
				gerr.Message = strings.TrimSuffix(gerr.Message, ".") + "; allowed values: " + strings.Join(allowed, ", ")
				gerr.Extensions["allowedValues"] = allowed
			}
			if hasFields {
				gerr.Extensions["fields"] = fields
			}
			return gerr
		case errors.As(err, &ge):
			// An argument or variable that could not be read as its type.
			gerr.Extensions = map[string]any{"code": "BAD_USER_INPUT", "reason": "invalid_argument"}
			return gerr
		default:
			ae = apperr.Internal(err)
		}
		if ae.Kind == apperr.KindInternal {
			log.ErrorContext(ctx, "graphql: internal error", "err", err, "path", fmt.Sprint(gerr.Path), "request_id", requestlog.ID(ctx))
		}
		gerr.Message = ae.Message
		gerr.Extensions = map[string]any{"code": ae.Kind.GraphQLCode(), "reason": ae.Code}
		if len(ae.Fields) > 0 {
			fields := make([]apperr.FieldError, len(ae.Fields))
			for i, f := range ae.Fields {
				fields[i] = apperr.FieldError{Field: camelCase(f.Field), Message: f.Message}
			}
			gerr.Extensions["fields"] = fields
			msgs := make([]string, len(fields))
			for i, f := range fields {
				msgs[i] = f.Field + ": " + f.Message
			}
			gerr.Message = strings.Join(msgs, "; ") // in GraphQL's names
		}
		for k, v := range ae.Details {
			gerr.Extensions[k] = v
		}
		if id := requestlog.ID(ctx); id != "" && ae.Kind == apperr.KindInternal {
			gerr.Extensions["request_id"] = id
		}
		return gerr
	}
}

// classify gives every error a resolver returns its apperr kind (fieldPolicy
// calls it), so an
// error nobody classified (a database refusing a query, a driver error) is
// INTERNAL — logged, and shown as "internal error" — and never reaches the
// client as BAD_USER_INPUT with the database's text. The presenter's
// invalid_argument branch is then left with what it is for: arguments that
// could not be read as their type.
func classify(err error) error {
	var ge *gqlerror.Error
	if err != nil && !errors.As(err, &ge) {
		err = apperr.From(err)
	}
	return err
}

// The messages of gqlparser's validation (a literal) and variable coercion
// (a variable) about an enum value that does not exist. They name the enum
// but not its values; enumValues finds them.
var (
	badEnumLiteral  = regexp.MustCompile(`^Value ".*" does not exist in "(\w+)" enum\.?$`)
	badEnumVariable = regexp.MustCompile(`^.* is not a valid (\w+)$`)
	schemaEnums     = sync.OnceValue(func() *ast.Schema {
		return generated.NewExecutableSchema(generated.Config{}).Schema()
	})
)

// enumValues returns the values of the enum a validation message is about,
// or nil.
func enumValues(msg string) []string {
	m := badEnumLiteral.FindStringSubmatch(msg)
	if m == nil {
		m = badEnumVariable.FindStringSubmatch(msg)
	}
	if m == nil {
		return nil
	}
	def := schemaEnums().Types[m[1]]
	if def == nil || def.Kind != ast.Enum {
		return nil
	}
	out := make([]string, len(def.EnumValues))
	for i, v := range def.EnumValues {
		out[i] = v.Name
	}
	return out
}

func isEntError(err error) bool {
	return ent.IsNotFound(err) || ent.IsValidationError(err) || ent.IsConstraintError(err) || ent.IsNotSingular(err)
}

func recoverer(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, v any) error {
		log.ErrorContext(ctx, "graphql: panic", "panic", fmt.Sprint(v), "request_id", requestlog.ID(ctx), "stack", string(debug.Stack()))
		return apperr.Internal(fmt.Errorf("panic: %v", v))
	}
}

// camelCase turns the service's snake_case field names ("hub_id",
// "lines[0].part_id") into GraphQL's ("hubID", "lines[0].partID").
func camelCase(s string) string {
	var b strings.Builder
	up := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			up = true
		case up:
			b.WriteByte(upper(c))
			up = false
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	// entgql spells id suffixes "ID".
	out = strings.ReplaceAll(out, "Id.", "ID.")
	if strings.HasSuffix(out, "Id") {
		out = out[:len(out)-2] + "ID"
	}
	return out
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
