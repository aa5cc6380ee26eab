// Package browsertest drives Debian's Chromium from Go tests with chromedp.
//
//	func TestPage(t *testing.T) {
//		ctx := browsertest.New(t)
//		var title string
//		if err := chromedp.Run(ctx, chromedp.Navigate(url), chromedp.Title(&title)); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// New starts a headless browser with a fresh profile for the test and stops
// it when the test ends. The browser is /usr/bin/chromium, or $CHROMIUM.
// When it is missing the test is skipped, unless $CI is set: then it fails,
// so that CI cannot pass by silently skipping the browser tests.
//
// When a test fails, a screenshot of the page is written to
// $BROWSERTEST_ARTIFACTS (or a directory under the system's temporary
// directory) and its path is logged.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// DefaultTimeout bounds the browser work of one test. $BROWSERTEST_TIMEOUT
// (a time.Duration such as "90s") or WithTimeout change it.
const DefaultTimeout = 60 * time.Second

// DefaultPath is where Debian's chromium package installs the browser.
const DefaultPath = "/usr/bin/chromium"

type config struct {
	timeout       time.Duration
	width, height int
	flags         map[string]any
}

// Option changes what New does.
type Option func(*config)

// WithTimeout sets the time the test's browser work may take, from New on.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithWindowSize sets the size of the browser window (default 1280x800).
func WithWindowSize(width, height int) Option {
	return func(c *config) { c.width, c.height = width, height }
}

// WithFlag adds (value true or a string) or removes (value false) a
// command-line flag of the browser.
func WithFlag(name string, value any) Option {
	return func(c *config) { c.flags[name] = value }
}

// Path returns the browser executable: $CHROMIUM if set, else
// /usr/bin/chromium, else chromium or chromium-browser from $PATH. ok is
// false when none exists.
func Path() (path string, ok bool) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if lp, err := exec.LookPath(p); err == nil {
			return lp, true
		}
		return p, false
	}
	if _, err := os.Stat(DefaultPath); err == nil {
		return DefaultPath, true
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if lp, err := exec.LookPath(name); err == nil {
			return lp, true
		}
	}
	return DefaultPath, false
}

// New starts a headless Chromium for t and returns a chromedp context for
// it, bounded by the timeout. The browser is stopped, and its profile
// removed, when the test ends; a failed test leaves a screenshot (see
// Screenshot). Exceptions, console errors and warnings, and the browser's
// own error messages (such as CSP violations) are logged with t.Log.
func New(t testing.TB, opts ...Option) context.Context {
	t.Helper()
	cfg := config{timeout: DefaultTimeout, width: 1280, height: 800, flags: map[string]any{}}
	if s := os.Getenv("BROWSERTEST_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			t.Fatalf("browsertest: bad BROWSERTEST_TIMEOUT %q", s)
		}
		cfg.timeout = d
	}
	for _, o := range opts {
		o(&cfg)
	}

	path, ok := Path()
	if !ok {
		msg := fmt.Sprintf("browsertest: no Chromium at %s (install it with `apt-get install chromium`, or set $CHROMIUM)", path)
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; failing because $CI is set")
		}
		t.Skip(msg)
	}

	// The profile lives in the test's temporary directory. Chromium's
	// helper processes may still write there for a moment after the browser
	// exits, so the cleanup below removes it (with retries) before
	// t.TempDir's own cleanup, registered earlier, runs.
	profile := filepath.Join(t.TempDir(), "profile")

	allocOpts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.WindowSize(cfg.width, cfg.height),
	}
	for name, v := range cfg.flags {
		allocOpts = append(allocOpts, chromedp.Flag(name, v))
	}

	logf := newSafeLogf(t)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx,
		chromedp.WithLogf(logf.logf),
		chromedp.WithErrorf(logf.logf),
	)

	// Start the browser now, with a context that outlives the test's
	// timeout (the first Run's context owns the browser), so that a
	// screenshot can still be taken after a timeout.
	startTimer := time.AfterFunc(cfg.timeout, cancelBrowser)
	err := chromedp.Run(browserCtx)
	startTimer.Stop()
	if err != nil {
		cancelBrowser()
		cancelAlloc()
		t.Fatalf("browsertest: starting %s: %v", path, err)
	}

	chromedp.ListenTarget(browserCtx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg = d.Exception.Description
			}
			logf.logf("browser: uncaught exception: %s (%s:%d)", msg, d.URL, d.LineNumber+1)
		case *cdplog.EventEntryAdded:
			// Messages of the browser itself: CSP violations, failed
			// loads, deprecations.
			e := ev.Entry
			if e.Level == cdplog.LevelError || e.Level == cdplog.LevelWarning {
				logf.logf("browser: %s %s: %s %s", e.Source, e.Level, e.Text, e.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.APITypeError && ev.Type != runtime.APITypeWarning {
				return
			}
			var parts []string
			for _, a := range ev.Args {
				if a.Value != nil {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			logf.logf("browser: console.%s: %s", ev.Type, strings.Join(parts, " "))
		}
	})

	ctx, cancelTimeout := context.WithTimeout(browserCtx, cfg.timeout)
	t.Cleanup(func() {
		cancelTimeout()
		if t.Failed() {
			if p, err := screenshot(t, browserCtx, "failure"); err != nil {
				logf.logf("browsertest: no failure screenshot: %v", err)
			} else {
				logf.logf("browsertest: failure screenshot: %s", p)
			}
		}
		// Close the browser gracefully, then make sure it is gone.
		closeCtx, cancelClose := context.WithTimeout(browserCtx, 5*time.Second)
		_ = chromedp.Cancel(closeCtx)
		cancelClose()
		cancelBrowser()
		cancelAlloc() // waits for the browser process to exit
		logf.stop()
		removeAllRetry(profile)
	})
	return ctx
}

// Screenshot saves a PNG of the whole page of ctx (a context from New) and
// returns its path. The file goes to $BROWSERTEST_ARTIFACTS when that is
// set, else to t.TempDir(), which is removed after the test.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	p, err := screenshot(t, ctx, name)
	if err != nil {
		t.Fatalf("browsertest: screenshot %s: %v", name, err)
	}
	t.Logf("browsertest: screenshot %s", p)
	return p
}

func screenshot(t testing.TB, ctx context.Context, name string) (string, error) {
	dir, failure := os.Getenv("BROWSERTEST_ARTIFACTS"), name == "failure"
	if dir == "" {
		if failure {
			// t.TempDir is removed at the end of the test: keep failure
			// screenshots where they can be looked at.
			dir = filepath.Join(os.TempDir(), "browsertest-artifacts")
		} else {
			dir = t.TempDir()
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		return "", err
	}
	file := sanitize(t.Name()) + "-" + sanitize(name)
	if failure {
		file += "-" + time.Now().Format("20060102-150405")
	}
	p := filepath.Join(dir, file+".png")
	return p, os.WriteFile(p, png, 0o644)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitize(s string) string { return strings.Trim(unsafeChars.ReplaceAllString(s, "_"), "_") }

func removeAllRetry(dir string) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := os.RemoveAll(dir)
		if err == nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// safeLogf forwards to t.Logf until stop is called: chromedp may log from
// its goroutines after the test has returned, when t.Logf panics.
type safeLogf struct {
	mu      sync.Mutex
	t       testing.TB
	stopped bool
}

func newSafeLogf(t testing.TB) *safeLogf { return &safeLogf{t: t} }

func (l *safeLogf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.t.Logf(format, args...)
	}
}

func (l *safeLogf) stop() {
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
}
