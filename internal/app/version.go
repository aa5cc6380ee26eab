package app

import (
	"runtime/debug"
	"sync"
)

// version, commit and date are stamped at build time (scripts/release.sh does):
//
//	go build -ldflags "-X logistics/internal/app.version=1.2.3 \
//	  -X logistics/internal/app.commit=0123abc -X logistics/internal/app.date=2026-12-01T21:00:00Z"
//
// Each one left unstamped falls back to what the Go toolchain recorded in the
// binary (the module version, vcs.revision, vcs.time), which it records only
// when it builds from a VCS checkout without -buildvcs=false.
var (
	version = ""
	commit  = ""
	date    = ""
)

// Build is what a binary knows about how it was built.
type Build struct {
	Version string `json:"version"` // a release ("v1.2.0"), a git describe ("v1.2.0-3-g0123abc"), or "dev"
	Commit  string `json:"commit"`  // the VCS revision, "-dirty" appended for a modified tree; "unknown" when none was recorded
	Date    string `json:"date"`    // the build (or, unstamped, commit) time, RFC 3339 UTC; "unknown" when none was recorded
}

var buildOnce = sync.OnceValue(func() Build {
	b := Build{Version: version, Commit: commit, Date: date}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		var rev, at string
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if b.Commit == "" && rev != "" {
			b.Commit = rev
			if modified {
				b.Commit += "-dirty"
			}
		}
		if b.Date == "" {
			b.Date = at
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
})

// BuildInfo is this binary's version, commit and build date.
func BuildInfo() Build { return buildOnce() }

// Version is the service version: the build-time one, else the module's, else "dev".
func Version() string { return BuildInfo().Version }
