// Package apperr gives errors a kind that both interfaces understand: REST
// turns it into an RFC 9457 problem+json response with an HTTP status, GraphQL
// into errors[].extensions.code. Anything it cannot classify is internal: it
// is logged with the request id and shown only as "internal error".
package apperr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"logistics/ent"
	"logistics/internal/count"
)

// Kind is the class of an error.
type Kind int

// The kinds, each with one HTTP status and one GraphQL code.
const (
	KindInternal Kind = iota
	KindBadRequest
	KindUnauthenticated
	KindForbidden
	KindNotFound
	KindMethodNotAllowed
	KindConflict
	KindPrecondition
	KindTooLarge
	KindUnsupportedMedia
	KindNotAcceptable
	KindValidation
	KindRateLimited
	KindUnavailable
)

var kinds = map[Kind]struct {
	status  int
	gqlCode string
	code    string
	title   string
}{
	KindInternal:         {http.StatusInternalServerError, "INTERNAL", "internal", "Internal error"},
	KindBadRequest:       {http.StatusBadRequest, "BAD_USER_INPUT", "bad_request", "Bad request"},
	KindUnauthenticated:  {http.StatusUnauthorized, "UNAUTHENTICATED", "unauthenticated", "Unauthenticated"},
	KindForbidden:        {http.StatusForbidden, "FORBIDDEN", "forbidden", "Forbidden"},
	KindNotFound:         {http.StatusNotFound, "NOT_FOUND", "not_found", "Not found"},
	KindMethodNotAllowed: {http.StatusMethodNotAllowed, "BAD_USER_INPUT", "method_not_allowed", "Method not allowed"},
	KindConflict:         {http.StatusConflict, "CONFLICT", "conflict", "Conflict"},
	KindPrecondition:     {http.StatusPreconditionFailed, "CONFLICT", "precondition_failed", "Precondition failed"},
	KindTooLarge:         {http.StatusRequestEntityTooLarge, "BAD_USER_INPUT", "too_large", "Request too large"},
	KindUnsupportedMedia: {http.StatusUnsupportedMediaType, "BAD_USER_INPUT", "unsupported_media_type", "Unsupported media type"},
	KindNotAcceptable:    {http.StatusNotAcceptable, "BAD_USER_INPUT", "not_acceptable", "Not acceptable"},
	KindValidation:       {http.StatusUnprocessableEntity, "BAD_USER_INPUT", "validation_failed", "Validation failed"},
	KindRateLimited:      {http.StatusTooManyRequests, "RATE_LIMITED", "rate_limited", "Too many requests"},
	KindUnavailable:      {http.StatusServiceUnavailable, "INTERNAL", "unavailable", "Service unavailable"},
}

// Status is the HTTP status of the kind.
func (k Kind) Status() int { return kinds[k].status }

// GraphQLCode is the errors[].extensions.code of the kind.
func (k Kind) GraphQLCode() string { return kinds[k].gqlCode }

// Title is the short, fixed problem title of the kind.
func (k Kind) Title() string { return kinds[k].title }

// FieldError is one problem with one input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an error with a kind, a stable machine-readable code, a message
// safe to show to the client, and optional field errors and details.
type Error struct {
	Kind    Kind
	Code    string         // stable, snake_case, e.g. "insufficient_stock"
	Message string         // safe to show
	Fields  []FieldError   // per-field problems, if any
	Details map[string]any // extra members of the problem document
	Header  http.Header    // extra response headers (WWW-Authenticate, Allow, Retry-After)
	cause   error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return e.Message + ": " + e.cause.Error()
	}
	return e.Message
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.cause }

// WithDetail adds a member to the problem document and returns e.
func (e *Error) WithDetail(key string, v any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = v
	return e
}

// WithHeader adds a response header and returns e.
func (e *Error) WithHeader(key, value string) *Error {
	if e.Header == nil {
		e.Header = http.Header{}
	}
	e.Header.Add(key, value)
	return e
}

// WithCode sets the stable code and returns e.
func (e *Error) WithCode(code string) *Error { e.Code = code; return e }

func newErr(k Kind, format string, a ...any) *Error {
	return &Error{Kind: k, Code: kinds[k].code, Message: fmt.Sprintf(format, a...)}
}

// NotFound is a 404 / NOT_FOUND.
func NotFound(format string, a ...any) *Error { return newErr(KindNotFound, format, a...) }

// BadRequest is a 400 / BAD_USER_INPUT about the request as a whole.
func BadRequest(format string, a ...any) *Error { return newErr(KindBadRequest, format, a...) }

// Invalid is a 400 / BAD_USER_INPUT about one field.
func Invalid(field, format string, a ...any) *Error {
	e := newErr(KindBadRequest, "%s: %s", field, fmt.Sprintf(format, a...))
	e.Code = "invalid_parameter"
	e.Fields = []FieldError{{Field: field, Message: fmt.Sprintf(format, a...)}}
	return e
}

// Validation is a 422 / BAD_USER_INPUT listing every field problem.
func Validation(fields ...FieldError) *Error {
	msgs := make([]string, len(fields))
	for i, f := range fields {
		msgs[i] = f.Field + ": " + f.Message
	}
	e := newErr(KindValidation, "%s", strings.Join(msgs, "; "))
	e.Fields = fields
	return e
}

// Conflict is a 409 / CONFLICT with a stable code.
func Conflict(code, format string, a ...any) *Error {
	e := newErr(KindConflict, format, a...)
	e.Code = code
	return e
}

// Precondition is a 412: the If-Match revision is stale.
func Precondition(format string, a ...any) *Error { return newErr(KindPrecondition, format, a...) }

// Unauthenticated is a 401 / UNAUTHENTICATED.
func Unauthenticated(code, format string, a ...any) *Error {
	e := newErr(KindUnauthenticated, format, a...)
	e.Code = code
	return e
}

// Forbidden is a 403 / FORBIDDEN.
func Forbidden(code, format string, a ...any) *Error {
	e := newErr(KindForbidden, format, a...)
	e.Code = code
	return e
}

// TooLarge is a 413.
func TooLarge(format string, a ...any) *Error { return newErr(KindTooLarge, format, a...) }

// UnsupportedMedia is a 415.
func UnsupportedMedia(format string, a ...any) *Error {
	return newErr(KindUnsupportedMedia, format, a...)
}

// NotAcceptable is a 406: no representation the client accepts (Accept).
func NotAcceptable(format string, a ...any) *Error {
	return newErr(KindNotAcceptable, format, a...)
}

// MethodNotAllowed is a 405 listing the allowed methods.
func MethodNotAllowed(allow ...string) *Error {
	e := newErr(KindMethodNotAllowed, "method not allowed; allowed: %s", strings.Join(allow, ", "))
	return e.WithHeader("Allow", strings.Join(allow, ", "))
}

// RateLimited is a 429 / RATE_LIMITED.
func RateLimited(format string, a ...any) *Error { return newErr(KindRateLimited, format, a...) }

// Unavailable is a 503.
func Unavailable(format string, a ...any) *Error { return newErr(KindUnavailable, format, a...) }

// Internal wraps an unexpected error; its text is never shown to the client.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Code: "internal", Message: "internal error", cause: err}
}

// From classifies any error: an *Error as it is, a database that does not
// answer as database_unavailable (database.go), ent's not-found, validation
// and constraint errors by their meaning, a cancelled request as such, and
// everything else as internal. From(nil) is a nil *Error, which returned as
// an error is NOT a nil error: call it only with an error known to be
// non-nil (TestFromOnlyGetsErrors checks every `return apperr.From(x)`).
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ve *ent.ValidationError
	switch {
	case databaseDown(err):
		// Before the context's deadline: a connection attempt that timed
		// out is the database's absence, not a slow request.
		return DatabaseUnavailable(err)
	case sqliteBusy(err):
		return databaseBusy(err)
	case ent.IsNotFound(err):
		return NotFound("not found")
	case errors.As(err, &ve):
		return Validation(FieldError{Field: ve.Name, Message: validationMessage(ve)})
	case ent.IsConstraintError(err):
		return constraint(err)
	case strings.HasPrefix(err.Error(), "ent: empty predicate "):
		// A where input with an empty object inside (not: {}, and: [{}]):
		// ent's <T>WhereInput.P refuses it; the input is at fault.
		return Invalid("where", "an empty filter object (%s) filters nothing: give it a field, or leave it out", strings.TrimPrefix(err.Error(), "ent: empty predicate "))
	case errors.Is(err, count.ErrNested):
		return &Error{Kind: KindBadRequest, Code: "count_unavailable", Message: err.Error(), cause: err}
	case errors.Is(err, context.Canceled):
		return &Error{Kind: KindBadRequest, Code: "request_cancelled", Message: "the request was cancelled", cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindUnavailable, Code: "timeout", Message: "the request took too long", cause: err}
	}
	return Internal(err)
}

// entMessages rewrites ent's generic validator messages for people.
var entMessages = map[string]string{
	"value is less than the required length":    "must not be empty",
	"value is greater than the required length": "is too long",
	"value does not match validation":           "has an invalid format",
	"value out of range":                        "is out of range",
}

func validationMessage(ve *ent.ValidationError) string {
	if strings.Contains(ve.Error(), "invalid enum value") {
		return "is not one of the allowed values"
	}
	return Reason(ve.Unwrap())
}

// Reason is the text of a field validator's error for people: ent's generic
// messages rewritten, a field name prefix dropped.
func Reason(err error) string {
	msg := err.Error()
	// ent prefixes its messages with the field: keep only the reason.
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	for generic, human := range entMessages {
		if strings.Contains(msg, generic) {
			return human
		}
	}
	return msg
}

func constraint(err error) *Error {
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "unique") || strings.Contains(msg, "duplicate"):
		return &Error{Kind: KindConflict, Code: "already_exists", Message: "a record with the same unique value already exists", cause: err}
	case strings.Contains(msg, "foreign key"):
		return &Error{Kind: KindConflict, Code: "still_referenced", Message: "the record is referenced by other records, or refers to one that does not exist", cause: err}
	}
	return &Error{Kind: KindConflict, Code: "constraint", Message: "the change violates a constraint", cause: err}
}
