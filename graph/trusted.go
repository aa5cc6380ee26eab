package graph

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"logistics/internal/auth"
	"logistics/internal/documents"
	"logistics/internal/environment"
)

// Trusted documents (internal/documents, docs/graphql.md: Trusted
// documents). Two handler extensions around gqlgen's automatic persisted
// queries:
//
//   - trustedLookup, before it, turns a hash the request sends alone
//     (documentId, or extensions.persistedQuery.sha256Hash) into the
//     trusted document's text, read from the environment's database through
//     the store's cache, so a trusted hash works on every instance; an
//     untrusted sha256Hash is left to APQ's own cache (and its
//     PersistedQueryNotFound);
//   - trustedGate, after it, applies the environment's mode to the text that
//     is then known, before it is parsed: in enforce mode an untrusted
//     document costs a hash and a map look-up, never a parse.
//
// A trusted document's text is the key of gqlgen's query cache, so it is
// parsed and validated once per instance (parseCounter counts it), and its
// cost once per value of the variables the cost reads (costLimits' cache).

// TrustedOptions configure trusted documents on the endpoint.
type TrustedOptions struct {
	Store  *documents.Store // nil: no trusted documents (every hash is APQ's)
	Policy documents.Policy // this environment's modes
	// Untrusted counts an untrusted operation: credential is "session" or
	// "key", action "ran" (report) or "refused" (enforce).
	Untrusted func(env, credential, action string)
}

// The error codes (extensions.code) of trusted documents.
const (
	codeTrustedRequired  = "TRUSTED_DOCUMENT_REQUIRED"
	codeDocumentNotFound = "PERSISTED_DOCUMENT_NOT_FOUND"
)

// maxDocumentID bounds a documentId ("sha256:" and 64 hex digits, or a
// Relay id).
const maxDocumentID = 120

const trustedExtension = "TrustedDocument"

type documentIDKey struct{}

// withDocumentID carries the request's documentId (GraphQL over HTTP) from
// the transport to trustedLookup: gqlgen's RawParams has no member for it.
func withDocumentID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, documentIDKey{}, id)
}

type trustedLookup struct {
	store *documents.Store
	log   *slog.Logger
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = trustedLookup{}

func (trustedLookup) ExtensionName() string                          { return "TrustedDocumentLookup" }
func (trustedLookup) Validate(schema graphql.ExecutableSchema) error { return nil }

func (t trustedLookup) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if id, _ := ctx.Value(documentIDKey{}).(string); id != "" {
		if p.Query != "" {
			return badInput("give documentId or query, not both")
		}
		key := strings.TrimPrefix(id, "sha256:")
		if t.store == nil {
			return notFoundDocument(id)
		}
		body, ok, err := t.store.Lookup(ctx, key)
		if err != nil {
			return lookupFailed(ctx, t.log, err)
		}
		if !ok {
			return notFoundDocument(id)
		}
		p.Query = body
		markTrusted(ctx, documents.Hash(body))
		return nil
	}
	if p.Query != "" || t.store == nil {
		return nil
	}
	pq, _ := p.Extensions["persistedQuery"].(map[string]any)
	hash, _ := pq["sha256Hash"].(string)
	if !documents.IsHash(hash) {
		return nil // APQ reports what is wrong with it
	}
	body, ok, err := t.store.Lookup(ctx, hash)
	if err != nil {
		return lookupFailed(ctx, t.log, err)
	}
	if ok {
		p.Query = body // APQ checks it against the hash and keeps it
		markTrusted(ctx, hash)
	}
	return nil
}

func markTrusted(ctx context.Context, hash string) {
	if oc := graphql.GetOperationContext(ctx); oc != nil {
		oc.Stats.SetExtension(trustedExtension, hash)
	}
}

// lookupFailed reports a database error of a look-up as internal and logs
// it (the text of a driver error is not shown).
func lookupFailed(ctx context.Context, log *slog.Logger, err error) *gqlerror.Error {
	log.ErrorContext(ctx, "trusted documents: look-up failed", "err", err)
	return &gqlerror.Error{Message: "internal error", Extensions: map[string]any{"code": "INTERNAL"}}
}

func notFoundDocument(id string) *gqlerror.Error {
	if len(id) > maxDocumentID {
		id = id[:maxDocumentID]
	}
	return &gqlerror.Error{
		Message:    "no trusted document " + id + " in this environment: register it (docs/graphql.md: Trusted documents) or send its text",
		Extensions: map[string]any{"code": codeDocumentNotFound},
	}
}

func badInput(msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": "BAD_USER_INPUT"}}
}

type trustedGate struct {
	store     *documents.Store
	policy    documents.Policy
	untrusted func(env, credential, action string)
	log       *slog.Logger
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = trustedGate{}

func (trustedGate) ExtensionName() string                          { return "TrustedDocumentGate" }
func (trustedGate) Validate(schema graphql.ExecutableSchema) error { return nil }

func (g trustedGate) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	p0 := auth.FromContext(ctx)
	credential, mode := "key", g.policy.Keys
	if p0 != nil && p0.Kind == auth.KindSession {
		credential, mode = "session", g.policy.Sessions
	}
	if mode == documents.Off || mode == "" || p.Query == "" || p0.Has(documents.AdhocScope) {
		return nil
	}
	if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Stats.GetExtension(trustedExtension) != nil {
		return nil
	}
	hash := documents.Hash(p.Query)
	if g.store != nil {
		_, ok, err := g.store.Lookup(ctx, hash)
		if err != nil {
			return lookupFailed(ctx, g.log, err)
		}
		if ok {
			return nil
		}
	}
	env := ""
	if e := environment.FromContext(ctx); e != nil {
		env = string(e.Name)
	}
	action := "ran"
	if mode == documents.Enforce {
		action = "refused"
	}
	if g.untrusted != nil {
		g.untrusted(env, credential, action)
	}
	g.log.InfoContext(ctx, "untrusted GraphQL operation", "environment", env, "credential", credential, "action", action,
		"client", clientName(p), "operation", boundedName(p.OperationName), "hash", hash)
	if mode == documents.Report {
		return nil
	}
	return &gqlerror.Error{
		Message: "this environment runs only trusted documents for a " + p0Kind(p0) +
			": register the operation (sha256 " + hash + "; docs/graphql.md: Trusted documents), or use credentials with the scope " + documents.AdhocScope,
		Extensions: map[string]any{"code": codeTrustedRequired, "hash": hash},
	}
}

func p0Kind(p *auth.Principal) string {
	if p != nil && p.Kind == auth.KindSession {
		return "console or app session"
	}
	return "API key"
}

// clientName is the app the request says it comes from (Apollo's and the
// GraphQL community's headers), bounded for the log.
func clientName(p *graphql.RawParams) string {
	for _, h := range []string{"graphql-client-name", "apollographql-client-name"} {
		if v := p.Headers.Get(h); v != "" {
			return boundedName(v)
		}
	}
	return ""
}

func boundedName(s string) string {
	if len(s) > 100 {
		s = s[:100]
	}
	return strings.ToValidUTF8(s, "?")
}

// parseCounter is gqlgen's query cache that counts the documents added to
// it: each one parsed and validated (gqlgen adds a document only once it
// passes validation).
type parseCounter struct {
	graphql.Cache[*ast.QueryDocument]
	n *atomic.Int64
}

func (c parseCounter) Add(ctx context.Context, key string, doc *ast.QueryDocument) {
	c.n.Add(1)
	c.Cache.Add(ctx, key, doc)
}
