package graph_test

import (
	"slices"
	"testing"

	"logistics/graph/generated"
	"logistics/internal/auth"
)

// TestEveryFieldHasAPolicy walks the schema: every Mutation field carries
// @hasScope with a known scope (the console's own mutations check for a
// session instead), and every Query field is guarded by @hasScope or by the
// read scope of the type it returns, or is one of the few open fields. A new
// field that falls through fails here, not in production.
func TestEveryFieldHasAPolicy(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	sessionOnly := []string{"createApiToken", "revokeApiToken", "apiTokens"}
	open := []string{"me", "viewer", "scopes"}
	nodeFields := []string{"node", "nodes"} // checked on the resolved object
	for _, f := range schema.Mutation.Fields {
		d := f.Directives.ForName("hasScope")
		if d == nil {
			if !slices.Contains(sessionOnly, f.Name) {
				t.Errorf("Mutation.%s has no @hasScope", f.Name)
			}
			continue
		}
		scope := d.Arguments.ForName("scope").Value.Raw
		if !slices.Contains(auth.AllScopes(), scope) {
			t.Errorf("Mutation.%s: unknown scope %q", f.Name, scope)
		}
	}
	for _, f := range schema.Query.Fields {
		if len(f.Name) > 1 && f.Name[:2] == "__" {
			continue
		}
		_, byType := auth.TypeScopes(f.Type.Name())
		if f.Directives.ForName("hasScope") == nil && !byType &&
			!slices.Contains(open, f.Name) && !slices.Contains(sessionOnly, f.Name) && !slices.Contains(nodeFields, f.Name) {
			t.Errorf("Query.%s (%s) is not guarded by any scope", f.Name, f.Type)
		}
	}
	// Every type of the policy table exists in the schema.
	for _, r := range auth.Policy {
		for _, typ := range r.GraphQLTypes {
			if schema.Types[typ] == nil {
				t.Errorf("policy names %s, which the schema lacks", typ)
			}
		}
	}
}
