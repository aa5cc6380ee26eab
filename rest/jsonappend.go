package rest

import (
	"net/http"
	"sync"

	"logistics/internal/view"
)

// The representations the API writes most write their own JSON
// (internal/view), registered by type below: byte for byte what
// encoding/json writes for them, which TestAppendJSONMatchesEncodingJSON
// checks on random values of every registered type. A field added to one of
// these structs must be added to its AppendJSON too, or that test fails.

func (r partRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(r.ID))
	b = append(b, `,"sku":`...)
	b = view.AppendString(b, r.SKU)
	if r.PartName != "" {
		b = append(b, `,"part_name":`...)
		b = view.AppendString(b, r.PartName)
	}
	return append(b, '}')
}

func (r skuRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(r.ID))
	b = append(b, `,"sku":`...)
	b = view.AppendString(b, r.SKU)
	return append(b, '}')
}

func (r hubRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(r.ID))
	b = append(b, `,"code":`...)
	b = view.AppendString(b, r.Code)
	return append(b, '}')
}

func (r workflowRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(r.ID))
	if r.Key != "" {
		b = append(b, `,"key":`...)
		b = view.AppendString(b, r.Key)
	}
	if r.Version != 0 {
		b = append(b, `,"version":`...)
		b = view.AppendInt(b, r.Version)
	}
	return append(b, '}')
}

func (s shipToJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = view.AppendString(b, s.Name)
	b = append(b, `,"line1":`...)
	b = view.AppendString(b, s.Line1)
	b = append(b, `,"line2":`...)
	b = view.AppendString(b, s.Line2)
	b = append(b, `,"city":`...)
	b = view.AppendString(b, s.City)
	b = append(b, `,"postal_code":`...)
	b = view.AppendString(b, s.PostalCode)
	b = append(b, `,"country":`...)
	b = view.AppendString(b, s.Country)
	return append(b, '}')
}

func (p partJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(p.ID))
	b = append(b, `,"sku":`...)
	b = view.AppendString(b, p.SKU)
	b = append(b, `,"part_name":`...)
	b = view.AppendString(b, p.PartName)
	b = append(b, `,"description":`...)
	b = view.AppendString(b, p.Description)
	b = append(b, `,"unit":`...)
	b = view.AppendString(b, p.Unit)
	b = append(b, `,"unit_weight_kg":`...)
	b = p.UnitWeightKg.Append(b)
	b = append(b, `,"hazardous":`...)
	b = view.AppendBool(b, p.Hazardous)
	return appendStamps(b, p.Revision, p.CreatedAt, p.UpdatedAt)
}

func (it itemJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(it.ID))
	b = append(b, `,"part":`...)
	b = it.Part.AppendJSON(b)
	b = append(b, `,"hub":`...)
	b = it.Hub.AppendJSON(b)
	b = append(b, `,"quantity":`...)
	b = it.Quantity.Append(b)
	b = append(b, `,"reserved_quantity":`...)
	b = it.ReservedQuantity.Append(b)
	b = append(b, `,"available_quantity":`...)
	b = it.AvailableQuantity.Append(b)
	b = append(b, `,"lot":`...)
	b = view.AppendString(b, it.Lot)
	b = append(b, `,"serial":`...)
	b = view.AppendString(b, it.Serial)
	b = append(b, `,"status":`...)
	b = view.AppendString(b, it.Status)
	b = append(b, `,"expires_at":`...)
	b = view.AppendStringOrNull(b, it.ExpiresAt)
	return appendStamps(b, it.Revision, it.CreatedAt, it.UpdatedAt)
}

func (l orderLineJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(l.ID))
	b = append(b, `,"order_id":`...)
	b = view.AppendString(b, string(l.OrderID))
	b = append(b, `,"part_id":`...)
	b = view.AppendString(b, string(l.PartID))
	if l.Part != nil {
		b = append(b, `,"part":`...)
		b = l.Part.AppendJSON(b)
	}
	b = append(b, `,"quantity":`...)
	b = l.Quantity.Append(b)
	b = append(b, `,"allocated_quantity":`...)
	b = l.AllocatedQuantity.Append(b)
	b = append(b, `,"shipped_quantity":`...)
	b = l.ShippedQuantity.Append(b)
	return appendStamps(b, l.Revision, l.CreatedAt, l.UpdatedAt)
}

func (t trackingJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(t.ID))
	b = append(b, `,"order_id":`...)
	b = view.AppendString(b, string(t.OrderID))
	b = append(b, `,"tracking_number":`...)
	b = view.AppendString(b, t.TrackingNumber)
	b = append(b, `,"carrier":`...)
	b = view.AppendString(b, t.Carrier)
	b = append(b, `,"status":`...)
	b = view.AppendString(b, t.Status)
	b = append(b, `,"hub":`...)
	if t.Hub == nil {
		b = append(b, "null"...)
	} else {
		b = t.Hub.AppendJSON(b)
	}
	b = append(b, `,"location":`...)
	b = view.AppendString(b, t.Location)
	b = append(b, `,"description":`...)
	b = view.AppendString(b, t.Description)
	b = append(b, `,"occurred_at":`...)
	b = view.AppendString(b, t.OccurredAt)
	return appendStamps(b, t.Revision, t.CreatedAt, t.UpdatedAt)
}

func (o orderJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = view.AppendString(b, string(o.ID))
	b = append(b, `,"number":`...)
	b = view.AppendString(b, o.Number)
	b = append(b, `,"status":`...)
	b = view.AppendString(b, o.Status)
	b = append(b, `,"workflow":`...)
	b = o.Workflow.AppendJSON(b)
	b = append(b, `,"hub":`...)
	b = o.Hub.AppendJSON(b)
	b = append(b, `,"customer_ref":`...)
	b = view.AppendString(b, o.CustomerRef)
	b = append(b, `,"priority":`...)
	b = view.AppendString(b, o.Priority)
	b = append(b, `,"ship_to":`...)
	b = o.ShipTo.AppendJSON(b)
	b = append(b, `,"due_at":`...)
	b = view.AppendStringOrNull(b, o.DueAt)
	b = append(b, `,"lines":`...)
	b = view.AppendArray(b, o.Lines)
	b = append(b, `,"latest_tracking":`...)
	b = view.AppendArray(b, o.LatestTracking)
	b = append(b, `,"allowed_transitions":`...)
	b = view.AppendStrings(b, o.AllowedTransitions)
	return appendStamps(b, o.Revision, o.CreatedAt, o.UpdatedAt)
}

// appendStamps ends a resource: its revision and timestamps, then the brace.
func appendStamps(b []byte, revision int, created, updated string) []byte {
	b = append(b, `,"revision":`...)
	b = view.AppendInt(b, revision)
	b = append(b, `,"created_at":`...)
	b = view.AppendString(b, created)
	b = append(b, `,"updated_at":`...)
	b = view.AppendString(b, updated)
	return append(b, '}')
}

func init() {
	view.Register[partRefJSON]()
	view.Register[skuRefJSON]()
	view.Register[hubRefJSON]()
	view.Register[workflowRefJSON]()
	view.Register[shipToJSON]()
	view.Register[partJSON]()
	view.Register[itemJSON]()
	view.Register[orderLineJSON]()
	view.Register[trackingJSON]()
	view.Register[orderJSON]()
	view.RegisterFunc(appendList)
}

// appendList writes a page whose every element has a registered writer, and
// declines any other (a page of hubs or workflows goes through
// encoding/json).
func appendList(b []byte, l listJSON) ([]byte, bool) {
	b = append(b, `{"data":`...)
	if l.Data == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, v := range l.Data {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = view.Append(b, v); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"has_more":`...)
	b = view.AppendBool(b, l.HasMore)
	b = append(b, `,"next_cursor":`...)
	b = view.AppendStringOrNull(b, l.NextCursor)
	return append(b, '}'), true
}

// documents holds the buffers documents are appended to; one larger than
// maxPooled is left to the collector.
var documents = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooled = 1 << 20

// writeAppended writes v's JSON and a newline (as json.Encoder does) in one
// Write, when v's type has a registered writer; false otherwise, with
// nothing written.
func writeAppended(w http.ResponseWriter, status int, v any) bool {
	bp := documents.Get().(*[]byte)
	b, ok := view.Append((*bp)[:0], v)
	if ok {
		b = append(b, '\n')
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}
	if cap(b) <= maxPooled {
		*bp = b[:0]
		documents.Put(bp)
	}
	return ok
}
