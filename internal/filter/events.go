package filter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// EventFilters is a webhook endpoint's where filter per resource type, keyed
// by the word its event types start with ("order" for order.*,
// "tracking_entry" for tracking_entry.*): each value is a where object in
// the grammar of GraphQL's where: argument of that type's list (the JSON a
// GraphQL client sends as a variable, e.g. {"status": "open",
// "hasHubWith": [{"code": "AMS1"}]}).
type EventFilters map[string]json.RawMessage

// Limits of one endpoint's filters, all types together: those of one
// GraphQL where: argument (graph/inputlimits.go) and of a REST filter value.
const (
	MaxFilterBytes  = 16 << 10 // JSON bytes of all the filters as stored
	MaxFilterDepth  = 8        // where objects nested in one another through and/or/not/has…With
	MaxFilterFields = 256      // fields set, at every level together
)

// EventMatcher is a compiled filter of one resource type (a *Match[T]).
type EventMatcher interface {
	Key() string
	Empty() bool
	Where() any
	Matching(ctx context.Context, c *ent.Client, ids []resourceid.ID) (map[resourceid.ID]bool, error)
}

// eventKind is one resource type that events carry and a filter selects.
type eventKind struct {
	key    string // "order_line": the events' first word, and the filters' key
	object string // "OrderLine": the event catalog's Object, the GraphQL type
	where  reflect.Type
	match  func(where any) (EventMatcher, error)
}

func kindOf[W any, T any](key, object string, mk func(*W) (*Match[T], error)) eventKind {
	return eventKind{key: key, object: object, where: reflect.TypeFor[W](), match: func(w any) (EventMatcher, error) {
		return mk(w.(*W))
	}}
}

// eventKinds are the resource types a filter can select, in the order the
// docs list them.
var eventKinds = []eventKind{
	kindOf("hub", "Hub", HubMatch),
	kindOf("part", "Part", PartMatch),
	kindOf("item", "Item", ItemMatch),
	kindOf("order", "Order", OrderMatch),
	kindOf("order_line", "OrderLine", OrderLineMatch),
	kindOf("tracking_entry", "TrackingEntry", TrackingEntryMatch),
	kindOf("workflow", "Workflow", WorkflowMatch),
}

// EventFilterKeys lists the keys of EventFilters, in order.
func EventFilterKeys() []string {
	out := make([]string, len(eventKinds))
	for i, k := range eventKinds {
		out[i] = k.key
	}
	return out
}

// EventFilterObject is the catalog Object (the GraphQL type) whose events
// the filter key selects: "order_line" → "OrderLine".
func EventFilterObject(key string) (string, bool) {
	for _, k := range eventKinds {
		if k.key == key {
			return k.object, true
		}
	}
	return "", false
}

// EventFilterSet is an endpoint's filters, checked and compiled.
type EventFilterSet struct {
	byObject map[string]EventMatcher
	byKey    map[string]EventMatcher
	stored   EventFilters // the filters as stored: canonical JSON, empty ones left out
}

// For returns the filter of events whose object is the catalog Object
// ("Order"), or nil when the endpoint filters none of them.
func (s *EventFilterSet) For(object string) EventMatcher {
	if s == nil {
		return nil
	}
	return s.byObject[object]
}

// Stored is the set as it is stored and shown: each filter's canonical JSON,
// the empty ones left out.
func (s *EventFilterSet) Stored() EventFilters {
	if s == nil {
		return EventFilters{}
	}
	return s.stored
}

// Keys lists the keys of the set's filters, in EventFilterKeys' order.
func (s *EventFilterSet) Keys() []string {
	var out []string
	for _, k := range eventKinds {
		if s != nil && s.byKey[k.key] != nil {
			out = append(out, k.key)
		}
	}
	return out
}

// Where returns the where input of the filter with key, for the scope rule.
func (s *EventFilterSet) Where(key string) any {
	if s == nil || s.byKey[key] == nil {
		return nil
	}
	return s.byKey[key].Where()
}

// ParseEventFilters checks filters (field names their member in errors,
// "filters") and compiles them: an unknown type or field, a value of the
// wrong type, an unknown enum value or a filter over its limits is a 422
// naming the member, e.g. "filters.order.hasHubWith[0].cod". A filter that
// sets nothing ({}) is left out.
func ParseEventFilters(filters EventFilters, field string) (*EventFilterSet, error) {
	set := &EventFilterSet{byObject: map[string]EventMatcher{}, byKey: map[string]EventMatcher{}, stored: EventFilters{}}
	keys := make([]string, 0, len(filters))
	for k := range filters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	st := &walkState{}
	size := 0
	for _, key := range keys {
		raw := filters[key]
		path := field + "." + key
		i := slices.IndexFunc(eventKinds, func(k eventKind) bool { return k.key == key })
		if i < 0 {
			return nil, bad(truncate(path), "is not a resource type a filter selects; the types are %s", strings.Join(EventFilterKeys(), ", "))
		}
		kind := eventKinds[i]
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			continue
		}
		w := reflect.New(kind.where)
		if err := st.object(raw, w.Elem(), path, 1); err != nil {
			return nil, err
		}
		m, err := kind.match(w.Interface())
		if err != nil {
			msg := err.Error()
			if ae := apperr.From(err); ae != nil && len(ae.Fields) == 1 {
				msg = ae.Fields[0].Message
			}
			return nil, bad(path, "%s", msg)
		}
		if m.Empty() {
			continue
		}
		b, err := json.Marshal(w.Interface())
		if err != nil {
			return nil, bad(path, "%s", err.Error())
		}
		if size += len(b) + len(key) + 4; size > MaxFilterBytes {
			return nil, bad(field, "the filters take more than %d bytes of JSON", MaxFilterBytes)
		}
		set.byObject[kind.object], set.byKey[key], set.stored[key] = m, m, b
	}
	return set, nil
}

// walkState counts the fields of one endpoint's filters.
type walkState struct{ fields int }

// gqlUnmarshaler is a type with GraphQL input coercion (ent's enums,
// Decimal, ID): its values are coerced as a GraphQL variable would be.
type gqlUnmarshaler interface{ UnmarshalGQL(v any) error }

var gqlUnmarshalerType = reflect.TypeFor[gqlUnmarshaler]()

// object decodes the where object raw into v (an ent <T>WhereInput struct)
// strictly: every member must be a field of the type, with a value of its
// type; nested where objects are walked at depth+1.
func (st *walkState) object(raw json.RawMessage, v reflect.Value, path string, depth int) error {
	if depth > MaxFilterDepth {
		return bad(truncate(path), "where objects are nested at most %d levels deep", MaxFilterDepth)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return bad(truncate(path), "must be a where object (%s)", graphQLName(v.Type()))
	}
	t := v.Type()
	fields := map[string]int{}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			fields[name] = i
		}
	}
	names := make([]string, 0, len(members))
	for k := range members {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		mpath := path + "." + name
		i, ok := fields[name]
		if !ok {
			return bad(truncate(mpath), "is not a field of %s", graphQLName(t))
		}
		mraw := members[name]
		if string(bytes.TrimSpace(mraw)) == "null" {
			continue // as in GraphQL: not set
		}
		if st.fields++; st.fields > MaxFilterFields {
			return bad(truncate(mpath), "the filters set at most %d fields at all levels together", MaxFilterFields)
		}
		fv := v.Field(i)
		ft := fv.Type()
		switch {
		case ft.Kind() == reflect.Pointer && isWhere(ft.Elem()):
			nv := reflect.New(ft.Elem())
			if err := st.object(mraw, nv.Elem(), mpath, depth+1); err != nil {
				return err
			}
			fv.Set(nv)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Pointer && isWhere(ft.Elem().Elem()):
			var list []json.RawMessage
			if err := json.Unmarshal(mraw, &list); err != nil {
				return bad(truncate(mpath), "must be a list of where objects (%s)", graphQLName(ft.Elem().Elem()))
			}
			if len(list) > MaxValues {
				return bad(truncate(mpath), "lists at most %d where objects", MaxValues)
			}
			sl := reflect.MakeSlice(ft, len(list), len(list))
			for j, el := range list {
				nv := reflect.New(ft.Elem().Elem())
				if err := st.object(el, nv.Elem(), mpath+"["+strconv.Itoa(j)+"]", depth+1); err != nil {
					return err
				}
				sl.Index(j).Set(nv)
			}
			fv.Set(sl)
		case ft.Kind() == reflect.Slice:
			var list []json.RawMessage
			if err := json.Unmarshal(mraw, &list); err != nil {
				list = []json.RawMessage{mraw} // a single value coerces to a list of one, as in GraphQL
			}
			if len(list) > MaxValues {
				return bad(truncate(mpath), "lists at most %d values", MaxValues)
			}
			sl := reflect.MakeSlice(ft, len(list), len(list))
			for j, el := range list {
				if err := scalar(el, sl.Index(j), mpath); err != nil {
					return err
				}
			}
			fv.Set(sl)
		case ft.Kind() == reflect.Pointer:
			nv := reflect.New(ft.Elem())
			if err := scalar(mraw, nv.Elem(), mpath); err != nil {
				return err
			}
			fv.Set(nv)
		default:
			if err := scalar(mraw, fv, mpath); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalar decodes one value into v: through the type's GraphQL coercion when
// it has one (enums check their values there), else as JSON.
func scalar(raw json.RawMessage, v reflect.Value, path string) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if utf8.RuneCountInString(s) > MaxValueLength {
			return bad(truncate(path), "is longer than %d characters", MaxValueLength)
		}
		if strings.ContainsRune(s, 0) {
			return bad(truncate(path), "must not contain NUL characters")
		}
	}
	if reflect.PointerTo(v.Type()).Implements(gqlUnmarshalerType) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return bad(truncate(path), "must be %s", expect(v.Type()))
		}
		if err := v.Addr().Interface().(gqlUnmarshaler).UnmarshalGQL(x); err != nil {
			return bad(truncate(path), "%s", err.Error())
		}
		return nil
	}
	if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
		return bad(truncate(path), "must be %s", expect(v.Type()))
	}
	return nil
}

func isWhere(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && strings.HasSuffix(t.Name(), "WhereInput")
}

// graphQLName is the where input's GraphQL name (the Go type's).
func graphQLName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

func expect(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "an RFC 3339 time such as 2026-01-31T12:00:00Z"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Int, t.Kind() == reflect.Int64:
		return "an integer"
	case t.Kind() == reflect.Float64:
		return "a number"
	}
	return fmt.Sprintf("a %s", t.Name())
}

// bad is a 422 naming the filter's member, as the endpoint's other fields.
func bad(path, format string, a ...any) error {
	return apperr.Validation(apperr.FieldError{Field: path, Message: fmt.Sprintf(format, a...)})
}
