package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"

	"logistics/internal/app"
)

// version prints what the binary knows about its build: the version, commit
// and date stamped by scripts/release.sh (or, unstamped, what the Go
// toolchain recorded). GET /v1/status reports the same three.
func init() {
	commands["version"] = command{"print the version, commit and build date (--json for JSON)", printVersion}
}

func printVersion(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print a JSON object: version, commit, date, go, platform")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version: unexpected arguments %q", fs.Args())
	}
	b := app.BuildInfo()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	if *asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			app.Build
			Go       string `json:"go"`
			Platform string `json:"platform"`
		}{b, runtime.Version(), platform})
	}
	_, err := fmt.Fprintf(stdout, "logistics %s\ncommit:  %s\nbuilt:   %s\ngo:      %s %s\n", b.Version, b.Commit, b.Date, runtime.Version(), platform)
	return err
}
