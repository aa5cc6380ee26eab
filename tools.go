//go:build tools

// Package tools pins the code generators so that `go mod tidy` keeps them.
package tools

import (
	_ "github.com/99designs/gqlgen"
	_ "github.com/99designs/gqlgen/graphql/introspection"
)
