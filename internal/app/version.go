package app

import "runtime/debug"

// version is set at build time with -ldflags "-X logistics/internal/app.version=1.2.3".
var version = ""

// Version is the service version: the build-time one, else the module's, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
