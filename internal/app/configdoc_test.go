package app

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// configDoc is the page that documents every setting: its table must list
// exactly the flags and variables the server defines, with their defaults.
const configDoc = "../../docs/configuration.md"

// docRow is one row of the table: | `--flag` | `LOGISTICS_X` | default | meaning |
var docRow = regexp.MustCompile("^\\| (`--[a-z0-9-]+`|—) \\| `(LOGISTICS_[A-Z0-9_]+)` \\| ([^|]*) \\|")

// TestConfigurationReference holds docs/configuration.md's table equal to
// the settings: every flag and variable documented, nothing documented that
// does not exist, and each documented default the flag's own.
func TestConfigurationReference(t *testing.T) {
	b, err := os.ReadFile(configDoc)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ flag, def string }
	documented := map[string]row{} // by variable
	for _, line := range strings.Split(string(b), "\n") {
		m := docRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, dup := documented[m[2]]; dup {
			t.Errorf("%s: %s documented twice", configDoc, m[2])
		}
		documented[m[2]] = row{strings.Trim(m[1], "`"), strings.TrimSpace(m[3])}
	}
	if len(documented) < 20 {
		t.Fatalf("%s: only %d rows found: the table's format changed", configDoc, len(documented))
	}

	cfg := Defaults()
	fs := flag.NewFlagSet("doc", flag.ContinueOnError)
	defined := map[string]bool{"LOGISTICS_ADMIN_PASSWORD": true}
	for _, s := range cfg.settings() {
		defined[s.env] = true
		s.bind(fs, s.flag, s.usage)
		d, ok := documented[s.env]
		if !ok {
			t.Errorf("%s: --%s ($%s) is not documented", configDoc, s.flag, s.env)
			continue
		}
		if d.flag != "--"+s.flag {
			t.Errorf("%s: $%s is documented with flag %s, the server's is --%s", configDoc, s.env, d.flag, s.flag)
		}
		// An empty or false default is written in words (none, off, or what
		// it is derived from); any other must appear as written.
		if def := fs.Lookup(s.flag).DefValue; def != "" && def != "false" && !sameDefault(d.def, def) {
			t.Errorf("%s: --%s's default is documented as %q, the flag's is %q", configDoc, s.flag, d.def, def)
		}
	}
	if d, ok := documented["LOGISTICS_ADMIN_PASSWORD"]; !ok || d.flag != "—" {
		t.Errorf("%s: LOGISTICS_ADMIN_PASSWORD (no flag) is not documented as such", configDoc)
	}
	for env := range documented {
		if !defined[env] {
			t.Errorf("%s: documents %s, which the server does not read", configDoc, env)
		}
	}
}

// sameDefault reports whether the documented default cell holds def, as
// written in backquotes; durations compare by value (`60s` is 1m0s).
func sameDefault(cell, def string) bool {
	if strings.Contains(cell, "`"+def+"`") {
		return true
	}
	want, err := time.ParseDuration(def)
	if err != nil {
		return false
	}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
		if got, err := time.ParseDuration(m[1]); err == nil && got == want {
			return true
		}
	}
	return false
}
