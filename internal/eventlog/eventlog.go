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
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"logistics/ent"
	"logistics/internal/resourceid"
	"logistics/internal/view"
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
			// Rows written in the older layout keep their few fields at
			// the top of data: they stay readable as extra keys.
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
	e = Redacted(e)
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

// marshalData is json.Marshal(data) for an event row's data, byte for byte,
// without encoding/json's reflection over maps and its scanner: the service
// renders an event's object as a map of its members' JSON texts
// (view.JSONText, cut from what view wrote: valid, compact, HTML-safe), and
// encoding/json sorted, copied and scanned each member again (a fifth of
// writing an event, under SQLite's one write lock; an order's object is
// kilobytes). Maps are written with their keys in encoding/json's order,
// view.JSONText as it is, a json.RawMessage compacted and HTML-escaped as
// encoding/json does (which refuses invalid text), anything else by
// encoding/json. TestMarshalDataAsEncodingJSON compares the two.
func marshalData(data map[string]any) ([]byte, error) {
	return appendData(make([]byte, 0, 1024), data)
}

func appendData(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = view.AppendString(b, k) // escaped as encoding/json escapes a key
			b = append(b, ':')
			var err error
			if b, err = appendData(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case view.JSONText:
		if v == nil {
			return append(b, "null"...), nil
		}
		return append(b, v...), nil
	case json.RawMessage:
		if v == nil {
			return append(b, "null"...), nil
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, v); err != nil {
			return nil, err
		}
		out := bytes.NewBuffer(b)
		json.HTMLEscape(out, compact.Bytes())
		return out.Bytes(), nil
	default:
		js, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return append(b, js...), nil
	}
}
