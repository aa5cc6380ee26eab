// Package requestlog gives every request an id (X-Request-Id), logs it as one
// structured line, and turns a panic into a 500 that leaks nothing.
package requestlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"time"
)

type ctxKey struct{}

// ID returns the request id carried by ctx ("" outside a request).
func ID(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}

// WithID returns ctx carrying the request id.
func WithID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

var clientID = regexp.MustCompile(`^[A-Za-z0-9._:-]{8,128}$`)

// Middleware assigns the request id (a well-formed X-Request-Id from the
// client is kept), recovers panics, and logs each request when it ends.
// onPanic writes the response for a recovered panic.
func Middleware(log *slog.Logger, onPanic func(http.ResponseWriter, *http.Request)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Request-Id")
			if !clientID.MatchString(id) {
				var b [12]byte
				_, _ = rand.Read(b[:])
				id = "req_" + hex.EncodeToString(b[:])
			}
			w.Header().Set("X-Request-Id", id)
			ctx := WithID(r.Context(), id)
			r = r.WithContext(ctx)
			rec := &recorder{ResponseWriter: w, status: http.StatusOK}
			start := time.Now()
			defer func() {
				v := recover()
				if v == http.ErrAbortHandler {
					// A handler that ends its response on purpose (a failed
					// export): logged, then net/http closes the connection.
					defer panic(v)
				} else if v != nil {
					log.ErrorContext(ctx, "panic", "request_id", id, "panic", v, "stack", string(debug.Stack()))
					if !rec.wrote {
						onPanic(rec, r)
					}
				}
				log.LogAttrs(ctx, slog.LevelInfo, "request",
					slog.String("request_id", id),
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.Int("status", rec.status),
					slog.Int64("bytes", rec.bytes),
					slog.Duration("duration", time.Since(start)),
				)
			}()
			next.ServeHTTP(rec, r)
		})
	}
}

type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush forwards to the underlying writer when it can flush.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
