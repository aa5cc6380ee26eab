package app

import (
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"logistics/graph"
	"logistics/internal/apperr"
	"logistics/internal/environment"
	"logistics/rest"
)

// landingPage is what a browser sees at a base address.
var landingPage = template.Must(template.New("landing").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Logistics {{.Env}}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d2939}
a{color:#175cd3}li{margin:.3rem 0}code{background:#f2f4f7;padding:0 .2rem}</style></head>
<body><h1>Logistics Service — {{.Env}}</h1>
<p>This is the {{.Env}} base address, <code>{{.Base}}</code>. The API answers under it; API clients asking this address for JSON get these links.</p>
<ul>
{{range .Links}}<li><a href="{{.URL}}">{{.Title}}</a>{{if .Note}} — {{.Note}}{{end}}</li>
{{end}}</ul>
<p>Version {{.Version}}.</p>
</body></html>
`))

type landingLink struct{ Key, Title, URL, Note string }

// mountLanding answers the base address itself ("/", "/sandbox",
// "/sandbox/"): a small HTML page for a browser (Accept: text/html), JSON
// with the same links for anything else. With the docs (Options.Docs) it
// also serves README.md and docs/*.md as text under /docs/.
func (a *App) mountLanding(mux *http.ServeMux, env *environment.Env) {
	prod, sbx := a.Envs.Production(), a.Envs.Get(environment.Sandbox)
	links := []landingLink{
		{"console", "Console", prod.URL("/console"), "sign in, API keys"},
		{"playground", "GraphQL playground", env.URL("/playground"), "this environment"},
		{"graphql", "GraphQL endpoint", env.URL("/graphql"), "POST queries here"},
		{"openapi", "OpenAPI document", env.URL("/v1/openapi.json"), "REST /v1, no key needed"},
		{"graphql_schema", "GraphQL schema (SDL)", env.URL(graph.SDLPath), "with the cost directives, no key needed"},
		{"status", "Status", env.URL("/v1/status"), "needs a key or a session"},
	}
	other := sbx
	if env == sbx {
		other = prod
	}
	links = append(links, landingLink{string(other.Name), "The " + string(other.Name) + " environment", other.URL("/"), ""})
	if a.docs != nil {
		links = append(links, landingLink{"docs", "Documentation", env.URL("/docs/"), "README and docs/, as text"})
	}
	h := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Add("Vary", "Accept")
		if strings.Contains(r.Header.Get("Accept"), "text/html") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			_ = landingPage.Execute(w, map[string]any{"Env": env.Name, "Base": env.BaseURL.String(), "Links": links, "Version": a.Version})
			return
		}
		m := map[string]string{}
		for _, l := range links {
			m[l.Key] = l.URL
		}
		rest.WriteJSON(w, http.StatusOK, map[string]any{
			"service": "logistics", "status": "ok", "environment": env.Name, "version": a.Version,
			"base_url": env.BaseURL.String(), "links": m,
		})
	}
	mux.HandleFunc("GET "+env.Path("/{$}"), h)
	if env.BaseURL.Path != "" {
		mux.HandleFunc("GET "+env.Path(""), h)
	}
	if a.docs != nil {
		mux.HandleFunc("GET "+env.Path("/docs/{name...}"), a.serveDocs)
	}
}

// serveDocs serves the embedded README.md and docs/*.md as plain text, and
// at /docs/ their list.
func (a *App) serveDocs(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if name == "" {
		files, _ := fs.Glob(a.docs, "docs/*.md")
		links := []landingLink{{Title: "README.md", URL: "README.md"}}
		for _, f := range files {
			links = append(links, landingLink{Title: path.Base(f), URL: path.Base(f)})
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = landingPage.Execute(w, map[string]any{"Env": "documentation", "Base": r.URL.Path, "Links": links, "Version": a.Version})
		return
	}
	file := "docs/" + name
	if name == "README.md" {
		file = name
	}
	b, err := fs.ReadFile(a.docs, file)
	if err != nil || strings.Contains(name, "/") || !strings.HasSuffix(name, ".md") {
		apperr.Write(w, r, a.Log, apperr.NotFound("no document %s", name))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(b)
}
