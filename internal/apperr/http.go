package apperr

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"logistics/internal/requestlog"
)

// Problem is an RFC 9457 problem details document, with our extensions.
type Problem struct {
	Type      string         `json:"type"`
	Title     string         `json:"title"`
	Status    int            `json:"status"`
	Detail    string         `json:"detail"`
	Code      string         `json:"code"`
	Errors    []FieldError   `json:"errors,omitempty"`
	RequestID string         `json:"request_id,omitempty"`
	Instance  string         `json:"instance,omitempty"`
	Extra     map[string]any `json:"-"`
}

// MarshalJSON inlines Extra next to the standard members.
func (p Problem) MarshalJSON() ([]byte, error) {
	type plain Problem
	b, err := json.Marshal(plain(p))
	if err != nil || len(p.Extra) == 0 {
		return b, err
	}
	m := map[string]any{}
	for k, v := range p.Extra {
		m[k] = v
	}
	var std map[string]any
	if err := json.Unmarshal(b, &std); err != nil {
		return nil, err
	}
	for k, v := range std {
		m[k] = v
	}
	return json.Marshal(m)
}

// TypeBase prefixes problem type URIs: the server itself serves a page for
// each code there (DocsHandler). The URI is relative to the server, as RFC
// 9457 allows: "/problems/validation_failed" on http://host/v1/… is
// http://host/problems/validation_failed.
const TypeBase = ProblemsPath

// ProblemOf builds the problem document of err for request r.
func ProblemOf(r *http.Request, err error) (Problem, *Error) {
	e := From(err)
	return Problem{
		Type:      TypeBase + e.Code,
		Title:     e.Kind.Title(),
		Status:    e.Kind.Status(),
		Detail:    e.Message,
		Code:      e.Code,
		Errors:    e.Fields,
		RequestID: requestlog.ID(r.Context()),
		Instance:  r.URL.Path,
		Extra:     e.Details,
	}, e
}

// Write sends err as application/problem+json. Internal errors are logged
// (with the request id) and shown only as "internal error".
func Write(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	p, e := ProblemOf(r, err)
	if e.Kind == KindInternal && log != nil {
		log.ErrorContext(r.Context(), "internal error", "err", err, "request_id", p.RequestID, "path", r.URL.Path)
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}
