package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// RateLimiter takes one request from a key's budget: the in-memory Limiter
// of one instance, or a budget shared by every instance through Redis.
type RateLimiter interface {
	Take(ctx context.Context, key string) Decision
}

// Take is Allow; it makes a Limiter a RateLimiter.
func (l *Limiter) Take(_ context.Context, key string) Decision { return l.Allow(key) }

// Limits makes the rate limiters of an instance. name tells one limiter's
// keys from another's where they share a store.
type Limits interface {
	New(name string, rate float64, burst int) RateLimiter
}

// MemoryLimits keeps every budget in this instance's memory: with N
// instances a key may get up to N times its rate.
type MemoryLimits struct{}

// New returns an in-memory Limiter.
func (MemoryLimits) New(_ string, rate float64, burst int) RateLimiter {
	return NewLimiter(rate, burst)
}

// RedisLimits shares every budget among the instances through Redis, with
// go-redis/redis_rate (GCRA, one Lua script per decision, so concurrent
// instances never race). When Redis fails, a decision falls back to the
// instance's in-memory limiter (the per-instance behaviour without Redis),
// the failure is counted (Errors, logistics_rate_limit_redis_errors_total)
// and logged at most every 30 s, and Redis is not asked again for a second.
type RedisLimits struct {
	client  *redis.Client
	limiter *redis_rate.Limiter
	prefix  string
	log     *slog.Logger

	errors    atomic.Int64
	downUntil atomic.Int64 // unix nanoseconds
	lastWarn  atomic.Int64 // unix nanoseconds
}

// Redis time-outs unless the URL sets them (dial_timeout, read_timeout,
// write_timeout): a limiter that waits seconds for a dead Redis would stall
// every request.
const (
	redisTimeout  = 250 * time.Millisecond
	redisCoolDown = time.Second
	redisWarnGap  = 30 * time.Second
)

// NewRedisLimits connects to the Redis at url (redis://, rediss:// or
// unix://). prefix starts every key this service writes after redis_rate's
// own "rate:" (so keys read rate:<prefix><limiter>:<key>).
func NewRedisLimits(url, prefix string, log *slog.Logger) (*RedisLimits, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w", err)
	}
	if opt.DialTimeout == 0 {
		opt.DialTimeout = redisTimeout
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = redisTimeout
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = redisTimeout
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 1 // one retry covers a pooled connection that Redis closed
	}
	if opt.DialerRetries == 0 {
		opt.DialerRetries = 1 // go-redis's default, 5 dials 100 ms apart, held each request half a second
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// go-redis's own log (a dial that failed, …) goes to ours at debug level:
	// our warning above says the same once per 30 s. The setting is global to
	// go-redis; the last RedisLimits made sets it.
	redis.SetLogger(redisLog{log})
	c := redis.NewClient(opt)
	return &RedisLimits{client: c, limiter: redis_rate.NewLimiter(c), prefix: prefix, log: log}, nil
}

// Ping checks that Redis answers.
func (r *RedisLimits) Ping(ctx context.Context) error { return r.client.Ping(ctx).Err() }

// Close closes the connections.
func (r *RedisLimits) Close() error { return r.client.Close() }

// Errors is how many decisions fell back to memory because Redis failed.
func (r *RedisLimits) Errors() int64 { return r.errors.Load() }

// New returns a limiter whose budgets live in Redis under name.
func (r *RedisLimits) New(name string, rate float64, burst int) RateLimiter {
	if burst < 1 {
		burst = 1
	}
	mem := NewLimiter(rate, burst)
	if rate <= 0 {
		return mem // no refill: GCRA needs a rate; nothing to share that matters
	}
	// GCRA's emission interval is Period/Rate: one request per 1/rate s.
	lim := redis_rate.Limit{Rate: 1, Burst: burst, Period: time.Duration(float64(time.Second) / rate)}
	return &redisLimiter{limits: r, name: name, limit: lim, fallback: mem}
}

type redisLimiter struct {
	limits   *RedisLimits
	name     string
	limit    redis_rate.Limit
	fallback *Limiter
}

func (l *redisLimiter) Take(ctx context.Context, key string) Decision {
	r := l.limits
	if time.Now().UnixNano() < r.downUntil.Load() {
		return l.fallback.Allow(key)
	}
	res, err := r.limiter.Allow(context.WithoutCancel(ctx), r.prefix+l.name+":"+key, l.limit)
	if err != nil {
		r.failed(err)
		return l.fallback.Allow(key)
	}
	d := Decision{Allowed: res.Allowed > 0, Limit: l.limit.Burst, Remaining: res.Remaining, Reset: max(res.ResetAfter, 0)}
	if !d.Allowed {
		d.RetryAfter = max(res.RetryAfter, 0)
	}
	return d
}

func (r *RedisLimits) failed(err error) {
	r.errors.Add(1)
	now := time.Now()
	r.downUntil.Store(now.Add(redisCoolDown).UnixNano())
	if last := r.lastWarn.Load(); now.UnixNano()-last >= int64(redisWarnGap) && r.lastWarn.CompareAndSwap(last, now.UnixNano()) {
		r.log.Warn("rate limits: Redis failed, limiting in this instance's memory until it answers again",
			"err", err, "errors_total", r.errors.Load())
	}
}

// loginKey is the key of an account's sign-in budget: a hash, so no email
// address is written to Redis.
func loginKey(email string) string {
	sum := sha256.Sum256([]byte(email))
	return hex.EncodeToString(sum[:16])
}

// redisLog writes go-redis's messages to a slog.Logger at debug level.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}
