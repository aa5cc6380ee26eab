package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a server under test running as a child process, so that its
// CPU and memory are its own and it is measured like a deployment.
type process struct {
	cmd       *exec.Cmd
	URL       string // http://127.0.0.1:port
	PprofURL  string // http://127.0.0.1:port when started with a pprof address
	log       *os.File
	exited    chan struct{}
	exitError error
}

// freePort asks the kernel for an unused loopback port.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// buildServer builds the service binary (the module root's main package).
func buildServer(ctx context.Context, root, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build the server: %w", err)
	}
	return nil
}

// moduleRoot finds the directory of go.mod from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: run from the repository")
		}
		dir = parent
	}
}

// start runs bin with args (in which {addr} and {pprof} are replaced by fresh
// loopback addresses), with env added to this process's environment, and
// waits for GET /healthz to answer 200.
func start(ctx context.Context, bin string, args, env []string, logPath string, withPprof bool) (*process, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	pprofAddr := ""
	if withPprof {
		if pprofAddr, err = freePort(); err != nil {
			return nil, err
		}
	}
	full := make([]string, 0, len(args))
	for _, a := range args {
		a = strings.ReplaceAll(a, "{addr}", addr)
		a = strings.ReplaceAll(a, "{pprof}", pprofAddr)
		full = append(full, a)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, full...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &process{cmd: cmd, URL: "http://" + addr, log: logf, exited: make(chan struct{})}
	if withPprof {
		p.PprofURL = "http://" + pprofAddr
	}
	go func() { p.exitError = cmd.Wait(); close(p.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-p.exited:
			logf.Close()
			return nil, fmt.Errorf("%s exited early (%v); see %s:\n%s", filepath.Base(bin), p.exitError, logPath, tail(logPath, 20))
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(p.URL + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s did not become healthy in 60s; see %s", filepath.Base(bin), logPath)
		}
	}
}

// peakRSS is VmHWM of the process: its peak resident set size, in bytes.
func (p *process) peakRSS() (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}

// cpuTime is the CPU time (user and system) the process has used so far:
// utime and stime of /proc/<pid>/stat, in clock ticks of 1/100 s (Linux
// reports them in USER_HZ, 100 on every architecture Go runs on).
func (p *process) cpuTime() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	return statCPU(string(b))
}

// statCPU reads utime and stime from the text of /proc/<pid>/stat. The
// command name (field 2) is in parentheses and may hold spaces: fields are
// counted from the last ')'.
func statCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no ')' in /proc/<pid>/stat")
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, errors.New("short /proc/<pid>/stat")
	}
	var ticks int64
	for _, s := range f[11:13] { // fields 14 (utime) and 15 (stime)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// stop sends SIGTERM and waits; after 20 seconds it kills.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	p.log.Close()
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
