package apptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisEnv names the variable that gives tests a Redis (redis://host:port/db).
const RedisEnv = "LOGISTICS_TEST_REDIS"

// Redis returns the tests' Redis URL and a key prefix for this test alone.
// Without $LOGISTICS_TEST_REDIS the test is skipped, unless $CI is set: then
// it fails, so that CI cannot pass by skipping. A Redis that does not answer
// fails the test.
func Redis(t testing.TB) (url, prefix string) {
	t.Helper()
	url = os.Getenv(RedisEnv)
	if url == "" {
		msg := "needs Redis: set " + RedisEnv + "=redis://127.0.0.1:6379/0"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; failing because $CI is set")
		}
		t.Skip(msg)
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("apptest: %s: %v", RedisEnv, err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("apptest: Redis at %s does not answer: %v", url, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return url, "lt-" + hex.EncodeToString(b[:]) + ":"
}
