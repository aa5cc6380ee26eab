package main

import (
	"fmt"
	"strconv"

	"logistics/internal/app"
)

// The floor's garbage collector (--floor-gc).
const (
	// floorGCServer runs the floor at the server's setting: the comparison
	// users care about is what the database and Go can do, not what a
	// collector setting does.
	floorGCServer = "server"
	// floorGCDefault leaves the floor at Go's default (GOGC=100, no memory
	// limit) unless the environment sets GOGC/GOMEMLIMIT, to see what the
	// server's collector setting buys against a floor left at the default.
	floorGCDefault = "go-default"
)

// floorGC returns the variables to add to the floor process's environment
// for mode, given the server's configuration (its --gc-percent and
// --memory-limit, which internal/app's ApplyRuntime applies unless GOGC or
// GOMEMLIMIT are set — then both processes inherit those), and a
// description of both settings for the report.
func floorGC(mode string, cfg app.Config, getenv func(string) string) (env []string, desc string) {
	serverGC, serverLimit := "GOGC="+strconv.Itoa(cfg.GCPercent)+" (--gc-percent)", "GOMEMLIMIT="+memLimit(cfg.MemoryLimit)+" (--memory-limit)"
	if cfg.GCPercent == -1 {
		serverGC = "GOGC=off (--gc-percent)"
	}
	if g := getenv("GOGC"); g != "" {
		serverGC = "GOGC=" + g + " (environment)"
	}
	if l := getenv("GOMEMLIMIT"); l != "" {
		serverLimit = "GOMEMLIMIT=" + l + " (environment)"
	}
	server := serverGC + ", " + serverLimit
	if mode == floorGCDefault {
		floorGC, floorLimit := "GOGC=100 (Go's default)", "no memory limit"
		if g := getenv("GOGC"); g != "" {
			floorGC = "GOGC=" + g + " (environment)"
		}
		if l := getenv("GOMEMLIMIT"); l != "" {
			floorLimit = "GOMEMLIMIT=" + l + " (environment)"
		}
		return nil, fmt.Sprintf("server %s; floor %s, %s (--floor-gc %s)", server, floorGC, floorLimit, floorGCDefault)
	}
	if getenv("GOGC") == "" {
		v := strconv.Itoa(cfg.GCPercent)
		if cfg.GCPercent == -1 {
			v = "off"
		}
		env = append(env, "GOGC="+v)
	}
	if getenv("GOMEMLIMIT") == "" && cfg.MemoryLimit > 0 {
		env = append(env, "GOMEMLIMIT="+memLimit(cfg.MemoryLimit))
	}
	return env, fmt.Sprintf("server %s; floor the same (--floor-gc %s)", server, floorGCServer)
}

func memLimit(mib int) string {
	if mib <= 0 {
		return "none"
	}
	return strconv.Itoa(mib) + "MiB"
}
