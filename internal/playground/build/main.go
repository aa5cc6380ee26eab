// Command build bundles the GraphiQL playground (internal/playground/web)
// into internal/playground/assets/graphiql.{js,css} with esbuild's Go API.
//
// It is not part of normal builds: the bundled assets are committed and
// embedded with go:embed. Rebuild them (after changing web/) with
//
//	cd internal/playground/web && npm ci && cd - && go run ./internal/playground/build
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

func main() {
	dir := flag.String("dir", defaultDir(), "the internal/playground directory")
	flag.Parse()
	if err := build(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

// defaultDir is the parent of this source file's directory when it is
// known (go run keeps full paths), else internal/playground under the
// working directory.
func defaultDir() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if _, err := os.Stat(file); err == nil {
			return filepath.Dir(filepath.Dir(file))
		}
	}
	return filepath.Join("internal", "playground")
}

func build(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	web := filepath.Join(dir, "web")
	out := filepath.Join(dir, "assets")
	if _, err := os.Stat(filepath.Join(web, "node_modules", "graphiql")); err != nil {
		return fmt.Errorf("%s: node modules missing, run `npm ci` there first (%v)", web, err)
	}

	res := api.Build(api.BuildOptions{
		AbsWorkingDir:     web,
		EntryPoints:       []string{"main.jsx"},
		EntryNames:        "graphiql",
		Outdir:            out,
		Bundle:            true,
		Write:             false,
		Format:            api.FormatIIFE,
		Platform:          api.PlatformBrowser,
		Target:            api.ES2020,
		JSX:               api.JSXAutomatic,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LegalComments:     api.LegalCommentsEndOfFile,
		Sourcemap:         api.SourceMapNone,
		Define: map[string]string{
			"process.env.NODE_ENV": `"production"`,
			"global":               "globalThis",
		},
		// Fonts and icons must end up inside the CSS, never as separate
		// files or external URLs.
		Loader: map[string]api.Loader{
			".woff":  api.LoaderDataURL,
			".woff2": api.LoaderDataURL,
			".ttf":   api.LoaderDataURL,
			".svg":   api.LoaderDataURL,
			".png":   api.LoaderDataURL,
		},
		LogLevel: api.LogLevelWarning,
	})
	if len(res.Errors) > 0 {
		return fmt.Errorf("esbuild reported %d error(s)", len(res.Errors))
	}

	want := map[string]bool{"graphiql.js": false, "graphiql.css": false}
	for _, f := range res.OutputFiles {
		name := filepath.Base(f.Path)
		if _, ok := want[name]; !ok {
			return fmt.Errorf("unexpected output file %s (only graphiql.js and graphiql.css may be produced)", f.Path)
		}
		want[name] = true
		contents := f.Contents
		if !bytes.HasSuffix(contents, []byte("\n")) {
			contents = append(contents, '\n')
		}
		if err := os.WriteFile(filepath.Join(out, name), contents, 0o644); err != nil {
			return err
		}
		fmt.Printf("wrote %s (%d bytes)\n", relPath(f.Path), len(contents))
	}
	for name, ok := range want {
		if !ok {
			return fmt.Errorf("esbuild produced no %s", name)
		}
	}
	return nil
}

func relPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
