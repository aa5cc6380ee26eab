//go:build ignore

// aggregateschema.go writes graph/schema/aggregate.graphqls, the GraphQL
// schema of the aggregates, from internal/aggregate's specs (the core's one
// description of what each resource can be grouped by and aggregated), so
// that the schema and the core cannot disagree. Run it through
// `go generate ./...` from the root, before gqlgen.
package main

import (
	"log"
	"os"

	"logistics/internal/aggregate"
)

func main() {
	if err := os.WriteFile("graph/schema/aggregate.graphqls", []byte(aggregate.GraphQLSchema()), 0o644); err != nil {
		log.Fatalf("aggregateschema: %v", err)
	}
}
