package main

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"logistics/internal/database"
	"logistics/internal/decimal"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
)

// The events the floor writes are the ones the contract requires of the
// service for the same writes (docs/events.md), with the same data: the
// resource's representation after the change ("object"), the changed
// fields' former values ("previous_attributes") and the type's own keys.
// An allocation of three lines is seven events, about 9 KB for a W4
// operation; a floor writing one small event per transaction would measure
// a lighter job than the one the service is asked to do. The
// representations are built here by hand, from rows the floor's own
// statements return (UPDATE … RETURNING), not by the service's renderers.
// TestFloorEventsMatchService holds their keys to the service's.

// floorEvent is one event of a floor transaction.
type floorEvent struct {
	typ, subject string
	data         any
}

// floorHubRef is an embedded hub: {"id", "code"} (a part is a
// floorPartRef: {"id", "sku"} in an item, with "part_name" in a line).
type floorHubRef struct {
	ID   string `json:"id"`
	Code string `json:"code"`
}

// floorLineRep is an order line's representation; Part is embedded in an
// order's lines and absent from an order_line event's object.
type floorLineRep struct {
	ID                string          `json:"id"`
	OrderID           string          `json:"order_id"`
	PartID            string          `json:"part_id"`
	Part              *floorPartRef   `json:"part,omitempty"`
	Quantity          decimal.Decimal `json:"quantity"`
	AllocatedQuantity decimal.Decimal `json:"allocated_quantity"`
	ShippedQuantity   decimal.Decimal `json:"shipped_quantity"`
	Revision          int             `json:"revision"`
	CreatedAt         time.Time       `json:"created_at"`
	UpdatedAt         time.Time       `json:"updated_at"`
}

type floorShipTo struct {
	Name       string `json:"name"`
	Line1      string `json:"line1"`
	Line2      string `json:"line2"`
	City       string `json:"city"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"`
}

type floorWorkflowRef struct {
	ID      string `json:"id"`
	Key     string `json:"key"`
	Version int    `json:"version"`
}

// floorOrderRep is an order's representation with its lines.
type floorOrderRep struct {
	ID                 string             `json:"id"`
	Number             string             `json:"number"`
	Status             string             `json:"status"`
	AllowedTransitions []string           `json:"allowed_transitions"`
	CustomerRef        string             `json:"customer_ref"`
	Priority           string             `json:"priority"`
	DueAt              *time.Time         `json:"due_at"`
	ShipTo             floorShipTo        `json:"ship_to"`
	Hub                floorHubRef        `json:"hub"`
	Workflow           floorWorkflowRef   `json:"workflow"`
	Lines              []floorLineRep     `json:"lines"`
	LatestTracking     []floorTrackingRep `json:"latest_tracking"`
	Revision           int                `json:"revision"`
	CreatedAt          time.Time          `json:"created_at"`
	UpdatedAt          time.Time          `json:"updated_at"`
}

// floorItemRep is an item's representation.
type floorItemRep struct {
	ID                string          `json:"id"`
	Part              floorPartRef    `json:"part"`
	Hub               floorHubRef     `json:"hub"`
	Lot               string          `json:"lot"`
	Serial            string          `json:"serial"`
	Status            string          `json:"status"`
	Quantity          decimal.Decimal `json:"quantity"`
	ReservedQuantity  decimal.Decimal `json:"reserved_quantity"`
	AvailableQuantity decimal.Decimal `json:"available_quantity"`
	ExpiresAt         *time.Time      `json:"expires_at"`
	Revision          int             `json:"revision"`
	CreatedAt         time.Time       `json:"created_at"`
	UpdatedAt         time.Time       `json:"updated_at"`
}

// floorTrackingRep is a tracking entry's representation.
type floorTrackingRep struct {
	ID             string       `json:"id"`
	OrderID        string       `json:"order_id"`
	TrackingNumber string       `json:"tracking_number"`
	Carrier        string       `json:"carrier"`
	Status         string       `json:"status"`
	Hub            *floorHubRef `json:"hub"`
	Location       string       `json:"location"`
	Description    string       `json:"description"`
	OccurredAt     time.Time    `json:"occurred_at"`
	Revision       int          `json:"revision"`
	CreatedAt      time.Time    `json:"created_at"`
	UpdatedAt      time.Time    `json:"updated_at"`
}

// floorAllowed is what the fulfilment workflow allows from the states W4
// passes through (the floor knows the workflow; the service reads it).
var floorAllowed = map[string][]string{
	"draft":     {"submit", "cancel"},
	"open":      {"allocate", "cancel"},
	"allocated": {"start_picking", "cancel"},
}

// writeEvents writes a transaction's events last, in one batch, as the
// service's event log does at commit (internal/eventlog): on SQLite the
// numbers from the counter (its row taken last) and one INSERT; on
// PostgreSQL with the sequencer running one INSERT, unnumbered, each with
// its pending_order (as the service does);
// on PostgreSQL without it one statement that numbers, inserts and
// notifies (the service needs three: it reads the webhook endpoints' stamp
// and inserts first, for its webhook fan-out hook).
func (f *floor) writeEvents(ctx context.Context, tx database.WriteTx, evs []floorEvent, now time.Time) error {
	if len(evs) == 0 {
		return nil
	}
	var q strings.Builder
	args := make([]any, 0, 8*len(evs))
	row := "(?, ?, ?, ?, ?, ?, ?, ?)"
	var first int64 // the first event's number (PostgreSQL without the sequencer: 1, an offset)
	numbered := !f.postgres || f.events == nil
	switch {
	case f.postgres && f.events != nil:
		q.WriteString("INSERT INTO events (id, created_at, updated_at, type, subject_id, actor, data, pending_order) VALUES ")
		row = "(?, ?, ?, ?, ?, ?, ?, " + eventlog.PendingOrderSQL + ")"
	case f.postgres:
		q.WriteString(`WITH c AS (UPDATE event_counter SET last_value = last_value + ` + strconv.Itoa(len(evs)) + ` WHERE id = 1 RETURNING last_value)
INSERT INTO events (id, created_at, updated_at, type, subject_id, actor, data, sequence)
SELECT v.id, v.created_at, v.updated_at, v.type, v.subject_id, v.actor, v.data, c.last_value - ` + strconv.Itoa(len(evs)) + ` + v.n
FROM c, (VALUES `)
		row = "(?::text, ?::timestamptz, ?::timestamptz, ?::text, ?::text, ?::text, ?::jsonb, ?::bigint)"
		first = 1
	default:
		last, err := f.reserveNumbers(ctx, tx, len(evs))
		if err != nil {
			return err
		}
		q.WriteString("INSERT INTO events (id, created_at, updated_at, type, subject_id, actor, data, sequence) VALUES ")
		first = last - int64(len(evs)) + 1
	}
	for i, e := range evs {
		js, err := json.Marshal(e.data)
		if err != nil {
			return err
		}
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(row)
		args = append(args, string(resourceid.New(resourceid.Event)), now, now, e.typ, e.subject, "floor", string(js))
		if numbered {
			args = append(args, first+int64(i))
		}
	}
	if f.postgres && f.events == nil {
		q.WriteString(`) AS v(id, created_at, updated_at, type, subject_id, actor, data, n)
RETURNING pg_notify('` + eventlog.Channel + `', sequence::text)::text`)
		rows, err := f.txQuery(ctx, tx, q.String(), args...)
		if err != nil {
			return err
		}
		return drain(rows)
	}
	_, err := f.exec(ctx, tx, q.String(), args...)
	return err
}

// reserveNumbers takes k numbers from the event counter and returns the last.
func (f *floor) reserveNumbers(ctx context.Context, tx database.WriteTx, k int) (int64, error) {
	rows, err := f.txQuery(ctx, tx, `UPDATE event_counter SET last_value = last_value + ? WHERE id = 1 RETURNING last_value`, k)
	if err != nil {
		return 0, err
	}
	var last int64
	if rows.Next() {
		err = rows.Scan(&last)
	} else {
		err = errors.New("no event counter row")
	}
	rows.Close()
	return last, err
}

// object is an event's data: the representation and the type's keys.
func object(rep any, previous map[string]any, extra map[string]any) map[string]any {
	d := make(map[string]any, 2+len(extra))
	for k, v := range extra {
		d[k] = v
	}
	d["object"] = rep
	if len(previous) > 0 {
		d["previous_attributes"] = previous
	}
	return d
}
