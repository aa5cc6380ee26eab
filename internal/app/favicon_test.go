package app_test

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"net/http"
	"regexp"
	"testing"

	"logistics/internal/apptest"
)

var iconLink = regexp.MustCompile(`<link rel="icon" href="([^"]+)">`)

// TestFavicon: /favicon.ico is an icon (an ICO holding a 32×32 PNG) at the
// root and under each base address, and the console and both playgrounds
// link one that is served.
func TestFavicon(t *testing.T) {
	s := apptest.New(t)
	for _, u := range []string{s.URL + "/favicon.ico", s.SandboxURL + "/favicon.ico"} {
		r := s.Do(t, "GET", u, nil, apptest.Anonymous())
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != "image/x-icon" || len(r.Body) < 22 {
			t.Fatalf("%s: %d %s (%d bytes)", u, r.StatusCode, r.Header.Get("Content-Type"), len(r.Body))
		}
		b := r.Body
		if !bytes.Equal(b[:6], []byte{0, 0, 1, 0, 1, 0}) || b[6] != 32 || b[7] != 32 {
			t.Fatalf("%s: not an ICO of one 32×32 image: % x", u, b[:8])
		}
		n, off := binary.LittleEndian.Uint32(b[14:]), binary.LittleEndian.Uint32(b[18:])
		if int(off+n) != len(b) {
			t.Fatalf("%s: image at %d+%d in %d bytes", u, off, n, len(b))
		}
		img, err := png.Decode(bytes.NewReader(b[off:]))
		if err != nil || img.Bounds().Dx() != 32 || img.Bounds().Dy() != 32 {
			t.Fatalf("%s: the PNG inside: %v %v", u, err, img)
		}
		h := http.Header{"If-None-Match": {r.Header.Get("ETag")}, "Authorization": {""}}
		if r := s.Do(t, "GET", u, nil, h); r.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d", u, r.StatusCode)
		}
	}
	for _, page := range []string{s.URL + "/console", s.URL + "/playground", s.SandboxURL + "/playground"} {
		r := s.Do(t, "GET", page, nil, apptest.Anonymous())
		m := iconLink.FindSubmatch(r.Body)
		if r.StatusCode != 200 || m == nil {
			t.Errorf("%s: %d, icon link %q", page, r.StatusCode, m)
			continue
		}
		if ic := s.Do(t, "GET", s.URL[:len("http://")]+s.HTTP.Listener.Addr().String()+string(m[1]), nil, apptest.Anonymous()); ic.StatusCode != 200 || ic.Header.Get("Content-Type") != "image/x-icon" {
			t.Errorf("%s links %s: %d %s", page, m[1], ic.StatusCode, ic.Header.Get("Content-Type"))
		}
	}
}
