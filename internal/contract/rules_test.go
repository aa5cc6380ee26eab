package contract_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"logistics/internal/contract"
)

// snapshotSDL loads a fresh copy of the GraphQL snapshot.
func snapshotSDL(t *testing.T) *ast.Schema {
	t.Helper()
	b, err := os.ReadFile(sdlSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	s, err := contract.LoadSDL(sdlSnapshot, string(b))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ruleIDs(changes []contract.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Rule+" "+c.Element)
	}
	return out
}

func typ(s string) *ast.Type {
	switch {
	case len(s) > 1 && s[len(s)-1] == '!':
		t := typ(s[:len(s)-1])
		t.NonNull = true
		return t
	case len(s) > 1 && s[0] == '[':
		return ast.ListType(typ(s[1:len(s)-1]), nil)
	}
	return ast.NamedType(s, nil)
}

// TestGraphQLGate: each rule of the GraphQL gate, on a modified copy of the
// snapshot, finds the change (and an additive change finds nothing).
func TestGraphQLGate(t *testing.T) {
	field := func(s *ast.Schema, typeName, name string) *ast.FieldDefinition {
		f := s.Types[typeName].Fields.ForName(name)
		if f == nil {
			t.Fatalf("no %s.%s in the snapshot", typeName, name)
		}
		return f
	}
	union := func(s *ast.Schema, members ...string) {
		s.Types["Located"] = &ast.Definition{Kind: ast.Union, Name: "Located", Types: members}
	}
	for _, tc := range []struct {
		name  string
		old   func(*ast.Schema) // the snapshot, when the case needs more of it
		edit  func(*ast.Schema)
		wants []string // rule and element; none: the change is additive
	}{
		{"type removed", nil, func(s *ast.Schema) { delete(s.Types, "WebhookDelivery") }, []string{"type-removed WebhookDelivery"}},
		{"type renamed", nil, func(s *ast.Schema) { s.Types["Depot"] = s.Types["Hub"]; delete(s.Types, "Hub") }, []string{"type-removed Hub"}},
		{"type kind changed", nil, func(s *ast.Schema) { s.Types["HubKind"] = &ast.Definition{Kind: ast.Scalar, Name: "HubKind"} }, []string{"type-kind-changed HubKind"}},
		{"field removed", nil, func(s *ast.Schema) {
			s.Types["Hub"].Fields = slices.DeleteFunc(s.Types["Hub"].Fields, func(f *ast.FieldDefinition) bool { return f.Name == "name" })
		}, []string{"field-removed Hub.name"}},
		{"field renamed", nil, func(s *ast.Schema) { field(s, "Hub", "name").Name = "title" }, []string{"field-removed Hub.name"}},
		{"field became nullable", nil, func(s *ast.Schema) { field(s, "Hub", "name").Type = typ("String") }, []string{"field-type-changed Hub.name"}},
		{"field type changed", nil, func(s *ast.Schema) { field(s, "Hub", "revision").Type = typ("String!") }, []string{"field-type-changed Hub.revision"}},
		{"field list became a value", nil, func(s *ast.Schema) { field(s, "Order", "lines").Type = typ("OrderLine") }, []string{"field-type-changed Order.lines"}},
		{"argument removed", nil, func(s *ast.Schema) {
			f := field(s, "Query", "hubs")
			f.Arguments = slices.DeleteFunc(f.Arguments, func(a *ast.ArgumentDefinition) bool { return a.Name == "orderBy" })
		}, []string{"argument-removed Query.hubs(orderBy:)"}},
		{"argument renamed", nil, func(s *ast.Schema) { field(s, "Query", "hubs").Arguments.ForName("after").Name = "from" }, []string{"argument-removed Query.hubs(after:)"}},
		{"argument type changed", nil, func(s *ast.Schema) { field(s, "Query", "hubs").Arguments.ForName("first").Type = typ("String") }, []string{"argument-type-changed Query.hubs(first:)"}},
		{"argument list narrowed", nil, func(s *ast.Schema) { field(s, "Query", "hubs").Arguments.ForName("orderBy").Type = typ("[HubOrder!]!") }, []string{"argument-became-required Query.hubs(orderBy:)"}},
		{"argument element narrowed", nil, func(s *ast.Schema) {
			field(s, "Query", "hubs").Arguments.ForName("orderBy").Type = typ("HubOrder")
		}, []string{"argument-type-changed Query.hubs(orderBy:)"}},
		{"argument became required", nil, func(s *ast.Schema) { field(s, "Query", "hubs").Arguments.ForName("first").Type = typ("Int!") }, []string{"argument-became-required Query.hubs(first:)"}},
		{"required argument added", nil, func(s *ast.Schema) {
			f := field(s, "Query", "hubs")
			f.Arguments = append(f.Arguments, &ast.ArgumentDefinition{Name: "region", Type: typ("String!")})
		}, []string{"required-argument-added Query.hubs(region:)"}},
		{"input field removed", nil, func(s *ast.Schema) {
			d := s.Types["CreateHubInput"]
			d.Fields = slices.DeleteFunc(d.Fields, func(f *ast.FieldDefinition) bool { return f.Name == "city" })
		}, []string{"input-field-removed CreateHubInput.city"}},
		{"input field type changed", nil, func(s *ast.Schema) { field(s, "CreateHubInput", "latitude").Type = typ("String") }, []string{"input-field-type-changed CreateHubInput.latitude"}},
		{"input field became required", nil, func(s *ast.Schema) { field(s, "CreateHubInput", "city").Type = typ("String!") }, []string{"input-field-became-required CreateHubInput.city"}},
		{"required input field added", nil, func(s *ast.Schema) {
			d := s.Types["CreateHubInput"]
			d.Fields = append(d.Fields, &ast.FieldDefinition{Name: "region", Type: typ("String!")})
		}, []string{"required-input-field-added CreateHubInput.region"}},
		{"enum value removed", nil, func(s *ast.Schema) {
			d := s.Types["HubKind"]
			d.EnumValues = slices.DeleteFunc(d.EnumValues, func(v *ast.EnumValueDefinition) bool { return v.Name == "port" })
		}, []string{"enum-value-removed HubKind.port"}},
		{"union member removed", func(s *ast.Schema) { union(s, "Hub", "Part") }, func(s *ast.Schema) { union(s, "Hub") }, []string{"union-member-removed Located"}},
		{"interface removed", nil, func(s *ast.Schema) { s.Types["Hub"].Interfaces = nil }, []string{"interface-removed Hub"}},
		{"additive", func(s *ast.Schema) { union(s, "Hub") }, func(s *ast.Schema) {
			union(s, "Hub", "Part")
			s.Types["Region"] = &ast.Definition{Kind: ast.Object, Name: "Region", Fields: ast.FieldList{{Name: "id", Type: typ("ID!")}}}
			h := s.Types["Hub"]
			h.Fields = append(h.Fields, &ast.FieldDefinition{Name: "region", Type: typ("Region")})
			q := field(s, "Query", "hubs")
			q.Arguments = append(q.Arguments,
				&ast.ArgumentDefinition{Name: "region", Type: typ("String")},
				&ast.ArgumentDefinition{Name: "limit", Type: typ("Int!"), DefaultValue: &ast.Value{Kind: ast.IntValue, Raw: "10"}})
			in := s.Types["CreateHubInput"]
			in.Fields = append(in.Fields, &ast.FieldDefinition{Name: "region", Type: typ("String")})
			field(s, "CreateHubInput", "code").Type = typ("String") // required to optional: widened
			field(s, "Hub", "latitude").Type = typ("Float!")        // nullable to non-null: narrowed output, safe
			s.Types["HubKind"].EnumValues = append(s.Types["HubKind"].EnumValues, &ast.EnumValueDefinition{Name: "depot"})
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, changed := snapshotSDL(t), snapshotSDL(t)
			if tc.old != nil {
				tc.old(old)
				tc.old(changed)
			}
			tc.edit(changed)
			got := ruleIDs(contract.GraphQLBreaking(old, changed))
			if len(tc.wants) == 0 && len(got) > 0 {
				t.Fatalf("an additive change is breaking: %v", got)
			}
			for _, w := range tc.wants {
				if !slices.Contains(got, w) {
					t.Errorf("want %q among %v", w, got)
				}
			}
			// Off the deprecation path, nothing of it passes the gate.
			if n := len(contract.Gate(contract.GraphQLBreaking(old, changed), contract.ParseChangelog(""))); n != len(got) {
				t.Errorf("the gate let %d of %d through", len(got)-n, len(got))
			}
		})
	}
}

// changelogWith is a CHANGELOG.md with a released version deprecating
// and [Unreleased] removing.
func changelogWith(deprecated, removed string) contract.Changelog {
	return contract.ParseChangelog("# Changelog\n\n## [Unreleased]\n\n### Removed\n\n" + removed +
		"\n\n## [1.4.0] - 2026-11-02\n\n### Deprecated\n\n" + deprecated + "\n")
}

// TestDeprecationPath: a removal passes the gate only when the snapshot
// marks the element deprecated, a released version's "Deprecated" names it
// and [Unreleased]'s "Removed" names it.
func TestDeprecationPath(t *testing.T) {
	deprecate := func(s *ast.Schema) {
		f := s.Types["Hub"].Fields.ForName("timezone")
		f.Directives = append(f.Directives, &ast.Directive{Name: "deprecated"})
	}
	remove := func(s *ast.Schema) {
		s.Types["Hub"].Fields = slices.DeleteFunc(s.Types["Hub"].Fields, func(f *ast.FieldDefinition) bool { return f.Name == "timezone" })
	}
	for _, tc := range []struct {
		name       string
		deprecated bool // in the snapshot
		cl         contract.Changelog
		pass       bool
	}{
		{"deprecated, released, removed", true, changelogWith("- `Hub.timezone`: use `Hub.zone`.", "- `Hub.timezone`."), true},
		{"not marked deprecated in the snapshot", false, changelogWith("- `Hub.timezone`.", "- `Hub.timezone`."), false},
		{"removal not in the CHANGELOG", true, changelogWith("- `Hub.timezone`.", ""), false},
		{"deprecated only in [Unreleased]", true, contract.ParseChangelog("## [Unreleased]\n\n### Deprecated\n\n- `Hub.timezone`\n\n### Removed\n\n- `Hub.timezone`\n"), false},
		{"another element named", true, changelogWith("- `Hub.name`.", "- `Hub.name`."), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, changed := snapshotSDL(t), snapshotSDL(t)
			if tc.deprecated {
				deprecate(old)
			}
			remove(changed)
			left := contract.Gate(contract.GraphQLBreaking(old, changed), tc.cl)
			if tc.pass != (len(left) == 0) {
				t.Errorf("pass %v, left %v", tc.pass, ruleIDs(left))
			}
		})
	}
	// A type cannot be marked deprecated: the CHANGELOG alone lets it go.
	old, changed := snapshotSDL(t), snapshotSDL(t)
	delete(changed.Types, "WebhookDelivery")
	if left := contract.Gate(contract.GraphQLBreaking(old, changed), changelogWith("- `WebhookDelivery`", "- `WebhookDelivery`")); len(left) > 0 {
		t.Errorf("a type deprecated and removed through the CHANGELOG: %v", ruleIDs(left))
	}
}

// snapshotOpenAPI is a fresh copy of the OpenAPI snapshot as JSON values.
func snapshotOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(openAPISnapshot)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

type obj = map[string]any

func at(doc obj, keys ...string) obj {
	v := doc
	for _, k := range keys {
		v = v[k].(obj)
	}
	return v
}

func param(doc obj, path, method, name string) obj {
	for _, p := range at(doc, "paths", path, method)["parameters"].([]any) {
		if p.(obj)["name"] == name {
			return p.(obj)
		}
	}
	panic("no parameter " + name)
}

func openAPIChanges(t *testing.T, old, changed obj) []contract.Change {
	t.Helper()
	a, _ := json.Marshal(old)
	b, _ := json.Marshal(changed)
	changes, err := contract.OpenAPIBreaking(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

// TestOpenAPIGate: each kind of breaking change, on a modified copy of the
// OpenAPI snapshot, is found by oasdiff's rules (an additive change is not).
func TestOpenAPIGate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(obj)
		wants []string // oasdiff's rule and the operation; none: additive
	}{
		{"path removed", func(d obj) { delete(at(d, "paths"), "/v1/hubs/{id}") }, []string{"api-path-removed-without-deprecation GET /v1/hubs/{id}"}},
		{"operation removed", func(d obj) { delete(at(d, "paths", "/v1/hubs"), "post") }, []string{"api-removed-without-deprecation POST /v1/hubs"}},
		{"parameter removed", func(d obj) {
			op := at(d, "paths", "/v1/hubs", "get")
			op["parameters"] = slices.DeleteFunc(op["parameters"].([]any), func(p any) bool { return p.(obj)["name"] == "code" })
		}, []string{"request-parameter-removed GET /v1/hubs"}},
		{"parameter became required", func(d obj) { param(d, "/v1/hubs", "get", "code")["required"] = true }, []string{"request-parameter-became-required GET /v1/hubs"}},
		{"required parameter added", func(d obj) {
			op := at(d, "paths", "/v1/hubs", "get")
			op["parameters"] = append(op["parameters"].([]any), obj{"name": "region", "in": "query", "required": true, "schema": obj{"type": "string"}})
		}, []string{"new-required-request-parameter GET /v1/hubs"}},
		{"parameter type changed", func(d obj) { param(d, "/v1/hubs", "get", "limit")["schema"] = obj{"type": "boolean"} }, []string{"request-parameter-type-changed GET /v1/hubs"}},
		{"parameter range narrowed", func(d obj) { param(d, "/v1/hubs", "get", "limit")["schema"] = obj{"type": "integer", "maximum": 10} }, []string{"request-parameter-max-decreased GET /v1/hubs"}},
		{"response member removed", func(d obj) {
			h := at(d, "components", "schemas", "Hub")
			delete(h["properties"].(obj), "timezone")
			h["required"] = slices.DeleteFunc(h["required"].([]any), func(v any) bool { return v == "timezone" })
		}, []string{"response-required-property-removed GET /v1/hubs/{id}"}},
		{"response member became optional", func(d obj) {
			h := at(d, "components", "schemas", "Hub")
			h["required"] = slices.DeleteFunc(h["required"].([]any), func(v any) bool { return v == "timezone" })
		}, []string{"response-property-became-optional GET /v1/hubs/{id}"}},
		{"response member type changed", func(d obj) {
			at(d, "components", "schemas", "Hub", "properties")["revision"] = obj{"type": "string"}
		}, []string{"response-property-type-changed GET /v1/hubs/{id}"}},
		{"request member became required", func(d obj) {
			at(d, "components", "schemas", "HubInput")["required"] = []any{"name"}
		}, []string{"request-property-became-required POST /v1/hubs"}},
		{"required request member added", func(d obj) {
			h := at(d, "components", "schemas", "HubInput")
			h["properties"].(obj)["region"] = obj{"type": "string"}
			h["required"] = []any{"region"}
		}, []string{"new-required-request-property POST /v1/hubs"}},
		{"request enum narrowed", func(d obj) {
			at(d, "components", "schemas", "HubInput", "properties", "kind")["enum"] = []any{"warehouse", "store", "port"}
		}, []string{"request-property-enum-value-removed POST /v1/hubs"}},
		{"request type narrowed", func(d obj) {
			at(d, "components", "schemas", "HubInput", "properties")["latitude"] = obj{"type": []any{"integer", "null"}}
		}, []string{"request-property-type-changed POST /v1/hubs"}},
		{"additive", func(d obj) {
			at(d, "paths")["/v1/regions"] = obj{"get": obj{"operationId": "listRegions", "responses": obj{"200": obj{"description": "ok"}}}}
			op := at(d, "paths", "/v1/hubs", "get")
			op["parameters"] = append(op["parameters"].([]any), obj{"name": "region", "in": "query", "schema": obj{"type": "string"}})
			at(d, "components", "schemas", "Hub", "properties")["region"] = obj{"type": "string"}
			at(d, "components", "schemas", "HubInput", "properties")["region"] = obj{"type": []any{"string", "null"}}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, changed := snapshotOpenAPI(t), snapshotOpenAPI(t)
			tc.edit(changed)
			changes := openAPIChanges(t, old, changed)
			got := ruleIDs(changes)
			if len(tc.wants) == 0 && len(got) > 0 {
				t.Fatalf("an additive change is breaking: %v", got)
			}
			for _, w := range tc.wants {
				if !slices.Contains(got, w) {
					t.Errorf("want %q among %v", w, got)
				}
			}
			if n := len(contract.Gate(changes, contract.ParseChangelog(""))); n != len(got) {
				t.Errorf("the gate let %d of %d through", len(got)-n, len(got))
			}
		})
	}

	// The deprecation path: an operation marked deprecated in the snapshot,
	// named by a released version's Deprecated and [Unreleased]'s Removed.
	old, changed := snapshotOpenAPI(t), snapshotOpenAPI(t)
	at(old, "paths", "/v1/hubs/{id}", "delete")["deprecated"] = true
	delete(at(changed, "paths", "/v1/hubs/{id}"), "delete")
	changes := openAPIChanges(t, old, changed)
	if len(changes) == 0 {
		t.Fatal("removing a deprecated operation is not reported")
	}
	if left := contract.Gate(changes, changelogWith("- `DELETE /v1/hubs/{id}`", "- `DELETE /v1/hubs/{id}`")); len(left) > 0 {
		t.Errorf("deprecated, released and removed: %v", ruleIDs(left))
	}
	if left := contract.Gate(changes, changelogWith("- `DELETE /v1/hubs/{id}`", "")); len(left) == 0 {
		t.Error("a deprecated operation removed without the CHANGELOG naming the removal passes")
	}
	delete(at(old, "paths", "/v1/hubs/{id}", "delete"), "deprecated")
	if left := contract.Gate(openAPIChanges(t, old, changed), changelogWith("- `DELETE /v1/hubs/{id}`", "- `DELETE /v1/hubs/{id}`")); len(left) == 0 {
		t.Error("an operation removed without being deprecated passes")
	}
}
