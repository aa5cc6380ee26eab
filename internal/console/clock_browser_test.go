package console_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"logistics/internal/apptest"
	"logistics/internal/browsertest"
)

// The Sandbox clock section: freeze the clock, advance it by 48h, and the
// sandbox's clock (read over REST) is frozen 48 hours ahead of where it was
// frozen.
func TestConsoleSandboxClock(t *testing.T) {
	s := apptest.New(t)
	ctx := browsertest.New(t, browsertest.WithTimeout(2*time.Minute))
	var state, after string
	err := chromedp.Run(ctx,
		signIn(s),
		chromedp.WaitVisible("#sandbox-clock #clock-freeze", chromedp.ByQuery),
		chromedp.Click("#clock-freeze", chromedp.ByQuery),
		chromedp.WaitVisible("#clock-resume", chromedp.ByQuery),
		chromedp.Text("#clock-state", &state, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	clock := func() (c struct {
		Now          time.Time `json:"now"`
		Frozen       bool      `json:"frozen"`
		AheadSeconds float64   `json:"ahead_seconds"`
	}) {
		r := s.Do(t, http.MethodGet, s.SandboxURL+"/v1/sandbox/clock", nil, nil)
		if err := json.Unmarshal(r.Body, &c); err != nil || r.StatusCode != http.StatusOK {
			t.Fatalf("clock: %d %s", r.StatusCode, r.Body)
		}
		return c
	}
	frozen := clock()
	if !frozen.Frozen || !strings.Contains(state, "frozen") {
		t.Fatalf("after Freeze: %+v, the page says %q", frozen, state)
	}
	err = chromedp.Run(ctx,
		chromedp.SetValue("#clock-by", "48h", chromedp.ByQuery),
		chromedp.Click("#clock-advance", chromedp.ByQuery),
		chromedp.WaitVisible(`//span[@id="clock-state"][contains(., "h ahead")]`, chromedp.BySearch),
		chromedp.Text("#clock-state", &after, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	if c := clock(); !c.Frozen || !c.Now.Equal(frozen.Now.Add(48*time.Hour)) {
		t.Errorf("after Advance 48h: %+v, frozen at %s; the page says %q", c, frozen.Now, after)
	}
}
