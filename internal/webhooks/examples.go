package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/item"
	"logistics/ent/order"
	"logistics/ent/orderline"
	"logistics/ent/part"
	"logistics/ent/trackingentry"
	"logistics/ent/workflow"
	"logistics/internal/apperr"
	"logistics/internal/eventlog"
	"logistics/internal/resourceid"
	"logistics/internal/sandboxreset"
	"logistics/internal/view"
)

// A test event of a type of the catalog is an example of that type, shaped
// as the real one is: its data.object is a resource of the environment (the
// newest of its kind) rendered by the same code as the events of the log
// (view.Represent), or for the types whose object is not a resource, the
// same structure the service writes. An update carries previous_attributes
// (the former updated_at), a deletion "deleted": true, and the types with
// extra data keys have them (order.transitioned's transition,
// webhook_endpoint.disabled's reason). TestTestEventsOfEveryType compares
// each with a real delivery and validates it against the OpenAPI webhooks
// schema of its type.

// newest returns the id of the newest resource behind an Object schema of
// the catalog (ids are ULIDs: they sort by creation).
func newest(ctx context.Context, c *ent.Client, object string) (resourceid.ID, error) {
	switch object {
	case "Hub":
		return c.Hub.Query().Order(ent.Desc(hub.FieldID)).FirstID(ctx)
	case "Part":
		return c.Part.Query().Order(ent.Desc(part.FieldID)).FirstID(ctx)
	case "Item":
		return c.Item.Query().Order(ent.Desc(item.FieldID)).FirstID(ctx)
	case "Order":
		return c.Order.Query().Order(ent.Desc(order.FieldID)).FirstID(ctx)
	case "OrderLine":
		return c.OrderLine.Query().Order(ent.Desc(orderline.FieldID)).FirstID(ctx)
	case "TrackingEntry":
		return c.TrackingEntry.Query().Order(ent.Desc(trackingentry.FieldID)).FirstID(ctx)
	case "Workflow":
		return c.Workflow.Query().Order(ent.Desc(workflow.FieldID)).FirstID(ctx)
	}
	return "", fmt.Errorf("webhooks: no example for %s", object)
}

// exampleEvent builds the envelope's subject and data of a test event of
// type t, sent to endpoint ep.
func (m *Manager) exampleEvent(ctx context.Context, t eventlog.Type, ep *ent.WebhookEndpoint, envName string) (string, eventlog.Data, error) {
	c := client(ctx)
	verb := t.Name[strings.LastIndexByte(t.Name, '.')+1:]
	switch t.Object {
	case "":
		return "", eventlog.Data{Object: nonResourceObject(ctx, c, t.Name)}, nil
	case "WebhookEndpoint":
		obj, err := plain(Render(ep))
		if err != nil {
			return "", eventlog.Data{}, err
		}
		eventlog.RedactObject(t.Name, obj)
		return string(ep.ID), eventlog.Data{Object: obj, Extra: map[string]any{"reason": "an example: the endpoint answered 410 Gone"}}, nil
	case "SandboxReset":
		obj, err := plain(sandboxreset.Result{Environment: envName, Scale: sandboxreset.DefaultScale})
		return "", eventlog.Data{Object: obj}, err
	}
	id, err := newest(ctx, c, t.Object)
	if ent.IsNotFound(err) {
		return "", eventlog.Data{}, apperr.Conflict("no_example", "a %s test event shows a resource of this environment, and it has no %s yet: create one (or, in the sandbox, reset it to load the demo data)", t.Name, t.Object)
	}
	if err != nil {
		return "", eventlog.Data{}, apperr.From(err)
	}
	row, rep, err := view.Represent(ctx, id)
	if err != nil {
		return "", eventlog.Data{}, apperr.From(err)
	}
	obj, err := plain(rep)
	if err != nil {
		return "", eventlog.Data{}, err
	}
	d := eventlog.Data{Object: obj}
	switch verb {
	case "updated", "transitioned":
		d.PreviousAttributes = map[string]any{"updated_at": obj["created_at"]}
	case "deleted":
		obj["deleted"] = true
	}
	if o, ok := row.(*ent.Order); ok && t.Name == "order.transitioned" {
		d.PreviousAttributes["status"] = o.Status
		d.Extra = map[string]any{"transition": exampleTransition(o)}
	}
	return string(id), d, nil
}

// exampleTransition is order.transitioned's data.transition for an order:
// a transition of its workflow that leads to its status (or the first).
func exampleTransition(o *ent.Order) map[string]any {
	out := map[string]any{"name": "", "from": o.Status, "to": o.Status, "effect": "", "workflow": "", "workflow_version": 0}
	wf := o.Edges.Workflow
	if wf == nil {
		return out
	}
	out["workflow"], out["workflow_version"] = wf.Key, wf.Version
	for i, t := range wf.Transitions {
		if i == 0 || t.To == o.Status {
			out["name"], out["to"], out["effect"] = t.Name, t.To, string(t.Effect)
			if len(t.From) > 0 {
				out["from"] = t.From[0]
			}
		}
		if t.To == o.Status {
			break
		}
	}
	return out
}

// nonResourceObject is data.object of the catalog's types whose object is
// not a resource: the same members the service writes.
func nonResourceObject(ctx context.Context, c *ent.Client, typ string) map[string]any {
	switch typ {
	case "items.imported":
		return map[string]any{"imported": 1, "rows": 1}
	case "demo_data.loaded":
		n := func(count func(context.Context) (int, error)) int { v, _ := count(ctx); return v }
		return map[string]any{"hubs": n(c.Hub.Query().Count), "parts": n(c.Part.Query().Count),
			"items": n(c.Item.Query().Count), "orders": n(c.Order.Query().Count)}
	}
	return map[string]any{}
}

// plain is v as JSON values (what a stored event's data holds).
func plain(v any) (map[string]any, error) {
	b, err := view.Marshal(v)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, apperr.Internal(err)
	}
	return out, nil
}
