// Package workflowdef describes order workflows: their states, transitions and
// the stock effects a transition triggers, and validates a definition. It knows
// nothing of the database; the order service runs the transitions.
package workflowdef

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Effect is what a transition does to stock besides changing the state.
type Effect string

// The built-in effects a transition may have.
const (
	EffectNone    Effect = "none"
	EffectReserve Effect = "reserve" // reserve every line at the order's hub, all or nothing
	EffectRelease Effect = "release" // release what the lines hold reserved
	EffectShip    Effect = "ship"    // consume reservations, record a label_created tracking entry
)

// Effects lists the effects a definition may use.
var Effects = []Effect{EffectNone, EffectReserve, EffectRelease, EffectShip}

// Transition moves an order from any of From to To.
type Transition struct {
	Name   string   `json:"name"`
	From   []string `json:"from"`
	To     string   `json:"to"`
	Effect Effect   `json:"effect"`
}

// Definition is a whole workflow: its states, its initial state and its transitions.
type Definition struct {
	States       []string     `json:"states"`
	InitialState string       `json:"initial_state"`
	Transitions  []Transition `json:"transitions"`
}

// FulfilmentKey is the key of the built-in order workflow.
const FulfilmentKey = "fulfilment"

// Fulfilment returns the built-in order workflow.
func Fulfilment() Definition {
	return Definition{
		States:       []string{"draft", "open", "allocated", "picking", "shipped", "delivered", "closed", "cancelled"},
		InitialState: "draft",
		Transitions: []Transition{
			{Name: "submit", From: []string{"draft"}, To: "open", Effect: EffectNone},
			{Name: "allocate", From: []string{"open"}, To: "allocated", Effect: EffectReserve},
			{Name: "start_picking", From: []string{"allocated"}, To: "picking", Effect: EffectNone},
			{Name: "ship", From: []string{"picking"}, To: "shipped", Effect: EffectShip},
			{Name: "deliver", From: []string{"shipped"}, To: "delivered", Effect: EffectNone},
			{Name: "close", From: []string{"delivered"}, To: "closed", Effect: EffectNone},
			{Name: "cancel", From: []string{"draft", "open", "allocated", "picking"}, To: "cancelled", Effect: EffectRelease},
		},
	}
}

// Problem is one reason a definition is invalid, tied to the offending field.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Validate returns every problem of d (none when it is valid): states are
// unique names, exactly one initial state that exists, transitions have unique
// names, start in existing states and end in an existing state, effects are
// known, reserve/ship/release make sense in order, every transition back to the
// initial state releases stock (lines are editable there, so nothing may stay
// reserved), and every state is reachable from the initial one. Terminal states are those without outgoing transitions,
// so "a terminal state has no way out" holds by construction.
func (d Definition) Validate() []Problem {
	var ps []Problem
	add := func(field, format string, a ...any) {
		ps = append(ps, Problem{Field: field, Message: fmt.Sprintf(format, a...)})
	}
	states := map[string]bool{}
	if len(d.States) == 0 {
		add("states", "at least one state is required")
	}
	for i, s := range d.States {
		if !validName(s) {
			add(fmt.Sprintf("states[%d]", i), "%q is not a valid state name (lower-case letters, digits and _; 1 to 64 characters)", s)
		}
		if states[s] {
			add(fmt.Sprintf("states[%d]", i), "state %q is listed twice", s)
		}
		states[s] = true
	}
	if d.InitialState == "" {
		add("initial_state", "an initial state is required")
	} else if !states[d.InitialState] {
		add("initial_state", "initial state %q is not one of the states", d.InitialState)
	}
	names := map[string]bool{}
	for i, t := range d.Transitions {
		f := fmt.Sprintf("transitions[%d]", i)
		if !validName(t.Name) {
			add(f+".name", "%q is not a valid transition name", t.Name)
		}
		if names[t.Name] {
			add(f+".name", "transition %q is defined twice", t.Name)
		}
		names[t.Name] = true
		if len(t.From) == 0 {
			add(f+".from", "at least one from state is required")
		}
		for _, s := range t.From {
			if !states[s] {
				add(f+".from", "from state %q is not one of the states", s)
			}
		}
		if !states[t.To] {
			add(f+".to", "to state %q is not one of the states", t.To)
		}
		if slices.Contains(t.From, t.To) {
			add(f+".to", "a transition may not lead back to a state it starts from")
		}
		if t.Effect == "" {
			d.Transitions[i].Effect = EffectNone
		} else if !slices.Contains(Effects, t.Effect) {
			add(f+".effect", "unknown effect %q (one of %s)", t.Effect, joinEffects())
		}
		if t.To == d.InitialState && d.InitialState != "" && d.Transitions[i].Effect != EffectRelease {
			add(f+".effect", "a transition back to the initial state %q must have the effect release (it is %s): lines are editable in the initial state, so no stock may stay reserved there", d.InitialState, d.Transitions[i].Effect)
		}
	}
	if len(ps) == 0 {
		reach := map[string]bool{d.InitialState: true}
		for changed := true; changed; {
			changed = false
			for _, t := range d.Transitions {
				if reach[t.To] {
					continue
				}
				for _, s := range t.From {
					if reach[s] {
						reach[t.To], changed = true, true
						break
					}
				}
			}
		}
		for _, s := range d.States {
			if !reach[s] {
				add("states", "state %q cannot be reached from the initial state", s)
			}
		}
	}
	return ps
}

// Allowed returns the transitions that may leave state, by name.
func (d Definition) Allowed(state string) []string {
	var out []string
	for _, t := range d.Transitions {
		if slices.Contains(t.From, state) {
			out = append(out, t.Name)
		}
	}
	return out
}

// Find returns the transition named name, if any.
func (d Definition) Find(name string) (Transition, bool) {
	for _, t := range d.Transitions {
		if t.Name == name {
			return t, true
		}
	}
	return Transition{}, false
}

// Terminal reports whether no transition leaves state.
func (d Definition) Terminal(state string) bool { return len(d.Allowed(state)) == 0 }

// ValidName reports whether s is a valid state, transition or workflow key:
// 1 to 64 lower-case letters, digits and _.
func ValidName(s string) bool { return validName(s) }

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

func joinEffects() string {
	s := make([]string, len(Effects))
	for i, e := range Effects {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

// MarshalGQL writes the effect as a GraphQL enum value.
func (e Effect) MarshalGQL(w io.Writer) { _, _ = io.WriteString(w, strconv.Quote(string(e))) }

// UnmarshalGQL reads a GraphQL enum value.
func (e *Effect) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok || !slices.Contains(Effects, Effect(s)) {
		return fmt.Errorf("effect must be one of %s", joinEffects())
	}
	*e = Effect(s)
	return nil
}
