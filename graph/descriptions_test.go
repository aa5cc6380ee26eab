package graph_test

import (
	"slices"
	"strings"
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
)

// describedQuery asks introspection for every description the playground's
// Docs explorer shows.
const describedQuery = `{
  __schema {
    types {
      name kind description
      fields(includeDeprecated: true) { name description args { name description } }
      inputFields { name description }
      enumValues(includeDeprecated: true) { name description }
    }
    directives { name description args { name description } }
  }
}`

type introspectedInput struct{ Name, Description string }

type introspectedField struct {
	Name, Description string
	Args              []introspectedInput
}

// builtIn are the names GraphQL itself defines (the specification's scalars
// and directives); everything else in the schema is ours.
var builtIn = []string{"String", "Int", "Float", "Boolean", "ID", "include", "skip", "deprecated", "specifiedBy", "oneOf", "defer"}

// TestEverythingIsDescribed: every type, field, argument, enum value, input
// field and directive of our schema has a description in introspection, so
// the playground's Docs explorer explains all of it. The domain text comes
// from the ent schema's comments and graph/schema/*.graphqls; the generated
// filter predicates are described by internal/gqlcodegen.Describe.
func TestEverythingIsDescribed(t *testing.T) {
	srv := apptest.New(t)
	var data struct {
		Schema struct {
			Types []struct {
				Name, Kind, Description string
				Fields                  []introspectedField
				InputFields             []introspectedInput
				EnumValues              []introspectedInput
			}
			Directives []introspectedField
		} `json:"__schema"`
	}
	srv.MustGraphQL(t, environment.Sandbox, describedQuery, nil, &data)
	var missing []string
	empty := func(s string) bool { return strings.TrimSpace(s) == "" }
	for _, typ := range data.Schema.Types {
		if strings.HasPrefix(typ.Name, "__") || slices.Contains(builtIn, typ.Name) {
			continue
		}
		if empty(typ.Description) {
			missing = append(missing, strings.ToLower(typ.Kind)+" "+typ.Name)
		}
		for _, f := range typ.Fields {
			if empty(f.Description) {
				missing = append(missing, "field "+typ.Name+"."+f.Name)
			}
			for _, a := range f.Args {
				if empty(a.Description) {
					missing = append(missing, "argument "+typ.Name+"."+f.Name+"("+a.Name+")")
				}
			}
		}
		for _, f := range typ.InputFields {
			if empty(f.Description) {
				missing = append(missing, "input field "+typ.Name+"."+f.Name)
			}
		}
		for _, v := range typ.EnumValues {
			if empty(v.Description) {
				missing = append(missing, "enum value "+typ.Name+"."+v.Name)
			}
		}
	}
	for _, d := range data.Schema.Directives {
		if slices.Contains(builtIn, d.Name) {
			continue
		}
		if empty(d.Description) {
			missing = append(missing, "directive @"+d.Name)
		}
		for _, a := range d.Args {
			if empty(a.Description) {
				missing = append(missing, "argument @"+d.Name+"("+a.Name+")")
			}
		}
	}
	if len(data.Schema.Types) < 50 {
		t.Fatalf("introspection returned only %d types", len(data.Schema.Types))
	}
	if len(missing) > 0 {
		t.Errorf("%d schema elements have no description (ent schema: .Comment(…), schema.Comment, EnumValues; "+
			"hand-written: graph/schema/*.graphqls):\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}

// TestViewer: the caller and the environment, for an API key and for a
// console session (the playground's header shows them).
func TestViewer(t *testing.T) {
	srv := apptest.New(t)
	const q = `{ viewer { kind email role keyName keyPrefix environment baseURL scopes } }`
	var key struct {
		Viewer struct {
			Kind, Environment, BaseURL string
			Email, Role                *string
			KeyName, KeyPrefix         string
			Scopes                     []string
		}
	}
	srv.MustGraphQL(t, environment.Sandbox, q, nil, &key)
	v := key.Viewer
	if v.Kind != "api_key" || v.KeyName != "apptest sandbox" || !strings.HasPrefix(v.KeyPrefix, "lsk_test_") ||
		!strings.HasPrefix(srv.Keys[environment.Sandbox], v.KeyPrefix) || v.Email != nil || v.Role != nil {
		t.Errorf("API key viewer: %+v", v)
	}
	if v.Environment != "sandbox" || v.BaseURL != srv.SandboxURL || !slices.Contains(v.Scopes, "orders:read") {
		t.Errorf("API key viewer environment/scopes: %+v", v)
	}

	session := srv.Session(t, srv.AdminEmail, srv.AdminPassword)
	r := srv.GraphQLWith(t, environment.Production, q, nil, session)
	if len(r.Errors) > 0 {
		t.Fatalf("session viewer: %+v", r.Errors)
	}
	for _, want := range []string{`"kind":"session"`, `"email":"` + srv.AdminEmail + `"`, `"role":"owner"`, `"keyName":null`,
		`"environment":"production"`, `"baseURL":"` + srv.URL + `"`} {
		if !strings.Contains(string(r.Data), want) {
			t.Errorf("session viewer %s lacks %s", r.Data, want)
		}
	}

	if r := srv.GraphQLWith(t, environment.Sandbox, q, nil, apptest.Anonymous()); r.Status != 401 || len(r.Errors) != 1 || r.Errors[0].Code() != "UNAUTHENTICATED" {
		t.Errorf("anonymous viewer: %d %+v", r.Status, r.Errors)
	}
}
