//go:build ignore

// gqlgen.go runs gqlgen's generator (configured by gqlgen.yml) with our
// plugins (internal/gqlcodegen): sequential fields, and the fast path in
// graph/generated/fastpath.go. Run it through `go generate ./...` from the
// root, after ent/entc.go.
package main

import (
	"bytes"
	"log"
	"os"
	"path/filepath"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen/config"

	"logistics/internal/gqlcodegen"
)

func main() {
	cfg, err := config.LoadConfigFromDefaultLocations()
	if err != nil {
		log.Fatalf("gqlgen: %v", err)
	}
	if err := api.Generate(cfg,
		api.AddPlugin(gqlcodegen.SequentialFields{}),
		api.AddPlugin(gqlcodegen.FastPath{Filename: filepath.Join(filepath.Dir(cfg.Exec.Filename), "fastpath.go")}),
	); err != nil {
		log.Fatalf("gqlgen: %v", err)
	}
	if err := rewrite(cfg.Exec.Filename, listsInOrder, gqlcodegen.ShareInputUnmarshalers); err != nil {
		log.Fatalf("gqlgen: %v", err)
	}
}

// rewrite replaces file's contents with what the edits make of them, in
// order.
func rewrite(file string, edits ...func([]byte) ([]byte, error)) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, edit := range edits {
		if src, err = edit(src); err != nil {
			return err
		}
	}
	return os.WriteFile(file, src, 0o644)
}

// listsInOrder makes the generated code marshal the elements of a list one
// after another instead of in a goroutine each (graphql.MarshalSliceConcurrently,
// which gqlgen's templates call for every list of objects and offer no
// option to avoid). marshalSliceInOrder, in graph/generated/inorder.go, has
// the same signature and the same panic handling. As with SequentialFields,
// the elements are ent rows already in memory: a goroutine per row of a
// 50-row page cost more than the work it carried.
func listsInOrder(src []byte) ([]byte, error) {
	from, to := []byte("graphql.MarshalSliceConcurrently("), []byte("marshalSliceInOrder(")
	if !bytes.Contains(src, from) {
		return src, nil // gqlgen changed its templates: inorder.go is then unused and staticcheck says so
	}
	return bytes.ReplaceAll(src, from, to), nil
}
