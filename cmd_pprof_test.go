package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestCutFlag(t *testing.T) {
	for _, c := range []struct {
		args, rest []string
		value      string
	}{
		{[]string{"--pprof-addr", "127.0.0.1:1", "--addr", ":0"}, []string{"--addr", ":0"}, "127.0.0.1:1"},
		{[]string{"--addr", ":0", "-pprof-addr=127.0.0.1:2"}, []string{"--addr", ":0"}, "127.0.0.1:2"},
		{[]string{"--addr", ":0"}, []string{"--addr", ":0"}, ""},
		{[]string{"--", "--pprof-addr", "x"}, []string{"--", "--pprof-addr", "x"}, ""},
	} {
		v, rest, err := cutFlag(c.args, "pprof-addr")
		if err != nil || v != c.value || !slices.Equal(rest, c.rest) {
			t.Errorf("cutFlag(%q) = %q, %q, %v; want %q, %q", c.args, v, rest, err, c.value, c.rest)
		}
	}
	if _, _, err := cutFlag([]string{"--pprof-addr"}, "pprof-addr"); err == nil {
		t.Error("no error for a missing value")
	}
}

func TestServePprofLoopbackOnly(t *testing.T) {
	err := servePprof(context.Background(), []string{"--pprof-addr", "0.0.0.0:0"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err = %v, want a loopback error", err)
	}
}
