package documents

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"logistics/internal/apperr"
)

func TestParseManifest(t *testing.T) {
	const a, b = "query A { hubs { totalCount } }", "mutation B { deleteHub(id: \"x\") }"
	sum := md5.Sum([]byte(a))
	relayID := hex.EncodeToString(sum[:])
	js := func(v any) string { out, _ := json.Marshal(v); return string(out) }
	for _, tc := range []struct {
		name, manifest string
		want           []Document // hash, operation name, alias
		wantCode       string
	}{
		{"codegen", js(map[string]string{Hash(a): a, Hash(b): b}), []Document{{Hash: Hash(a), OperationName: "A"}, {Hash: Hash(b), OperationName: "B"}}, ""},
		{"codegen upper-case hex", js(map[string]string{strings.ToUpper(Hash(a)): a}), []Document{{Hash: Hash(a), OperationName: "A"}}, ""},
		{"codegen sha256: prefix", js(map[string]string{"sha256:" + Hash(a): a}), []Document{{Hash: Hash(a), OperationName: "A"}}, ""},
		{"codegen sha256: prefix mismatch", js(map[string]string{"sha256:" + Hash(b): a}), nil, "hash_mismatch"},
		{"relay md5", js(map[string]string{relayID: a}), []Document{{Hash: Hash(a), OperationName: "A", Alias: relayID}}, ""},
		{"relay custom id", js(map[string]string{"q-1": a}), []Document{{Hash: Hash(a), OperationName: "A", Alias: "q-1"}}, ""},
		{"apollo", js(map[string]any{"format": apolloFormat, "version": 1, "operations": []map[string]string{{"id": Hash(b), "name": "Bee", "type": "mutation", "body": b}}}), []Document{{Hash: Hash(b), OperationName: "Bee"}}, ""},
		{"sha mismatch", js(map[string]string{Hash(b): a}), nil, "hash_mismatch"},
		{"md5 mismatch", js(map[string]string{relayID: b}), nil, "hash_mismatch"},
		{"apollo mismatch", js(map[string]any{"format": apolloFormat, "version": 1, "operations": []map[string]string{{"id": Hash(a), "body": b}}}), nil, "hash_mismatch"},
		{"apollo version 2", js(map[string]any{"format": apolloFormat, "version": 2, "operations": []map[string]string{{"id": Hash(a), "body": a}}}), nil, "invalid_manifest"},
		{"not GraphQL", js(map[string]string{Hash("{"): "{"}), nil, "invalid_manifest"},
		{"fragment only", js(map[string]string{Hash("fragment F on Hub { id }"): "fragment F on Hub { id }"}), nil, "invalid_manifest"},
		{"empty", `{}`, nil, "invalid_manifest"},
		{"array", `[]`, nil, "invalid_manifest"},
		{"numbers", `{"a": 1}`, nil, "invalid_manifest"},
		{"long key", js(map[string]string{strings.Repeat("k", 101): a}), nil, "invalid_manifest"},
		{"large document", js(map[string]string{"x": "query X { " + strings.Repeat("hubs { totalCount } ", MaxDocumentBytes/19) + "}"}), nil, "invalid_manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseManifest([]byte(tc.manifest))
			if tc.wantCode != "" {
				if e := apperr.From(err); err == nil || e.Code != tc.wantCode || e.Kind != apperr.KindBadRequest {
					t.Fatalf("err %v, want %s", err, tc.wantCode)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("%+v %v", got, err)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Hash != w.Hash || g.OperationName != w.OperationName || g.Alias != w.Alias || Hash(g.Body) != g.Hash {
					t.Errorf("%d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"` + Hash("{ a }") + `": "{ a }"}`))
	f.Add([]byte(`{"format":"apollo-persisted-query-manifest","version":1,"operations":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		docs, err := ParseManifest(b)
		if err != nil {
			if apperr.From(err).Kind == apperr.KindInternal {
				t.Fatalf("internal error: %v", err)
			}
			return
		}
		for _, d := range docs {
			if Hash(d.Body) != d.Hash {
				t.Fatalf("%+v", d)
			}
		}
	})
}
