package main

// Code generation, in order: ent (with entgql, which also writes
// graph/schema/ent.graphqls), the aggregates' schema (from
// internal/aggregate), then gqlgen. CI fails if this changes any
// committed file.
//go:generate go run -mod=mod ./ent/entc.go
//go:generate go run -mod=mod ./graph/aggregateschema.go
//go:generate go run -mod=mod ./graph/gqlgen.go
