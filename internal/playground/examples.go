package playground

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"text/template"
	"time"
)

// The example queries the playground opens with (one tab each) and lists
// in its Examples panel. Each is NAME.graphql, the document, and optionally
// NAME.json, its variables; both are text/template templates rendered when
// the page is served, so that "this week" means this week:
//
//	{{weekStart}}  this Monday 00:00 UTC, RFC 3339
//	{{day N}}      00:00 UTC N days from today (negative: ago), RFC 3339
//	{{days N}}     the last N days, today last, each {Alias, From, To}:
//	               Alias is d2026_11_23, From and To its midnights
//
// The document's leading # comment lines are its description; the first
// one is its title. Files are ordered by name.
//
//go:embed examples/*.graphql examples/*.json
var exampleFS embed.FS

// Example is one example query.
type Example struct {
	Name        string `json:"name"`        // file name without extension
	Title       string `json:"title"`       // the first comment line
	Description string `json:"description"` // the following comment lines, as a paragraph
	Query       string `json:"query"`       // the document, comments included
	Variables   string `json:"variables"`   // JSON, or ""
}

// Day is one element of {{days N}}.
type Day struct{ Alias, From, To string }

// templateFuncs are the functions the example templates may call.
func templateFuncs(now time.Time) template.FuncMap {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	stamp := func(t time.Time) string { return t.Format(time.RFC3339) }
	return template.FuncMap{
		"weekStart": func() string {
			back := (int(today.Weekday()) + 6) % 7 // days since Monday
			return stamp(today.AddDate(0, 0, -back))
		},
		"day": func(n int) string { return stamp(today.AddDate(0, 0, n)) },
		"days": func(n int) []Day {
			out := make([]Day, 0, n)
			for i := n - 1; i >= 0; i-- {
				d := today.AddDate(0, 0, -i)
				out = append(out, Day{Alias: "d" + d.Format("2006_01_02"), From: stamp(d), To: stamp(d.AddDate(0, 0, 1))})
			}
			return out
		},
	}
}

// Examples renders the examples for the time now.
func Examples(now time.Time) ([]Example, error) {
	funcs := templateFuncs(now)
	render := func(name string) (string, error) {
		b, err := exampleFS.ReadFile(name)
		if err != nil {
			return "", err
		}
		t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(string(b))
		if err != nil {
			return "", err
		}
		var out bytes.Buffer
		if err := t.Execute(&out, nil); err != nil {
			return "", err
		}
		return out.String(), nil
	}
	names, err := fs.Glob(exampleFS, "examples/*.graphql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Example
	for _, name := range names {
		q, err := render(name)
		if err != nil {
			return nil, fmt.Errorf("playground example %s: %w", name, err)
		}
		ex := Example{Name: strings.TrimSuffix(path.Base(name), ".graphql"), Query: q}
		ex.Title, ex.Description = describe(q)
		if ex.Title == "" {
			return nil, fmt.Errorf("playground example %s: no title (a first # comment line)", name)
		}
		vars := strings.TrimSuffix(name, ".graphql") + ".json"
		if _, err := fs.Stat(exampleFS, vars); err == nil {
			v, err := render(vars)
			if err != nil {
				return nil, fmt.Errorf("playground example %s: %w", vars, err)
			}
			if !json.Valid([]byte(v)) {
				return nil, fmt.Errorf("playground example %s: not JSON after rendering", vars)
			}
			ex.Variables = v
		}
		out = append(out, ex)
	}
	return out, nil
}

// describe reads the title and the first paragraph of the description from
// a document's leading comment lines.
func describe(doc string) (title, description string) {
	var para []string
	for i, line := range strings.Split(doc, "\n") {
		text, ok := strings.CutPrefix(strings.TrimSpace(line), "#")
		if !ok {
			break
		}
		text = strings.TrimSpace(text)
		switch {
		case i == 0:
			title = text
		case text == "" && len(para) > 0:
			return title, strings.Join(para, " ")
		case text != "":
			para = append(para, text)
		}
	}
	return title, strings.Join(para, " ")
}
