package auth

import (
	"math"
	"sync"
	"time"
)

// Limiter is a set of token buckets, one per key, kept in this instance's
// memory: with N instances behind a load balancer a key may get up to N
// times the rate. Buckets that are full again are forgotten.
type Limiter struct {
	Rate  float64 // tokens added per second
	Burst int     // bucket size: the most requests allowed at once
	Now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// NewLimiter returns a limiter of rate requests per second with a burst.
func NewLimiter(rate float64, burst int) *Limiter {
	if burst < 1 {
		burst = 1
	}
	return &Limiter{Rate: rate, Burst: burst, Now: time.Now, buckets: map[string]*bucket{}}
}

// Decision is the outcome of one Allow.
type Decision struct {
	Allowed    bool
	Limit      int           // the burst
	Remaining  int           // whole tokens left after this request
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // until the next request may pass (when refused)
}

// Allow takes one token from key's bucket if there is one.
func (l *Limiter) Allow(key string) Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(l.Burst), last: now}
		l.buckets[key] = b
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(float64(l.Burst), b.tokens+el*l.Rate)
	}
	b.last = now
	d := Decision{Limit: l.Burst}
	if b.tokens >= 1 {
		b.tokens--
		d.Allowed = true
	} else if l.Rate > 0 {
		d.RetryAfter = seconds((1 - b.tokens) / l.Rate)
	} else {
		d.RetryAfter = time.Hour
	}
	d.Remaining = int(b.tokens)
	if l.Rate > 0 {
		d.Reset = seconds((float64(l.Burst) - b.tokens) / l.Rate)
	}
	l.gc(now)
	return d
}

// gc forgets, at most once a minute, the buckets that have refilled.
func (l *Limiter) gc(now time.Time) {
	if now.Sub(l.sweep) < time.Minute || l.Rate <= 0 {
		return
	}
	l.sweep = now
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.Rate >= float64(l.Burst) {
			delete(l.buckets, k)
		}
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// ceilSeconds rounds d up to whole seconds, at least 1 when d > 0.
func ceilSeconds(d time.Duration) int {
	return int(math.Ceil(d.Seconds()))
}
