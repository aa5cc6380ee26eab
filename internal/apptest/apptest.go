// Package apptest starts the whole service for tests: a real HTTP server
// (httptest) over real databases — fresh SQLite files by default, or fresh
// PostgreSQL databases when LOGISTICS_TEST_POSTGRES holds a postgres:// DSN
// (the suite is run once each way; see the README).
package apptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	_ "github.com/jackc/pgx/v5/stdlib"

	"golang.org/x/crypto/bcrypt"

	"logistics/internal/app"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

// PostgresEnv names the variable that switches the suite to PostgreSQL.
const PostgresEnv = "LOGISTICS_TEST_POSTGRES"

// Server is a running service with both environments.
type Server struct {
	App        *app.App
	HTTP       *httptest.Server
	URL        string // production base address
	SandboxURL string // sandbox base address
	Client     *http.Client
	// Header is added to every request made through Do and GraphQL (the
	// credentials of the test's caller). Without an Authorization header,
	// Do sends the all-scope key of the environment the URL belongs to; an
	// Authorization header set to "" (see Anonymous) sends none.
	Header http.Header

	// Keys holds one API key with every scope per environment, made by New.
	Keys map[environment.Name]string
	// AdminEmail and AdminPassword sign in the owner that New creates.
	AdminEmail, AdminPassword string
}

// AdminPassword is the password of the owner account New creates.
const AdminPassword = "apptest-owner-password"

// Anonymous is a header for Do that sends no credentials at all.
func Anonymous() http.Header { return http.Header{"Authorization": {""}} }

// Bearer is a header for Do that sends key instead of the default one.
func Bearer(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} }

// Options adjust the server.
type Options struct {
	Driver func(dialect.Driver) dialect.Driver // wraps the database drivers
	Config func(*app.Config)                   // edits the configuration
	Log    io.Writer                           // receives the logs (default: discarded)
	// Now and Jitter replace the webhook dispatcher's clock and retry jitter.
	Now    func() time.Time
	Jitter func(time.Duration) time.Duration
	// Env is the environment's OTEL_* variables (app.Options.Env): nil,
	// tracing off.
	Env func(string) string
}

// Postgres reports whether the suite runs on PostgreSQL.
func Postgres() bool { return os.Getenv(PostgresEnv) != "" }

// DSN returns a fresh, empty database for one test: a SQLite file in a
// temporary directory, or a new PostgreSQL database dropped at the end.
func DSN(t testing.TB, name string) string {
	t.Helper()
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		return filepath.Join(t.TempDir(), name+".db")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	dbName := "lt_" + name + "_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+dbName); err != nil {
		db.Close()
		t.Fatalf("apptest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)"); err != nil {
			t.Logf("apptest: drop database %s: %v", dbName, err)
		}
		db.Close()
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("apptest: %s: %v", PostgresEnv, err)
	}
	u.Path = "/" + dbName
	return u.String()
}

// ModuleFS is the module's root directory (where go.mod is, found from the
// test's working directory upwards), or nil.
func ModuleFS() fs.FS {
	dir, err := os.Getwd()
	for err == nil {
		if _, e := os.Stat(filepath.Join(dir, "go.mod")); e == nil {
			return os.DirFS(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
	return nil
}

// New starts the service on a loopback port with fresh databases; it stops
// when the test ends.
func New(t testing.TB, opts ...Options) *Server {
	t.Helper()
	var opt Options
	if len(opts) > 0 {
		opt = opts[0]
	}
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.DB = DSN(t, "production")
	cfg.SandboxDB = DSN(t, "sandbox")
	cfg.BaseURL = base
	cfg.SandboxURL = base + "/sandbox"
	cfg.AdminEmail = "owner@apptest.local"
	cfg.AdminPassword = AdminPassword
	cfg.RateLimit = 0     // tests opt in to rate limiting through Config
	cfg.AuthCacheTTL = 0  // tests see every revocation at once; the cache's own tests opt in
	cfg.NoDemoData = true // tests start from empty databases
	if opt.Driver != nil {
		// A test that counts statements gets no background webhook
		// dispatcher polling through its driver (Config may turn it on).
		cfg.WebhookWorkers = 0
	}
	if opt.Config != nil {
		opt.Config(&cfg)
	}
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logw, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := app.Open(ctx, cfg, log, app.Options{Driver: opt.Driver, PasswordCost: bcrypt.MinCost, Docs: ModuleFS(), Now: opt.Now, Jitter: opt.Jitter, Env: opt.Env})
	if err != nil {
		hs.Close()
		t.Fatalf("apptest: open: %v", err)
	}
	keys := map[environment.Name]string{}
	for _, n := range []environment.Name{environment.Production, environment.Sandbox} {
		secret, _, err := a.Auth.Store.CreateToken(ctx, auth.TokenInput{Name: "apptest " + string(n), Environment: n, Scopes: []string{"all"}})
		if err != nil {
			_ = a.Close()
			hs.Close()
			t.Fatalf("apptest: create %s key: %v", n, err)
		}
		keys[n] = secret
	}
	serve(t, a, hs)
	return &Server{App: a, HTTP: hs, URL: cfg.BaseURL, SandboxURL: cfg.SandboxURL, Client: hs.Client(), Header: http.Header{},
		Keys: keys, AdminEmail: cfg.AdminEmail, AdminPassword: cfg.AdminPassword}
}

// serve starts a's handler on hs and its webhook deliveries; both stop,
// and a closes, when the test ends.
func serve(t testing.TB, a *app.App, hs *httptest.Server) {
	hs.Config.Handler = a.Handler()
	hs.Start()
	a.StartWebhooks()
	t.Cleanup(func() {
		stopStreams(a)
		hs.Close()
		_ = a.Close()
	})
}

// Twin starts a second server process-alike — its own App, connection pools
// and HTTP listener — over the same databases as s, as two instances of the
// service sharing one PostgreSQL would run. It stops when the test ends.
// edit, if given, changes the twin's configuration (a copy of s's).
func (s *Server) Twin(t testing.TB, edit ...func(*app.Config)) *Server {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	cfg := s.App.Config
	for _, e := range edit {
		e(&cfg)
	}
	cfg.BaseURL = base
	cfg.SandboxURL = base + "/sandbox"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := app.Open(ctx, cfg, s.App.Log, app.Options{})
	if err != nil {
		hs.Close()
		t.Fatalf("apptest: open twin: %v", err)
	}
	serve(t, a, hs)
	return &Server{App: a, HTTP: hs, URL: cfg.BaseURL, SandboxURL: cfg.SandboxURL, Client: hs.Client(), Header: s.Header.Clone(),
		Keys: s.Keys, AdminEmail: s.AdminEmail, AdminPassword: s.AdminPassword}
}

// stopStreams ends the subscriptions still open, as the server does at
// shutdown (httptest's Close would wait for SSE responses forever).
func stopStreams(a *app.App) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Streams.Shutdown(ctx)
}

// Env returns the named environment.
func (s *Server) Env(n environment.Name) *environment.Env { return s.App.Envs.Get(n) }

// Ctx returns a context carrying the environment's ent client, for calling
// the service layer directly in test set-up.
func (s *Server) Ctx(n environment.Name) context.Context {
	return environment.NewContext(context.Background(), s.Env(n))
}

// Base returns the base address of the named environment.
func (s *Server) Base(n environment.Name) string {
	if n == environment.Sandbox {
		return s.SandboxURL
	}
	return s.URL
}

// Response is a finished HTTP exchange with its body read.
type Response struct {
	*http.Response
	Body []byte
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("response %d is not JSON (%v): %s", r.StatusCode, err, r.Body)
	}
}

// Create POSTs body as JSON to path under env's base address and returns
// the id of what was created (a 201 with an id, or the test fails).
func (s *Server) Create(t testing.TB, env environment.Name, path string, body any) string {
	t.Helper()
	var out struct{ ID string }
	r := s.Do(t, http.MethodPost, s.Base(env)+path, body, nil)
	if r.JSON(t, &out); r.StatusCode != http.StatusCreated || out.ID == "" {
		t.Fatalf("POST %s: %d %s", path, r.StatusCode, r.Body)
	}
	return out.ID
}

// Do sends a request; body may be nil, a string/[]byte (sent as is) or any
// other value (sent as JSON). Header adds to s.Header.
func (s *Server) Do(t testing.TB, method, url string, body any, header http.Header) *Response {
	t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("apptest: %v", err)
		}
		rd, ct = bytes.NewReader(enc), "application/json"
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, vs := range s.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	for k, vs := range header {
		req.Header[k] = append([]string(nil), vs...)
	}
	s.authorize(req, url)
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("apptest: %s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("apptest: read body: %v", err)
	}
	return &Response{Response: resp, Body: b}
}

// EnvOf returns the environment a URL of this server belongs to.
func (s *Server) EnvOf(u string) environment.Name {
	if u == s.SandboxURL || strings.HasPrefix(u, s.SandboxURL+"/") || strings.HasPrefix(u, s.SandboxURL+"?") {
		return environment.Sandbox
	}
	return environment.Production
}

// authorize applies the default credentials: the environment's key unless
// the request names its own Authorization, or an empty one (anonymous).
func (s *Server) authorize(req *http.Request, u string) {
	if vs, ok := req.Header["Authorization"]; ok {
		if strings.Join(vs, "") == "" {
			req.Header.Del("Authorization")
		}
		return
	}
	if req.Header.Get("Cookie") != "" {
		return // a session
	}
	if k := s.Keys[s.EnvOf(u)]; k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
}

// Session signs in to the console as email/password and returns the header
// that authenticates the session's requests (the cookies, the CSRF token,
// and an empty Authorization so that no key is added).
func (s *Server) Session(t testing.TB, email, password string) http.Header {
	t.Helper()
	resp := s.Do(t, http.MethodPost, s.URL+"/console/api/login", map[string]string{"email": email, "password": password}, Anonymous())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("apptest: sign in as %s: %d %s", email, resp.StatusCode, resp.Body)
	}
	h := http.Header{"Authorization": {""}}
	var cookies []string
	for _, c := range resp.Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
		if c.Name == auth.CSRFCookie {
			h.Set(auth.CSRFHeader, c.Value)
		}
	}
	h.Set("Cookie", strings.Join(cookies, "; "))
	return h
}

// GQLError is one entry of a GraphQL response's errors.
type GQLError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Code is extensions.code.
func (e GQLError) Code() string { s, _ := e.Extensions["code"].(string); return s }

// GQLResponse is a decoded GraphQL response.
type GQLResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []GQLError      `json:"errors"`
	Status int             `json:"-"`
}

// GraphQL posts a query to the environment's /graphql and decodes the answer.
func (s *Server) GraphQL(t testing.TB, env environment.Name, query string, vars map[string]any) *GQLResponse {
	t.Helper()
	return s.GraphQLWith(t, env, query, vars, nil)
}

// GraphQLWith is GraphQL with extra request headers (another key, a session,
// Anonymous()).
func (s *Server) GraphQLWith(t testing.TB, env environment.Name, query string, vars map[string]any, header http.Header) *GQLResponse {
	t.Helper()
	h := http.Header{"Accept": {"application/graphql-response+json"}}
	for k, vs := range header {
		h[k] = vs
	}
	resp := s.Do(t, http.MethodPost, s.Base(env)+"/graphql", map[string]any{"query": query, "variables": vars}, h)
	var out GQLResponse
	resp.JSON(t, &out)
	out.Status = resp.StatusCode
	return &out
}

// MustGraphQL is GraphQL that fails the test on any error and decodes data into v.
func (s *Server) MustGraphQL(t testing.TB, env environment.Name, query string, vars map[string]any, v any) {
	t.Helper()
	r := s.GraphQL(t, env, query, vars)
	if len(r.Errors) > 0 || r.Status != http.StatusOK {
		t.Fatalf("graphql %d: %+v\nquery: %s", r.Status, r.Errors, query)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			t.Fatalf("graphql data: %v: %s", err, r.Data)
		}
	}
}
