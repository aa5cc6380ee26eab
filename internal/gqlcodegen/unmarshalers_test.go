package gqlcodegen

import (
	"os"
	"strings"
	"testing"
)

// exec is the shape of gqlgen's generated executor that
// ShareInputUnmarshalers rewrites, cut down to one input type; body is the
// unmarshal method's statement that uses ec.
func exec(body string) string {
	return `package generated

func (e *executableSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	opCtx := graphql.GetOperationContext(ctx)
	ec := newExecutionContext(opCtx, e, make(chan graphql.DeferredResult))
	inputUnmarshalMap := graphql.BuildUnmarshalerMap(
		ec.unmarshalInputThingInput,
	)
	return ec.run(ctx, inputUnmarshalMap)
}

func (ec *executionContext) unmarshalInputThingInput(ctx context.Context, obj any) (ThingInput, error) {
	var it ThingInput
	` + body + `
	return it, nil
}
`
}

func TestShareInputUnmarshalers(t *testing.T) {
	out, err := ShareInputUnmarshalers([]byte(exec(`it.Name, _ = ec.unmarshalOString2ᚖstring(ctx, obj)`)))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Contains(got, "inputUnmarshalMap := graphql.BuildUnmarshalerMap(") ||
		!strings.Contains(got, "inputUnmarshalMap := sharedInputUnmarshalers(func(ec *executionContext) inputUnmarshalers {") ||
		!strings.Contains(got, "return graphql.BuildUnmarshalerMap(\n\t\t\tec.unmarshalInputThingInput,\n\t\t)\n\t})\n") {
		t.Fatalf("not rewritten as expected:\n%s", got)
	}
	if !strings.Contains(got, "return ec.run(ctx, inputUnmarshalMap)") {
		t.Fatalf("the rest of Exec changed:\n%s", got)
	}
}

// An unmarshal method that reads the operation (or hands its execution
// context on) would see the empty one a shared map is bound to: generation
// must stop.
func TestShareInputUnmarshalersRefusesStatefulMethods(t *testing.T) {
	for _, body := range []string{
		`it.Name = ec.OperationContext.OperationName`,
		`_ = ec.Variables`,
		`it.Name, _ = helper(ec, obj)`,
		`f := ec; _ = f`,
	} {
		_, err := ShareInputUnmarshalers([]byte(exec(body)))
		if err == nil || !strings.Contains(err.Error(), "unmarshalInputThingInput") {
			t.Errorf("%s: got %v, want an error naming the method", body, err)
		}
	}
}

func TestShareInputUnmarshalersRefusesAnotherShape(t *testing.T) {
	src := strings.Replace(exec(`_ = ec.unmarshalX(ctx, obj)`), "\tinputUnmarshalMap := graphql.BuildUnmarshalerMap(", "\tm := graphql.BuildUnmarshalerMap(", 1)
	if _, err := ShareInputUnmarshalers([]byte(src)); err == nil || !strings.Contains(err.Error(), "0 times") {
		t.Fatalf("got %v, want an error saying the map is not built as expected", err)
	}
}

// The committed executor is the rewritten one, and its unmarshal methods
// pass the check (go generate would have stopped otherwise; this says so
// without running it).
func TestGeneratedExecutorSharesItsUnmarshalers(t *testing.T) {
	src, err := os.ReadFile("../../graph/generated/generated.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "inputUnmarshalMap := sharedInputUnmarshalers(") {
		t.Fatal("graph/generated/generated.go does not call sharedInputUnmarshalers: run go generate ./...")
	}
	if err := unmarshalersStateless(src); err != nil {
		t.Fatal(err)
	}
}
