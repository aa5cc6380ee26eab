package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Destination checks. A webhook URL is chosen by the API's caller, and the
// service then sends requests to it from inside our network: without checks
// it could reach the cloud metadata service, the database or anything else
// only we can reach (server-side request forgery). A destination is checked
// when an endpoint is registered or updated and again at every connection:
// the dialer resolves the name itself, checks every address and dials only
// those, and its Control hook checks each socket's address once more, so a
// name that later resolves to 127.0.0.1 is refused too. Only public
// addresses pass, however they are written: zoned, IPv4-mapped or embedded
// in IPv6, or in the numeric IPv4 forms some clients accept.

// A refused range and what it is, for the refusal's message.
type refusedRange struct {
	prefix netip.Prefix
	what   string
}

func ranges(pairs ...string) []refusedRange {
	out := make([]refusedRange, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, refusedRange{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// refused4 are the IPv4 ranges a webhook may not reach unless private
// destinations are allowed: every block of the IANA IPv4 special-purpose
// registry that is not globally reachable, and the documentation,
// benchmarking, multicast and reserved ones.
var refused4 = ranges(
	"0.0.0.0/8", "a \"this network\" address",
	"10.0.0.0/8", "a private address",
	"100.64.0.0/10", "a carrier-grade NAT address", // cloud metadata lives here on some clouds
	"127.0.0.0/8", "a loopback address",
	"169.254.0.0/16", "a link-local address", // including 169.254.169.254 (metadata)
	"172.16.0.0/12", "a private address",
	"192.0.0.0/24", "an IETF protocol assignment",
	"192.0.2.0/24", "a documentation address",
	"192.88.99.0/24", "a 6to4 relay anycast address",
	"192.168.0.0/16", "a private address",
	"198.18.0.0/15", "a benchmarking address",
	"198.51.100.0/24", "a documentation address",
	"203.0.113.0/24", "a documentation address",
	"224.0.0.0/4", "a multicast address",
	"240.0.0.0/4", "a reserved address", // including the broadcast 255.255.255.255
)

// refused6 are the IPv6 ranges of the IANA IPv6 special-purpose registry
// (and the deprecated site-local one), named for the refusal's message. Only
// global unicast (2000::/3) is ever allowed, so anything else outside it is
// refused as well; IPv4-mapped addresses are checked as the IPv4 address they
// carry, 6to4 and Teredo ones by the IPv4 addresses they embed (checkAddr).
var refused6 = ranges(
	"::/128", "the unspecified address",
	"::1/128", "the loopback address",
	"::/96", "an IPv4-compatible address", // [::127.0.0.1]
	"::ffff:0:0:0/96", "an IPv4-translated address",
	"64:ff9b::/96", "a NAT64 address",
	"64:ff9b:1::/48", "a local-use NAT64 address",
	"100::/64", "a discard-only address",
	"2001::/23", "an IETF protocol assignment", // benchmarking 2001:2::/48, ORCHID 2001:10::/28, ORCHIDv2 2001:20::/28…
	"2001:db8::/32", "a documentation address",
	"3fff::/20", "a documentation address",
	"5f00::/16", "a segment-routing address",
	"fc00::/7", "a unique local address", // including fd00:ec2::254 (metadata)
	"fe80::/10", "a link-local address",
	"fec0::/10", "a site-local address",
	"ff00::/8", "a multicast address",
)

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	teredo         = netip.MustParsePrefix("2001::/32")
)

// errRefused marks a destination refused by the checks.
var errRefused = errors.New("refused destination")

// allowHint ends every refusal the operator can lift.
const allowHint = "such destinations are allowed only with --webhook-allow-private"

// checkAddr refuses loopback, private, link-local, metadata and every other
// non-public address, however it is written.
func checkAddr(ip netip.Addr) error {
	if why := refusal(ip); why != "" {
		return fmt.Errorf("%w: %s %s: %s", errRefused, ip, why, allowHint)
	}
	return nil
}

// refusal says why a webhook may not reach ip ("" when it may). An address
// with a zone ([fe80::1%25eth0]) is refused outright: a zone only makes
// sense for link-local destinations, and netip.Prefix.Contains is false for
// every zoned address, so it would otherwise slip past the ranges.
func refusal(ip netip.Addr) string {
	if ip.Zone() != "" {
		return "has an IPv6 zone (an interface-scoped address)"
	}
	if what := nonPublic(ip); what != "" {
		return "is " + what
	}
	return ""
}

// nonPublic says what ip is when a webhook may not reach it ("" when it
// may). ip has no zone.
func nonPublic(ip netip.Addr) string {
	if ip.Is4In6() { // ::ffff:a.b.c.d is dialled as a.b.c.d
		ip = ip.Unmap()
	}
	if ip.Is4() {
		for _, r := range refused4 {
			if r.prefix.Contains(ip) {
				return r.what + " (" + r.prefix.String() + ")"
			}
		}
		return ""
	}
	b := ip.As16()
	switch {
	case sixToFour.Contains(ip): // 2002:AABB:CCDD::/48 routes to AA.BB.CC.DD
		if what := nonPublic(netip.AddrFrom4([4]byte(b[2:6]))); what != "" {
			return "a 6to4 address (2002::/16) embedding " + what
		}
		return ""
	case teredo.Contains(ip): // server address in bits 32–63, client's inverted in the last 32
		if what := nonPublic(netip.AddrFrom4([4]byte(b[4:8]))); what != "" {
			return "a Teredo address (2001::/32) embedding " + what
		}
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		if what := nonPublic(netip.AddrFrom4(client)); what != "" {
			return "a Teredo address (2001::/32) embedding " + what
		}
		return ""
	}
	for _, r := range refused6 {
		if r.prefix.Contains(ip) {
			return r.what + " (" + r.prefix.String() + ")"
		}
	}
	if !globalUnicast6.Contains(ip) {
		return "a reserved address (outside global unicast 2000::/3)"
	}
	return ""
}

// host is a URL's host as the checks see it.
type host struct {
	ip   netip.Addr // valid when the host is an address
	name string     // otherwise: lower case, without a trailing dot
	// nonStandard: an IPv4 address written otherwise than as four decimal
	// numbers (2130706433, 0177.0.0.1, 0x7f.1, 127.1, 127.0.0.1.). Browsers
	// and C resolvers (inet_aton) read these as addresses, Go as names.
	nonStandard bool
}

// parseHost reads a URL's host (without brackets): an IP address (an IPv4
// address in any of the numeric spellings the WHATWG URL standard and
// inet_aton accept) or a name.
func parseHost(raw string) (host, error) {
	if ip, err := netip.ParseAddr(raw); err == nil {
		return host{ip: ip}, nil
	}
	name := strings.ToLower(raw)
	if strings.HasSuffix(name, ".") && len(name) > 1 {
		name = name[:len(name)-1] // the root's dot: localhost. is localhost
	}
	if name == "" || strings.HasPrefix(name, ".") || strings.Contains(name, "..") || strings.ContainsAny(name, "%[]:\\ ") {
		return host{}, errors.New("has an invalid host")
	}
	if endsInNumber(name) {
		ip, ok := parseIPv4Number(name)
		if !ok {
			return host{}, errors.New("has a numeric host that is not an IPv4 address")
		}
		return host{ip: ip, nonStandard: true}, nil
	}
	return host{name: name}, nil
}

// endsInNumber: a host whose last label is a number is an IPv4 address for
// the WHATWG URL standard (all digits, or 0x and hex digits).
func endsInNumber(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return false
	}
	_, ok := ipv4Part(last)
	return ok || strings.Trim(last, "0123456789") == ""
}

// ipv4Part reads one part of a numeric IPv4 host: decimal, octal with a
// leading 0, hexadecimal with 0x.
func ipv4Part(s string) (uint64, bool) {
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil && s != "" && s[0] != '+' && s[0] != '-'
}

// parseIPv4Number is the WHATWG URL standard's IPv4 parser: one to four
// parts, the last filling the bytes the others leave.
func parseIPv4Number(name string) (netip.Addr, bool) {
	parts := strings.Split(name, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := ipv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(5-len(parts))) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// localName: names that mean this machine whatever DNS says (RFC 6761).
func localName(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// checkURL validates a webhook URL's form: absolute http(s), a host that is
// an IP address or a name, no credentials, no fragment.
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
	if _, err := parseHost(u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

// resolver resolves names: net.DefaultResolver (the hosts file, then DNS)
// outside tests.
type resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// destinations returns the addresses a webhook to host (a URL's host, without
// brackets) may connect to, or why it may not: the one check behind the
// registration's (checkDestination) and every connection's (dial). Without
// --webhook-allow-private, a name is resolved and refused when any of its
// addresses is refused, so a name cannot pair a public address with a
// private one. With it, a name is left to the dialer (nil, nil).
func (m *Manager) destinations(ctx context.Context, raw string) ([]netip.Addr, error) {
	h, err := parseHost(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %v", errRefused, raw, err)
	}
	if h.ip.IsValid() {
		if !m.opts.AllowPrivate {
			if why := refusal(h.ip); why != "" && h.nonStandard {
				return nil, fmt.Errorf("%w: %s is %s, which %s: %s", errRefused, raw, h.ip, why, allowHint)
			}
			if err := checkAddr(h.ip); err != nil {
				return nil, err
			}
		}
		if h.nonStandard {
			return nil, fmt.Errorf("%w: %s is the IPv4 address %s in a non-standard form: write it as %s", errRefused, raw, h.ip, h.ip)
		}
		return []netip.Addr{h.ip}, nil
	}
	if m.opts.AllowPrivate {
		return nil, nil
	}
	if localName(h.name) {
		return nil, fmt.Errorf("%w: %s is a loopback name: %s", errRefused, raw, allowHint)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m.mu.Lock()
	r := m.resolver
	m.mu.Unlock()
	addrs, err := r.LookupNetIP(ctx, "ip", raw)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve %s: %v", raw, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("cannot resolve %s: no address", raw)
	}
	for _, a := range addrs {
		if why := refusal(a); why != "" {
			return nil, fmt.Errorf("%w: %s resolves to %s, which %s: %s", errRefused, raw, a, why, allowHint)
		}
	}
	return addrs, nil
}

// resolveAndCheck refuses a URL whose host is or resolves to a refused
// address (registration-time check).
func (m *Manager) resolveAndCheck(ctx context.Context, u *url.URL) error {
	_, err := m.destinations(ctx, u.Hostname())
	return err
}

// newHTTPClient is the client deliveries are sent with: every connection
// checked (dial), no proxy from the environment (it would hide the
// destination), redirects returned as they are (a 3xx is a failed attempt),
// and a time-out per attempt.
func (m *Manager) newHTTPClient() *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           m.dialer(),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   m.opts.Timeout,
		ResponseHeaderTimeout: m.opts.Timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       m.opts.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// dialer connects a delivery. Without --webhook-allow-private it resolves
// the host itself (destinations) and dials only the addresses it checked, so
// what was checked is what is dialled, and the net.Dialer's Control hook
// checks the address of every socket once more.
func (m *Manager) dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: m.opts.Timeout, KeepAlive: 30 * time.Second}
	if m.opts.AllowPrivate {
		return d.DialContext
	}
	d.Control = func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", errRefused, address)
		}
		return checkAddr(ap.Addr())
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		h, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", errRefused, addr)
		}
		ips, err := m.destinations(ctx, h)
		if err != nil {
			return nil, err
		}
		var first error
		for i, ip := range ips {
			c, err := dialPart(ctx, d, network, net.JoinHostPort(ip.String(), port), len(ips)-i)
			if err == nil {
				return c, nil
			}
			if first == nil {
				first = err
			}
		}
		return nil, first
	}
}

// dialPart dials one of a name's addresses with its share of the time left
// (at least 2 s), as net.Dialer does with the addresses it resolves, so an
// unreachable first address leaves time for the next.
func dialPart(ctx context.Context, d *net.Dialer, network, addr string, left int) (net.Conn, error) {
	if deadline, ok := ctx.Deadline(); ok && left > 1 {
		share := time.Until(deadline) / time.Duration(left)
		if share < 2*time.Second {
			share = min(2*time.Second, time.Until(deadline))
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, share)
		defer cancel()
	}
	return d.DialContext(ctx, network, addr)
}
