package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/environment"
	"logistics/internal/eventstream"
)

// WebSocket close codes a subscription connection ends with besides
// gqlgen's own (docs/subscriptions.md). Each one but CloseForbidden invites
// the client to reconnect and resume with the last sequence it received.
const (
	CloseGoingAway = 1001 // the server is shutting down
	CloseForbidden = 4403 // the API key was revoked or the session ended
	CloseTooSlow   = 4410 // the client read too slowly: its buffer filled
	CloseInternal  = 1011 // the event log could not be read
)

// streamWriteTimeout bounds one write to a subscriber's connection: a client
// that does not read for this long is disconnected.
const streamWriteTimeout = 10 * time.Second

// stream is one subscription connection (a WebSocket, or one Server-Sent
// Events response), found in the context of its subscriptions.
type stream struct {
	sse bool

	mu        sync.Mutex
	code      int    // the close code to end with (WebSocket); 0: normal
	reason    string // why, for the client
	gqlCode   string // extensions.code of the final error (SSE)
	cancel    context.CancelFunc
	closing   bool    // WebSocket: the close is scheduled
	ids       []int64 // SSE: the sequences of the payloads not written yet, in order
	lastEvent *int64  // SSE: Last-Event-ID
	// WebSocket: the subscriptions running on the connection, and the
	// error messages added for them (by extensions.code) that gqlgen has
	// not written yet. The connection closes once they are written.
	live int
	due  map[string]int
}

type streamKey struct{}

func streamFrom(ctx context.Context) *stream {
	s, _ := ctx.Value(streamKey{}).(*stream)
	return s
}

// closeWait bounds how long a WebSocket's close waits for the error
// messages of its subscriptions to be written.
const closeWait = 2 * time.Second

// end closes the connection (WebSocket) or marks the end of the response
// (SSE) with code and reason; the first reason wins. On the WebSocket the
// close waits (up to closeWait) until the error messages already added for
// the client are written, and with all until every subscription of the
// connection has ended and said why: a client told only by the close
// cannot know which subscriptions ended, and graphql-ws would resubscribe
// them by itself as first sent, with a stale after:.
func (s *stream) end(code int, gqlCode, reason string, all bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.code == 0 {
		s.code, s.gqlCode, s.reason = code, gqlCode, reason
	}
	cancel := s.cancel
	scheduled := s.closing
	s.closing = true
	s.mu.Unlock()
	if s.sse || cancel == nil || scheduled {
		return
	}
	go func() {
		deadline := time.Now().Add(closeWait)
		for !s.settled(all) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
}

// settled reports whether every error message added has been written and,
// with all, no subscription is running.
func (s *stream) settled(all bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.due) == 0 && (!all || s.live == 0)
}

// started and stopped count a WebSocket's running subscriptions.
func (s *stream) started() {
	if s == nil || s.sse {
		return
	}
	s.mu.Lock()
	s.live++
	s.mu.Unlock()
}

func (s *stream) stopped() {
	if s == nil || s.sse {
		return
	}
	s.mu.Lock()
	s.live--
	s.mu.Unlock()
}

// owe records an error message added for the client (WebSocket), and paid
// its writing: gqlgen writes it after the subscription's channel closed.
func (s *stream) owe(gqlCode string) {
	s.mu.Lock()
	if s.due == nil {
		s.due = map[string]int{}
	}
	s.due[gqlCode]++
	s.mu.Unlock()
}

func (s *stream) paid(data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for code := range s.due {
		if bytes.Contains(data, []byte(`"code":"`+code+`"`)) {
			if s.due[code]--; s.due[code] == 0 {
				delete(s.due, code)
			}
			return
		}
	}
}

// sent records, on SSE, the sequence of the payload about to be handed to
// gqlgen: the response writer puts it in the event's id: line.
func (s *stream) sent(seq int64) {
	if s == nil || !s.sse {
		return
	}
	s.mu.Lock()
	s.ids = append(s.ids, seq)
	s.mu.Unlock()
}

func (s *stream) nextID() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ids) == 0 {
		return 0, false
	}
	id := s.ids[0]
	s.ids = s.ids[1:]
	return id, true
}

// streamMutations refuses a mutation sent over a WebSocket or as a
// GraphQL-over-SSE request, before it executes (whatever the caller's
// scopes). The streaming transports read an operation's responses until it
// has no more, which a mutation cannot serve: entgql's Transactioner,
// asked for a second response after committing the first, failed with a
// panic, and a client retrying on that error wrote twice. A mutation is one
// request with one answer, in one transaction: HTTP POST. Queries over the
// streams are still served.
type streamMutations struct{}

// reasonStreamMutation is the error's code before the presenter, which
// keeps it as extensions.reason under code BAD_USER_INPUT.
const reasonStreamMutation = "METHOD_NOT_ALLOWED"

// On the WebSocket every error found before execution (a document that
// does not parse or validate, a limit, a mutation) is an `error` message,
// as graphql-transport-ws specifies and graphql-ws hands to the
// subscriber's error callback, not a `next` with errors then `complete`.
// gqlgen tells them by the code of the errors after the presenter, which
// has made it BAD_USER_INPUT by then (errors.go).
func init() { errcode.RegisterErrorType("BAD_USER_INPUT", errcode.KindProtocol) }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = streamMutations{}

func (streamMutations) ExtensionName() string                   { return "StreamMutations" }
func (streamMutations) Validate(graphql.ExecutableSchema) error { return nil }

func (streamMutations) MutateOperationContext(ctx context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	if streamFrom(ctx) == nil || rc.Operation == nil || rc.Operation.Operation != ast.Mutation {
		return nil
	}
	return &gqlerror.Error{
		Message:    "mutations are sent over HTTP POST (Content-Type: application/json), not over a WebSocket or Server-Sent Events, which carry subscriptions and queries; nothing was executed",
		Extensions: map[string]any{"code": reasonStreamMutation},
	}
}

// ---- WebSocket ----

// wsTransport is gqlgen's WebSocket transport (graphql-transport-ws, and
// the older graphql-ws) with our connection: origins checked, the
// connection_init payload authenticated, writes bounded in time, and our
// close codes.
type wsTransport struct {
	gqltransport.Websocket
	broker *eventstream.Broker
	allow  func(origin string) bool
}

func newWSTransport(opt Options) wsTransport {
	t := wsTransport{broker: opt.Streams, allow: opt.AllowOrigin}
	t.Websocket = gqltransport.Websocket{
		Implementation:        wsImpl{},
		KeepAlivePingInterval: opt.KeepAlive,
		PingPongInterval:      opt.KeepAlive,
		InitTimeout:           10 * time.Second,
		PayloadReadLimit:      &opt.MaxBodyBytes, // a subscribe message is a request body
		InitFunc: func(ctx context.Context, p gqltransport.InitPayload) (context.Context, *gqltransport.InitPayload, error) {
			if auth.FromContext(ctx) != nil {
				return ctx, nil, nil // the upgrade carried a key or the session cookie
			}
			h := p.Authorization()
			if h == "" {
				if v, ok := p["authorization"].(string); ok {
					h = v
				}
			}
			if h == "" {
				return gqltransport.WithWebsocketCloseCode(ctx, 4401), nil, errors.New("unauthorized: send Authorization: Bearer <API key> in the connection_init payload, or sign in to the console")
			}
			if opt.Authenticator == nil {
				return gqltransport.WithWebsocketCloseCode(ctx, 4401), nil, errors.New("unauthorized")
			}
			ctx2, err := opt.Authenticator.AuthenticateHeader(ctx, h)
			if err != nil {
				return gqltransport.WithWebsocketCloseCode(ctx, 4401), nil, errors.New("unauthorized: " + apperr.From(err).Message)
			}
			return ctx2, nil, nil
		},
	}
	return t
}

func (t wsTransport) Supports(r *http.Request) bool { return auth.IsWebSocketUpgrade(r) }

func (t wsTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	// Refused before gqlgen's upgrade, which would log and answer again.
	if !originAllowed(r, t.allow) {
		apperr.Write(w, r, nil, apperr.Forbidden("cross_origin", "WebSocket connections from %s are not accepted: add that origin to %s", r.Header.Get("Origin"), auth.OriginsSetting))
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	st := &stream{cancel: cancel}
	ctx = context.WithValue(ctx, streamKey{}, st)
	ctx = eventstream.WithTransport(ctx, "websocket")
	if t.broker != nil {
		done := t.broker.Track()
		defer done()
		go func() {
			select {
			case <-t.broker.Closing():
				// Each subscription ends with its own error message
				// (endStream); the close follows them.
				st.end(CloseGoingAway, "SHUTTING_DOWN", eventstream.ErrShutdown.Error(), true)
			case <-ctx.Done():
			}
		}()
	}
	t.Websocket.Do(w, r.WithContext(ctx), exec)
}

// wsImpl accepts the WebSocket with coder/websocket.
type wsImpl struct{}

func (wsImpl) Accept(w http.ResponseWriter, r *http.Request, o gqltransport.WebsocketAcceptOptions) (gqltransport.WebsocketConn, error) {
	for k, vs := range o.ResponseHeader {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	c, err := coderws.Accept(w, r, &coderws.AcceptOptions{Subprotocols: o.Subprotocols, InsecureSkipVerify: true})
	if err != nil {
		return nil, err
	}
	return &wsConn{c: c, st: streamFrom(r.Context())}, nil
}

// originAllowed: a request without Origin (not a browser) passes; a
// browser's Origin must be the environment's own address, the request's
// host, or one allow accepts.
func originAllowed(r *http.Request, allow func(string) bool) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	if allow != nil && allow(o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	if env := environment.FromContext(r.Context()); env != nil &&
		strings.EqualFold(u.Scheme+"://"+u.Host, env.BaseURL.Scheme+"://"+env.BaseURL.Host) {
		return true
	}
	return strings.EqualFold(u.Host, r.Host)
}

type wsConn struct {
	c  *coderws.Conn
	st *stream

	mu      sync.Mutex
	closing bool
	errored map[string]bool // operations that got an error message
}

// Close drops the connection, unless WriteClose started the close handshake
// (which then closes it: dropping it now would lose the close frame).
func (c *wsConn) Close() error {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return nil
	}
	return c.c.CloseNow()
}

func (c *wsConn) NextReader() (int, io.Reader, error) {
	typ, data, err := c.c.Read(context.Background())
	if err != nil {
		switch coderws.CloseStatus(err) {
		case coderws.StatusNormalClosure, coderws.StatusNoStatusRcvd, coderws.StatusGoingAway:
			return int(typ), nil, gqltransport.ErrWebsocketClosed
		}
		return int(typ), nil, err
	}
	if c.hasErrored() {
		// An operation id may be used again once its operation ended.
		var m struct{ ID string }
		if json.Unmarshal(data, &m) == nil && m.ID != "" {
			c.mu.Lock()
			delete(c.errored, m.ID)
			c.mu.Unlock()
		}
	}
	return int(typ), bytes.NewReader(data), nil
}

func (c *wsConn) hasErrored() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.errored) > 0
}

// Both subprotocols' messages encode as {"payload":…,"id":…,"type":…}.
var (
	wsErrorEnd    = []byte(`"type":"error"}`)
	wsCompleteEnd = []byte(`"type":"complete"}`)
)

func (c *wsConn) WriteJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// An error message ends its operation: gqlgen follows the one it sends
	// for an operation refused before execution with a complete, which
	// neither subprotocol allows. It is dropped here.
	isError := false
	switch {
	case bytes.HasSuffix(data, wsErrorEnd):
		isError = true
		var m struct{ ID string }
		if json.Unmarshal(data, &m) == nil && m.ID != "" {
			c.mu.Lock()
			if c.errored == nil {
				c.errored = map[string]bool{}
			}
			c.errored[m.ID] = true
			c.mu.Unlock()
		}
	case bytes.HasSuffix(data, wsCompleteEnd):
		var m struct{ ID string }
		if json.Unmarshal(data, &m) == nil {
			c.mu.Lock()
			drop := c.errored[m.ID]
			delete(c.errored, m.ID)
			c.mu.Unlock()
			if drop {
				return nil
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), streamWriteTimeout)
	defer cancel()
	// On time-out coder/websocket closes the connection: a client that
	// does not read is disconnected (it resumes by sequence).
	err = c.c.Write(ctx, coderws.MessageText, data)
	if isError && c.st != nil {
		c.st.paid(data) // written (or never will be): the close may follow
	}
	return err
}

// WriteClose sends the close frame, with our code when the stream ended
// for one of our reasons, in the background (the handshake may wait for a
// peer that is gone).
func (c *wsConn) WriteClose(code int, msg string) error {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil
	}
	c.closing = true
	c.mu.Unlock()
	if c.st != nil {
		c.st.mu.Lock()
		if c.st.code != 0 {
			code, msg = c.st.code, c.st.reason
		}
		c.st.mu.Unlock()
	}
	if len(msg) > 120 { // a close frame's reason is at most 123 bytes
		msg = msg[:120]
	}
	go func() { _ = c.c.Close(coderws.StatusCode(code), msg) }()
	return nil
}

func (c *wsConn) Subprotocol() string { return c.c.Subprotocol() }

func (c *wsConn) SetReadLimit(n int64) { c.c.SetReadLimit(n) }

// ---- Server-Sent Events ----

// sseTransport is gqlgen's GraphQL-over-SSE transport (POST, Accept:
// text/event-stream) with an id: line on each event (its sequence, for
// Last-Event-ID), a final error event when the stream ends for one of our
// reasons, and writes bounded in time.
type sseTransport struct {
	gqltransport.SSE
	broker *eventstream.Broker
}

// Supports takes a POST only when the client prefers an event stream to a
// JSON answer. urql and other fetch clients send every operation with
// `Accept: application/graphql-response+json, …, text/event-stream`, ready
// for either: their queries and mutations are answered as one JSON
// response by the POST transport, which runs a mutation once in its
// transaction. graphql-sse asks for text/event-stream alone.
func (t sseTransport) Supports(r *http.Request) bool {
	return t.SSE.Supports(r) && prefersEventStream(r.Header.Get("Accept"))
}

// prefersEventStream reports whether text/event-stream ranks above every
// JSON media type in accept: by q, then by the order listed.
func prefersEventStream(accept string) bool {
	streamQ, jsonQ := 0.0, 0.0
	streamAt, jsonAt := -1, -1
	i := 0
	for part := range strings.SplitSeq(accept, ",") {
		mt, p, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := p["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				q = 0
			}
		}
		switch mt {
		case "text/event-stream":
			if q > streamQ {
				streamQ, streamAt = q, i
			}
		case mediaJSON, mediaGraphQLResponse, "application/graphql+json":
			if q > jsonQ {
				jsonQ, jsonAt = q, i
			}
		}
		i++
	}
	if streamAt < 0 || streamQ <= 0 {
		return false
	}
	return jsonAt < 0 || streamQ > jsonQ || (streamQ == jsonQ && streamAt < jsonAt)
}

func (t sseTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	st := &stream{sse: true, cancel: cancel}
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			st.lastEvent = &n
		}
	}
	ctx = context.WithValue(ctx, streamKey{}, st)
	ctx = eventstream.WithTransport(ctx, "sse")
	if t.broker != nil {
		done := t.broker.Track()
		defer done()
	}
	sw := &sseWriter{ResponseWriter: w, st: st, rc: http.NewResponseController(w)}
	t.SSE.Do(sw, r.WithContext(ctx), exec)
}

// sseWriter rewrites gqlgen's SSE frames (each is one Write).
type sseWriter struct {
	http.ResponseWriter
	st *stream
	rc *http.ResponseController
}

var (
	sseNext     = []byte("event: next\n")
	sseComplete = []byte("event: complete\n")
)

func (w *sseWriter) Write(b []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	n := len(b)
	switch {
	case bytes.HasPrefix(b, sseNext):
		if id, ok := w.st.nextID(); ok {
			b = append([]byte("id: "+strconv.FormatInt(id, 10)+"\n"), b...)
		}
	case bytes.HasPrefix(b, sseComplete):
		w.st.mu.Lock()
		code, reason := w.st.gqlCode, w.st.reason
		w.st.mu.Unlock()
		if code != "" {
			msg, _ := json.Marshal(map[string]any{"errors": []any{map[string]any{
				"message": reason, "extensions": map[string]any{"code": code}}}})
			b = append(append(append([]byte("event: next\ndata: "), msg...), "\n\n"...), b...)
		}
	}
	if _, err := w.ResponseWriter.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}

func (w *sseWriter) Flush() { _ = w.rc.Flush() }

func (w *sseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
