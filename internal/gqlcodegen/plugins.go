// Package gqlcodegen holds our plugins for gqlgen's code generator, run by
// graph/gqlgen.go (go generate ./...):
//
//   - SequentialFields resolves the fields of non-root objects on the
//     request's goroutine instead of one goroutine per field;
//   - FastPath writes graph/generated/fastpath.go, a second, leaner
//     executor for read queries (see FastPath).
//
// Both exist for speed (docs/performance.md); neither changes what
// a response contains.
package gqlcodegen

import (
	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/plugin"
)

// SequentialFields makes gqlgen resolve the fields of every object except
// Query one after another, on the request's goroutine.
//
// By default gqlgen starts a goroutine for each field that has a resolver or
// a method taking a context: for ent types that is every edge (item.part,
// order.lines…), once per object of a page. Those edges are eager-loaded by
// entgql's field collection, so the methods return data already in memory;
// the goroutines bought nothing and cost their creation and stack growth.
// Root query fields stay concurrent: each is a query of its own.
type SequentialFields struct{}

var _ plugin.CodeGenerator = SequentialFields{}

func (SequentialFields) Name() string { return "sequentialFields" }

func (SequentialFields) GenerateCode(data *codegen.Data) error {
	for _, o := range data.Objects {
		if o.Definition != data.Schema.Query {
			o.DisableConcurrency = true
		}
	}
	return nil
}
