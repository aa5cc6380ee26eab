package view

// The representations the API writes most write their own JSON
// (internal/view), registered by type below: byte for byte what
// encoding/json writes for them, which TestAppendJSONMatchesEncodingJSON
// checks on random values of every registered type. A field added to one of
// these structs must be added to its AppendJSON too, or that test fails.

func (r PartRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(r.ID))
	b = append(b, `,"sku":`...)
	b = AppendString(b, r.SKU)
	if r.PartName != "" {
		b = append(b, `,"part_name":`...)
		b = AppendString(b, r.PartName)
	}
	return append(b, '}')
}

func (r SkuRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(r.ID))
	b = append(b, `,"sku":`...)
	b = AppendString(b, r.SKU)
	return append(b, '}')
}

func (r HubRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(r.ID))
	b = append(b, `,"code":`...)
	b = AppendString(b, r.Code)
	return append(b, '}')
}

func (r WorkflowRefJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(r.ID))
	if r.Key != "" {
		b = append(b, `,"key":`...)
		b = AppendString(b, r.Key)
	}
	if r.Version != 0 {
		b = append(b, `,"version":`...)
		b = AppendInt(b, r.Version)
	}
	return append(b, '}')
}

func (s ShipToJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = AppendString(b, s.Name)
	b = append(b, `,"line1":`...)
	b = AppendString(b, s.Line1)
	b = append(b, `,"line2":`...)
	b = AppendString(b, s.Line2)
	b = append(b, `,"city":`...)
	b = AppendString(b, s.City)
	b = append(b, `,"postal_code":`...)
	b = AppendString(b, s.PostalCode)
	b = append(b, `,"country":`...)
	b = AppendString(b, s.Country)
	return append(b, '}')
}

func (p PartJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(p.ID))
	b = append(b, `,"sku":`...)
	b = AppendString(b, p.SKU)
	b = append(b, `,"part_name":`...)
	b = AppendString(b, p.PartName)
	b = append(b, `,"description":`...)
	b = AppendString(b, p.Description)
	b = append(b, `,"unit":`...)
	b = AppendString(b, p.Unit)
	b = append(b, `,"unit_weight_kg":`...)
	b = p.UnitWeightKg.Append(b)
	b = append(b, `,"hazardous":`...)
	b = AppendBool(b, p.Hazardous)
	return appendStamps(b, p.Revision, p.CreatedAt, p.UpdatedAt)
}

func (it ItemJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(it.ID))
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
	b = AppendString(b, it.Lot)
	b = append(b, `,"serial":`...)
	b = AppendString(b, it.Serial)
	b = append(b, `,"status":`...)
	b = AppendString(b, it.Status)
	b = append(b, `,"expires_at":`...)
	b = AppendStringOrNull(b, it.ExpiresAt)
	return appendStamps(b, it.Revision, it.CreatedAt, it.UpdatedAt)
}

func (l OrderLineJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(l.ID))
	b = append(b, `,"order_id":`...)
	b = AppendString(b, string(l.OrderID))
	b = append(b, `,"part_id":`...)
	b = AppendString(b, string(l.PartID))
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

func (t TrackingJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(t.ID))
	b = append(b, `,"order_id":`...)
	b = AppendString(b, string(t.OrderID))
	b = append(b, `,"tracking_number":`...)
	b = AppendString(b, t.TrackingNumber)
	b = append(b, `,"carrier":`...)
	b = AppendString(b, t.Carrier)
	b = append(b, `,"status":`...)
	b = AppendString(b, t.Status)
	b = append(b, `,"hub":`...)
	if t.Hub == nil {
		b = append(b, "null"...)
	} else {
		b = t.Hub.AppendJSON(b)
	}
	b = append(b, `,"location":`...)
	b = AppendString(b, t.Location)
	b = append(b, `,"description":`...)
	b = AppendString(b, t.Description)
	b = append(b, `,"occurred_at":`...)
	b = AppendString(b, t.OccurredAt)
	return appendStamps(b, t.Revision, t.CreatedAt, t.UpdatedAt)
}

func (o OrderJSON) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, string(o.ID))
	b = append(b, `,"number":`...)
	b = AppendString(b, o.Number)
	b = append(b, `,"status":`...)
	b = AppendString(b, o.Status)
	b = append(b, `,"workflow":`...)
	b = o.Workflow.AppendJSON(b)
	b = append(b, `,"hub":`...)
	b = o.Hub.AppendJSON(b)
	b = append(b, `,"customer_ref":`...)
	b = AppendString(b, o.CustomerRef)
	b = append(b, `,"priority":`...)
	b = AppendString(b, o.Priority)
	b = append(b, `,"ship_to":`...)
	b = o.ShipTo.AppendJSON(b)
	b = append(b, `,"due_at":`...)
	b = AppendStringOrNull(b, o.DueAt)
	b = append(b, `,"lines":`...)
	b = AppendArray(b, o.Lines)
	b = append(b, `,"latest_tracking":`...)
	b = AppendArray(b, o.LatestTracking)
	b = append(b, `,"allowed_transitions":`...)
	b = AppendStrings(b, o.AllowedTransitions)
	return appendStamps(b, o.Revision, o.CreatedAt, o.UpdatedAt)
}

// appendStamps ends a resource: its revision and timestamps, then the brace.
func appendStamps(b []byte, revision int, created, updated string) []byte {
	b = append(b, `,"revision":`...)
	b = AppendInt(b, revision)
	b = append(b, `,"created_at":`...)
	b = AppendString(b, created)
	b = append(b, `,"updated_at":`...)
	b = AppendString(b, updated)
	return append(b, '}')
}

func init() {
	Register[PartRefJSON]()
	Register[SkuRefJSON]()
	Register[HubRefJSON]()
	Register[WorkflowRefJSON]()
	Register[ShipToJSON]()
	Register[PartJSON]()
	Register[ItemJSON]()
	Register[OrderLineJSON]()
	Register[TrackingJSON]()
	Register[OrderJSON]()
}
