package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"logistics/internal/apperr"
	"logistics/internal/strictjson"
)

// Media types of GraphQL over HTTP.
const (
	mediaGraphQLResponse = "application/graphql-response+json"
	mediaJSON            = "application/json"
)

// transport serves GraphQL over HTTP as its specification describes:
//   - GET (queries only: a mutation over GET is 405) and POST with a JSON body;
//   - application/graphql-response+json when the client asks for it: 400 for
//     every request refused before execution (an unparsable request or
//     document, a document that fails validation or a limit, an operation
//     that cannot be determined, variables that cannot be coerced to their
//     types), as the specification asks; 200 once execution started;
//   - application/json when the client accepts only that, sends */* or no
//     Accept at all (the legacy rule): 200 for every well-formed GraphQL
//     response, 400 for a malformed request;
//   - a request that fails before execution has no data entry;
//   - 503 with Retry-After, under either media type, for an operation that
//     got nothing but database_unavailable errors (unavailableStatus).
//
// What the document spells out is bounded before validation, whatever the
// transport (doclimits.go), and every response's errors and size after
// (responselimits.go).
type transport struct {
	maxBody   int64
	costLimit int // reported in extensions.cost
}

var _ graphql.Transport = transport{}

func (transport) Supports(r *http.Request) bool { return r.Header.Get("Upgrade") == "" }

func (t transport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	media, ok := negotiate(r.Header.Get("Accept"))
	if !ok {
		writeRequestError(w, mediaJSON, http.StatusNotAcceptable, "the response can be "+mediaGraphQLResponse+" or "+mediaJSON+": set Accept accordingly")
		return
	}
	var params *graphql.RawParams
	var documentID string // GraphQL over HTTP's persisted document (trusted.go)
	switch r.Method {
	case http.MethodGet:
		p, err := paramsFromQuery(r)
		if err != nil {
			writeRequestError(w, media, http.StatusBadRequest, err.Error())
			return
		}
		params, documentID = p, r.URL.Query().Get("documentId")
	case http.MethodPost:
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct != mediaJSON {
			writeRequestError(w, media, http.StatusUnsupportedMediaType, "the request body must be application/json")
			return
		}
		p, id, status, err := paramsFromBody(w, r, t.maxBody)
		if err != nil {
			writeRequestError(w, media, status, err.Error())
			return
		}
		params, documentID = p, id
	default:
		w.Header().Set("Allow", "GET, POST")
		writeRequestError(w, media, http.StatusMethodNotAllowed, "GraphQL takes GET (queries) or POST")
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: graphql.Now(), End: graphql.Now()}

	if len(documentID) > maxDocumentID {
		writeRequestError(w, media, http.StatusBadRequest, "documentId is longer than "+strconv.Itoa(maxDocumentID)+" characters")
		return
	}
	ctx := withDocumentID(r.Context(), documentID)
	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		status := http.StatusOK // the legacy rule: a well-formed GraphQL response
		if media == mediaGraphQLResponse {
			status = http.StatusBadRequest
		}
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		if st, ok := rc.Stats.GetExtension(costExtension).(*costState); ok && rc.Operation != nil {
			resp.Extensions = map[string]any{"cost": Cost{Requested: st.requested, Limit: t.costLimit}}
		}
		writeResponse(w, media, status, resp)
		return
	}
	if r.Method == http.MethodGet && rc.Operation.Operation != ast.Query {
		w.Header().Set("Allow", "POST")
		writeRequestError(w, media, http.StatusMethodNotAllowed, "a "+string(rc.Operation.Operation)+" must be sent with POST")
		return
	}
	var mem *responseMemory // the slab a query's response may be written to
	if rc.Operation.Operation == ast.Query {
		ctx, mem = withResponseMemory(ctx)
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	resp := responses(ctx)
	writeResponse(w, media, unavailableStatus(w, resp), resp)
	mem.release() // after the response is written: its data may be the slab
}

// unavailableStatus is the HTTP status of an executed operation: 200, or
// 503 when the database did not answer and nothing came of the operation
// (no data, every error database_unavailable), so that HTTP clients and
// proxies retry it as they retry REST's 503. Any database_unavailable error
// adds REST's Retry-After.
func unavailableStatus(w http.ResponseWriter, resp *graphql.Response) int {
	down := 0
	for _, e := range resp.Errors {
		if e.Extensions["reason"] == "database_unavailable" {
			down++
		}
	}
	if down == 0 {
		return http.StatusOK
	}
	w.Header().Set("Retry-After", apperr.RetryAfterUnavailable)
	if down == len(resp.Errors) && nothingAnswered(resp.Data) {
		return http.StatusServiceUnavailable
	}
	return http.StatusOK
}

// nothingAnswered reports whether data is null or every top-level field in
// it is null.
func nothingAnswered(data json.RawMessage) bool {
	if len(data) == 0 || string(data) == "null" {
		return true
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return false
	}
	for _, v := range fields {
		if string(v) != "null" {
			return false
		}
	}
	return true
}

// negotiate picks the response media type from Accept. No Accept header means
// application/json (the legacy default); an Accept listing neither type nor
// a wildcard is refused.
func negotiate(accept string) (string, bool) {
	if strings.TrimSpace(accept) == "" {
		return mediaJSON, true
	}
	best, bestQ := "", -1.0
	for part := range strings.SplitSeq(accept, ",") {
		mt, p, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := p["q"]; ok {
			var err error
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				q = 0
			}
		}
		var cand string
		switch mt {
		case mediaGraphQLResponse:
			cand = mediaGraphQLResponse
		case mediaJSON:
			cand = mediaJSON
		case "*/*", "application/*":
			cand = mediaJSON // the specification's SHOULD: as if application/json
		default:
			continue
		}
		// An explicit application/graphql-response+json wins a tie.
		if q > bestQ || (q == bestQ && mt == mediaGraphQLResponse) {
			best, bestQ = cand, q
		}
	}
	return best, best != "" && bestQ > 0
}

func paramsFromQuery(r *http.Request) (*graphql.RawParams, error) {
	q := r.URL.Query()
	p := &graphql.RawParams{Query: q.Get("query"), OperationName: q.Get("operationName")}
	if p.Query == "" && q.Get("extensions") == "" && q.Get("documentId") == "" {
		return nil, errors.New("the query parameter is required")
	}
	if v := q.Get("variables"); v != "" {
		if err := decodeJSON([]byte(v), &p.Variables); err != nil {
			return nil, errors.New("variables must be a JSON object: " + err.Error())
		}
	}
	if v := q.Get("extensions"); v != "" {
		if err := decodeJSON([]byte(v), &p.Extensions); err != nil {
			return nil, errors.New("extensions must be a JSON object: " + err.Error())
		}
	}
	return p, nil
}

// paramsFromBody reads a POST's body: gqlgen's parameters and the
// documentId of GraphQL over HTTP.
func paramsFromBody(w http.ResponseWriter, r *http.Request, max int64) (*graphql.RawParams, string, int, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, "", http.StatusRequestEntityTooLarge, errors.New("the request body is larger than the limit")
	} else if err != nil {
		return nil, "", http.StatusBadRequest, errors.New("the request body could not be read")
	}
	var p struct {
		graphql.RawParams
		DocumentID string `json:"documentId"`
	}
	if err := decodeJSON(body, &p); err != nil {
		return nil, "", http.StatusBadRequest, errors.New("the request body must be a JSON object with a query: " + err.Error())
	}
	if p.Query == "" && len(p.Extensions) == 0 && p.DocumentID == "" {
		return nil, "", http.StatusBadRequest, errors.New("the query member is required")
	}
	return &p.RawParams, p.DocumentID, 0, nil
}

// decodeJSON decodes exactly one JSON object, keeping numbers exact. A
// member given twice (two "query" keys: which one runs?), text that is not
// UTF-8 and lone surrogate escapes are refused (strictjson); a syntax error
// is reported with its position (byte offset, line and column).
func decodeJSON(b []byte, v any) error {
	if !json.Valid(b) {
		if p := strictjson.SyntaxError(b); p != nil {
			return p
		}
	} else if err := strictjson.Check(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}

func writeRequestError(w http.ResponseWriter, media string, status int, msg string) {
	writeResponse(w, media, status, &graphql.Response{Errors: gqlerror.List{{
		Message:    msg,
		Extensions: map[string]any{"code": "BAD_USER_INPUT"},
	}}})
}

func writeResponse(w http.ResponseWriter, media string, status int, resp *graphql.Response) {
	w.Header().Set("Content-Type", media+"; charset=utf-8")
	if dataOnly(resp) {
		ext := extensionsJSON(resp.Extensions)
		n := len(dataOpen) + len(resp.Data) + len(dataClose)
		if ext != nil {
			n += len(extOpen) + len(ext)
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.WriteHeader(status)
		_, _ = io.WriteString(w, dataOpen)
		_, _ = w.Write(resp.Data)
		if ext != nil {
			_, _ = io.WriteString(w, extOpen)
			_, _ = w.Write(ext)
		}
		_, _ = io.WriteString(w, dataClose)
		return
	}
	w.WriteHeader(status)
	if resp.Data == nil {
		// The request failed before execution: no data entry at all.
		_ = json.NewEncoder(w).Encode(struct {
			Errors     gqlerror.List  `json:"errors,omitempty"`
			Extensions map[string]any `json:"extensions,omitempty"`
		}{resp.Errors, resp.Extensions})
		return
	}
	_ = json.NewEncoder(w).Encode(resp)
}

// The common response, data without errors, is written around gqlgen's
// already-encoded data. Encoding it through encoding/json would copy and
// re-validate the whole document (json.RawMessage is compacted): about 5%
// of a 50-row query's CPU.
const dataOpen, extOpen, dataClose = `{"data":`, `,"extensions":`, "}\n"

func dataOnly(resp *graphql.Response) bool {
	return len(resp.Errors) == 0 && resp.Label == "" && resp.Path == nil && resp.HasNext == nil && len(resp.Data) > 0
}

// extensionsJSON encodes the response's extensions; the usual one, the
// cost alone, without reflection.
func extensionsJSON(ext map[string]any) []byte {
	if len(ext) == 0 {
		return nil
	}
	if c, ok := ext["cost"].(Cost); ok && len(ext) == 1 {
		b := make([]byte, 0, 64)
		b = append(b, `{"cost":{"requested":`...)
		b = strconv.AppendInt(b, int64(c.Requested), 10)
		if c.Actual != nil {
			b = append(b, `,"actual":`...)
			b = strconv.AppendInt(b, int64(*c.Actual), 10)
		}
		b = append(b, `,"limit":`...)
		b = strconv.AppendInt(b, int64(c.Limit), 10)
		return append(b, "}}"...)
	}
	b, err := json.Marshal(ext)
	if err != nil {
		return nil
	}
	return b
}
