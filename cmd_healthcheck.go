package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"logistics/internal/app"
)

// healthcheck GETs /healthz of a running server and fails unless it answers
// 200: the container image's HEALTHCHECK, since its empty base has no curl.
func init() {
	commands["healthcheck"] = command{"exit 0 when the server on --addr (or --url) answers GET /healthz with 200, else 1", healthcheck}
}

func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	addr := app.Defaults().Addr
	if v := getenv("LOGISTICS_ADDR"); v != "" {
		addr = v
	}
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&addr, "addr", addr, "the server's listen address (LOGISTICS_ADDR); a wildcard host is probed on 127.0.0.1")
	target := fs.String("url", "", "the URL to probe instead (default http://<addr>/healthz)")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("healthcheck: unexpected arguments %q", fs.Args())
	}
	if *target == "" {
		u, err := healthzURL(addr)
		if err != nil {
			return err
		}
		*target = u
	} else if u, err := url.Parse(*target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("healthcheck: --url %q: want an http:// or https:// URL", *target)
	}
	if *timeout <= 0 {
		return fmt.Errorf("healthcheck: --timeout must be positive")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *target, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %v", err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s: %s", *target, resp.Status)
	}
	fmt.Fprintf(stdout, "ok: GET %s: %s\n", *target, resp.Status)
	return nil
}

// healthzURL is http://host:port/healthz for a listen address, a wildcard
// or empty host probed on the loopback address.
func healthzURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("healthcheck: addr %q: %v", addr, err)
	}
	if port == "0" || port == "" {
		return "", fmt.Errorf("healthcheck: addr %q has no fixed port: pass --url", addr)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1" // a wildcard listener (0.0.0.0, [::]) takes IPv4 loopback too
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}
