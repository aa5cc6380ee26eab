package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"logistics/internal/documents"
)

// This file is the one place that says what each workload asks for, through
// each interface. Adjust the REST paths here (or with --rest-path on the
// command line) when the REST layer settles its URLs.

// Interfaces measured.
const (
	ifREST    = "rest"
	ifGraphQL = "graphql"
	// ifGraphQLHash is GraphQL with the document's hash alone
	// (extensions.persistedQuery.sha256Hash, as an SPA with a
	// persisted-documents manifest sends it): the harness registers the
	// workloads' documents as trusted documents first (registerDocuments).
	ifGraphQLHash = "graphql-hash"
	ifFloor       = "floor"
	// ifFloorREST is the floor of REST's document (bench/floorrest.go), run
	// on request beside the REST rows of the page reads for comparison; the
	// yardstick of every row is ifFloor (report.yardstick).
	ifFloorREST = "floor-rest"
)

var allInterfaces = []string{ifREST, ifGraphQL, ifGraphQLHash, ifFloor, ifFloorREST}

// isGraphQL says whether iface answers GraphQL responses.
func isGraphQL(iface string) bool { return iface == ifGraphQL || iface == ifGraphQLHash }

// isFloor says whether iface is served by the floor (a floor process, or
// the in-process floor handler) rather than the service.
func isFloor(iface string) bool { return iface == ifFloor || iface == ifFloorREST }

// workload is one of the reference workloads.
type workload struct {
	Name  string // W1, W2, W3
	Title string
	// REST is the path and query under the sandbox base; {limit} is the page size.
	REST string
	// GraphQL is the query; $first is the page size.
	GraphQL string
	// Root is the GraphQL connection field (data.<Root>.edges[].node).
	Root string
	// Floor is the floor server's path; {limit} is the page size.
	Floor string
	// FloorREST is the path of the floor of REST's document (floor-rest),
	// for comparison with the REST row; "" for workloads without one.
	FloorREST string
	// Ops, for the operation workloads W4–W6 (bench/ops.go), are the steps
	// of one operation per interface; the fields above are then unused.
	Ops map[string][]step
}

// pageSize is the page size of the load runs.
const pageSize = 50

var workloads = []workload{
	{
		Name:  "W1",
		Title: "items quantity>100 at AMS1|RTM2, by id, first 50, with part sku",
		REST:  "/v1/items?quantity>100&hub[]=AMS1&hub[]=RTM2&limit={limit}",
		// Relay connections are ordered by id when no orderBy is given (there
		// is no ItemOrderField ID to ask for it explicitly).
		GraphQL: `query W1($first: Int!) {
  items(first: $first, where: {quantityGT: 100, hasHubWith: [{codeIn: ["AMS1", "RTM2"]}]}) {
    edges { node { id quantity reservedQuantity availableQuantity lot serial status expiresAt createdAt updatedAt
      part { id sku } hub { code } } }
    pageInfo { hasNextPage endCursor }
  }
}`,
		Root:      "items",
		Floor:     "/floor/w1?limit={limit}",
		FloorREST: "/floor/rest/w1?limit={limit}",
	},
	{
		Name:  "W2",
		Title: "parts part_name=*bolt* (case-insensitive), by id, first 50",
		REST:  "/v1/parts?part_name=*bolt*&limit={limit}",
		GraphQL: `query W2($first: Int!) {
  parts(first: $first, where: {partNameContainsFold: "bolt"}) {
    edges { node { id sku partName description unit unitWeightKg hazardous createdAt updatedAt } }
    pageInfo { hasNextPage endCursor }
  }
}`,
		Root:      "parts",
		Floor:     "/floor/w2?limit={limit}",
		FloorREST: "/floor/rest/w2?limit={limit}",
	},
	{
		Name:  "W3",
		Title: "orders status=open, first 50, with lines (quantity, part sku, name) and 3 latest tracking entries",
		// REST orders embed their lines (with each part's sku and name) and
		// their 3 newest tracking entries (latest_tracking).
		REST: "/v1/orders?status=open&limit={limit}",
		// GraphQL asks for the 3 newest tracking entries through the
		// connection, which entgql loads for the whole page in one statement.
		GraphQL: `query W3($first: Int!) {
  orders(first: $first, where: {status: "open"}) {
    edges { node { id number status customerRef priority dueAt createdAt updatedAt hub { code }
      lines { id quantity allocatedQuantity shippedQuantity part { sku partName } }
      trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) {
        edges { node { id trackingNumber carrier status location occurredAt } } } } }
    pageInfo { hasNextPage endCursor }
  }
}`,
		Root:      "orders",
		Floor:     "/floor/w3?limit={limit}",
		FloorREST: "/floor/rest/w3?limit={limit}",
	},
	{
		// W3 over open orders reads no tracking entries in the demo data
		// (open orders have not shipped); W3s is the same query over
		// shipped orders, each with its tracking history.
		Name:  "W3s",
		Title: "orders status=shipped, first 50, with lines (quantity, part sku, name) and 3 latest tracking entries",
		REST:  "/v1/orders?status=shipped&limit={limit}",
		GraphQL: `query W3s($first: Int!) {
  orders(first: $first, where: {status: "shipped"}) {
    edges { node { id number status customerRef priority dueAt createdAt updatedAt hub { code }
      lines { id quantity allocatedQuantity shippedQuantity part { sku partName } }
      trackingEntries(first: 3, orderBy: [{field: OCCURRED_AT, direction: DESC}]) {
        edges { node { id trackingNumber carrier status location occurredAt } } } } }
    pageInfo { hasNextPage endCursor }
  }
}`,
		Root:      "orders",
		Floor:     "/floor/w3?status=shipped&limit={limit}",
		FloorREST: "/floor/rest/w3?status=shipped&limit={limit}",
	},
}

// request is one HTTP request of a workload through one interface.
type request struct {
	Method string
	Path   string // absolute path with query, e.g. /sandbox/graphql
	Body   []byte
	Header http.Header
}

// buildRequest returns the request of workload w through iface at page size
// limit. base is the environment's base path ("/sandbox"); the floor has none.
func buildRequest(w workload, iface, base string, limit int, restOverride map[string]string, token string) request {
	h := http.Header{"Accept": {"application/json"}}
	if token != "" && !isFloor(iface) {
		h.Set("Authorization", "Bearer "+token)
	}
	switch iface {
	case ifGraphQL:
		body, _ := json.Marshal(map[string]any{"query": w.GraphQL, "variables": map[string]any{"first": limit}})
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/graphql-response+json, application/json")
		return request{Method: http.MethodPost, Path: base + "/graphql", Body: body, Header: h}
	case ifGraphQLHash:
		body, _ := json.Marshal(map[string]any{"variables": map[string]any{"first": limit},
			"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": documents.Hash(w.GraphQL)}}})
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/graphql-response+json, application/json")
		return request{Method: http.MethodPost, Path: base + "/graphql", Body: body, Header: h}
	case ifREST:
		p := w.REST
		if o, ok := restOverride[w.Name]; ok {
			p = o
		}
		return request{Method: http.MethodGet, Path: base + withLimit(p, limit), Header: h}
	case ifFloorREST:
		return request{Method: http.MethodGet, Path: withLimit(w.FloorREST, limit), Header: h}
	default:
		return request{Method: http.MethodGet, Path: withLimit(w.Floor, limit), Header: h}
	}
}

// serves says whether w is measured through iface: the operation
// workloads through the interfaces they have steps for, the page reads
// through floor-rest when they have its path.
func (w workload) serves(iface string) bool {
	if w.Ops != nil {
		return w.Ops[iface] != nil
	}
	return iface != ifFloorREST || w.FloorREST != ""
}

// registerDocuments trusts the GraphQL documents of the named page-read
// workloads in the sandbox through REST (POST {base}/v1/trusted-documents,
// as a deployment registers an app's manifest), with a key that holds
// documents:write, so that ifGraphQLHash can send their hashes alone. do
// serves one request.
func registerDocuments(names []string, base, token string, do func(request) (int, []byte)) error {
	manifest := map[string]string{}
	for _, n := range names {
		if w := workloadByName(n); w.Ops == nil && w.GraphQL != "" {
			manifest[documents.Hash(w.GraphQL)] = w.GraphQL
		}
	}
	if len(manifest) == 0 {
		return nil
	}
	if token == "" {
		return errors.New("--interfaces graphql-hash registers the workloads' documents: it needs an API key with documents:write (not --no-token)")
	}
	body, _ := json.Marshal(manifest)
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}, "Authorization": {"Bearer " + token}}
	code, out := do(request{Method: http.MethodPost, Path: base + "/v1/trusted-documents?client_name=bench&client_version=1", Body: body, Header: h})
	if code != http.StatusOK && code != http.StatusCreated {
		return fmt.Errorf("registering the workloads' documents: HTTP %d: %s", code, snippet(out))
	}
	return nil
}

func withLimit(p string, limit int) string {
	return strings.ReplaceAll(p, "{limit}", strconv.Itoa(limit))
}

// resultIDs extracts the ids of the page in a response body: data[].id
// (REST and floor) or data.<root>.edges[].node.id (GraphQL). It fails on
// GraphQL errors.
func resultIDs(w workload, iface string, body []byte) ([]string, error) {
	var ids []string
	if isGraphQL(iface) {
		var out struct {
			Data map[string]struct {
				Edges []struct{ Node struct{ ID string } }
			}
			Errors []struct{ Message string }
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		if len(out.Errors) > 0 {
			return nil, fmt.Errorf("graphql error: %s", out.Errors[0].Message)
		}
		for _, e := range out.Data[w.Root].Edges {
			ids = append(ids, e.Node.ID)
		}
		return ids, nil
	}
	var out struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	for _, d := range out.Data {
		ids = append(ids, d.ID)
	}
	return ids, nil
}
