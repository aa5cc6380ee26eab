// Package upgradetest reads every row of an environment through the REST
// API (/v1), the same way against the release that built an upgrade
// fixture (its golden, written by scripts/migration-fixtures.sh) and
// against the current code after it upgraded the fixture
// (internal/migrations' upgrade test). Standard library only, so that it
// runs against any release's server.
package upgradetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// Lists are the exports read in full; per order, its lines and transitions.
var Lists = []string{"hubs", "parts", "items", "orders", "tracking-entries", "workflows", "events"}

// Capture reads every list's rows from base (an environment's base URL,
// e.g. http://127.0.0.1:8080/sandbox) with the API key token: a map from
// the list's path to its rows, each row one JSON object as the API wrote
// it, in the export's order.
func Capture(c *http.Client, base, token string) (map[string][]json.RawMessage, error) {
	out := map[string][]json.RawMessage{}
	for _, l := range Lists {
		rows, err := export(c, base+"/v1/"+l+"/export?format=ndjson", token)
		if err != nil {
			return nil, err
		}
		out[l] = rows
	}
	for _, o := range out["orders"] {
		var order struct{ ID string }
		if err := json.Unmarshal(o, &order); err != nil || order.ID == "" {
			return nil, fmt.Errorf("an order without id: %s", o)
		}
		for _, sub := range []string{"lines", "events"} {
			rows, err := export(c, base+"/v1/orders/"+order.ID+"/"+sub+"/export?format=ndjson", token)
			if err != nil {
				return nil, err
			}
			out["orders/"+order.ID+"/"+sub] = rows
		}
	}
	return out, nil
}

func export(c *http.Client, url, token string) ([]json.RawMessage, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	var rows []json.RawMessage
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, line); err != nil {
			return nil, fmt.Errorf("GET %s: %w", url, err)
		}
		rows = append(rows, json.RawMessage(compact.Bytes()))
	}
	return rows, sc.Err()
}

// Write writes a capture as indented JSON with sorted keys (a stable
// golden file).
func Write(w io.Writer, c map[string][]json.RawMessage) error {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ordered := make(map[string][]json.RawMessage, len(c))
	for _, k := range keys {
		ordered[k] = c[k]
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(ordered)
}
