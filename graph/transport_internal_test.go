package graph

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestWriteResponse: a data-only response is written around gqlgen's bytes
// with an exact Content-Length, and decodes to the same JSON as the
// encoding/json path that responses with errors take.
func TestWriteResponse(t *testing.T) {
	data := json.RawMessage(`{"parts":{"edges":[{"node":{"sku":"NUT-\"M8\"","name":"<&> é"}}]}}`)
	w := httptest.NewRecorder()
	writeResponse(w, mediaGraphQLResponse, 200, &graphql.Response{Data: data})
	body := w.Body.Bytes()
	if got := w.Header().Get("Content-Length"); got != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %s for %d bytes", got, len(body))
	}
	if want := `{"data":` + string(data) + "}\n"; string(body) != want {
		t.Errorf("body %s, want %s", body, want)
	}
	var fast, encoded any
	enc, _ := json.Marshal(&graphql.Response{Data: data})
	if err := json.Unmarshal(body, &fast); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(enc, &encoded)
	if a, b := mustJSON(t, fast), mustJSON(t, encoded); a != b {
		t.Errorf("data-only %s, encoding/json %s", a, b)
	}

	// With errors: encoding/json, errors included.
	w = httptest.NewRecorder()
	writeResponse(w, mediaJSON, 200, &graphql.Response{Data: data, Errors: gqlerror.List{{Message: "boom"}}})
	var withErrors struct {
		Data   map[string]any
		Errors []struct{ Message string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &withErrors); err != nil || len(withErrors.Errors) != 1 || withErrors.Data == nil {
		t.Errorf("with errors: %s (%v)", w.Body.Bytes(), err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
