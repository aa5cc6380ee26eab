package eventlog

import (
	"maps"
	"net/url"
	"strings"

	"logistics/ent"
)

// Webhook endpoints' URLs often carry a credential of the receiver in their
// query string (?token=…) or userinfo. The endpoints' events
// (webhook_endpoint.*) never show it to anyone, whatever their scopes: the
// URL in data.object keeps its scheme, host, path and query keys, and each
// query value becomes RedactedValue (userinfo and fragment are dropped). The
// management API (GET /v1/webhook-endpoints, webhooks:read) still shows the
// whole URL.

// RedactedValue replaces each value of a webhook endpoint URL's query.
const RedactedValue = "REDACTED"

// RedactURL is a webhook endpoint's URL as its events show it.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "" // not a URL the service accepts: show nothing of it
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	if u.RawQuery != "" || u.ForceQuery {
		var keys []string
		for seg := range strings.SplitSeq(u.RawQuery, "&") {
			if seg == "" {
				continue
			}
			k, _, _ := strings.Cut(seg, "=")
			keys = append(keys, k+"="+RedactedValue)
		}
		u.RawQuery, u.ForceQuery = strings.Join(keys, "&"), false
	}
	return u.String()
}

// redacts reports whether events of type typ carry a webhook endpoint.
func redacts(typ string) bool { return strings.HasPrefix(typ, "webhook_endpoint.") }

// RedactObject redacts the url member of a webhook endpoint event's object
// in place (the object being recorded).
func RedactObject(typ string, object map[string]any) {
	if !redacts(typ) || object == nil {
		return
	}
	if u, ok := object["url"].(string); ok {
		object["url"] = RedactURL(u)
	}
}

// Redacted returns e as every door of the log shows it: e itself, or, for a
// webhook endpoint's event whose stored URL is not redacted yet, a copy
// whose data.object.url is (e is shared with other readers: never changed).
func Redacted(e *ent.Event) *ent.Event {
	if e == nil || !redacts(e.Type) {
		return e
	}
	obj, ok := e.Data["object"].(map[string]any)
	if !ok {
		return e
	}
	u, ok := obj["url"].(string)
	if !ok || RedactURL(u) == u {
		return e
	}
	obj = maps.Clone(obj)
	obj["url"] = RedactURL(u)
	c := *e
	c.Data = maps.Clone(e.Data)
	c.Data["object"] = obj
	return &c
}
