// Package playground serves the GraphiQL IDE from the binary.
//
// The JavaScript and CSS are bundled from npm packages (see web/ and
// README.md) into assets/ and embedded, so the page loads nothing from
// outside the server it is served by.
package playground

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed assets/graphiql.js assets/graphiql.css
var assetFS embed.FS

// contentSecurityPolicy is sent with the HTML page. Scripts, styles and
// requests are limited to the page's own origin; fonts and the favicon are
// data: URLs inside the bundle. The only inline styles allowed are the
// <style> elements GraphiQL's dialogs (Radix UI) add at run time, which
// carry the per-request nonce.
func contentSecurityPolicy(nonce string) string {
	return "default-src 'none'; " +
		"script-src 'self'; " +
		"style-src 'self' 'nonce-" + nonce + "'; " +
		"connect-src 'self'; " +
		"img-src 'self' data:; " +
		"font-src 'self' data:; " +
		"base-uri 'none'; " +
		"form-action 'none'; " +
		"frame-ancestors 'none'"
}

// asset is one embedded file with what is needed to serve it.
type asset struct {
	name        string
	contentType string
	body        []byte
	hash        string // hex SHA-256 prefix of body; also the ?v= cache buster

	gzipOnce sync.Once
	gzipBody []byte // nil when compression does not pay
}

func newAsset(name, contentType string) *asset {
	b, err := assetFS.ReadFile("assets/" + name)
	if err != nil {
		panic("playground: missing embedded asset: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return &asset{name: name, contentType: contentType, body: b, hash: hex.EncodeToString(sum[:8])}
}

var assets = []*asset{
	newAsset("graphiql.js", "text/javascript; charset=utf-8"),
	newAsset("graphiql.css", "text/css; charset=utf-8"),
}

func (a *asset) etag(gz bool) string {
	if gz {
		return `"` + a.hash + `-gz"`
	}
	return `"` + a.hash + `"`
}

func (a *asset) gzipped() []byte {
	a.gzipOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(a.body)
		if zw.Close() == nil && buf.Len() < len(a.body)*9/10 {
			a.gzipBody = buf.Bytes()
		}
	})
	return a.gzipBody
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>{{.Title}}</title>
<link rel="icon" href="{{.Favicon}}">
<link rel="stylesheet" href="{{.CSS}}" nonce="{{.Nonce}}">
<script defer src="{{.JS}}"></script>
</head>
<body>
<div id="graphiql" data-endpoint="{{.Endpoint}}" data-environment="{{.Environment}}" data-base-url="{{.BaseURL}}" data-sign-in="{{.SignIn}}" data-examples="{{.Examples}}"><div class="playground-loading">Loading GraphiQL…</div></div>
<noscript>The GraphQL playground needs JavaScript. The API itself is at {{.Endpoint}}.</noscript>
</body>
</html>
`))

type handler struct {
	base   string
	data   pageData
	now    func() time.Time
	assets map[string]*asset // by full request path
}

type pageData struct {
	Title, Endpoint, JS, CSS, Nonce string
	Environment, BaseURL, SignIn    string
	Examples                        string // JSON
	Favicon                         string
}

// Config describes the page around GraphiQL.
type Config struct {
	Title       string           // the page's title (default "GraphQL Playground")
	Environment string           // shown in the header: production or sandbox
	BaseURL     string           // the environment's base address, shown beside it
	SignIn      string           // where to sign in (the console), linked when no one is
	Now         func() time.Time // the clock of the examples' dates (default time.Now)
	Favicon     string           // the icon's path (default none: an empty data: URL)
}

// Handler returns the playground mounted at basePath (e.g. "/playground")
// that sends queries to graphqlEndpoint (an absolute path such as
// "/graphql"). It expects the full request path, i.e. it is registered for
// basePath and basePath+"/" without http.StripPrefix:
//
//	basePath, basePath+"/"              the HTML page
//	basePath+"/assets/graphiql.js|css"  the embedded bundle
//
// Everything else under basePath is 404. The page shows cfg's environment
// and who is signed in (Query.viewer, asked with the page's credentials)
// above GraphiQL, opens with the example queries (Examples) as tabs, and
// keeps the current tab's query in the address's fragment for sharing.
func Handler(basePath, graphqlEndpoint string, cfg Config) http.Handler {
	base := strings.TrimRight(basePath, "/")
	if base != "" && !strings.HasPrefix(base, "/") {
		base = "/" + base
	}
	if cfg.Title == "" {
		cfg.Title = "GraphQL Playground"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &handler{base: base, assets: map[string]*asset{}, now: cfg.Now}
	if cfg.Favicon == "" {
		cfg.Favicon = "data:," // no request for /favicon.ico
	}
	h.data = pageData{Title: cfg.Title, Endpoint: graphqlEndpoint, Environment: cfg.Environment, BaseURL: cfg.BaseURL, SignIn: cfg.SignIn, Favicon: cfg.Favicon}
	for _, a := range assets {
		p := base + "/assets/" + a.name
		h.assets[p] = a
		switch a.name {
		case "graphiql.js":
			h.data.JS = p + "?v=" + a.hash
		case "graphiql.css":
			h.data.CSS = p + "?v=" + a.hash
		}
	}
	// Fail now, not on the first request, if the template or an example
	// cannot run.
	if _, err := h.examples(); err != nil {
		panic(err.Error())
	}
	if err := page.Execute(io.Discard, h.data); err != nil {
		panic("playground: " + err.Error())
	}
	return h
}

func (h *handler) examples() (string, error) {
	ex, err := Examples(h.now())
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(ex)
	return string(b), err
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == h.base || p == h.base+"/":
		if !allowRead(w, r) {
			return
		}
		h.servePage(w, r)
	case h.assets[p] != nil:
		if !allowRead(w, r) {
			return
		}
		a := h.assets[p]
		hd := w.Header()
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Add("Vary", "Accept-Encoding")
		if r.URL.Query().Get("v") == a.hash {
			hd.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			hd.Set("Cache-Control", "no-cache")
		}
		if acceptsGzip(r) {
			if gz := a.gzipped(); gz != nil {
				write(w, r, a.contentType, a.etag(true), gz, "gzip")
				return
			}
		}
		write(w, r, a.contentType, a.etag(false), a.body, "")
	default:
		http.NotFound(w, r)
	}
}

// servePage renders the page with a fresh CSP nonce, so it is never cached.
func (h *handler) servePage(w http.ResponseWriter, r *http.Request) {
	var n [18]byte
	_, _ = rand.Read(n[:]) // never fails (crypto/rand)
	d := h.data
	d.Nonce = base64.RawURLEncoding.EncodeToString(n[:])
	ex, err := h.examples()
	if err != nil {
		http.Error(w, "playground: "+err.Error(), http.StatusInternalServerError)
		return
	}
	d.Examples = ex
	var buf bytes.Buffer
	if err := page.Execute(&buf, d); err != nil {
		http.Error(w, "playground: "+err.Error(), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", contentSecurityPolicy(d.Nonce))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

func allowRead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}

func write(w http.ResponseWriter, r *http.Request, contentType, etag string, body []byte, encoding string) {
	hd := w.Header()
	hd.Set("ETag", etag)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Type", contentType)
	if encoding != "" {
		hd.Set("Content-Encoding", encoding)
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// etagMatch implements the weak comparison If-None-Match asks for.
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether Accept-Encoding lists gzip with a non-zero
// quality.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
