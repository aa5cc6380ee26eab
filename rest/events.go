package rest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"logistics/ent"
	"logistics/ent/event"
	"logistics/ent/predicate"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
	"logistics/internal/export"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
)

// ---- the event log (read-only) ----

// MaxEventWait bounds the long poll of GET /v1/events?after=…&wait=…; it
// stays well below the server's default write time-out (60 s).
const MaxEventWait = 30 * time.Second

// eventsPageJSON is the body of GET /v1/events: a list page, plus, when
// paging by sequence (after=), where to resume.
type eventsPageJSON struct {
	listJSON
	// NextAfter is the after= of the next request: the sequence of the last
	// event returned, or the after= of this one when none was.
	NextAfter *int64 `json:"next_after,omitempty"`
}

func renderEvent(r *http.Request, e *ent.Event) eventlog.Event {
	return eventlog.FromRow(envName(r), e)
}

func envName(r *http.Request) string {
	if env := environment.FromContext(r.Context()); env != nil {
		return string(env.Name)
	}
	return ""
}

// eventQuery is what GET /v1/events reads besides the filters.
type eventQuery struct {
	after *int64        // sequence mode: events with a greater sequence, in sequence order
	wait  time.Duration // long poll (sequence mode only)
	rest  string        // the raw query without after, wait; types[] as type[]
}

func readEventQuery(raw string) (eventQuery, error) {
	var q eventQuery
	var keep []string
	for seg := range strings.SplitSeq(raw, "&") {
		name, value, _ := strings.Cut(seg, "=")
		name, _ = url.QueryUnescape(name)
		value, _ = url.QueryUnescape(value)
		switch name {
		case "after":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 {
				return q, apperr.Invalid("after", "must be a sequence number (an integer ≥ 0); start with 0")
			}
			q.after = &n
		case "wait":
			d, err := time.ParseDuration(value)
			if err != nil {
				s, serr := strconv.Atoi(value)
				d, err = time.Duration(s)*time.Second, serr
			}
			if err != nil || d < 0 || d > MaxEventWait {
				return q, apperr.Invalid("wait", "must be a duration from 0s to %s, e.g. 30s", MaxEventWait)
			}
			q.wait = d
		case "types[]":
			keep = append(keep, "type[]="+url.QueryEscape(value))
		default:
			keep = append(keep, seg)
		}
	}
	q.rest = strings.Join(keep, "&")
	if q.wait > 0 && q.after == nil {
		return q, apperr.Invalid("wait", "needs after=: a long poll waits for events after a sequence number")
	}
	return q, nil
}

// events is the adapter of /v1/events (read-only).
func (d Deps) events() *resource[*ent.Event, ent.EventWhereInput, eventlog.Event, struct{}] {
	return &resource[*ent.Event, ent.EventWhereInput, eventlog.Event, struct{}]{
		what: "event", prefix: resourceid.Event, table: filter.EventTable, parse: filter.Events, scope: auth.ScopeEventWhere,
		page: func(r *http.Request, where *ent.EventWhereInput, p page) ([]*ent.Event, *ent.Cursor, error) {
			ctx := r.Context()
			conn, err := ent.FromContext(ctx).Event.Query().
				Paginate(ctx, p.after, &p.first, nil, nil, ent.WithEventOrder(orderBy(p.sort, newEventOrder)), ent.WithEventFilter(where.Filter))
			if err != nil {
				return nil, nil, err
			}
			return nodes(conn.Edges, conn.PageInfo, func(e *ent.EventEdge) *ent.Event { return e.Node })
		},
		load: func(ctx context.Context, id resourceid.ID) (*ent.Event, error) {
			e, err := ent.FromContext(ctx).Event.Query().Where(event.ID(id)).Only(ctx)
			if err == nil && !auth.CanReadEvent(auth.FromContext(ctx), e.Type) {
				// As an unknown id: an event's id does not tell its type.
				return nil, apperr.NotFound("event %s not found", id)
			}
			return e, err
		},
		render: renderEvent,
		key:    func(e *ent.Event) (resourceid.ID, int) { return e.ID, 0 },
	}
}

func newEventOrder(dir ent.OrderDirection, f *ent.EventOrderField) *ent.EventOrder {
	return &ent.EventOrder{Direction: dir, Field: f}
}

// handleListEvents answers GET /v1/events: with the usual filters, sort and
// cursor; or, with after=<sequence>, the events after that number in
// sequence order — a cursor that never skips an event (internal/eventlog) —
// optionally waiting up to wait= for the first one to commit.
func handleListEvents(d Deps) http.Handler {
	rs := d.events()
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		eq, err := readEventQuery(r.URL.RawQuery)
		if err != nil {
			return err
		}
		f, err := negotiate(r)
		if err != nil {
			return err
		}
		r = r.Clone(ent.WithoutCount(r.Context()))
		r.URL.RawQuery = eq.rest
		q, err := rs.readList(w, r, eq.rest, f)
		if err != nil {
			return err
		}
		switch {
		case f != export.JSON && eq.after == nil:
			return rs.export(d, w, r, q, f)
		case f != export.JSON:
			return exportEventsAfter(d, w, r, q, f, eq)
		}
		var out eventsPageJSON
		release := func() {}
		if eq.after == nil {
			out.listJSON, release, err = rs.pageJSON(r, q)
		} else {
			out, err = eventsAfter(r, q.where, q.page, *eq.after, eq.wait)
		}
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, out)
		release()
		return nil
	})
}

// exportEventsAfter exports the events after a sequence, in sequence order
// (what paging with after= and next_after would read, all of it).
func exportEventsAfter(d Deps, w http.ResponseWriter, r *http.Request, q listQuery[ent.EventWhereInput], f export.Format, eq eventQuery) error {
	if eq.wait > 0 {
		return apperr.Invalid("wait", "is for long polls: an export reads the events there are")
	}
	if q.page.after != nil || len(q.page.sort) > 0 {
		return apperr.Invalid("after", "pages in sequence order: use it without cursor and sort")
	}
	preds, err := eventPredicates(q.where)
	if err != nil {
		return err
	}
	after, batch := *eq.after, int(exportBatch.Load())
	return exportRows(d, w, r, f, "events", eachRow(renderEvent), func() ([]*ent.Event, bool, error) {
		evs, err := eventlog.After(r.Context(), ent.FromContext(r.Context()), after, batch, preds...)
		if len(evs) > 0 && evs[len(evs)-1].Sequence != nil {
			after = int64(*evs[len(evs)-1].Sequence)
		}
		return evs, len(evs) == batch, err
	})
}

// eventPredicates is the filter of an events list as ent predicates.
func eventPredicates(where *ent.EventWhereInput) ([]predicate.Event, error) {
	pred, err := where.P()
	if err == ent.ErrEmptyEventWhereInput {
		return nil, nil
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return []predicate.Event{pred}, nil
}

// eventsAfter reads the events after sequence after, in sequence order,
// waiting up to wait for one to commit when there is none yet
// (eventlog.Poll: woken by the environment's eventlog.Log, re-reading every
// eventlog.PollInterval in case a wake-up is lost).
func eventsAfter(r *http.Request, where *ent.EventWhereInput, p page, after int64, wait time.Duration) (eventsPageJSON, error) {
	if p.after != nil || len(p.sort) > 0 {
		return eventsPageJSON{}, apperr.Invalid("after", "pages in sequence order: use it without cursor and sort")
	}
	ctx := r.Context()
	preds, err := eventPredicates(where)
	if err != nil {
		return eventsPageJSON{}, err
	}
	var log *eventlog.Log
	if env := environment.FromContext(ctx); env != nil {
		log = env.Events
	}
	evs, err := eventlog.Poll(ctx, log, ent.FromContext(ctx), after, p.first+1, wait, preds...)
	if err != nil {
		return eventsPageJSON{}, apperr.From(err)
	}
	return eventsPage(r, evs, p.first, after), nil
}

func eventsPage(r *http.Request, evs []*ent.Event, limit int, after int64) eventsPageJSON {
	out := eventsPageJSON{listJSON: listJSON{Data: make([]any, 0, len(evs))}}
	if len(evs) > limit {
		evs, out.HasMore = evs[:limit], true
	}
	next := after
	for _, e := range evs {
		out.Data = append(out.Data, renderEvent(r, e))
		if e.Sequence != nil {
			next = int64(*e.Sequence)
		}
	}
	out.NextAfter = &next
	return out
}
