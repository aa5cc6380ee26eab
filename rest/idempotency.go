package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"logistics/ent"
	"logistics/ent/idempotencykey"
	"logistics/internal/apperr"
	"logistics/internal/auth"
	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/eventlog"
)

// legacyStaleAfter applies only to keys claimed by a version of the service
// before claims were transactional (a committed row with status 0): such a
// claim may be taken over once it is this old.
const legacyStaleAfter = 2 * time.Minute

// duplicateWait is how long a request waits for another request with the
// same key that is still running, before answering 409
// idempotency_key_in_progress. On PostgreSQL it is the lock_timeout of the
// claim's INSERT (the unique index makes it wait for the first transaction);
// on SQLite the write lock's busy timeout (10 s, internal/database) plays
// the same part.
const duplicateWait = 10 * time.Second

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

// errKeyTaken: another request claimed the key first; read it again. On
// SQLite that request may be a member of the same group of writers, whose
// rows this transaction saw but readers do not until the group's COMMIT
// (internal/database/gate.go, at most groupAge later): the key is looked
// up again after a short wait (takenRetry), until duplicateWait.
var errKeyTaken = errors.New("idempotency key taken")

// idempotent makes a POST honour Idempotency-Key. The key, the request's
// fingerprint and the response commit in the same database transaction as
// the write itself, so a crash at any point leaves either nothing (the
// retry runs the request) or the write with its response (the retry
// replays it); never a write without its response.
//
//   - The first request with a key opens a transaction, inserts the key
//     (unique per caller), runs the handler inside that transaction (the
//     service layer joins it: see service.WithTx) into a buffer, stores
//     status, content type and body in the key's row, commits, and only
//     then sends the response.
//   - A retry with the same method, path and body gets the stored response,
//     marked Idempotent-Replayed: true. The same key with another request is
//     a 422 (idempotency_key_reused).
//   - A duplicate sent while the first is still running waits for it (its
//     INSERT blocks on the unique key until the first commits or rolls
//     back), then replays the response or runs itself. After duplicateWait
//     it gives up with a 409 (idempotency_key_in_progress, Retry-After: 1).
//   - A response of 400 or above rolls the transaction back and stores
//     nothing: nothing was written, so a retry runs the request again.
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
		k := claim{principal: "anonymous", key: key, hash: hex.EncodeToString(sum[:])}
		if p := auth.FromContext(r.Context()); p != nil && p.ID != "" {
			k.principal = p.ID
		}
		ctx := r.Context()
		c := ent.FromContext(ctx)
		deadline := time.Now().Add(duplicateWait)
		for time.Now().Before(deadline) {
			prev, err := c.IdempotencyKey.Query().
				Where(idempotencykey.Principal(k.principal), idempotencykey.Key(k.key)).Only(ctx)
			if ent.IsNotFound(err) {
				err = d.runClaimed(w, r, next, k)
				if errors.Is(err, errKeyTaken) {
					// Claimed by a duplicate meanwhile: replay it once its
					// commit is visible.
					if err := sleepCtx(ctx, takenRetry); err != nil {
						d.fail(w, r, err)
						return
					}
					continue
				}
				if err != nil {
					d.fail(w, r, err)
				}
				return
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
			if prev.RequestHash != k.hash {
				d.fail(w, r, apperr.Validation(apperr.FieldError{Field: "Idempotency-Key", Message: "was already used with a different request: use a new key for a new request"}).
					WithCode("idempotency_key_reused"))
				return
			}
			if prev.Status == 0 {
				// A claim committed by an older version of the service.
				if time.Since(prev.CreatedAt) < legacyStaleAfter {
					d.fail(w, r, inProgress())
					return
				}
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
			database.Replayed(ctx)
			w.WriteHeader(prev.Status)
			_, _ = w.Write(prev.Body)
			return
		}
		d.fail(w, r, inProgress())
	})
}

// takenRetry is how long a request whose claim met a duplicate's waits
// before it looks the key up again.
const takenRetry = 2 * time.Millisecond

// sleepCtx waits d, or until ctx ends (its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// claim is one keyed request: who sent it, the key, and the fingerprint of
// method, path and body.
type claim struct{ principal, key, hash string }

func inProgress() error {
	return apperr.Conflict("idempotency_key_in_progress", "a request with this Idempotency-Key is still being processed: retry later").
		WithHeader("Retry-After", "1")
}

// runClaimed inserts the key, runs next and stores its response, all in one
// transaction, then sends the response. errKeyTaken means a duplicate
// committed the key first.
func (d Deps) runClaimed(w http.ResponseWriter, r *http.Request, next http.Handler, k claim) error {
	ctx := r.Context()
	tx, err := ent.FromContext(ctx).Tx(ctx)
	if err != nil {
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrBusy {
			// SQLite: every write waits for the one write lock, a running
			// duplicate's included; 10 s (the busy timeout) is enough.
			return apperr.Unavailable("the database is busy: retry later").WithHeader("Retry-After", "1")
		}
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback() // a panic or an early return: nothing stays
		}
	}()
	pg := false
	if env := environment.FromContext(ctx); env != nil && env.DB.Dialect == dialect.Postgres {
		pg = true
	}
	if pg {
		// Bound the wait behind a running duplicate (see duplicateWait); the
		// request's own statements keep the server's setting.
		if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '"+duplicateWait.String()+"'"); err != nil {
			return err
		}
	}
	row, err := tx.IdempotencyKey.Create().
		SetPrincipal(k.principal).SetKey(k.key).SetMethod(r.Method).SetPath(storedPath(r.URL.Path)).
		SetRequestHash(k.hash).SetStatus(0).Save(ctx)
	switch {
	case ent.IsConstraintError(err):
		return errKeyTaken
	case lockTimeout(err):
		return inProgress()
	case err != nil:
		return err
	}
	if pg {
		if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout TO DEFAULT"); err != nil {
			return err
		}
	}
	// eventlog.Begin: the events the handler records are numbered and written
	// at this transaction's commit, like those of service.WithTx.
	txCtx := ent.NewContext(ent.NewTxContext(eventlog.Begin(ctx, tx), tx), tx.Client())
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	next.ServeHTTP(rec, r.WithContext(txCtx))
	if rec.status >= 400 {
		// Nothing is stored and everything the handler wrote is undone.
		done = true
		_ = tx.Rollback()
		rec.send(w)
		return nil
	}
	if err := tx.IdempotencyKey.UpdateOneID(row.ID).SetStatus(rec.status).
		SetContentType(rec.header.Get("Content-Type")).SetBody(rec.body.Bytes()).Exec(ctx); err != nil {
		return err
	}
	if d.HoldBeforeCommit != "" && k.key == d.HoldBeforeCommit {
		d.Log.WarnContext(ctx, "fault injection: holding the transaction before commit", "idempotency_key", k.key)
		<-ctx.Done()
		return ctx.Err()
	}
	done = true
	if err := tx.Commit(); err != nil {
		// Committed or not, a retry finds out: it replays or runs.
		return apperr.Internal(err)
	}
	d.sweep(ctx)
	if d.HoldAfterCommit != "" && k.key == d.HoldAfterCommit {
		d.Log.WarnContext(ctx, "fault injection: holding the response after commit", "idempotency_key", k.key)
		<-ctx.Done()
		return nil
	}
	rec.send(w)
	return nil
}

// sweep deletes expired keys when this environment's sweep is due. It runs
// after the claim's commit and outside its transaction: a failure costs
// nothing but a warning.
func (d Deps) sweep(ctx context.Context) {
	if d.sweeper == nil || !d.sweeper.due(time.Now()) {
		return
	}
	if _, err := ent.FromContext(ctx).IdempotencyKey.Delete().Where(idempotencykey.CreatedAtLT(time.Now().Add(-keepKeys))).Exec(ctx); err != nil {
		d.Log.WarnContext(ctx, "idempotency: deleting expired keys failed", "err", err)
	}
}

// lockTimeout reports PostgreSQL's lock_not_available (lock_timeout hit).
func lockTimeout(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55P03"
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

// send writes the buffered response to w.
func (r *recorder) send(w http.ResponseWriter) {
	for k, vs := range r.header {
		w.Header()[k] = vs
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}
