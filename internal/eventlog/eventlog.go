// Package eventlog is the public, resumable log of domain events: the one
// JSON rendering of an event (JSON), the commit-time sequence that lets a
// reader page by number without ever skipping an event (Begin, Record), and
// the wake-up that tells waiters something committed (Log).
//
// Everything downstream — GET /v1/events, its long poll, webhook deliveries,
// GraphQL subscriptions — reads events by sequence from the database; a
// wake-up is only a hint to read again.
package eventlog

import (
	"encoding/json"
	"time"

	"logistics/ent"
	"logistics/internal/resourceid"
)

// Event is the public shape of an event, as GET /v1/events returns it and as
// webhooks and subscriptions send it.
type Event struct {
	ID          resourceid.ID `json:"id"`
	Type        string        `json:"type"`
	Sequence    int64         `json:"sequence"`
	Environment string        `json:"environment"`
	CreatedAt   string        `json:"created_at"`
	// Actor is who made the change: tok_… (an API key), usr_… (a console
	// user), or empty for the system (demo data, built-in workflows).
	Actor     string `json:"actor"`
	SubjectID string `json:"subject_id"`
	Data      Data   `json:"data"`
}

// Data is an event's payload.
type Data struct {
	// Object is the resource's REST representation after the change (for a
	// *.deleted event, the last one before it).
	Object any `json:"object"`
	// PreviousAttributes holds, for an update, the changed top-level fields
	// of Object with their values before the change (as Stripe's
	// previous_attributes); absent for creations and deletions.
	PreviousAttributes map[string]any `json:"previous_attributes,omitempty"`
	// Extra holds type-specific keys (order.transitioned: "transition").
	Extra map[string]any `json:"-"`
}

// MarshalJSON writes object, previous_attributes and the extra keys side by side.
func (d Data) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 2+len(d.Extra))
	for k, v := range d.Extra {
		m[k] = v
	}
	m["object"] = d.Object
	if d.Object == nil {
		m["object"] = map[string]any{}
	}
	if len(d.PreviousAttributes) > 0 {
		m["previous_attributes"] = d.PreviousAttributes
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Data) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*d = dataOf(m)
	return nil
}

// dataOf splits a data object into object, previous_attributes and extras.
func dataOf(m map[string]any) Data {
	var d Data
	for k, v := range m {
		switch k {
		case keyObject:
			d.Object = v
		case keyPrevious:
			d.PreviousAttributes, _ = v.(map[string]any)
		default:
			// Rows written before the catalog (issue 11) kept their few
			// fields at the top of data: they stay readable as extra keys.
			if d.Extra == nil {
				d.Extra = map[string]any{}
			}
			d.Extra[k] = v
		}
	}
	return d
}

// Reserved keys of an event row's data column.
const (
	keyObject   = "object"
	keyPrevious = "previous_attributes"
)

// FromRow returns the public shape of a committed event row of environment env.
func FromRow(env string, e *ent.Event) Event {
	out := Event{
		ID: e.ID, Type: e.Type, Environment: env, CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339Nano),
		Actor: e.Actor, SubjectID: e.SubjectID,
	}
	if e.Sequence != nil {
		out.Sequence = int64(*e.Sequence)
	}
	out.Data = dataOf(e.Data)
	return out
}

// JSON is the canonical JSON of a committed event of environment env: the
// body of GET /v1/events/{id}, a webhook payload, a subscription message.
func JSON(env string, e *ent.Event) ([]byte, error) {
	return json.Marshal(FromRow(env, e))
}
