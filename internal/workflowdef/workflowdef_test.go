package workflowdef

import (
	"strings"
	"testing"
)

func TestFulfilmentIsValid(t *testing.T) {
	d := Fulfilment()
	if ps := d.Validate(); len(ps) != 0 {
		t.Fatalf("built-in workflow invalid: %v", ps)
	}
	if got := d.Allowed("open"); strings.Join(got, ",") != "allocate,cancel" {
		t.Fatalf("Allowed(open) = %v", got)
	}
	for _, s := range []string{"closed", "cancelled"} {
		if !d.Terminal(s) {
			t.Errorf("%s should be terminal", s)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	base := func() Definition {
		return Definition{
			States:       []string{"a", "b"},
			InitialState: "a",
			Transitions:  []Transition{{Name: "go", From: []string{"a"}, To: "b", Effect: EffectNone}},
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Definition)
		field string
	}{
		{"no states", func(d *Definition) { d.States = nil; d.Transitions = nil; d.InitialState = "" }, "states"},
		{"bad initial", func(d *Definition) { d.InitialState = "z" }, "initial_state"},
		{"missing initial", func(d *Definition) { d.InitialState = "" }, "initial_state"},
		{"duplicate state", func(d *Definition) { d.States = append(d.States, "a") }, "states[2]"},
		{"bad state name", func(d *Definition) { d.States[1] = "B c"; d.Transitions[0].To = "B c" }, "states[1]"},
		{"unknown from", func(d *Definition) { d.Transitions[0].From = []string{"x"} }, "transitions[0].from"},
		{"unknown to", func(d *Definition) { d.Transitions[0].To = "x" }, "transitions[0].to"},
		{"self loop", func(d *Definition) { d.Transitions[0].To = "a" }, "transitions[0].to"},
		{"unknown effect", func(d *Definition) { d.Transitions[0].Effect = "teleport" }, "transitions[0].effect"},
		{"duplicate transition", func(d *Definition) { d.Transitions = append(d.Transitions, d.Transitions[0]) }, "transitions[1].name"},
		{"unreachable", func(d *Definition) { d.States = append(d.States, "c") }, "states"},
		{"back to initial without release", func(d *Definition) {
			d.Transitions = append(d.Transitions, Transition{Name: "back", From: []string{"b"}, To: "a", Effect: EffectNone})
		}, "transitions[1].effect"},
		{"back to initial, default effect", func(d *Definition) {
			d.Transitions = append(d.Transitions, Transition{Name: "back", From: []string{"b"}, To: "a"})
		}, "transitions[1].effect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := base()
			tc.edit(&d)
			ps := d.Validate()
			for _, p := range ps {
				if p.Field == tc.field {
					return
				}
			}
			t.Fatalf("want a problem on %s, got %v", tc.field, ps)
		})
	}
}
