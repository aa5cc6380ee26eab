package contract_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"logistics/graph"
	"logistics/internal/apptest"
	"logistics/internal/contract"
	"logistics/rest"
)

// update rewrites the snapshots with the built contracts — refused while
// the gate finds a breaking change off the deprecation path:
//
//	go test ./internal/contract -run TestContracts -update
var update = flag.Bool("update", false, "write the built GraphQL SDL and OpenAPI document to testdata/ (additive changes)")

const (
	sdlSnapshot     = "testdata/schema.graphql"
	openAPISnapshot = "testdata/openapi.json"
)

// built is the two contracts as the server serves them, on its default
// configuration: the SDL (with the cost directives) and the OpenAPI
// document (without its servers, which name the test's addresses).
func built(t *testing.T) (sdl, openAPI []byte) {
	t.Helper()
	srv := apptest.New(t)
	get := func(path string) []byte {
		r := srv.Do(t, http.MethodGet, srv.URL+path, nil, apptest.Anonymous())
		if r.StatusCode != 200 {
			t.Fatalf("GET %s: %d %.300s", path, r.StatusCode, r.Body)
		}
		return r.Body
	}
	var doc map[string]any
	if err := json.Unmarshal(get(rest.PublicPath), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "servers")
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return get(graph.SDLPath), append(b, '\n')
}

func changelog(t *testing.T) contract.Changelog {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	return contract.ParseChangelog(string(b))
}

// TestContracts is the breaking-change gate: the GraphQL schema and the
// OpenAPI document the server builds are compared with their snapshots;
// a breaking change fails unless it follows the deprecation path, and any
// other difference asks for the snapshots to be updated (-update), so that
// the next comparison starts from what shipped.
func TestContracts(t *testing.T) {
	sdl, openAPI := built(t)
	oldSDL, err := os.ReadFile(sdlSnapshot)
	if err != nil && !*update {
		t.Fatalf("%v: run go test ./internal/contract -run TestContracts -update", err)
	}
	oldOpenAPI, err := os.ReadFile(openAPISnapshot)
	if err != nil && !*update {
		t.Fatalf("%v: run go test ./internal/contract -run TestContracts -update", err)
	}
	cl := changelog(t)
	var breaking []contract.Change
	if oldSDL != nil {
		o, err := contract.LoadSDL(sdlSnapshot, string(oldSDL))
		if err != nil {
			t.Fatalf("the snapshot %s: %v", sdlSnapshot, err)
		}
		n, err := contract.LoadSDL(graph.SDLPath, string(sdl))
		if err != nil {
			t.Fatalf("the served SDL: %v", err)
		}
		breaking = append(breaking, contract.Gate(contract.GraphQLBreaking(o, n), cl)...)
	}
	if oldOpenAPI != nil {
		changes, err := contract.OpenAPIBreaking(oldOpenAPI, openAPI)
		if err != nil {
			t.Fatal(err)
		}
		breaking = append(breaking, contract.Gate(changes, cl)...)
	}
	if len(breaking) > 0 {
		var b strings.Builder
		for _, c := range breaking {
			b.WriteString("\n  " + c.String())
		}
		t.Fatalf("breaking changes to the contracts (docs/development.md, \"The breaking-change gate\": deprecate first, remove after a release):%s", b.String())
	}
	if *update {
		for path, b := range map[string][]byte{sdlSnapshot: sdl, openAPISnapshot: openAPI} {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if !bytes.Equal(sdl, oldSDL) {
		t.Errorf("the GraphQL schema changed additively: update %s with go test ./internal/contract -run TestContracts -update", sdlSnapshot)
	}
	if !bytes.Equal(openAPI, oldOpenAPI) {
		t.Errorf("the OpenAPI document changed additively: update %s with go test ./internal/contract -run TestContracts -update", openAPISnapshot)
	}
}
