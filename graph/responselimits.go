package graph

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// MaxErrors is the most errors one response lists; the rest are replaced by
// one last error with code TOO_MANY_ERRORS. Validation collects at most one
// more (boundedRules); execution collects what the cost model bounds.
const MaxErrors = 100

// responseLimits bounds every response, whichever transport carries it
// and whether it comes from execution or from a request refused before it
// (gqlgen runs the response interceptors for both): at most MaxErrors
// errors, and a query's or a refused request's whole body (data, errors and
// extensions) at most maxBytes. It is the first extension added, so it
// sees the response last, with the other extensions' additions.
type responseLimits struct{ maxBytes int }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = responseLimits{}

func (responseLimits) ExtensionName() string                   { return "ResponseLimits" }
func (responseLimits) Validate(graphql.ExecutableSchema) error { return nil }

func (l responseLimits) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	resp.Errors = capErrors(resp.Errors)
	// A mutation's response, bounded by its cost, reports what has been
	// committed and is not cut; a subscription's are events, bounded by
	// what one event is.
	executed := resp.Data != nil
	if l.maxBytes > 0 && (!executed || isQuery(ctx)) && bodySize(resp) > l.maxBytes {
		if executed {
			resp.Data = []byte("null")
		}
		resp.Errors = gqlerror.List{limitError(fmt.Sprintf("the response is larger than the limit of %d bytes; select fewer fields or smaller pages", l.maxBytes), "RESPONSE_SIZE_LIMIT_EXCEEDED")}
	}
	return resp
}

// capErrors keeps the first MaxErrors errors in the order of the document
// (root fields run concurrently: the order they fail in is not the
// document's) and says there were more.
func capErrors(errs gqlerror.List) gqlerror.List {
	if len(errs) <= MaxErrors {
		return errs
	}
	slices.SortStableFunc(errs, func(a, b *gqlerror.Error) int {
		if c := cmp.Compare(len(b.Locations), len(a.Locations)); c != 0 && (len(a.Locations) == 0 || len(b.Locations) == 0) {
			return c // errors without a location after the others
		}
		if len(a.Locations) > 0 && len(b.Locations) > 0 {
			la, lb := a.Locations[0], b.Locations[0]
			if c := cmp.Compare(la.Line, lb.Line); c != 0 {
				return c
			}
			if c := cmp.Compare(la.Column, lb.Column); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.Path.String(), b.Path.String())
	})
	out := append(errs[:MaxErrors:MaxErrors], &gqlerror.Error{
		Message:    fmt.Sprintf("there are more than %d errors; only the first %d are listed", MaxErrors, MaxErrors),
		Extensions: map[string]any{"code": "TOO_MANY_ERRORS", "reason": "TOO_MANY_ERRORS"},
	})
	return out
}

// bodySize is the length of resp as the transports encode it, within a
// few bytes (the members' names and separators). The common response, data
// and the cost alone, is not encoded for it.
func bodySize(resp *graphql.Response) int {
	n := len(`{"data":,"errors":,"extensions":}`) + len(resp.Data)
	if len(resp.Errors) > 0 {
		b, err := json.Marshal(resp.Errors)
		if err != nil {
			return n
		}
		n += len(b)
	}
	if _, ok := resp.Extensions["cost"].(Cost); ok && len(resp.Extensions) == 1 {
		return n + 96 // {"cost":{"requested":…,"actual":…,"limit":…}}: three ints
	}
	if len(resp.Extensions) > 0 {
		b, err := json.Marshal(resp.Extensions)
		if err != nil {
			return n
		}
		n += len(b)
	}
	return n
}
