package webhooks_test

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"logistics/ent"
	"logistics/ent/webhookdelivery"
	"logistics/internal/app"
	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// metricValue scrapes srv's /metrics for one sample (name and label set
// exactly as exposed); ok is false when it is absent.
func metricValue(t *testing.T, srv *apptest.Server, sample string) (float64, bool) {
	t.Helper()
	body := string(srv.Do(t, http.MethodGet, srv.URL+"/metrics", nil, apptest.Anonymous()).Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("%s: %v", sample, err)
	}
	return v, true
}

// TestQueueMetrics: /metrics reports each environment's pending
// deliveries and the age of the oldest, read from its database.
func TestQueueMetrics(t *testing.T) {
	srv := apptest.New(t, apptest.Options{Config: func(c *app.Config) { allowPrivate(c); c.WebhookWorkers = 0 }})
	const depth = `logistics_webhook_queue_depth{environment="production"}`
	const age = `logistics_webhook_oldest_pending_age_seconds{environment="production"}`
	for _, s := range []string{depth, age, `logistics_webhook_queue_depth{environment="sandbox"}`} {
		if v, ok := metricValue(t, srv, s); !ok || v != 0 {
			t.Fatalf("before any delivery: %s = %v (present: %v), want 0", s, v, ok)
		}
	}
	rc := newReceiver(t)
	createEndpoint(t, srv, rc.URL)
	ctx := srv.Ctx(environment.Production)
	for _, code := range []string{"QM1", "QM2"} {
		if _, err := srv.App.Service.CreateHub(ctx, ent.CreateHubInput{Code: code, Name: "queued", Country: "NL"}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := srv.Env(environment.Production).DB.Client.WebhookDelivery.Query().
		Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Count(ctx)
	if err != nil || want < 2 {
		t.Fatalf("%d pending deliveries (%v), want at least 2", want, err)
	}
	time.Sleep(20 * time.Millisecond)
	// A scrape reuses the queue's figures for a second (a scrape storm
	// reads the database once): the first scrape's zeros may still answer.
	var d, a float64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if d, _ = metricValue(t, srv, depth); d == float64(want) {
			break
		}
	}
	if d != float64(want) {
		t.Errorf("%s = %v, want %d", depth, d, want)
	}
	if a, _ = metricValue(t, srv, age); a < 0.02 || a > 60 {
		t.Errorf("%s = %v, want the oldest delivery's age (at least 20 ms)", age, a)
	}
	if v, _ := metricValue(t, srv, `logistics_webhook_queue_depth{environment="sandbox"}`); v != 0 {
		t.Errorf("the sandbox's queue = %v, want 0", v)
	}
}
