package rest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"logistics/ent"
	"logistics/ent/idempotencykey"
	"logistics/internal/apperr"
	"logistics/internal/auth"
)

// staleAfter is how long a first request may run before a retry with the
// same key may take its place (the first one's process is presumed dead).
const staleAfter = 2 * time.Minute

// keepKeys is how long a key is remembered: a key older than that is free
// again, and expired keys are deleted (at most every sweepEvery per
// environment and instance, by the request that claims a new key).
const (
	keepKeys   = 24 * time.Hour
	sweepEvery = 10 * time.Minute
)

// keySweeper decides when the expired keys of one environment are deleted.
type keySweeper struct {
	mu   sync.Mutex
	last time.Time
}

func (s *keySweeper) due(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.last) < sweepEvery {
		return false
	}
	s.last = now
	return true
}

// idempotent makes a POST honour Idempotency-Key: the first request with a
// key claims it (a unique row per caller and key in the environment's
// database) and its response is stored; a retry with the same body gets that
// response again, marked Idempotent-Replayed: true; the same key with another
// body or path is a 422 (idempotency_key_reused); a retry while the first is
// still running is a 409 (idempotency_key_in_progress). Responses of 500 and
// above are not stored, so they can be retried.
func (d Deps) idempotent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		if len(key) > 255 || !printableASCII(key) {
			d.fail(w, r, apperr.Invalid("Idempotency-Key", "must be 1 to 255 printable ASCII characters"))
			return
		}
		body, err := d.readBody(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		r.Body = readCloser{bytes.NewReader(body)}
		sum := sha256.Sum256([]byte(r.Method + " " + r.URL.Path + "\n" + string(body)))
		hash := hex.EncodeToString(sum[:])
		principal := "anonymous"
		if p := auth.FromContext(r.Context()); p != nil && p.ID != "" {
			principal = p.ID
		}
		ctx := r.Context()
		c := ent.FromContext(ctx)
		var row *ent.IdempotencyKey
		for attempt := 0; ; attempt++ {
			row, err = c.IdempotencyKey.Create().
				SetPrincipal(principal).SetKey(key).SetMethod(r.Method).SetPath(storedPath(r.URL.Path)).
				SetRequestHash(hash).SetStatus(0).Save(ctx)
			if err == nil {
				if d.sweeper != nil && d.sweeper.due(time.Now()) {
					if _, err := c.IdempotencyKey.Delete().Where(idempotencykey.CreatedAtLT(time.Now().Add(-keepKeys))).Exec(ctx); err != nil {
						d.Log.WarnContext(ctx, "idempotency: deleting expired keys failed", "err", err)
					}
				}
				break
			}
			if !ent.IsConstraintError(err) || attempt > 0 {
				d.fail(w, r, err)
				return
			}
			prev, err := c.IdempotencyKey.Query().
				Where(idempotencykey.Principal(principal), idempotencykey.Key(key)).Only(ctx)
			if ent.IsNotFound(err) {
				continue // deleted meanwhile: claim it
			}
			if err != nil {
				d.fail(w, r, err)
				return
			}
			if time.Since(prev.CreatedAt) > keepKeys {
				// Expired: the key is free again.
				if _, err := c.IdempotencyKey.Delete().Where(idempotencykey.ID(prev.ID)).Exec(ctx); err != nil {
					d.fail(w, r, err)
					return
				}
				continue
			}
			if prev.RequestHash != hash {
				d.fail(w, r, apperr.Validation(apperr.FieldError{Field: "Idempotency-Key", Message: "was already used with a different request: use a new key for a new request"}).
					WithCode("idempotency_key_reused"))
				return
			}
			if prev.Status == 0 {
				if time.Since(prev.CreatedAt) < staleAfter {
					d.fail(w, r, apperr.Conflict("idempotency_key_in_progress", "a request with this Idempotency-Key is still being processed: retry later").
						WithHeader("Retry-After", "1"))
					return
				}
				// The first request never finished: take over its key.
				if _, err := c.IdempotencyKey.Delete().Where(idempotencykey.ID(prev.ID), idempotencykey.Status(0)).Exec(ctx); err != nil {
					d.fail(w, r, err)
					return
				}
				continue
			}
			if prev.ContentType != "" {
				w.Header().Set("Content-Type", prev.ContentType)
			}
			d.replayHeaders(w, r, prev)
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(prev.Status)
			_, _ = w.Write(prev.Body)
			return
		}
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status >= 500 {
			_ = c.IdempotencyKey.DeleteOneID(row.ID).Exec(ctx)
		} else if err := c.IdempotencyKey.UpdateOneID(row.ID).SetStatus(rec.status).
			SetContentType(rec.header.Get("Content-Type")).SetBody(rec.body.Bytes()).Exec(ctx); err != nil {
			d.Log.ErrorContext(ctx, "idempotency: storing the response failed", "err", err)
		}
		for k, vs := range rec.header {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body.Bytes())
	})
}

// replayHeaders restores the ETag and Location of a stored 201 from its body.
func (d Deps) replayHeaders(w http.ResponseWriter, r *http.Request, prev *ent.IdempotencyKey) {
	if prev.Status != http.StatusCreated {
		return
	}
	var res struct {
		ID       string `json:"id"`
		Revision int    `json:"revision"`
	}
	if json.Unmarshal(prev.Body, &res) != nil || res.ID == "" {
		return
	}
	if res.Revision > 0 {
		w.Header().Set("ETag", etag(res.Revision))
	}
	if strings.HasSuffix(r.URL.Path, "/lines") {
		w.Header().Set("Location", d.prefix+"/v1/order-lines/"+res.ID)
	} else {
		w.Header().Set("Location", r.URL.Path+"/"+res.ID)
	}
}

// storedPath is the path as the database can store it (valid UTF-8, no NUL,
// at most 2048 bytes); the request hash still covers the exact path.
func storedPath(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "?")
	if len(s) > 2048 {
		s = strings.ToValidUTF8(s[:2048], "")
	}
	return s
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// recorder buffers a response so it can be stored before it is sent.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
