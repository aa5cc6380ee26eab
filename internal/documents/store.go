package documents

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"logistics/ent"
	"logistics/ent/trusteddocument"
	"logistics/internal/apperr"
	"logistics/internal/database"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/service"
)

// DefaultCacheTTL is how long an instance answers a lookup from memory
// before it reads the database again: a document retired through another
// instance may still run for this long there (the instance that retires it
// forgets it at once).
const DefaultCacheTTL = 10 * time.Second

// maxCached bounds the lookup cache: a flood of random hashes (each a
// negative entry) empties it rather than growing it.
const maxCached = 10_000

// Store registers, lists, retires and looks up the trusted documents of the
// request's environment (ent.FromContext: each environment's own database).
// The database is the truth; lookups are cached in memory for TTL.
type Store struct {
	TTL time.Duration // 0: DefaultCacheTTL; negative: every lookup reads the database
	now func() time.Time

	mu    sync.Mutex
	cache map[cacheKey]cached
	// Lookups counts the lookups that read the database (tests).
	Lookups int64
}

type cacheKey struct{ env, key string }

type cached struct {
	body    string // "" when the key is not trusted
	expires time.Time
}

// NewStore returns a store whose lookups are cached for ttl.
func NewStore(ttl time.Duration) *Store {
	if ttl == 0 {
		ttl = DefaultCacheTTL
	}
	return &Store{TTL: ttl, now: time.Now, cache: map[cacheKey]cached{}}
}

// Client names who registers a manifest: the app and its version.
type Client struct{ Name, Version string }

// Registered is what a registration did.
type Registered struct {
	Created     int                    `json:"created"`     // documents new to the environment
	Reactivated int                    `json:"reactivated"` // retired documents trusted again
	Unchanged   int                    `json:"unchanged"`   // documents already trusted
	Documents   []*ent.TrustedDocument `json:"-"`
}

func client(ctx context.Context) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	c := ent.FromContext(ctx)
	if c == nil {
		panic("documents: no ent client in the context (missing environment middleware)")
	}
	return c
}

// Register trusts every document of a manifest, in one transaction: all or
// nothing. A document already registered keeps its first client; a retired
// one is trusted again.
func (s *Store) Register(ctx context.Context, cl Client, docs []Document) (Registered, error) {
	var res Registered
	if len(cl.Name) > MaxClientNameLen || len(cl.Version) > MaxClientNameLen {
		return res, apperr.Invalid("client", "the client name and version may have at most %d characters", MaxClientNameLen)
	}
	if len(docs) == 0 {
		return res, invalid("the manifest holds no documents")
	}
	err := service.WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		seen := map[string]bool{}
		for start := 0; start < len(docs); start += 500 { // within both databases' parameter limits
			batch := docs[start:min(start+500, len(docs))]
			hashes := make([]string, 0, len(batch))
			for _, d := range batch {
				hashes = append(hashes, d.Hash)
			}
			existing, err := c.TrustedDocument.Query().Where(trusteddocument.HashIn(hashes...)).All(ctx)
			if err != nil {
				return err
			}
			byHash := map[string]*ent.TrustedDocument{}
			for _, e := range existing {
				byHash[e.Hash] = e
			}
			var creates []*ent.TrustedDocumentCreate
			for _, d := range batch {
				if seen[d.Hash] {
					continue // the same text twice in one manifest (Relay ids of one document)
				}
				seen[d.Hash] = true
				e := byHash[d.Hash]
				switch {
				case e == nil:
					creates = append(creates, c.TrustedDocument.Create().SetHash(d.Hash).SetBody(d.Body).
						SetOperationName(d.OperationName).SetClientName(cl.Name).SetClientVersion(cl.Version).SetAlias(d.Alias))
				case e.RetiredAt != nil:
					u := c.TrustedDocument.UpdateOne(e).ClearRetiredAt().SetClientName(cl.Name).SetClientVersion(cl.Version)
					if d.Alias != "" {
						u.SetAlias(d.Alias)
					}
					e, err = u.Save(ctx)
					if err != nil {
						return err
					}
					res.Reactivated++
					res.Documents = append(res.Documents, e)
				default:
					if d.Alias != "" && e.Alias == "" {
						if e, err = c.TrustedDocument.UpdateOne(e).SetAlias(d.Alias).Save(ctx); err != nil {
							return err
						}
					}
					res.Unchanged++
					res.Documents = append(res.Documents, e)
				}
			}
			if len(creates) > 0 {
				made, err := c.TrustedDocument.CreateBulk(creates...).Save(ctx)
				if err != nil {
					return err
				}
				res.Created += len(made)
				res.Documents = append(res.Documents, made...)
			}
		}
		return nil
	})
	if err != nil {
		return Registered{}, apperr.From(err)
	}
	s.forget(ctx) // negative entries of the new hashes
	return res, nil
}

// Retire stops trusting the document with the hash (or Relay alias): this
// instance at once, every other one within TTL. Retiring a retired
// document changes nothing.
func (s *Store) Retire(ctx context.Context, hash string) (*ent.TrustedDocument, error) {
	d, err := s.Get(ctx, hash)
	if err != nil {
		return nil, err
	}
	if d.RetiredAt == nil {
		if d, err = client(ctx).TrustedDocument.UpdateOne(d).SetRetiredAt(time.Now().UTC()).Save(ctx); err != nil {
			return nil, apperr.From(err)
		}
	}
	s.forget(ctx)
	return d, nil
}

// Get returns the document with the hash or alias, retired or not.
func (s *Store) Get(ctx context.Context, hash string) (*ent.TrustedDocument, error) {
	hash = strings.TrimPrefix(hash, "sha256:")
	if hash == "" || len(hash) > 100 {
		return nil, apperr.Invalid("hash", "is a SHA-256 hex digest of 64 characters (or a Relay id)")
	}
	d, err := client(ctx).TrustedDocument.Query().
		Where(trusteddocument.Or(trusteddocument.Hash(strings.ToLower(hash)), trusteddocument.Alias(hash))).
		First(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("no trusted document %q in this environment", truncate(hash))
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return d, nil
}

// ListOptions select a page of the list.
type ListOptions struct {
	Limit   int    // 1…500; 0: 100
	Cursor  string // Page.Next of the page before
	Client  string // only this client's documents
	Retired bool   // the retired documents too
}

// Page is a page of the list, newest first.
type Page struct {
	Documents []*ent.TrustedDocument
	Next      string // "" on the last page
}

// MaxListLimit is the largest page.
const MaxListLimit = 500

// List returns the environment's trusted documents, newest first.
func (s *Store) List(ctx context.Context, o ListOptions) (Page, error) {
	if o.Limit == 0 {
		o.Limit = 100
	}
	if o.Limit < 1 || o.Limit > MaxListLimit {
		return Page{}, apperr.Invalid("limit", "must be an integer from 1 to %d", MaxListLimit)
	}
	q := client(ctx).TrustedDocument.Query()
	if o.Cursor != "" {
		id, err := decodeCursor(o.Cursor)
		if err != nil {
			return Page{}, err
		}
		q.Where(trusteddocument.IDLT(id))
	}
	if o.Client != "" {
		q.Where(trusteddocument.ClientName(o.Client))
	}
	if !o.Retired {
		q.Where(trusteddocument.RetiredAtIsNil())
	}
	rows, err := q.Order(ent.Desc(trusteddocument.FieldID)).Limit(o.Limit + 1).All(ctx)
	if err != nil {
		return Page{}, apperr.From(err)
	}
	var p Page
	if len(rows) > o.Limit {
		rows = rows[:o.Limit]
		p.Next = EncodeCursor(rows[len(rows)-1].ID)
	}
	p.Documents = rows
	return p, nil
}

// EncodeCursor is the cursor of the page after the document with the id.
func EncodeCursor(id resourceid.ID) string {
	return base64.RawURLEncoding.EncodeToString([]byte(id))
}

func decodeCursor(c string) (resourceid.ID, error) {
	bad := apperr.Invalid("cursor", "is not a cursor returned by this list")
	if len(c) > 200 {
		return "", bad
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", bad
	}
	id, err := resourceid.Parse(string(b), resourceid.Document)
	if err != nil {
		return "", bad
	}
	return id, nil
}

// Lookup returns the text of the trusted document a request names by its
// SHA-256 hash (or Relay alias), and whether there is one. It reads the
// database at most once per TTL and key on this instance.
func (s *Store) Lookup(ctx context.Context, key string) (string, bool, error) {
	// The gate of every GraphQL request, mutations included (read before
	// the operation's type is known): never a replica's.
	ctx = database.PrimaryOnly(ctx)
	ck := cacheKey{envName(ctx), key}
	now := s.now()
	if s.TTL > 0 {
		s.mu.Lock()
		c, ok := s.cache[ck]
		s.mu.Unlock()
		if ok && now.Before(c.expires) {
			return c.body, c.body != "", nil
		}
	}
	q := client(ctx).TrustedDocument.Query().Where(trusteddocument.RetiredAtIsNil())
	if IsHash(key) {
		q.Where(trusteddocument.Hash(key))
	} else {
		q.Where(trusteddocument.Alias(key))
	}
	d, err := q.Select(trusteddocument.FieldBody).First(ctx)
	s.mu.Lock()
	s.Lookups++
	s.mu.Unlock()
	if err != nil && !ent.IsNotFound(err) {
		return "", false, err
	}
	body := ""
	if d != nil {
		body = d.Body
	}
	if s.TTL > 0 {
		s.mu.Lock()
		if len(s.cache) >= maxCached {
			clear(s.cache)
		}
		s.cache[ck] = cached{body: body, expires: now.Add(s.TTL)}
		s.mu.Unlock()
	}
	return body, body != "", nil
}

// forget drops the environment's cached lookups: after a registration (a
// hash cached as unknown is now trusted) or a retirement.
func (s *Store) forget(ctx context.Context) {
	if s == nil {
		return
	}
	env := envName(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.cache {
		if k.env == env {
			delete(s.cache, k)
		}
	}
}

func envName(ctx context.Context) string {
	if e := environment.FromContext(ctx); e != nil {
		return string(e.Name)
	}
	return ""
}
