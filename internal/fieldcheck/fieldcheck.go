// Package fieldcheck validates every field of an ent mutation at once, with
// messages for people: ent's generated check stops at the first invalid
// field and says only `"pcs"` for an enum value it does not know. The rules
// are the schema's own (ent/schema: enums, MaxLen, NotEmpty, Validate), read
// from the field descriptors, so there is nothing to keep in step.
//
// Hook runs the check when ent refuses a create or update of the client it
// is installed on (internal/database installs it); Set lets the service
// layer merge the fields' problems with its own (an order and its lines).
package fieldcheck

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	entgo "entgo.io/ent"
	"entgo.io/ent/schema/field"

	"logistics/ent"
	"logistics/ent/schema"
	"logistics/internal/apperr"
)

// schemas lists every ent schema; TestEverySchemaListed keeps it complete.
var schemas = []entgo.Interface{
	schema.User{}, schema.APIToken{}, schema.Session{}, schema.IdempotencyKey{},
	schema.Event{}, schema.WebhookEndpoint{}, schema.WebhookDelivery{}, schema.Hub{}, schema.Item{}, schema.Order{}, schema.OrderLine{},
	schema.OrderEvent{}, schema.Part{}, schema.Reservation{}, schema.TrackingEntry{},
	schema.Workflow{}, schema.TrustedDocument{}, schema.SandboxClock{}, schema.SimulatedScan{},
}

// descriptors maps a type name ("Hub") to its fields in schema order.
var descriptors = sync.OnceValue(func() map[string][]*field.Descriptor {
	out := map[string][]*field.Descriptor{}
	for _, s := range schemas {
		var all []entgo.Field
		for _, m := range s.Mixin() {
			all = append(all, m.Fields()...)
		}
		all = append(all, s.Fields()...)
		name := reflect.TypeOf(s).Name()
		for _, f := range all {
			out[name] = append(out[name], f.Descriptor())
		}
	}
	return out
})

// Hook reports every invalid field of a create or update that ent's own
// check refused. ent checks before it writes anything, so the full check
// runs only then: valid writes (a 200,000-row import) pay nothing for it.
func Hook() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			v, err := next.Mutate(ctx, m)
			if err != nil && ent.IsValidationError(err) {
				if problems := Mutation(m); len(problems) > 0 {
					return nil, apperr.Validation(problems...)
				}
			}
			return v, err
		})
	}
}

// Mutation returns a problem for every invalid field the mutation sets and,
// when it creates, for every required field it leaves out; nil when all is
// well. Field names are ent's (snake_case), in schema order.
func Mutation(m ent.Mutation) []apperr.FieldError {
	if !m.Op().Is(ent.OpCreate | ent.OpUpdate | ent.OpUpdateOne) {
		return nil
	}
	var problems []apperr.FieldError
	for _, d := range descriptors()[m.Type()] {
		if msg := check(m, d); msg != "" {
			problems = append(problems, apperr.FieldError{Field: d.Name, Message: msg})
		}
	}
	return problems
}

// Set is Mutation without the required-field rule: the problems of the
// fields m sets, for a mutation that is still being built.
func Set(m ent.Mutation) []apperr.FieldError {
	var problems []apperr.FieldError
	for _, d := range descriptors()[m.Type()] {
		if _, ok := m.Field(d.Name); !ok {
			continue
		}
		if msg := check(m, d); msg != "" {
			problems = append(problems, apperr.FieldError{Field: d.Name, Message: msg})
		}
	}
	return problems
}

// check returns what is wrong with the field's value in m, or "".
func check(m ent.Mutation, d *field.Descriptor) string {
	v, ok := m.Field(d.Name)
	if !ok {
		if m.Op().Is(ent.OpCreate) && !d.Optional && d.Default == nil {
			return "is required"
		}
		return ""
	}
	if len(d.Enums) > 0 {
		s := fmt.Sprint(v)
		allowed := make([]string, len(d.Enums))
		for i, e := range d.Enums {
			if e.V == s {
				return ""
			}
			allowed[i] = e.V
		}
		return fmt.Sprintf("%q is not one of the allowed values: %s", truncate(s), strings.Join(allowed, ", "))
	}
	rv := reflect.ValueOf(v)
	for _, fn := range d.Validators {
		f := reflect.ValueOf(fn)
		if f.Kind() != reflect.Func || f.Type().NumIn() != 1 || !rv.Type().ConvertibleTo(f.Type().In(0)) {
			continue
		}
		out := f.Call([]reflect.Value{rv.Convert(f.Type().In(0))})
		if err, _ := out[0].Interface().(error); err != nil {
			if d.Size > 0 && strings.Contains(err.Error(), "greater than the required length") {
				return fmt.Sprintf("is too long: at most %d bytes", d.Size)
			}
			return apperr.Reason(err)
		}
	}
	return ""
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
