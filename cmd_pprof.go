package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"
)

// serve-pprof is serve plus net/http/pprof on a separate loopback address, for
// profiling under load (go run ./bench --pprof uses it). The profiling
// endpoints are never mounted on the API's own address.
func init() {
	commands["serve-pprof"] = command{"serve, with net/http/pprof on --pprof-addr (loopback only; for profiling)", servePprof}
}

func servePprof(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	addr, rest, err := cutFlag(args, "pprof-addr")
	if err != nil {
		return err
	}
	if addr == "" {
		addr = "127.0.0.1:6060"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--pprof-addr %q: must be a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	fmt.Fprintf(stderr, "pprof listening on http://%s/debug/pprof/\n", ln.Addr())
	return serve(ctx, rest, getenv, stdout, stderr)
}

// cutFlag removes --name=value or --name value (one or two dashes) from args.
func cutFlag(args []string, name string) (string, []string, error) {
	var value string
	rest := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		trimmed := strings.TrimLeft(a, "-")
		if len(a)-len(trimmed) == 0 || len(a)-len(trimmed) > 2 {
			rest = append(rest, a)
			continue
		}
		switch {
		case trimmed == name:
			if i+1 >= len(args) {
				return "", nil, errors.New("--" + name + " needs a value")
			}
			value = args[i+1]
			i++
		case strings.HasPrefix(trimmed, name+"="):
			value = strings.TrimPrefix(trimmed, name+"=")
		default:
			rest = append(rest, a)
		}
	}
	return value, rest, nil
}
