package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// TestReleaseBuild runs scripts/release.sh into a temporary directory and
// checks that the version, commit and date it stamps are what the binary's
// version subcommand, --version and a running server's /v1/status report,
// and that its healthcheck subcommand probes that server.
func TestReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the release build links a static binary")
	}
	bin := filepath.Join(t.TempDir(), "logistics")
	const version, epoch, date = "v0.0.0-releasetest", "1700000000", "2023-11-14T22:13:20Z"
	cmd := exec.Command("scripts/release.sh")
	cmd.Env = append(os.Environ(), "OUT="+bin, "VERSION="+version, "SOURCE_DATE_EPOCH="+epoch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release.sh: %v\n%s", err, out)
	}
	commit := "unknown"
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}

	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("version --json: %v", err)
	}
	var got struct{ Version, Commit, Date, Go, Platform string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("version --json: %v: %s", err, out)
	}
	if got.Version != version || got.Date != date || strings.TrimSuffix(got.Commit, "-dirty") != commit {
		t.Fatalf("version --json = %s, want version %s, commit %s (or -dirty), date %s", out, version, commit, date)
	}
	text, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	for _, want := range []string{"logistics " + version + "\n", "commit:  " + got.Commit + "\n", "built:   " + date + "\n"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("--version printed %q, without %q", text, want)
		}
	}

	srv := apptest.New(t)
	child := apptest.StartChild(t, srv, bin, apptest.ChildOptions{})
	resp := srv.Do(t, http.MethodGet, child.URL+"/v1/status", nil, apptest.Bearer(srv.Keys[environment.Production]))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/v1/status: %d %s", resp.StatusCode, resp.Body)
	}
	var status struct {
		Version   string `json:"version"`
		Commit    string `json:"commit"`
		BuildDate string `json:"build_date"`
	}
	resp.JSON(t, &status)
	if status.Version != version || status.Commit != got.Commit || status.BuildDate != date {
		t.Errorf("/v1/status = %s, want version %s, commit %s, build_date %s", resp.Body, version, got.Commit, date)
	}

	if out, err := exec.Command(bin, "healthcheck", "--addr", child.Addr).CombinedOutput(); err != nil {
		t.Errorf("healthcheck --addr %s: %v\n%s", child.Addr, err, out)
	}
	closed := apptest.FreeAddr(t)
	if out, err := exec.Command(bin, "healthcheck", "--addr", closed, "--timeout", "2s").CombinedOutput(); err == nil {
		t.Errorf("healthcheck of %s, where nothing listens, exited 0: %s", closed, out)
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("healthcheck of %s: %v, want exit status 1", closed, err)
	}
}
