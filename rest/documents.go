package rest

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"logistics/ent"
	"logistics/internal/apperr"
	trusted "logistics/internal/documents"
)

// Trusted documents: /v1/trusted-documents. The handlers call the same
// internal/documents code as the GraphQL resolvers, the CLI and the console.

// opDocuments marks the trusted documents' routes: their OpenAPI
// operations are written here (documentsDoc), their POST is not replayed
// from an Idempotency-Key (registering a manifest again changes nothing).
const opDocuments opKind = 100

// documentJSON is a trusted document as REST shows it.
type documentJSON struct {
	ID            string  `json:"id"`
	Hash          string  `json:"hash"`
	Body          string  `json:"body"`
	OperationName string  `json:"operation_name"`
	ClientName    string  `json:"client_name"`
	ClientVersion string  `json:"client_version"`
	Alias         string  `json:"alias"`
	Trusted       bool    `json:"trusted"`
	RetiredAt     *string `json:"retired_at"`
	CreatedAt     string  `json:"created_at"`
}

// registrationJSON is the answer of a registration: the counts and each
// document's hash (not its text: the manifest has it).
type registrationJSON struct {
	Created     int      `json:"created"`
	Reactivated int      `json:"reactivated"`
	Unchanged   int      `json:"unchanged"`
	Hashes      []string `json:"hashes"`
}

func renderDocument(d *ent.TrustedDocument) documentJSON {
	out := documentJSON{ID: string(d.ID), Hash: d.Hash, Body: d.Body, OperationName: d.OperationName,
		ClientName: d.ClientName, ClientVersion: d.ClientVersion, Alias: d.Alias, Trusted: d.RetiredAt == nil,
		CreatedAt: d.CreatedAt.UTC().Format(time.RFC3339Nano)}
	if d.RetiredAt != nil {
		s := d.RetiredAt.UTC().Format(time.RFC3339Nano)
		out.RetiredAt = &s
	}
	return out
}

func init() {
	schemaTypes["TrustedDocument"] = documentJSON{}
	schemaTypes["TrustedDocumentRegistration"] = registrationJSON{}
	operationIDs["GET /v1/trusted-documents"] = "listTrustedDocuments"
	operationIDs["POST /v1/trusted-documents"] = "registerTrustedDocuments"
	operationIDs["GET /v1/trusted-documents/{hash}"] = "getTrustedDocument"
	operationIDs["DELETE /v1/trusted-documents/{hash}"] = "retireTrustedDocument"
}

func handleListDocuments(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		if err := jsonOnly(r); err != nil {
			return err
		}
		q := r.URL.Query()
		o := trusted.ListOptions{Cursor: q.Get("cursor"), Client: q.Get("client_name")}
		if s := q.Get("limit"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > trusted.MaxListLimit {
				return apperr.Invalid("limit", "must be an integer from 1 to %d", trusted.MaxListLimit)
			}
			o.Limit = n
		}
		switch q.Get("include_retired") {
		case "", "false":
		case "true":
			o.Retired = true
		default:
			return apperr.Invalid("include_retired", "must be true or false")
		}
		if len(o.Client) > trusted.MaxClientNameLen {
			return apperr.Invalid("client_name", "has at most %d characters", trusted.MaxClientNameLen)
		}
		p, err := d.Documents.List(r.Context(), o)
		if err != nil {
			return err
		}
		out := struct {
			Data       []documentJSON `json:"data"`
			HasMore    bool           `json:"has_more"`
			NextCursor *string        `json:"next_cursor"`
		}{Data: renderAll(p.Documents, renderDocument), HasMore: p.Next != ""}
		if p.Next != "" {
			out.NextCursor = &p.Next
		}
		WriteJSON(w, http.StatusOK, out)
		return nil
	})
}

// handleRegisterDocuments takes a manifest as the body (any of the three
// formats, up to trusted.MaxManifestBytes whatever --max-body-bytes is: a
// large app's manifest is larger than any other request), the client in
// the query string.
func handleRegisterDocuments(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return apperr.UnsupportedMedia("the body must be an application/json manifest")
		}
		q := r.URL.Query()
		cl := trusted.Client{Name: strings.TrimSpace(q.Get("client_name")), Version: strings.TrimSpace(q.Get("client_version"))}
		if cl.Name == "" {
			return apperr.Invalid("client_name", "name the app the manifest belongs to")
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, trusted.MaxManifestBytes))
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apperr.TooLarge("the manifest is larger than %d bytes", trusted.MaxManifestBytes)
		} else if err != nil {
			return apperr.BadRequest("could not read the body")
		}
		docs, err := trusted.ParseManifest(body)
		if err != nil {
			return err
		}
		res, err := d.Documents.Register(r.Context(), cl, docs)
		if err != nil {
			return err
		}
		out := registrationJSON{Created: res.Created, Reactivated: res.Reactivated, Unchanged: res.Unchanged, Hashes: make([]string, len(res.Documents))}
		for i, doc := range res.Documents {
			out.Hashes[i] = doc.Hash
		}
		status := http.StatusOK
		if res.Created > 0 {
			status = http.StatusCreated
		}
		WriteJSON(w, status, out)
		return nil
	})
}

func handleGetDocument(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		doc, err := d.Documents.Get(r.Context(), r.PathValue("hash"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, renderDocument(doc))
		return nil
	})
}

// handleRetireDocument is DELETE: the document stops being trusted; its
// row stays (retired_at), so that the list can show what was retired and
// a registration can trust it again.
func handleRetireDocument(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		doc, err := d.Documents.Retire(r.Context(), r.PathValue("hash"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, renderDocument(doc))
		return nil
	})
}

// documentsDoc writes the OpenAPI operation of a trusted documents' route.
func documentsDoc(rt route, op obj, params []obj) []obj {
	hashParam := obj{"name": "hash", "in": "path", "required": true, "schema": obj{"type": "string", "maxLength": 100},
		"description": "The document's SHA-256 (64 hex digits) or its Relay id."}
	if strings.Contains(rt.path, "{hash}") {
		params = []obj{hashParam}
	}
	switch rt.method {
	case http.MethodGet:
		if params == nil {
			params = []obj{
				{"name": "limit", "in": "query", "schema": obj{"type": "integer", "minimum": 1, "maximum": trusted.MaxListLimit, "default": 100}, "description": "Most documents answered."},
				{"name": "cursor", "in": "query", "schema": obj{"type": "string"}, "description": "The next_cursor of the page before."},
				{"name": "client_name", "in": "query", "schema": obj{"type": "string", "maxLength": trusted.MaxClientNameLen}, "description": "Only this app's documents."},
				{"name": "include_retired", "in": "query", "schema": obj{"type": "boolean", "default": false}, "description": "Retired documents too."},
			}
			op["responses"] = merge(obj{"200": obj{"description": "The trusted documents, newest first.", "content": jsonContent(obj{
				"type": "object", "required": []string{"data", "has_more", "next_cursor"},
				"properties": obj{
					"data":        obj{"type": "array", "items": ref(rt.doc.schema)},
					"has_more":    obj{"type": "boolean"},
					"next_cursor": obj{"type": []string{"string", "null"}, "description": "Pass as cursor to get the next page; null on the last page."},
				},
			})}}, errs("400", "406"))
		} else {
			op["responses"] = merge(obj{"200": obj{"description": "The document.", "content": jsonContent(ref(rt.doc.schema))}}, errs("404"))
		}
	case http.MethodPost:
		params = []obj{
			{"name": "client_name", "in": "query", "required": true, "schema": obj{"type": "string", "maxLength": trusted.MaxClientNameLen}, "description": "The app the manifest belongs to."},
			{"name": "client_version", "in": "query", "schema": obj{"type": "string", "maxLength": trusted.MaxClientNameLen}, "description": "The app's version."},
		}
		op["requestBody"] = obj{"required": true, "description": "A manifest, up to 8 MiB: graphql-codegen's persisted documents {\"<sha256>\": \"<document>\"}, Relay's persisted queries {\"<id>\": \"<document>\"} or Apollo's persisted query list. Each hash is checked against its text (400 hash_mismatch).",
			"content": jsonContent(obj{"type": "object"})}
		op["responses"] = merge(obj{
			"201": obj{"description": "Registered; some documents were new.", "content": jsonContent(ref(rt.doc.schema))},
			"200": obj{"description": "Registered; every document was known already.", "content": jsonContent(ref(rt.doc.schema))},
		}, errs("400", "413", "415"))
	case http.MethodDelete:
		op["responses"] = merge(obj{"200": obj{"description": "Retired: no longer trusted (this instance at once, every instance within --trusted-documents-cache-ttl).", "content": jsonContent(ref("TrustedDocument"))}}, errs("404"))
	}
	return params
}
