// Package app assembles the service: configuration, the two environments and
// their databases, the middleware chain and every route. server.go parses the
// command line into a Config and runs an App; tests build one the same way.
package app

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"logistics/internal/auth"
	"logistics/internal/database"
	"logistics/internal/documents"
	"logistics/internal/schedturns"
	"logistics/internal/sqlite"
)

// Config is every setting of the service, with its flag and environment
// variable. Defaults work locally with no set-up.
type Config struct {
	Addr           string        // --addr, LOGISTICS_ADDR
	DataDir        string        // --data-dir, LOGISTICS_DATA_DIR
	DB             string        // --db, LOGISTICS_DB: SQLite path or postgres:// DSN for production
	SandboxDB      string        // --sandbox-db, LOGISTICS_SANDBOX_DB
	ReadDB         string        // --read-db, LOGISTICS_READ_DB: a streaming replica of a PostgreSQL --db for the reads that accept staleness
	SandboxReadDB  string        // --sandbox-read-db, LOGISTICS_SANDBOX_READ_DB
	ReadMaxLag     time.Duration // --read-max-lag, LOGISTICS_READ_MAX_LAG: a replica further behind is skipped for the primary
	ReadCheck      time.Duration // --read-check-interval, LOGISTICS_READ_CHECK_INTERVAL: how often each replica's lag is measured
	BaseURL        string        // --base-url, LOGISTICS_BASE_URL; empty: derived from the listen address (DeriveAddresses)
	SandboxURL     string        // --sandbox-url, LOGISTICS_SANDBOX_URL; empty: the base address + /sandbox
	CORSOrigins    string        // --cors-origins, LOGISTICS_CORS_ORIGINS: browser origins allowed with credentials, comma-separated
	CookieSameSite string        // --cookie-samesite, LOGISTICS_COOKIE_SAMESITE: lax, strict or none (none needs an https base address)
	LogFormat      string        // --log-format, LOGISTICS_LOG_FORMAT: text or json
	MaxBodyBytes   int64         // --max-body-bytes, LOGISTICS_MAX_BODY_BYTES
	ReadTimeout    time.Duration // --read-timeout, LOGISTICS_READ_TIMEOUT
	WriteTimeout   time.Duration // --write-timeout, LOGISTICS_WRITE_TIMEOUT
	MaxDepth       int           // --graphql-max-depth, LOGISTICS_GRAPHQL_MAX_DEPTH
	MaxComplexity  int           // --graphql-max-complexity, LOGISTICS_GRAPHQL_MAX_COMPLEXITY
	MaxFields      int           // --graphql-max-fields, LOGISTICS_GRAPHQL_MAX_FIELDS: fields a document may spell out
	MaxListLength  int           // --graphql-max-list, LOGISTICS_GRAPHQL_MAX_LIST: elements of a plain list of objects
	MaxRespBytes   int           // --graphql-max-response-bytes, LOGISTICS_GRAPHQL_MAX_RESPONSE_BYTES
	MaxExecTime    time.Duration // --graphql-max-execution-time, LOGISTICS_GRAPHQL_MAX_EXECUTION_TIME
	RateLimit      float64       // --rate-limit, LOGISTICS_RATE_LIMIT: requests per second per key or session (0: off)
	RateBurst      int           // --rate-burst, LOGISTICS_RATE_BURST: requests allowed at once per key or session
	RedisURL       string        // --redis-url, LOGISTICS_REDIS_URL: share rate limits and the login throttle among instances (empty: per instance)
	RedisPrefix    string        // --redis-prefix, LOGISTICS_REDIS_PREFIX: start of this service's Redis keys
	AuthCacheTTL   time.Duration // --auth-cache-ttl, LOGISTICS_AUTH_CACHE_TTL: how long a verified API key is trusted without reading it again
	AdminEmail     string        // --admin-email, LOGISTICS_ADMIN_EMAIL: the first console user
	AdminPassword  string        // LOGISTICS_ADMIN_PASSWORD only (no flag: it would show in ps); empty: generated and logged once
	NoDemoData     bool          // --no-demo-data, LOGISTICS_NO_DEMO_DATA: leave an empty sandbox empty
	NoFastPath     bool          // --graphql-no-fast-path, LOGISTICS_GRAPHQL_NO_FAST_PATH: every query through gqlgen alone
	DemoScale      float64       // --demo-scale, LOGISTICS_DEMO_SCALE: size of the automatic sandbox demo data
	GCPercent      int           // --gc-percent, LOGISTICS_GC_PERCENT: the Go garbage collector's target (GOGC), unless GOGC is set
	MemoryLimit    int           // --memory-limit, LOGISTICS_MEMORY_LIMIT: soft memory limit in MiB (GOMEMLIMIT), unless GOMEMLIMIT is set; 0: none
	SQLiteMemory   int           // --sqlite-memory, LOGISTICS_SQLITE_MEMORY: soft bound in MiB on SQLite's memory (page caches), the process's; 0: none
	SQLiteSync     string        // --sqlite-synchronous, LOGISTICS_SQLITE_SYNCHRONOUS: full (a commit survives a power cut) or normal (a process crash only)
	SchedTurns     int           // --sched-turns, LOGISTICS_SCHED_TURNS: goroutines each request hands Go's scheduler as it begins and ends (internal/schedturns); 0: none

	SubscriptionLimit     int           // --subscription-limit, LOGISTICS_SUBSCRIPTION_LIMIT: open subscriptions per API key or session on one instance
	SubscriptionBuffer    int           // --subscription-buffer, LOGISTICS_SUBSCRIPTION_BUFFER: events waiting per subscriber before it reads the log itself
	SubscriptionKeepAlive time.Duration // --subscription-keepalive, LOGISTICS_SUBSCRIPTION_KEEPALIVE: WebSocket ping / SSE comment interval

	WebhookAllowPrivate bool          // --webhook-allow-private, LOGISTICS_WEBHOOK_ALLOW_PRIVATE: deliver to loopback/private/link-local addresses
	WebhookSchedule     string        // --webhook-retry-schedule, LOGISTICS_WEBHOOK_RETRY_SCHEDULE: waits before each retry, comma-separated
	WebhookTimeout      time.Duration // --webhook-timeout, LOGISTICS_WEBHOOK_TIMEOUT: per attempt
	WebhookWorkers      int           // --webhook-workers, LOGISTICS_WEBHOOK_WORKERS: attempts in flight per environment (0: this instance sends none)
	WebhookPoll         time.Duration // --webhook-poll, LOGISTICS_WEBHOOK_POLL: how often to look for deliveries other instances committed
	WebhookSecretGrace  time.Duration // --webhook-secret-grace, LOGISTICS_WEBHOOK_SECRET_GRACE: how long a rotated-out secret keeps signing

	// Trusted documents (docs/graphql.md: Trusted documents): off, report
	// or enforce, per environment and kind of credential.
	TrustedSessions        string        // --trusted-documents-sessions, LOGISTICS_TRUSTED_DOCUMENTS_SESSIONS: production, console and app sessions
	TrustedKeys            string        // --trusted-documents-keys, LOGISTICS_TRUSTED_DOCUMENTS_KEYS: production, API keys
	SandboxTrustedSessions string        // --sandbox-trusted-documents-sessions, LOGISTICS_SANDBOX_TRUSTED_DOCUMENTS_SESSIONS
	SandboxTrustedKeys     string        // --sandbox-trusted-documents-keys, LOGISTICS_SANDBOX_TRUSTED_DOCUMENTS_KEYS
	TrustedCacheTTL        time.Duration // --trusted-documents-cache-ttl, LOGISTICS_TRUSTED_DOCUMENTS_CACHE_TTL: how long a look-up is answered from memory
}

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{
		Addr:           "127.0.0.1:8080",
		DataDir:        "./data",
		CookieSameSite: "lax",
		LogFormat:      "text",
		MaxBodyBytes:   1 << 20,
		ReadTimeout:    15 * time.Second,
		WriteTimeout:   60 * time.Second,
		MaxDepth:       12,
		MaxComplexity:  60_000,
		MaxFields:      500,
		MaxListLength:  100,
		MaxRespBytes:   16 << 20,
		MaxExecTime:    10 * time.Second,
		RateLimit:      100,
		RateBurst:      200,
		RedisPrefix:    "logistics:",
		AuthCacheTTL:   2 * time.Second,
		AdminEmail:     "admin@localhost",
		DemoScale:      0.02,
		GCPercent:      400,
		MemoryLimit:    1024,
		SQLiteMemory:   sqlite.DefaultMemory >> 20,
		SQLiteSync:     sqlite.SynchronousFull,
		SchedTurns:     schedturns.DefaultTurns,
		ReadMaxLag:     5 * time.Second,
		ReadCheck:      time.Second,

		SubscriptionLimit:     100,
		SubscriptionBuffer:    1000,
		SubscriptionKeepAlive: 15 * time.Second,

		WebhookSchedule:    "5s,5m,30m,2h,5h,10h,14h,20h,24h",
		WebhookTimeout:     15 * time.Second,
		WebhookWorkers:     8,
		WebhookPoll:        time.Second,
		WebhookSecretGrace: 24 * time.Hour,

		TrustedSessions: "off", TrustedKeys: "off", SandboxTrustedSessions: "off", SandboxTrustedKeys: "off",
		TrustedCacheTTL: documents.DefaultCacheTTL,
	}
}

// TrustedPolicy is the environment's trusted-documents enforcement (Validate
// has checked the modes).
func (c Config) TrustedPolicy(sandbox bool) documents.Policy {
	sessions, keys := c.TrustedSessions, c.TrustedKeys
	if sandbox {
		sessions, keys = c.SandboxTrustedSessions, c.SandboxTrustedKeys
	}
	s, _ := documents.ParseMode(sessions)
	k, _ := documents.ParseMode(keys)
	return documents.Policy{Sessions: s, Keys: k}
}

// setting ties a flag to its environment variable.
type setting struct {
	flag, env, usage string
	bind             func(fs *flag.FlagSet, name, usage string)
}

// Flags registers the flags on fs. Environment variables are applied first
// (by Load), so a flag given on the command line wins.
func (c *Config) settings() []setting {
	str := func(p *string) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, n, u string) { fs.StringVar(p, n, *p, u) }
	}
	dur := func(p *time.Duration) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, n, u string) { fs.DurationVar(p, n, *p, u) }
	}
	num := func(p *int) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, n, u string) { fs.IntVar(p, n, *p, u) }
	}
	flt := func(p *float64) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, n, u string) { fs.Float64Var(p, n, *p, u) }
	}
	return []setting{
		{"addr", "LOGISTICS_ADDR", "address to listen on", str(&c.Addr)},
		{"data-dir", "LOGISTICS_DATA_DIR", "directory of the embedded SQLite databases", str(&c.DataDir)},
		{"db", "LOGISTICS_DB", "production database: SQLite file path or postgres:// DSN (default <data-dir>/production.db)", str(&c.DB)},
		{"sandbox-db", "LOGISTICS_SANDBOX_DB", "sandbox database: SQLite file path or postgres:// DSN (default <data-dir>/sandbox.db)", str(&c.SandboxDB)},
		{"read-db", "LOGISTICS_READ_DB", "a streaming replica (postgres:// DSN) of a PostgreSQL production database, serving the reads that accept staleness: aggregates and exports, and lists and GraphQL queries sent with Prefer: read=replica (docs/operations.md: Read replicas)", str(&c.ReadDB)},
		{"sandbox-read-db", "LOGISTICS_SANDBOX_READ_DB", "a streaming replica (postgres:// DSN) of a PostgreSQL sandbox database, as --read-db", str(&c.SandboxReadDB)},
		{"read-max-lag", "LOGISTICS_READ_MAX_LAG", "a replica whose replay is further behind the primary is skipped for the primary until it catches up", dur(&c.ReadMaxLag)},
		{"read-check-interval", "LOGISTICS_READ_CHECK_INTERVAL", "how often each replica's lag is measured (in the background, never per request)", dur(&c.ReadCheck)},
		{"base-url", "LOGISTICS_BASE_URL", "production base address (default: http:// and the listen address, a wildcard host as 127.0.0.1)", str(&c.BaseURL)},
		{"sandbox-url", "LOGISTICS_SANDBOX_URL", "sandbox base address (default: the production base address + /sandbox)", str(&c.SandboxURL)},
		{"cors-origins", "LOGISTICS_CORS_ORIGINS", "browser origins (other than the base addresses') allowed to call the API with credentials, comma-separated: https://app.example.com, or http://localhost:* for any port", str(&c.CORSOrigins)},
		{"cookie-samesite", "LOGISTICS_COOKIE_SAMESITE", "SameSite of the session cookies: lax, strict, or none for an app on another site (needs an https base address)", str(&c.CookieSameSite)},
		{"log-format", "LOGISTICS_LOG_FORMAT", "log format: text or json", str(&c.LogFormat)},
		{"max-body-bytes", "LOGISTICS_MAX_BODY_BYTES", "largest JSON request body", func(fs *flag.FlagSet, n, u string) { fs.Int64Var(&c.MaxBodyBytes, n, c.MaxBodyBytes, u) }},
		{"read-timeout", "LOGISTICS_READ_TIMEOUT", "server read time-out", dur(&c.ReadTimeout)},
		{"write-timeout", "LOGISTICS_WRITE_TIMEOUT", "server write time-out", dur(&c.WriteTimeout)},
		{"graphql-max-depth", "LOGISTICS_GRAPHQL_MAX_DEPTH", "deepest GraphQL selection allowed", num(&c.MaxDepth)},
		{"graphql-max-complexity", "LOGISTICS_GRAPHQL_MAX_COMPLEXITY", "largest GraphQL operation cost allowed (README: GraphQL cost)", num(&c.MaxComplexity)},
		{"graphql-max-fields", "LOGISTICS_GRAPHQL_MAX_FIELDS", "most fields a GraphQL document may spell out, aliases and repetitions included (checked before validation)", num(&c.MaxFields)},
		{"graphql-max-list", "LOGISTICS_GRAPHQL_MAX_LIST", "most elements of a GraphQL list of objects that is not a connection (Order.lines, Part.orderLines…); also what such a list costs", num(&c.MaxListLength)},
		{"graphql-max-response-bytes", "LOGISTICS_GRAPHQL_MAX_RESPONSE_BYTES", "largest GraphQL response body in bytes (data, errors and extensions); a larger one is replaced by an error (0: no limit)", num(&c.MaxRespBytes)},
		{"graphql-max-execution-time", "LOGISTICS_GRAPHQL_MAX_EXECUTION_TIME", "longest execution of one GraphQL request; a longer one is stopped with an error (0: no limit; keep it below --write-timeout)", dur(&c.MaxExecTime)},
		{"graphql-no-fast-path", "LOGISTICS_GRAPHQL_NO_FAST_PATH", "execute every GraphQL query through gqlgen alone, without the generated fast path (a switch for diagnosis)", func(fs *flag.FlagSet, n, u string) { fs.BoolVar(&c.NoFastPath, n, c.NoFastPath, u) }},
		{"rate-limit", "LOGISTICS_RATE_LIMIT", "requests per second per API key or console session, refilling a bucket of --rate-burst (0: no limit)", flt(&c.RateLimit)},
		{"rate-burst", "LOGISTICS_RATE_BURST", "requests one API key or session may send at once", num(&c.RateBurst)},
		{"redis-url", "LOGISTICS_REDIS_URL", "Redis (redis://[:password@]host:port/db) that keeps the rate limits and the login throttle shared by every instance; empty: each instance limits in its own memory", str(&c.RedisURL)},
		{"redis-prefix", "LOGISTICS_REDIS_PREFIX", "prefix of the Redis keys of this service (keys are rate:<prefix><limiter>:<key>)", str(&c.RedisPrefix)},
		{"auth-cache-ttl", "LOGISTICS_AUTH_CACHE_TTL", "how long an instance trusts a verified API key without reading it again: a key revoked through another instance stops working within this time (0: read on every request)", dur(&c.AuthCacheTTL)},
		{"admin-email", "LOGISTICS_ADMIN_EMAIL", "email of the console user created on first start (password: $LOGISTICS_ADMIN_PASSWORD, or generated and logged once)", str(&c.AdminEmail)},
		{"no-demo-data", "LOGISTICS_NO_DEMO_DATA", "do not fill an empty sandbox with demo data at start", func(fs *flag.FlagSet, n, u string) { fs.BoolVar(&c.NoDemoData, n, c.NoDemoData, u) }},
		{"gc-percent", "LOGISTICS_GC_PERCENT", "garbage collector target: the heap may grow this many percent over live data before a collection (Go's GOGC; ignored when GOGC is set; -1: off)", num(&c.GCPercent)},
		{"memory-limit", "LOGISTICS_MEMORY_LIMIT", "soft memory limit in MiB: the collector works harder as the heap nears it (Go's GOMEMLIMIT; ignored when GOMEMLIMIT is set; 0: none)", num(&c.MemoryLimit)},
		{"sqlite-memory", "LOGISTICS_SQLITE_MEMORY", "soft bound in MiB on what SQLite keeps in memory, page caches above all, for every SQLite connection of this process together (0: none; each connection still caches at most 64 MiB)", num(&c.SQLiteMemory)},
		{"sqlite-synchronous", "LOGISTICS_SQLITE_SYNCHRONOUS", "SQLite's synchronous mode on every connection: full (a commit is on disk before it is answered and its events leave: it survives a power cut) or normal (faster: survives a crash of the process, but a power cut or an operating-system crash may lose the last answered writes); a DSN's own _synchronous wins", str(&c.SQLiteSync)},
		{"sched-turns", "LOGISTICS_SCHED_TURNS", "goroutines each request hands Go's scheduler as it begins and again as it ends, so that under saturation requests waiting in its global queue get their turn (README: Decisions; 0: none)", num(&c.SchedTurns)},
		{"subscription-limit", "LOGISTICS_SUBSCRIPTION_LIMIT", "most GraphQL subscriptions one API key or console session may hold open on one instance", num(&c.SubscriptionLimit)},
		{"subscription-buffer", "LOGISTICS_SUBSCRIPTION_BUFFER", "most events waiting for one subscriber before it falls back to reading the event log itself", num(&c.SubscriptionBuffer)},
		{"subscription-keepalive", "LOGISTICS_SUBSCRIPTION_KEEPALIVE", "interval of WebSocket pings and SSE keep-alive comments on subscriptions", dur(&c.SubscriptionKeepAlive)},
		{"webhook-allow-private", "LOGISTICS_WEBHOOK_ALLOW_PRIVATE", "let webhook endpoints point at loopback, private, link-local and metadata addresses (local development and tests only)", func(fs *flag.FlagSet, n, u string) { fs.BoolVar(&c.WebhookAllowPrivate, n, c.WebhookAllowPrivate, u) }},
		{"webhook-retry-schedule", "LOGISTICS_WEBHOOK_RETRY_SCHEDULE", "waits before each webhook retry after a failed attempt, comma-separated Go durations (jittered ±20%); a delivery fails after the last", str(&c.WebhookSchedule)},
		{"webhook-timeout", "LOGISTICS_WEBHOOK_TIMEOUT", "time-out of one webhook attempt (connect, send, response headers and the first bytes of the body)", dur(&c.WebhookTimeout)},
		{"webhook-workers", "LOGISTICS_WEBHOOK_WORKERS", "webhook attempts in flight per environment on this instance (0: this instance delivers nothing; others must)", num(&c.WebhookWorkers)},
		{"webhook-poll", "LOGISTICS_WEBHOOK_POLL", "how often an instance looks for webhook deliveries in case a wake-up was lost (its own commits wake it at once; on PostgreSQL other instances' commits too, through NOTIFY)", dur(&c.WebhookPoll)},
		{"webhook-secret-grace", "LOGISTICS_WEBHOOK_SECRET_GRACE", "how long a webhook secret replaced by a rotation keeps signing, next to the new one", dur(&c.WebhookSecretGrace)},
		{"trusted-documents-sessions", "LOGISTICS_TRUSTED_DOCUMENTS_SESSIONS", "what production does with a GraphQL document that is not trusted, sent with a console or app session: off (run it), report (run, count and log it) or enforce (refuse it); graphql:adhoc holders may send any (docs/graphql.md: Trusted documents)", str(&c.TrustedSessions)},
		{"trusted-documents-keys", "LOGISTICS_TRUSTED_DOCUMENTS_KEYS", "what production does with a GraphQL document that is not trusted, sent with an API key: off, report or enforce", str(&c.TrustedKeys)},
		{"sandbox-trusted-documents-sessions", "LOGISTICS_SANDBOX_TRUSTED_DOCUMENTS_SESSIONS", "--trusted-documents-sessions for the sandbox", str(&c.SandboxTrustedSessions)},
		{"sandbox-trusted-documents-keys", "LOGISTICS_SANDBOX_TRUSTED_DOCUMENTS_KEYS", "--trusted-documents-keys for the sandbox", str(&c.SandboxTrustedKeys)},
		{"trusted-documents-cache-ttl", "LOGISTICS_TRUSTED_DOCUMENTS_CACHE_TTL", "how long an instance answers a trusted-document look-up from memory: a document retired through another instance may still run there for this long (0: read the database on every look-up)", dur(&c.TrustedCacheTTL)},
		{"demo-scale", "LOGISTICS_DEMO_SCALE", "scale of the demo data an empty sandbox gets at start (1 ≈ 200,000 items)", func(fs *flag.FlagSet, n, u string) { fs.Float64Var(&c.DemoScale, n, c.DemoScale, u) }},
	}
}

// Load fills c from the environment (getenv) and then from args. It returns
// the arguments left after the flags. extra registers a subcommand's own
// flags next to the shared ones.
func (c *Config) Load(name string, args []string, getenv func(string) string, extra ...func(*flag.FlagSet)) ([]string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	for _, e := range extra {
		e(fs)
	}
	for _, s := range c.settings() {
		if v := getenv(s.env); v != "" {
			tmp := flag.NewFlagSet("env", flag.ContinueOnError)
			s.bind(tmp, s.flag, "")
			if err := tmp.Set(s.flag, v); err != nil {
				return nil, fmt.Errorf("%s=%q: %v", s.env, v, err)
			}
		}
		s.bind(fs, s.flag, s.usage+" ($"+s.env+")")
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if v := getenv("LOGISTICS_ADMIN_PASSWORD"); v != "" {
		c.AdminPassword = v
	}
	return fs.Args(), c.Validate()
}

// Validate checks the settings and fills the derived database paths.
func (c *Config) Validate() error {
	if c.DB == "" {
		c.DB = filepath.Join(c.DataDir, "production.db")
	}
	if c.SandboxDB == "" {
		c.SandboxDB = filepath.Join(c.DataDir, "sandbox.db")
	}
	if c.DB == c.SandboxDB {
		return errors.New("the production and sandbox databases must differ")
	}
	for _, r := range []struct{ flag, read, db, which string }{
		{"read-db", c.ReadDB, c.DB, "db"}, {"sandbox-read-db", c.SandboxReadDB, c.SandboxDB, "sandbox-db"},
	} {
		switch {
		case r.read == "":
		case !database.IsPostgres(r.db):
			return fmt.Errorf("%s: read replicas are PostgreSQL's; --%s is a SQLite database (%s): leave --%s unset", r.flag, r.which, r.db, r.flag)
		case !database.IsPostgres(r.read):
			return fmt.Errorf("%s must be a postgres:// DSN of a streaming replica", r.flag)
		case r.read == r.db:
			return fmt.Errorf("%s names the primary itself (--%s): name a streaming replica", r.flag, r.which)
		}
	}
	if c.ReadMaxLag < 100*time.Millisecond || c.ReadCheck < 10*time.Millisecond || c.ReadCheck > c.ReadMaxLag {
		return errors.New("read-max-lag must be at least 100ms, read-check-interval at least 10ms and not above read-max-lag")
	}
	for _, u := range []string{c.BaseURL, c.SandboxURL} {
		if u == "" {
			continue // derived from the listen address (DeriveAddresses)
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("base URL %q must be an absolute http(s) URL", u)
		}
	}
	if _, err := auth.ParseOriginList(c.CORSOrigins); err != nil {
		return err
	}
	switch c.CookieSameSite {
	case "lax", "strict":
	case "none":
		if !strings.HasPrefix(c.BaseURL, "https://") {
			return errors.New("cookie-samesite none needs an https --base-url: browsers drop SameSite=None cookies that are not Secure")
		}
	default:
		return fmt.Errorf("cookie-samesite %q: must be lax, strict or none", c.CookieSameSite)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("log format %q: must be text or json", c.LogFormat)
	}
	if c.RateLimit < 0 || c.RateBurst < 1 {
		return errors.New("rate-limit must be 0 or more and rate-burst at least 1")
	}
	if c.RedisURL != "" {
		u, err := url.Parse(c.RedisURL)
		if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix") {
			return errors.New("redis-url must be a redis://, rediss:// or unix:// URL")
		}
	}
	if c.DemoScale < 0 || c.DemoScale > 10 {
		return errors.New("demo-scale must be between 0 and 10")
	}
	if c.GCPercent < -1 || c.GCPercent == 0 {
		return errors.New("gc-percent must be -1 (off) or at least 1")
	}
	if c.MemoryLimit < 0 {
		return errors.New("memory-limit must be 0 (none) or more")
	}
	if c.SQLiteMemory < 0 || c.SQLiteMemory > 1<<20 {
		return errors.New("sqlite-memory must be between 0 (none) and 1048576 MiB")
	}
	if c.SQLiteSync != sqlite.SynchronousFull && c.SQLiteSync != sqlite.SynchronousNormal {
		return fmt.Errorf("sqlite-synchronous %q: must be full or normal", c.SQLiteSync)
	}
	if c.SchedTurns < 0 || c.SchedTurns > 64 {
		return errors.New("sched-turns must be between 0 (none) and 64")
	}
	if c.SubscriptionLimit < 1 || c.SubscriptionBuffer < 1 || c.SubscriptionKeepAlive < time.Second {
		return errors.New("subscription-limit and subscription-buffer must be at least 1, subscription-keepalive at least 1s")
	}
	if _, err := c.WebhookRetrySchedule(); err != nil {
		return err
	}
	if c.WebhookTimeout < 10*time.Millisecond || c.WebhookPoll < 10*time.Millisecond || c.WebhookWorkers < 0 || c.WebhookSecretGrace < 0 {
		return errors.New("webhook-timeout and webhook-poll must be at least 10ms, webhook-workers and webhook-secret-grace not negative")
	}
	for flag, v := range map[string]string{"trusted-documents-sessions": c.TrustedSessions, "trusted-documents-keys": c.TrustedKeys,
		"sandbox-trusted-documents-sessions": c.SandboxTrustedSessions, "sandbox-trusted-documents-keys": c.SandboxTrustedKeys} {
		if _, err := documents.ParseMode(v); err != nil {
			return fmt.Errorf("%s: %v", flag, err)
		}
	}
	if c.TrustedCacheTTL < 0 || c.TrustedCacheTTL > time.Hour {
		return errors.New("trusted-documents-cache-ttl must be between 0 (no cache) and 1h")
	}
	if c.MaxBodyBytes < 1024 {
		return errors.New("max-body-bytes must be at least 1024")
	}
	if c.MaxFields < 0 || c.MaxListLength < 1 || c.MaxRespBytes < 0 || c.MaxExecTime < 0 {
		return errors.New("graphql-max-fields, graphql-max-response-bytes and graphql-max-execution-time must be 0 (no limit) or more; graphql-max-list at least 1")
	}
	if c.MaxExecTime > 0 && c.WriteTimeout > 0 && c.MaxExecTime >= c.WriteTimeout {
		return errors.New("graphql-max-execution-time must be below write-timeout: the connection would be cut before the GraphQL error is written")
	}
	return nil
}

// Masked returns the configuration as log attributes, passwords masked.
func (c Config) Masked() []any {
	mask := func(dsn string) string {
		if database.IsPostgres(dsn) {
			if u, err := url.Parse(dsn); err == nil {
				return u.Redacted()
			}
			return "postgres://…"
		}
		return dsn
	}
	return []any{
		"addr", c.Addr, "data_dir", c.DataDir, "db", mask(c.DB), "sandbox_db", mask(c.SandboxDB),
		"read_db", mask(c.ReadDB), "sandbox_read_db", mask(c.SandboxReadDB), "read_max_lag", c.ReadMaxLag.String(),
		"base_url", c.BaseURL, "sandbox_url", c.SandboxURL, "cors_origins", c.CORSOrigins, "cookie_samesite", c.CookieSameSite, "max_body_bytes", strconv.FormatInt(c.MaxBodyBytes, 10),
		"graphql_max_depth", c.MaxDepth, "graphql_max_complexity", c.MaxComplexity,
		"graphql_max_fields", c.MaxFields, "graphql_max_list", c.MaxListLength,
		"graphql_max_response_bytes", c.MaxRespBytes, "graphql_max_execution_time", c.MaxExecTime.String(),
		"rate_limit", c.RateLimit, "rate_burst", c.RateBurst, "redis_url", maskRedis(c.RedisURL), "redis_prefix", c.RedisPrefix, "auth_cache_ttl", c.AuthCacheTTL.String(), "admin_email", c.AdminEmail,
		"webhook_allow_private", c.WebhookAllowPrivate, "webhook_retry_schedule", c.WebhookSchedule,
		"webhook_timeout", c.WebhookTimeout.String(), "webhook_workers", c.WebhookWorkers,
		"no_demo_data", c.NoDemoData, "graphql_no_fast_path", c.NoFastPath, "demo_scale", c.DemoScale,
		"subscription_limit", c.SubscriptionLimit, "subscription_buffer", c.SubscriptionBuffer, "subscription_keepalive", c.SubscriptionKeepAlive.String(),
		"sqlite_synchronous", c.SQLiteSync,
		"trusted_documents_sessions", c.TrustedSessions, "trusted_documents_keys", c.TrustedKeys,
		"sandbox_trusted_documents_sessions", c.SandboxTrustedSessions, "sandbox_trusted_documents_keys", c.SandboxTrustedKeys,
		"trusted_documents_cache_ttl", c.TrustedCacheTTL.String(),
	}
}

// DeriveAddresses fills the base addresses left empty from the address the
// server listens on (listen: "127.0.0.1:8090", "[::]:8080", ":0" resolved
// to its real port by the caller): http://host:port, a wildcard host
// advertised as 127.0.0.1; the sandbox's is the production one + /sandbox.
func (c *Config) DeriveAddresses(listen string) error {
	if c.BaseURL == "" {
		host, port, err := net.SplitHostPort(listen)
		if err != nil {
			return fmt.Errorf("addr %q: %v", listen, err)
		}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			host = "127.0.0.1"
		}
		c.BaseURL = "http://" + net.JoinHostPort(host, port)
	}
	if c.SandboxURL == "" {
		c.SandboxURL = strings.TrimSuffix(c.BaseURL, "/") + "/sandbox"
	}
	return c.Validate()
}

// maskRedis hides a password in a Redis URL.
func maskRedis(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return "redis://…"
	}
	return u.Redacted()
}

// WebhookRetrySchedule parses --webhook-retry-schedule: at least one and at
// most 50 positive durations.
func (c Config) WebhookRetrySchedule() ([]time.Duration, error) {
	var out []time.Duration
	for _, p := range strings.Split(c.WebhookSchedule, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("webhook-retry-schedule %q: %q is not a positive duration", c.WebhookSchedule, p)
		}
		out = append(out, d)
	}
	if len(out) > 50 {
		return nil, fmt.Errorf("webhook-retry-schedule: at most 50 retries")
	}
	return out, nil
}
