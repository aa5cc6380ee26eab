package webhooks

import (
	"net/netip"
	"testing"
)

// TestRefusedRangesBoundaries: the first and last address of every refused
// range is refused, zoned or not, plain and (for IPv4) IPv4-mapped, 6to4-
// and Teredo-embedded; addresses just outside the ranges are public.
func TestRefusedRangesBoundaries(t *testing.T) {
	last := func(p netip.Prefix) netip.Addr {
		b := p.Addr().AsSlice()
		for i := p.Bits(); i < len(b)*8; i++ {
			b[i/8] |= 0x80 >> (i % 8)
		}
		a, _ := netip.AddrFromSlice(b)
		return a
	}
	for _, r := range append(append([]refusedRange(nil), refused4...), refused6...) {
		for _, a := range []netip.Addr{r.prefix.Addr(), last(r.prefix)} {
			forms := []netip.Addr{a}
			if a.Is4() {
				b := a.As4()
				forms = append(forms,
					netip.AddrFrom16(a.As16()), // ::ffff:a.b.c.d
					netip.AddrFrom16([16]byte{0x20, 0x02, b[0], b[1], b[2], b[3], 15: 1}),                            // 6to4
					netip.AddrFrom16([16]byte{0x20, 0x01, 0, 0, b[0], b[1], b[2], b[3], 12: 0xfe, 0xfe, 0xfe, 0xfe}), // Teredo server
					netip.AddrFrom16([16]byte{0x20, 0x01, 0, 0, 8, 8, 8, 8, 12: ^b[0], ^b[1], ^b[2], ^b[3]}),         // Teredo client
					netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 12: b[0], b[1], b[2], b[3]}),                      // NAT64
					netip.AddrFrom16([16]byte{12: b[0], b[1], b[2], b[3]}),                                           // IPv4-compatible
					netip.AddrFrom16([16]byte{8: 0xff, 0xff, 0, 0, b[0], b[1], b[2], b[3]}),                          // IPv4-translated
				)
			}
			for _, f := range forms {
				if checkAddr(f) == nil {
					t.Errorf("%s (%s, %s) is allowed", f, r.prefix, r.what)
				}
				if f.Is6() && checkAddr(f.WithZone("eth0")) == nil {
					t.Errorf("%s zoned is allowed", f)
				}
			}
		}
	}
	for _, s := range []string{
		"1.0.0.1", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0",
		"169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.0", "192.0.3.0", "192.88.98.255",
		"192.88.100.0", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "198.51.99.255", "198.51.101.0",
		"203.0.112.255", "203.0.114.0", "223.255.255.255",
		"2000::1", "2001:200::1", "2001:db7:ffff::1", "2001:db9::1", "2002:808:808::1", "2001:0:808:808::fefe:fefe",
		"3ffe:ffff::1", "3fff:1000::1", "2606:4700:4700::1111", "::ffff:8.8.8.8",
	} {
		if err := checkAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// TestParseHost: the numeric IPv4 spellings of the WHATWG URL standard
// (which inet_aton accepts too) are read as addresses, marked non-standard;
// other hosts are names or errors.
func TestParseHost(t *testing.T) {
	for _, c := range []struct {
		in, ip, name string
		nonStandard  bool
		bad          bool
	}{
		{in: "127.0.0.1", ip: "127.0.0.1"},
		{in: "fe80::1%lo", ip: "fe80::1%lo"},
		{in: "2130706433", ip: "127.0.0.1", nonStandard: true},
		{in: "0177.0.0.1", ip: "127.0.0.1", nonStandard: true},
		{in: "0x7f.1", ip: "127.0.0.1", nonStandard: true},
		{in: "0X7F.0.0.1", ip: "127.0.0.1", nonStandard: true},
		{in: "127.1", ip: "127.0.0.1", nonStandard: true},
		{in: "127.0.1", ip: "127.0.0.1", nonStandard: true},
		{in: "127.0.0.1.", ip: "127.0.0.1", nonStandard: true},
		{in: "0", ip: "0.0.0.0", nonStandard: true},
		{in: "0x", ip: "0.0.0.0", nonStandard: true},
		{in: "4294967295", ip: "255.255.255.255", nonStandard: true},
		{in: "192.168.65535", ip: "192.168.255.255", nonStandard: true},
		{in: "4294967296", bad: true},
		{in: "1.2.3.4.5", bad: true},
		{in: "256.1.1.1", bad: true},
		{in: "1.256.1", bad: true},
		{in: "08.1.1.1", bad: true},
		{in: "example.0x", bad: true},
		{in: "a..b", bad: true},
		{in: ".", bad: true},
		{in: "exa%mple.com", bad: true},
		{in: "localhost.", name: "localhost"},
		{in: "LocalHost", name: "localhost"},
		{in: "0x7f.example", name: "0x7f.example"},
		{in: "1.2.3.example", name: "1.2.3.example"},
		{in: "example.com", name: "example.com"},
	} {
		h, err := parseHost(c.in)
		switch {
		case c.bad:
			if err == nil {
				t.Errorf("%s: %+v, want an error", c.in, h)
			}
		case err != nil:
			t.Errorf("%s: %v", c.in, err)
		case c.ip != "" && (h.ip != netip.MustParseAddr(c.ip) || h.nonStandard != c.nonStandard):
			t.Errorf("%s: %+v, want %s (non-standard %v)", c.in, h, c.ip, c.nonStandard)
		case c.name != "" && (h.name != c.name || h.ip.IsValid()):
			t.Errorf("%s: %+v, want the name %s", c.in, h, c.name)
		}
	}
}
