package rest_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"logistics/internal/apptest"
)

// jsonClient sends requests that must answer with a given status and
// returns the answers' bodies.
type jsonClient struct {
	t   *testing.T
	srv *apptest.Server
}

func (c jsonClient) do(method, path string, body any, want int) []byte {
	c.t.Helper()
	resp := c.srv.Do(c.t, method, c.srv.URL+path, body, nil)
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, resp.Body)
	}
	return resp.Body
}

// id returns the id of the resource in body.
func (c jsonClient) id(body []byte) string {
	c.t.Helper()
	var v struct{ ID string }
	if err := json.Unmarshal(body, &v); err != nil || v.ID == "" {
		c.t.Fatalf("no id in %s", body)
	}
	return v.ID
}

// sameAsInList requires GET /v1/<resources>/{id}, read by a hand-written
// loader, to answer byte for byte what the list answers for the same
// resource (?id=), read through ent's eager loads.
func (c jsonClient) sameAsInList(resources, id string) {
	c.t.Helper()
	one := c.do("GET", "/v1/"+resources+"/"+id, nil, 200)
	var page struct{ Data []json.RawMessage }
	if err := json.Unmarshal(c.do("GET", "/v1/"+resources+"?id="+id, nil, 200), &page); err != nil || len(page.Data) != 1 {
		c.t.Fatalf("list of %s: %v, %d %s", id, err, len(page.Data), resources)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, one); err != nil {
		c.t.Fatal(err)
	}
	if !bytes.Equal(compact.Bytes(), page.Data[0]) {
		c.t.Errorf("GET /v1/%s/%s\n%s\nthe list's\n%s", resources, id, compact.Bytes(), page.Data[0])
	}
}
