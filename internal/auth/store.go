package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"log/slog"
	"net/mail"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"golang.org/x/sync/singleflight"

	"logistics/ent"
	"logistics/ent/apitoken"
	"logistics/ent/session"
	"logistics/ent/user"
	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
)

// Store keeps users, API keys and sessions. They live in the PRODUCTION
// database whatever environment a request is for, so the store holds the
// production ent client explicitly instead of reading ent.FromContext.
type Store struct {
	client *ent.Client
	log    *slog.Logger

	// PasswordCost is the bcrypt cost of new hashes (tests lower it).
	PasswordCost int
	// SessionTTL is how long a console login lasts.
	SessionTTL time.Duration
	// TouchEvery is how often last_used_at / last_seen_at are written at
	// most, per key or session.
	TouchEvery time.Duration
	Now        func() time.Time

	// TokenCacheTTL is how long a verified API key is trusted without
	// reading it again (0: read on every request). A key revoked through
	// this Store stops working at once; one revoked through another
	// instance, within TokenCacheTTL. Expiry is always exact.
	TokenCacheTTL time.Duration

	mu      sync.Mutex
	touched map[string]time.Time // key or session id → last write

	cacheMu  sync.RWMutex
	tokens   map[string]cachedToken // secret hash → the key as read
	uncached map[resourceid.ID]bool // keys revoked here, until the revocation is read back: always read
	// reads collapses concurrent reads of one key: when its cache entry
	// expires, the thousand subscriptions holding it re-check together.
	reads singleflight.Group

	dummyOnce sync.Once
	dummy     []byte
}

// dummyHash is compared against when the account does not exist, so that a
// login for an unknown email takes as long as one with a wrong password.
func (s *Store) dummyHash() []byte {
	s.dummyOnce.Do(func() {
		s.dummy, _ = bcrypt.GenerateFromPassword([]byte("not a real password"), s.PasswordCost)
	})
	return s.dummy
}

// NewStore returns a store over the production database's client.
func NewStore(production *ent.Client, log *slog.Logger) *Store {
	return &Store{
		client: production, log: log,
		PasswordCost: PasswordCost, SessionTTL: 7 * 24 * time.Hour, TouchEvery: time.Minute,
		Now: func() time.Time { return time.Now().UTC() }, touched: map[string]time.Time{},
		tokens: map[string]cachedToken{}, uncached: map[resourceid.ID]bool{},
	}
}

// cachedToken is an API key as read from the database, and when.
type cachedToken struct {
	t    *ent.APIToken
	read time.Time
}

// maxCachedTokens bounds the key cache; past it, the cache starts again.
const maxCachedTokens = 10_000

// tokenByHash returns the API key whose secret hashes to hash: from the
// cache while it is younger than TokenCacheTTL, else from the database.
func (s *Store) tokenByHash(ctx context.Context, hash string, now time.Time) (*ent.APIToken, error) {
	if s.TokenCacheTTL > 0 {
		s.cacheMu.RLock()
		c, ok := s.tokens[hash]
		fresh := ok && !s.uncached[c.t.ID] && !now.Before(c.read) && now.Sub(c.read) < s.TokenCacheTTL
		s.cacheMu.RUnlock()
		if fresh {
			return c.t, nil
		}
	}
	if s.TokenCacheTTL <= 0 {
		return s.client.APIToken.Query().Where(apitoken.SecretHash(hash)).Only(ctx)
	}
	// Shared by the callers waiting on it: one caller's cancellation must
	// not fail the others' checks.
	v, err, _ := s.reads.Do(hash, func() (any, error) {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return s.client.APIToken.Query().Where(apitoken.SecretHash(hash)).Only(qctx)
	})
	if err != nil {
		return nil, err
	}
	t := v.(*ent.APIToken)
	s.cacheMu.Lock()
	if len(s.tokens) >= maxCachedTokens {
		s.tokens = map[string]cachedToken{}
	}
	s.tokens[hash] = cachedToken{t: t, read: now}
	if t.RevokedAt != nil {
		// The revocation is committed and read back: a revoked key never
		// comes back, so it may be cached like any other, and the entry
		// that kept it uncached can go (the set stays bounded by the
		// revocations still in flight).
		delete(s.uncached, t.ID)
	}
	s.cacheMu.Unlock()
	return t, nil
}

// forgetToken makes this instance read the key from the database on every
// request from now on (it was revoked here; the revocation may not be
// committed yet, so the database stays the one to ask).
func (s *Store) forgetToken(id resourceid.ID) {
	s.cacheMu.Lock()
	s.uncached[id] = true
	s.cacheMu.Unlock()
}

// db returns the client to use: the production client, or the request's
// transaction when a GraphQL mutation on the production endpoint already
// holds one (SQLite allows one writer: a second connection would wait).
func (s *Store) db(ctx context.Context) *ent.Client {
	if env := environment.FromContext(ctx); env != nil && env.DB != nil && env.DB.Client == s.client {
		if tx := ent.TxFromContext(ctx); tx != nil {
			return tx.Client()
		}
	}
	return s.client
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Roles of console users, most powerful first.
var Roles = []string{"owner", "admin", "member", "viewer"}

// CreateUser adds a console account.
func (s *Store) CreateUser(ctx context.Context, email, password, role string) (*ent.User, error) {
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email {
		return nil, apperr.Invalid("email", "not a valid email address")
	}
	valid := false
	for _, r := range Roles {
		valid = valid || r == role
	}
	if !valid {
		return nil, apperr.Invalid("role", "must be one of %s", strings.Join(Roles, ", "))
	}
	if len(password) < MinPasswordLength || len(password) > 72 {
		return nil, apperr.Invalid("password", "must have between %d and 72 characters", MinPasswordLength)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), s.PasswordCost)
	if err != nil {
		return nil, err
	}
	u, err := s.db(ctx).User.Create().SetEmail(strings.ToLower(email)).SetPasswordHash(string(h)).
		SetRole(user.Role(role)).Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, apperr.Conflict("email_taken", "a user with this email already exists")
	}
	return u, err
}

// EnsureAdmin creates the first account, an owner, when there is none. With
// no password given, one is generated and written to the log this once.
func (s *Store) EnsureAdmin(ctx context.Context, email, password string) error {
	n, err := s.client.User.Query().Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	generated := password == ""
	if generated {
		password = GeneratePassword()
	}
	if _, err := s.CreateUser(ctx, email, password, "owner"); err != nil {
		if apperr.From(err).Code == "email_taken" {
			return nil // another instance won the race
		}
		return err
	}
	if generated {
		s.log.Warn("created the first console user; this password is shown only once",
			"email", email, "password", password, "console", "/console")
	} else {
		s.log.Info("created the first console user from LOGISTICS_ADMIN_PASSWORD", "email", email)
	}
	return nil
}

// errLogin is the one answer to every failed login.
func errLogin() *apperr.Error {
	return apperr.Unauthenticated("invalid_login", "invalid email or password")
}

// NewSession is a fresh login: the cookie value (shown to the browser
// only) and its CSRF token.
type NewSession struct {
	Secret    string
	CSRF      string
	ExpiresAt time.Time
	User      *ent.User
}

// Login checks the password and opens a session. Every failure gives the
// same message, and an unknown email costs as much time as a wrong password.
func (s *Store) Login(ctx context.Context, email, password, userAgent, remoteAddr string) (*NewSession, error) {
	u, err := s.client.User.Query().Where(user.EmailEQ(strings.ToLower(strings.TrimSpace(email)))).Only(ctx)
	if err != nil {
		if !ent.IsNotFound(err) {
			return nil, err
		}
		_ = bcrypt.CompareHashAndPassword(s.dummyHash(), []byte(password))
		return nil, errLogin()
	}
	if !CheckPassword(u.PasswordHash, password) || u.Disabled {
		return nil, errLogin()
	}
	ns := &NewSession{Secret: rand.Text() + rand.Text(), CSRF: rand.Text(), ExpiresAt: s.Now().Add(s.SessionTTL), User: u}
	if len(userAgent) > 400 {
		userAgent = userAgent[:400]
	}
	if len(remoteAddr) > 64 {
		remoteAddr = remoteAddr[:64]
	}
	_, err = s.client.Session.Create().SetTokenHash(hashSecret(ns.Secret)).SetCsrfToken(ns.CSRF).
		SetUserID(u.ID).SetExpiresAt(ns.ExpiresAt).SetUserAgent(userAgent).SetRemoteAddr(remoteAddr).Save(ctx)
	if err != nil {
		return nil, err
	}
	_ = s.client.User.UpdateOne(u).SetLastLoginAt(s.Now()).Exec(ctx)
	// Sweep sessions that have ended, everyone's, while we are here.
	if _, err := s.client.Session.Delete().Where(session.ExpiresAtLT(s.Now())).Exec(ctx); err != nil {
		s.log.WarnContext(ctx, "auth: could not delete ended sessions", "err", err)
	}
	return ns, nil
}

// Logout ends the session with the cookie value secret.
func (s *Store) Logout(ctx context.Context, secret string) error {
	_, err := s.client.Session.Delete().Where(session.TokenHash(hashSecret(secret))).Exec(ctx)
	return err
}

// SessionPrincipal finds the session with the cookie value secret. It
// returns the principal and the session's CSRF token.
func (s *Store) SessionPrincipal(ctx context.Context, secret string) (*Principal, string, error) {
	ses, err := s.client.Session.Query().Where(session.TokenHash(hashSecret(secret))).WithUser().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, "", errInvalid("the session has ended: sign in again")
	} else if err != nil {
		return nil, "", err
	}
	now := s.Now()
	if !ses.ExpiresAt.After(now) || ses.Edges.User == nil || ses.Edges.User.Disabled {
		return nil, "", errInvalid("the session has ended: sign in again")
	}
	if s.due(string(ses.ID), now) {
		_ = s.client.Session.UpdateOneID(ses.ID).SetLastSeenAt(now).Exec(ctx)
	}
	u := ses.Edges.User
	return &Principal{
		ID: string(u.ID), Kind: KindSession, Scopes: RoleScopes(string(u.Role)),
		UserID: string(u.ID), Email: u.Email, Role: string(u.Role), SessionID: string(ses.ID),
	}, ses.CsrfToken, nil
}

// due reports whether id's last-used time should be written now, at most
// once per TouchEvery per instance; the conditional UPDATEs below keep it
// at most once per TouchEvery across instances too.
func (s *Store) due(id string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.touched[id]; ok && now.Sub(last) < s.TouchEvery {
		return false
	}
	s.touched[id] = now
	if len(s.touched) > 100_000 {
		for k, t := range s.touched {
			if now.Sub(t) >= s.TouchEvery {
				delete(s.touched, k)
			}
		}
	}
	return true
}

// TokenInput describes a new API key.
type TokenInput struct {
	Name        string
	Environment environment.Name
	Scopes      []string
	ExpiresAt   *time.Time
	UserID      string // the creator, "" for the CLI
}

// CreateToken makes an API key and returns its secret, which is not stored
// and cannot be shown again.
func (s *Store) CreateToken(ctx context.Context, in TokenInput) (string, *ent.APIToken, error) {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || len(in.Name) > 100 {
		return "", nil, apperr.Invalid("name", "give a name of 1 to 100 characters")
	}
	if in.Environment != environment.Production && in.Environment != environment.Sandbox {
		return "", nil, apperr.Invalid("environment", "must be production or sandbox")
	}
	scopes, err := ParseScopes(in.Scopes)
	if err != nil {
		return "", nil, err
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(s.Now()) {
		return "", nil, apperr.Invalid("expires_at", "must be in the future")
	}
	secret := in.Environment.KeyPrefix() + rand.Text() // 26 base32 characters: 130 random bits
	c := s.db(ctx).APIToken.Create().SetName(in.Name).SetDisplayPrefix(secret[:len(in.Environment.KeyPrefix())+6]).
		SetSecretHash(hashSecret(secret)).SetEnvironment(apitoken.Environment(in.Environment)).
		SetScopes(scopes).SetNillableExpiresAt(in.ExpiresAt)
	if in.UserID != "" {
		c.SetUserID(resourceid.ID(in.UserID))
	}
	t, err := c.Save(ctx)
	if err != nil {
		return "", nil, err
	}
	return secret, t, nil
}

// ListTokens returns the keys p may see, newest first: owners and admins
// see every key, others the keys they made.
func (s *Store) ListTokens(ctx context.Context, p *Principal) ([]*ent.APIToken, error) {
	q := s.db(ctx).APIToken.Query().Order(ent.Desc(apitoken.FieldID))
	if p.Role != "owner" && p.Role != "admin" {
		q.Where(apitoken.UserID(resourceid.ID(p.UserID)))
	}
	return q.All(ctx)
}

// RevokeToken revokes a key p may see. Revoking twice is harmless.
func (s *Store) RevokeToken(ctx context.Context, p *Principal, id string) (*ent.APIToken, error) {
	q := s.db(ctx).APIToken.Query().Where(apitoken.ID(resourceid.ID(id)))
	if p.Role != "owner" && p.Role != "admin" {
		q.Where(apitoken.UserID(resourceid.ID(p.UserID)))
	}
	t, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("no API token %s", id)
	} else if err != nil {
		return nil, err
	}
	if t.RevokedAt != nil {
		return t, nil
	}
	s.forgetToken(t.ID)
	return s.db(ctx).APIToken.UpdateOne(t).SetRevokedAt(s.Now()).Save(ctx)
}

// TokenPrincipal checks the API key secret sent to environment env.
func (s *Store) TokenPrincipal(ctx context.Context, secret string, env *environment.Env, set *environment.Set) (*Principal, error) {
	for _, other := range set.All() {
		if other != env && strings.HasPrefix(secret, other.Name.KeyPrefix()) {
			return nil, errInvalid("this is a %s key (%s...): send it to %s, the %s base address",
				other.Name, other.Name.KeyPrefix(), other.BaseURL, other.Name)
		}
	}
	if !strings.HasPrefix(secret, env.Name.KeyPrefix()) {
		return nil, errInvalid("not an API key: keys start with %s (production) or %s (sandbox)",
			environment.Production.KeyPrefix(), environment.Sandbox.KeyPrefix())
	}
	hash, now := hashSecret(secret), s.Now()
	t, err := s.tokenByHash(ctx, hash, now)
	if ent.IsNotFound(err) {
		return nil, errInvalid("unknown API key")
	} else if err != nil {
		return nil, err
	}
	// The hash lookup already matched; compare again in constant time for
	// good measure, and check the stored environment.
	if subtle.ConstantTimeCompare([]byte(t.SecretHash), []byte(hash)) != 1 || string(t.Environment) != string(env.Name) {
		return nil, errInvalid("unknown API key")
	}
	if t.RevokedAt != nil {
		return nil, errInvalid("the API key was revoked")
	}
	if t.ExpiresAt != nil && !t.ExpiresAt.After(now) {
		return nil, errInvalid("the API key expired at %s", t.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if s.due(string(t.ID), now) {
		_, err := s.client.APIToken.Update().Where(apitoken.ID(t.ID),
			apitoken.Or(apitoken.LastUsedAtIsNil(), apitoken.LastUsedAtLT(now.Add(-s.TouchEvery)))).
			SetLastUsedAt(now).Save(ctx)
		if err != nil {
			s.log.WarnContext(ctx, "auth: could not record last_used_at", "token", t.ID, "err", err)
		}
	}
	p := &Principal{ID: string(t.ID), Kind: KindToken, Scopes: t.Scopes, Environment: string(t.Environment), TokenName: t.Name, TokenPrefix: t.DisplayPrefix}
	if t.UserID != nil {
		p.UserID = string(*t.UserID)
	}
	return p, nil
}

// User returns the account with the id.
func (s *Store) User(ctx context.Context, id string) (*ent.User, error) {
	return s.db(ctx).User.Get(ctx, resourceid.ID(id))
}
