package rest

import (
	"context"
	"net/http"
	"strings"

	"entgo.io/contrib/entgql"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/export"
	"logistics/internal/filter"
	"logistics/internal/resourceid"
	"logistics/internal/view"
)

// resource is the adapter of one REST resource: the few things the generic
// handlers below need to know of it, so that list, get, create, update and
// delete (and exports, which read through list's page) are written once for
// every resource.
//
// T is the ent entity (*ent.Hub), W its filter (ent.HubWhereInput), J its
// representation (view.HubJSON) and In the body of its POST and PATCH (hubIn).
// A resource that has no such operation leaves its function nil and its
// route out of the table.
type resource[T, W, J, In any] struct {
	what   string        // "hub", in messages
	prefix string        // the prefix of its ids (resourceid.Hub)
	table  *filter.Table // its filters and sortable fields
	parse  func(rawQuery string) (*W, []string, error)
	// scope, when set, narrows a parsed filter to the rows the caller may
	// read (the event log: auth.ScopeEventWhere), or refuses it.
	scope func(ctx context.Context, where *W) (*W, error)

	// parent, when set, checks the resource a nested list belongs to
	// (/v1/orders/{id}/lines: 404 when the order does not exist).
	parent func(r *http.Request) error
	// page reads at most p.first rows after p.after in the order p.sort,
	// and the cursor after the last one when more follow.
	page func(r *http.Request, where *W, p page) ([]T, *ent.Cursor, error)

	load   func(ctx context.Context, id resourceid.ID) (T, error)
	render func(r *http.Request, v T) J
	// renderPage, when set, renders the rows of a page (a list's, an
	// export's batch) at once, reading what they embed for all of them,
	// into memory it may take back with release once they are written;
	// otherwise each row goes through render.
	renderPage func(r *http.Request, rows []T) (out []J, release func(), err error)
	// key is a row's id and revision (its ETag); revision 0: no ETag.
	key func(v T) (resourceid.ID, int)
	// reload: create and update answer with load's row, not the service's
	// (which lacks the references the representation embeds).
	reload bool

	create func(r *http.Request, in *In) (T, error)
	update func(r *http.Request, id resourceid.ID, in *In, nulls map[string]bool, rev *int) (T, error)
	remove func(ctx context.Context, id resourceid.ID) error
	// names gives the model's fields their body names in the errors of
	// create and update ("country" → "address.country").
	names map[string]string
}

// handle adapts a handler that returns its error: every error is written
// the same way, in one place, and the happy path stays straight.
func (d Deps) handle(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			d.fail(w, r, err)
		}
	})
}

// listQuery is what a list request asks for: its filter and its page.
type listQuery[W any] struct {
	where *W
	page  page
}

// readList reads a list request's filter, checks the scopes it needs
// (filtering through a relation needs read scope on the related type, as
// GraphQL's has<Edge>With does), its paging parameters (an export's: its
// sort) and the parent of a nested list. Unknown filters are reported in
// X-Ignored-Filters.
func (rs *resource[T, W, J, In]) readList(w http.ResponseWriter, r *http.Request, rawQuery string, f export.Format) (listQuery[W], error) {
	where, ignored, err := rs.parse(rawQuery)
	if len(ignored) > 0 {
		w.Header().Set("X-Ignored-Filters", headerSafe(strings.Join(ignored, ",")))
	}
	if err != nil {
		return listQuery[W]{}, err
	}
	if err := auth.RequireFilter(r.Context(), where); err != nil {
		return listQuery[W]{}, err
	}
	if rs.scope != nil {
		if where, err = rs.scope(r.Context(), where); err != nil {
			return listQuery[W]{}, err
		}
	}
	p, err := readPage(r, rs.table, f != export.JSON)
	if err != nil {
		return listQuery[W]{}, err
	}
	if rs.parent != nil {
		if err := rs.parent(r); err != nil {
			return listQuery[W]{}, err
		}
	}
	return listQuery[W]{where: where, page: p}, nil
}

// list answers GET /v1/<resources>: one page of the filtered list, or,
// asked for CSV or NDJSON, all of it (export.go).
func (rs *resource[T, W, J, In]) list(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		f, err := negotiate(r)
		if err != nil {
			return err
		}
		// A page needs no row count (has_more comes from one row more)
		// unless the client prefers one: then Paginate leaves pc what
		// counting the list needs.
		mode, counted, err := preferredCount(r)
		if err != nil {
			return err
		}
		ctx := ent.WithoutCount(r.Context())
		var pc *ent.PageCounter
		if counted && f == export.JSON {
			ctx, pc = ent.WithPageCounter(ctx)
		}
		r = r.WithContext(ctx)
		q, err := rs.readList(w, r, r.URL.RawQuery, f)
		if err != nil {
			return err
		}
		if f != export.JSON {
			return rs.export(d, w, r, q, f)
		}
		out, release, err := rs.pageJSON(r, q)
		if err != nil {
			return err
		}
		if pc != nil {
			if err := countList(w, r, pc, mode, &out); err != nil {
				release()
				return err
			}
		}
		WriteJSON(w, http.StatusOK, out)
		release()
		return nil
	})
}

// pageJSON reads and renders one page; release, once it is written, gives
// back the memory it was rendered into.
func (rs *resource[T, W, J, In]) pageJSON(r *http.Request, q listQuery[W]) (_ listJSON, release func(), _ error) {
	rows, next, err := rs.page(r, q.where, q.page)
	if err != nil {
		return listJSON{}, nil, err
	}
	rendered, release, err := rs.renderRows(r, rows)
	if err != nil {
		return listJSON{}, nil, err
	}
	// Each element points into the representations' one slice: a J put in
	// an any directly would be copied to the heap one by one.
	out := listJSON{Data: make([]any, len(rendered))}
	for i := range rendered {
		out.Data[i] = &rendered[i]
	}
	if next != nil {
		out.HasMore, out.NextCursor = true, encodeCursor(q.page.key, next)
	}
	return out, release, nil
}

// renderRows renders the rows of a page: through renderPage when the
// resource has one, else one by one through render. release (never nil),
// once they are written, gives back the memory they were rendered into.
func (rs *resource[T, W, J, In]) renderRows(r *http.Request, rows []T) (_ []J, release func(), _ error) {
	if rs.renderPage != nil {
		out, release, err := rs.renderPage(r, rows)
		if release == nil {
			release = func() {}
		}
		return out, release, err
	}
	return eachRow(rs.render)(r, rows)
}

// eachRow renders a page row by row with render, into one slice.
func eachRow[T, J any](render func(*http.Request, T) J) func(*http.Request, []T) ([]J, func(), error) {
	return func(r *http.Request, rows []T) ([]J, func(), error) {
		out := make([]J, len(rows))
		for i, v := range rows {
			out[i] = render(r, v)
		}
		return out, func() {}, nil
	}
}

// get answers GET /v1/<resources>/{id}: 404 for an id that is malformed, of
// another type or unknown; 304 when If-None-Match holds the current ETag;
// otherwise the resource with its ETag.
func (rs *resource[T, W, J, In]) get(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, rs.prefix, rs.what)
		if err != nil {
			return err
		}
		v, err := rs.load(r.Context(), id)
		if ent.IsNotFound(err) {
			return apperr.NotFound("%s %s not found", rs.what, id)
		}
		if err != nil {
			return err
		}
		tag := rs.etag(v)
		if notModified(w, r, tag) {
			return nil
		}
		writeResource(w, http.StatusOK, tag, rs.render(r, v))
		return nil
	})
}

// post answers POST /v1/<resources>: 201 with the new resource and its
// Location.
func (rs *resource[T, W, J, In]) post(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		var in In
		if _, err := d.decode(r, &in); err != nil {
			return err
		}
		ctx, memo := view.WithRenderings(r.Context())
		v, err := rs.create(r.WithContext(ctx), &in)
		if err == nil && rs.reload {
			id, _ := rs.key(v)
			v, err = reloaded(ctx, memo, id, rs.load)
		}
		if err != nil {
			return rs.renamed(err)
		}
		id, _ := rs.key(v)
		w.Header().Set("Location", r.URL.Path+"/"+string(id))
		writeResource(w, http.StatusCreated, rs.etag(v), rs.render(r, v))
		return nil
	})
}

// patch answers PATCH /v1/<resources>/{id}: only the members given change,
// null clears an optional one; If-Match makes the change conditional on the
// revision (412 when it moved on).
func (rs *resource[T, W, J, In]) patch(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, rs.prefix, rs.what)
		if err != nil {
			return err
		}
		rev, err := ifMatch(r)
		if err != nil {
			return err
		}
		var in In
		nulls, err := d.decode(r, &in)
		if err != nil {
			return err
		}
		ctx, memo := view.WithRenderings(r.Context())
		v, err := rs.update(r.WithContext(ctx), id, &in, nulls, rev)
		if err == nil && rs.reload {
			v, err = reloaded(ctx, memo, id, rs.load)
		}
		if err != nil {
			return rs.renamed(err)
		}
		writeResource(w, http.StatusOK, rs.etag(v), rs.render(r, v))
		return nil
	})
}

// del answers DELETE /v1/<resources>/{id} with 204.
func (rs *resource[T, W, J, In]) del(d Deps) http.Handler {
	return d.handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, rs.prefix, rs.what)
		if err != nil {
			return err
		}
		if err := rs.remove(r.Context(), id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}

func (rs *resource[T, W, J, In]) etag(v T) string {
	if _, rev := rs.key(v); rev > 0 {
		return etag(rev)
	}
	return ""
}

func (rs *resource[T, W, J, In]) renamed(err error) error {
	if rs.names == nil {
		return err
	}
	return renamed(err, rs.names)
}

// nodes unpacks an ent connection for page: its rows, and the cursor after
// the last one when more follow.
func nodes[E, T any](edges []*E, info entgql.PageInfo[resourceid.ID], node func(*E) T) ([]T, *ent.Cursor, error) {
	out := make([]T, len(edges))
	for i, e := range edges {
		out[i] = node(e)
	}
	if !info.HasNextPage {
		return out, nil, nil
	}
	return out, info.EndCursor, nil
}

// plain adapts a renderer that needs nothing of the request.
func plain[T, J any](render func(T) J) func(*http.Request, T) J {
	return func(_ *http.Request, v T) J { return render(v) }
}

// orderBy turns sort keys into ent's <T>Order values. The keys come from
// the resource's filter table (Table.ParseSort refused any other), whose
// sortable fields are ent order fields: TestEverySortableFieldSorts sorts
// every list by each of them, so a key ent does not know cannot pass
// unnoticed (it would be left out here).
func orderBy[O, F any, PF interface {
	*F
	orderField
}](keys []filter.SortKey, mk func(ent.OrderDirection, PF) *O) []*O {
	out := make([]*O, 0, len(keys))
	for _, k := range keys {
		f := PF(new(F))
		if f.UnmarshalGQL(k.Field) != nil {
			continue
		}
		dir := entgql.OrderDirectionAsc
		if k.Desc {
			dir = entgql.OrderDirectionDesc
		}
		out = append(out, mk(dir, f))
	}
	return out
}

// reloaded returns the row a write's own event was rendered from inside its
// committed transaction (view.Renderings): the resource as the write
// left it, with what its representation embeds, read once instead of again
// after the commit. A write that recorded no event for id reads it with load.
func reloaded[T any](ctx context.Context, memo *view.Renderings, id resourceid.ID, load func(context.Context, resourceid.ID) (T, error)) (T, error) {
	if row, ok := memo.Row(id); ok {
		if v, ok := row.(T); ok {
			return v, nil
		}
	}
	return load(ctx, id)
}
