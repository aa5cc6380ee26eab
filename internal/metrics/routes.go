package metrics

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Interfaces a route belongs to (the interface label).
const (
	REST       = "rest"
	GraphQL    = "graphql"
	Console    = "console"
	Playground = "playground"
	Other      = "other" // landing page, docs, icon, not found
)

// InterfaceOf is the interface of a route path below an environment's base
// path ("/v1/hubs/{id}", "/graphql", "/console/").
func InterfaceOf(route string) string {
	switch {
	case route == "/graphql":
		return GraphQL
	case route == "/v1" || strings.HasPrefix(route, "/v1/"):
		return REST
	case route == "/console" || strings.HasPrefix(route, "/console/"):
		return Console
	case route == "/playground" || strings.HasPrefix(route, "/playground/"):
		return Playground
	}
	return Other
}

// methods are the method label's values; any other method is "_OTHER"
// (OpenTelemetry's convention), so a client cannot mint series.
var methods = [...]string{"_OTHER", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

func methodIndex(m string) int {
	switch m {
	case http.MethodGet:
		return 1
	case http.MethodHead:
		return 2
	case http.MethodPost:
		return 3
	case http.MethodPut:
		return 4
	case http.MethodPatch:
		return 5
	case http.MethodDelete:
		return 6
	case http.MethodOptions:
		return 7
	}
	return 0
}

// Method is the method label of m: itself when it is a standard method the
// API answers, "_OTHER" otherwise.
func Method(m string) string { return methods[methodIndex(m)] }

// statusClasses are the status_class label's values.
var statusClasses = [...]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

func classIndex(status int) int {
	if c := status / 100; c >= 1 && c <= 5 {
		return c
	}
	return 0
}

// Operation is a GraphQL request's operation type (the operation label).
type Operation uint32

// The operation label's values. OpNone: not GraphQL, or a GraphQL request
// refused before an operation was known (credentials, body, syntax,
// validation).
const (
	OpNone Operation = iota
	OpQuery
	OpMutation
	OpSubscription
	// OpWebSocket is a graphql-transport-ws connection: its duration is the
	// connection's, whatever operations it carried.
	OpWebSocket
	nOps
)

var operations = [nOps]string{"", "query", "mutation", "subscription", "websocket"}

// OperationOf maps gqlparser's operation names ("query", …) to Operation.
func OperationOf(op string) Operation {
	switch op {
	case "query":
		return OpQuery
	case "mutation":
		return OpMutation
	case "subscription":
		return OpSubscription
	}
	return OpNone
}

// cell is one label set's child of the duration histogram.
type cell struct{ obs prometheus.Observer }

// Route is one route of one environment: its request series, resolved
// once per method, status class and operation on first use, so a request
// costs an atomic load and one observation — no label hashing, no
// allocation (BenchmarkRoute).
type Route struct {
	env, iface, path string
	vec              prometheus.ObserverVec // curried with environment, interface, route
	ops              int                    // nOps for GraphQL, else 1
	cells            []atomic.Pointer[cell] // [method][class][op]
	mu               sync.Mutex             // resolving a cell
}

// Environment, Interface and Path are the route's labels.
func (rt *Route) Environment() string { return rt.env }
func (rt *Route) Interface() string   { return rt.iface }
func (rt *Route) Path() string        { return rt.path }

// Observe records one request of the route that ended with status after d.
func (rt *Route) Observe(method string, status int, op Operation, d time.Duration) {
	if int(op) >= rt.ops {
		op = OpNone
	}
	i := (methodIndex(method)*len(statusClasses)+classIndex(status))*rt.ops + int(op)
	c := rt.cells[i].Load()
	if c == nil {
		c = rt.resolve(i)
	}
	c.obs.Observe(d.Seconds())
}

func (rt *Route) resolve(i int) *cell {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if c := rt.cells[i].Load(); c != nil {
		return c
	}
	op := i % rt.ops
	class := (i / rt.ops) % len(statusClasses)
	m := i / rt.ops / len(statusClasses)
	c := &cell{obs: rt.vec.WithLabelValues(methods[m], statusClasses[class], operations[op])}
	rt.cells[i].Store(c)
	return c
}

// Routes are one environment's routes, found by route path or by the
// pattern of the http.ServeMux that matched a request.
type Routes struct {
	reg    *Registry
	env    string
	prefix string // the environment's base path, cut from patterns

	mu     sync.RWMutex
	byPath map[string]*Route
	byPat  map[string]*Route
}

// Routes returns environment env's routes; base is its base path ("" or
// "/sandbox"), which patterns start with.
func (r *Registry) Routes(env, base string) *Routes {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rs, ok := r.routes[env]; ok {
		return rs
	}
	rs := &Routes{reg: r, env: env, prefix: strings.TrimSuffix(base, "/"), byPath: map[string]*Route{}, byPat: map[string]*Route{}}
	r.routes[env] = rs
	return rs
}

// Route returns the route of path (below the base path: "/v1/hubs/{id}").
func (rs *Routes) Route(path string) *Route {
	rs.mu.RLock()
	rt := rs.byPath[path]
	rs.mu.RUnlock()
	if rt != nil {
		return rt
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.routeLocked(path)
}

func (rs *Routes) routeLocked(path string) *Route {
	if rt := rs.byPath[path]; rt != nil {
		return rt
	}
	iface := InterfaceOf(path)
	ops := 1
	if iface == GraphQL {
		ops = int(nOps)
	}
	rt := &Route{env: rs.env, iface: iface, path: path, ops: ops,
		vec:   rs.reg.durations.MustCurryWith(prometheus.Labels{"environment": rs.env, "interface": iface, "route": path}),
		cells: make([]atomic.Pointer[cell], len(methods)*len(statusClasses)*ops)}
	rs.byPath[path] = rt
	return rt
}

// Pattern returns the route of a ServeMux pattern that matched a request
// (http.Request.Pattern: "GET /sandbox/v1/hubs/{id}"): its path without the
// method and the base path. Patterns are the handlers registered, so the
// routes are as many; a raw request path never becomes a label.
func (rs *Routes) Pattern(pattern string) *Route {
	rs.mu.RLock()
	rt := rs.byPat[pattern]
	rs.mu.RUnlock()
	if rt != nil {
		return rt
	}
	path := pattern
	if i := strings.IndexByte(path, ' '); i >= 0 {
		path = strings.TrimLeft(path[i+1:], " ")
	}
	if i := strings.IndexByte(path, '/'); i > 0 {
		path = path[i:] // a host in the pattern
	}
	if rs.prefix != "" && strings.HasPrefix(path, rs.prefix) {
		path = path[len(rs.prefix):]
		if path == "" || path[0] != '/' {
			path = "/" + path
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rt = rs.routeLocked(path)
	rs.byPat[pattern] = rt
	return rt
}

// Request is what the middleware learns while a request is served beyond
// its status: the GraphQL operation type, set from the request's context by
// GraphQLOperations.
type Request struct{ op atomic.Uint32 }

// SetOperation records the request's operation type.
func (q *Request) SetOperation(op Operation) { q.op.Store(uint32(op)) }

// Operation is the operation type recorded (OpNone: none).
func (q *Request) Operation() Operation { return Operation(q.op.Load()) }

type requestKey struct{}

// WithRequest returns ctx carrying q, where GraphQLOperations finds it.
func WithRequest(ctx context.Context, q *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, q)
}

// RequestOf returns the Request that ctx carries, or nil.
func RequestOf(ctx context.Context) *Request {
	q, _ := ctx.Value(requestKey{}).(*Request)
	return q
}
