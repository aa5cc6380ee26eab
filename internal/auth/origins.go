package auth

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"logistics/internal/apperr"
)

// OriginsSetting names the setting that lists the browser origins allowed
// to call the API with credentials; refusals name it.
const OriginsSetting = "--cors-origins (LOGISTICS_CORS_ORIGINS)"

// Origins is the one list of browser origins trusted with credentials: the
// CORS middleware answers them, and session requests that change something
// (and sign-in) are refused from any other origin. It holds each base
// address's own origin (with localhost, 127.0.0.1 and [::1] all accepted
// when the base host is a loopback one) and the configured entries: exact
// origins ("https://app.example.com") or a loopback-style pattern with any
// port ("http://localhost:*").
type Origins struct {
	exact map[string]bool
	// anyPort holds "scheme://host" of entries written with ":*".
	anyPort map[string]bool
}

// NewOrigins builds the list from the base addresses and the configured
// entries (ParseOriginList's result).
func NewOrigins(bases []*url.URL, entries []string) *Origins {
	o := &Origins{exact: map[string]bool{}, anyPort: map[string]bool{}}
	for _, b := range bases {
		scheme, host, port := strings.ToLower(b.Scheme), strings.ToLower(b.Hostname()), b.Port()
		hosts := []string{host}
		if isLoopback(host) {
			hosts = []string{"localhost", "127.0.0.1", "::1"}
		}
		for _, h := range hosts {
			o.exact[originOf(scheme, h, port)] = true
		}
	}
	for _, e := range entries {
		if base, ok := strings.CutSuffix(e, ":*"); ok {
			o.anyPort[base] = true
		} else {
			o.exact[e] = true
		}
	}
	return o
}

// Allowed reports whether a browser request from origin (its Origin header)
// may carry credentials.
func (o *Origins) Allowed(origin string) bool {
	if o == nil || origin == "" || len(origin) > 300 {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Path != "" || u.RawQuery != "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if o.exact[originOf(scheme, host, port)] {
		return true
	}
	return o.anyPort[originOf(scheme, host, "")]
}

// ParseOriginList checks a comma-separated --cors-origins value and returns
// its entries in canonical form (lower case, default port dropped). An entry
// is scheme://host[:port] with no path, or scheme://host:* for any port; "*"
// alone is refused (it cannot be combined with credentials).
func ParseOriginList(s string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if e == "*" {
			return nil, fmt.Errorf("cors-origins: %q is not allowed: browsers refuse it with credentials; list the origins (a port may be *: http://localhost:*)", e)
		}
		anyPort := strings.HasSuffix(e, ":*")
		raw := strings.TrimSuffix(e, ":*")
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil ||
			strings.Contains(u.Host, "*") || (anyPort && u.Port() != "") {
			return nil, fmt.Errorf("cors-origins: %q is not an origin: write scheme://host[:port] (no path), or scheme://host:* for any port", e)
		}
		port := u.Port()
		if anyPort {
			out = append(out, originOf(strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), "")+":*")
			continue
		}
		out = append(out, originOf(strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), port))
	}
	return out, nil
}

// originOf writes scheme://host[:port], dropping the scheme's default port
// and bracketing IPv6 hosts.
func originOf(scheme, host, port string) string {
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" {
		return scheme + "://" + host
	}
	return scheme + "://" + host + ":" + port
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrOrigin is the error for a credentialed request (a session's sign-in or
// unsafe request) from an origin not in the list.
func ErrOrigin(origin string) error {
	return apperr.Forbidden("cross_origin", "requests from %s are not accepted: add that origin to %s", origin, OriginsSetting)
}
