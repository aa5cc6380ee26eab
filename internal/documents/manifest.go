// Package documents keeps each environment's trusted GraphQL documents: the
// operations an operator registered from a client's build (graphql-codegen's
// persisted documents, Relay's persisted queries, Apollo's persisted query
// list), which a client may then send by hash alone and which enforcement
// lets through when it refuses everything else (docs/graphql.md: Trusted
// documents; docs/design/0022-trusted-documents.md).
package documents

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"logistics/internal/apperr"
)

// Limits of what one manifest may hold. A build's manifest holds its app's
// operations: hundreds, not tens of thousands; a document is a few KiB.
const (
	MaxManifestBytes  = 8 << 20 // the largest manifest body
	MaxDocuments      = 5000    // documents in one manifest
	MaxDocumentBytes  = 64 << 10
	MaxClientNameLen  = 100
	MaxAliasLen       = 100
	maxOperationLen   = 200
	apolloFormat      = "apollo-persisted-query-manifest"
	apolloFormatMaxV1 = 1
)

// Document is one document of a manifest, its hash checked.
type Document struct {
	Hash          string // lower-case hex SHA-256 of Body's bytes
	Body          string
	OperationName string // its first named operation's name, "" when none
	Alias         string // the id a Relay manifest gave it, when that is not Hash
}

// Hash is the hex SHA-256 of a document's bytes: what graphql-codegen's
// persisted documents (hashAlgorithm sha256), Apollo's persisted query
// list and automatic persisted queries send.
func Hash(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// IsHash reports whether s looks like a SHA-256 hex digest.
func IsHash(s string) bool { return len(s) == 64 && isHex(s) }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ParseManifest reads a manifest in any of the three formats:
//
//   - Apollo's persisted query list:
//     {"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id","name","type","body"}]};
//   - graphql-codegen's persisted documents: {"<sha256>": "<document>"},
//     the key "sha256:<hex>" as its client preset writes it with
//     hashAlgorithm "sha256", or plain hex;
//   - Relay's persisted queries: {"<id>": "<document>"}.
//
// A 64-character hex key (with or without "sha256:") must be the SHA-256 of
// its document, and an Apollo id too: a mismatch is refused, naming the
// key. Any other key is a Relay
// id: Relay's default is the MD5 of the text, so a 32-character hex key must
// be that; a custom id (a persist function's) is kept as it is. Either way
// the document is stored under its SHA-256, the Relay id as its alias.
func ParseManifest(b []byte) ([]Document, error) {
	if len(b) > MaxManifestBytes {
		return nil, apperr.TooLarge("the manifest is larger than %d bytes", MaxManifestBytes)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, invalid("a manifest is a JSON object: graphql-codegen's or Relay's {\"<hash>\": \"<document>\"}, or Apollo's persisted query list")
	}
	var probe struct {
		Format *string `json:"format"`
	}
	if err := json.Unmarshal(b, &probe); err == nil && probe.Format != nil {
		return parseApollo(b)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalid("the manifest is not a JSON object of strings (%v)", err)
	}
	if len(m) == 0 {
		return nil, invalid("the manifest holds no documents")
	}
	if len(m) > MaxDocuments {
		return nil, apperr.Invalid("manifest", "holds %d documents, more than %d", len(m), MaxDocuments).WithCode("limit_exceeded")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // errors name the same key every time
	out := make([]Document, 0, len(m))
	for _, k := range keys {
		d, err := newDocument(m[k])
		if err != nil {
			return nil, keyed(k, err)
		}
		// graphql-codegen's client preset (hashAlgorithm "sha256") writes
		// its keys as "sha256:<hex>", the documentId form.
		hexKey := strings.ToLower(strings.TrimPrefix(k, "sha256:"))
		switch {
		case len(hexKey) == 64 && isHex(hexKey):
			if hexKey != d.Hash {
				return nil, mismatch(k, "SHA-256", d.Hash)
			}
		case len(k) == 32 && isHex(strings.ToLower(k)):
			sum := md5.Sum([]byte(d.Body))
			if got := hex.EncodeToString(sum[:]); strings.ToLower(k) != got {
				return nil, mismatch(k, "MD5 (Relay's default id)", got)
			}
			d.Alias = strings.ToLower(k)
		default:
			if k == "" || len(k) > MaxAliasLen || !utf8.ValidString(k) {
				return nil, invalid("the key %q is neither a SHA-256 hash nor a Relay id of at most %d characters", truncate(k), MaxAliasLen)
			}
			d.Alias = k
		}
		out = append(out, d)
	}
	return out, nil
}

func parseApollo(b []byte) ([]Document, error) {
	var m struct {
		Format     string `json:"format"`
		Version    int    `json:"version"`
		Operations []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			Type string `json:"type"`
			Body string `json:"body"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalid("the persisted query list does not match its format (%v)", err)
	}
	if m.Format != apolloFormat || m.Version < 1 || m.Version > apolloFormatMaxV1 {
		return nil, invalid("unknown manifest format %q version %d (known: %s version 1)", truncate(m.Format), m.Version, apolloFormat)
	}
	if len(m.Operations) == 0 {
		return nil, invalid("the manifest holds no documents")
	}
	if len(m.Operations) > MaxDocuments {
		return nil, apperr.Invalid("manifest", "holds %d documents, more than %d", len(m.Operations), MaxDocuments).WithCode("limit_exceeded")
	}
	out := make([]Document, 0, len(m.Operations))
	for _, op := range m.Operations {
		d, err := newDocument(op.Body)
		if err != nil {
			return nil, keyed(op.ID, err)
		}
		if strings.ToLower(op.ID) != d.Hash {
			return nil, mismatch(op.ID, "SHA-256", d.Hash)
		}
		if op.Name != "" && len(op.Name) <= maxOperationLen {
			d.OperationName = op.Name
		}
		out = append(out, d)
	}
	return out, nil
}

// newDocument checks a document's text (a GraphQL document, within the
// size limit) and hashes it. It is parsed, not validated against the
// schema: a document of a newer build may name fields this server does not
// have yet, and validation runs when it is executed.
func newDocument(body string) (Document, error) {
	if body == "" {
		return Document{}, invalid("the document is empty")
	}
	if len(body) > MaxDocumentBytes {
		return Document{}, invalid("the document is larger than %d bytes", MaxDocumentBytes)
	}
	if !utf8.ValidString(body) {
		return Document{}, invalid("the document is not UTF-8")
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: body})
	if err != nil {
		return Document{}, invalid("the document is not GraphQL: %v", err)
	}
	if len(doc.Operations) == 0 {
		return Document{}, invalid("the document holds no operation")
	}
	d := Document{Hash: Hash(body), Body: body}
	for _, op := range doc.Operations {
		if op.Name != "" && len(op.Name) <= maxOperationLen {
			d.OperationName = op.Name
			break
		}
	}
	return d, nil
}

func invalid(format string, a ...any) *apperr.Error {
	return apperr.Invalid("manifest", format, a...).WithCode("invalid_manifest")
}

func keyed(key string, err error) error {
	if e, ok := err.(*apperr.Error); ok && len(e.Fields) == 1 {
		return invalid("document %q: %s", truncate(key), e.Fields[0].Message)
	}
	return err
}

func mismatch(key, algo, got string) *apperr.Error {
	return apperr.Invalid("manifest", "document %q: its %s is %s, not the key it is listed under", truncate(key), algo, got).
		WithCode("hash_mismatch").WithDetail("document", truncate(key))
}

func truncate(s string) string {
	if len(s) <= 80 {
		return s
	}
	n := 80
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s…", s[:n])
}
