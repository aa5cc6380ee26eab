package generated

// Hand-written, not generated: graph/gqlgen.go rewrites gqlgen's Exec to
// call sharedInputUnmarshalers (internal/gqlcodegen.ShareInputUnmarshalers
// says why, and checks at generation that it is safe).

import (
	"reflect"
	"sync"
)

// inputUnmarshalers is what graphql.BuildUnmarshalerMap returns: an input
// type's unmarshal function by the type.
type inputUnmarshalers = map[reflect.Type]reflect.Value

var shared struct {
	once sync.Once
	m    inputUnmarshalers
}

// sharedInputUnmarshalers returns the map build makes, built once, with its
// methods bound to an execution context of no operation: the generated
// unmarshal methods read nothing of it. The map is only read afterwards
// (graphql.UnmarshalInputFromContext), so every operation may share it.
func sharedInputUnmarshalers(build func(*executionContext) inputUnmarshalers) inputUnmarshalers {
	shared.once.Do(func() { shared.m = build(&executionContext{}) })
	return shared.m
}
