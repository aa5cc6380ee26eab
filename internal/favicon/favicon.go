// Package favicon serves the service's icon at /favicon.ico, which
// browsers ask for on every page (the console's requests for it were 404s
// in every browser's console). The icon is drawn here, a 32×32 PNG in an
// ICO container (every browser reads ICO at /favicon.ico; an SVG there is
// not read by all), so there is no binary file to keep in the repository.
package favicon

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"sync"
)

// Path is where browsers look for the icon of a site.
const Path = "/favicon.ico"

const size = 32

var (
	blue  = color.NRGBA{0x10, 0x18, 0x28, 0xff} // the console's header bar (#101828)
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// draw paints a parcel: a white box with a tape line, on a dark rounded
// square.
func draw() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const r = 6 // the corners' radius
	for y := range size {
		for x := range size {
			// Outside the rounded corners stays transparent.
			cx, cy := min(max(x, r), size-1-r), min(max(y, r), size-1-r)
			if dx, dy := x-cx, y-cy; dx*dx+dy*dy > r*r {
				continue
			}
			c := blue
			inBox := x >= 8 && x < 24 && y >= 9 && y < 24
			tape := x >= 15 && x < 17 && y >= 9 && y < 15
			lid := y >= 13 && y < 15 && x >= 8 && x < 24
			if inBox && !tape && !lid {
				c = white
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// ico wraps a PNG in the ICO format: one image, stored as PNG (Windows
// Vista and every current browser read it).
func ico(pngData []byte) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	_ = binary.Write(&b, le, [3]uint16{0, 1, 1}) // reserved, type icon, one image
	b.WriteByte(size)                            // width
	b.WriteByte(size)                            // height
	b.WriteByte(0)                               // no palette
	b.WriteByte(0)                               // reserved
	_ = binary.Write(&b, le, [2]uint16{1, 32})   // colour planes, bits per pixel
	_ = binary.Write(&b, le, [2]uint32{uint32(len(pngData)), 6 + 16})
	b.Write(pngData)
	return b.Bytes()
}

var icon = sync.OnceValues(func() ([]byte, string) {
	var p bytes.Buffer
	if err := png.Encode(&p, draw()); err != nil {
		panic("favicon: " + err.Error())
	}
	b := ico(p.Bytes())
	sum := sha256.Sum256(b)
	return b, `"` + hex.EncodeToString(sum[:8]) + `"`
})

// Handler serves the icon (GET and HEAD), cacheable for a day.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, etag := icon()
		h := w.Header()
		h.Set("Content-Type", "image/x-icon")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("ETag", etag)
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(b)))
		if r.Method != http.MethodHead {
			_, _ = w.Write(b)
		}
	})
}
