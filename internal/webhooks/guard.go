package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Destination checks. A webhook URL is chosen by the API's caller, and the
// service then sends requests to it from inside our network: without checks
// it could reach the cloud metadata service, the database or anything else
// only we can reach (server-side request forgery). Addresses are checked when
// an endpoint is registered and again at every connection, after DNS
// resolution (the dialer's Control hook sees the address actually dialled), so
// a name that later resolves to 127.0.0.1 is refused too.

// refusedPrefixes are the ranges a webhook may not reach unless private
// destinations are allowed.
var refusedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",         // "this network"
		"10.0.0.0/8",        // private
		"100.64.0.0/10",     // carrier-grade NAT (cloud metadata lives here on some clouds)
		"127.0.0.0/8",       // loopback
		"169.254.0.0/16",    // link-local, including 169.254.169.254 (metadata)
		"172.16.0.0/12",     // private
		"192.0.0.0/24",      // IETF protocol assignments
		"192.168.0.0/16",    // private
		"198.18.0.0/15",     // benchmarking
		"224.0.0.0/4",       // multicast
		"240.0.0.0/4",       // reserved, broadcast
		"::/128", "::1/128", // unspecified, loopback
		"64:ff9b::/96", // NAT64 (embeds IPv4 addresses)
		"fc00::/7",     // unique local, including fd00:ec2::254 (metadata)
		"fe80::/10",    // link-local
		"ff00::/8",     // multicast
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// errRefused marks a destination refused by the checks.
var errRefused = errors.New("refused destination")

// checkAddr refuses loopback, private, link-local, metadata and other
// non-public addresses.
func checkAddr(ip netip.Addr) error {
	ip = ip.Unmap()
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return fmt.Errorf("%w: %s is a loopback, private, link-local or reserved address (allowed only with --webhook-allow-private)", errRefused, ip)
		}
	}
	return nil
}

// checkURL validates a webhook URL's form: absolute http(s), a host, no
// credentials, no fragment.
func checkURL(raw string) (*url.URL, error) {
	if len(raw) > 2048 {
		return nil, errors.New("longer than 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("must be an http or https URL")
	}
	if u.Hostname() == "" {
		return nil, errors.New("has no host")
	}
	if u.User != nil {
		return nil, errors.New("must not carry credentials (user:password@)")
	}
	if u.Fragment != "" {
		return nil, errors.New("must not have a fragment")
	}
	return u, nil
}

// resolveAndCheck resolves the URL's host and refuses it when any address
// it resolves to is refused (registration-time check).
func (m *Manager) resolveAndCheck(ctx context.Context, u *url.URL) error {
	if m.opts.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return checkAddr(ip)
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return fmt.Errorf("%w: %s is a loopback name", errRefused, host)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := m.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %v", host, err)
	}
	for _, a := range addrs {
		if err := checkAddr(a); err != nil {
			return err
		}
	}
	return nil
}

// newHTTPClient is the client deliveries are sent with: every connection
// checked after resolution, no proxy from the environment (it would hide the
// destination), redirects returned as they are (a 3xx is a failed attempt),
// and a time-out per attempt.
func newHTTPClient(allowPrivate bool, timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", errRefused, address)
			}
			return checkAddr(ap.Addr())
		}
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
