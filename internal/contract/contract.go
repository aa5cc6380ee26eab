// Package contract is the breaking-change gate of the service's two
// contracts, the GraphQL schema (the SDL GET /graphql/schema.graphql
// serves) and the OpenAPI document (GET /v1/openapi.json): their committed
// snapshots (testdata/) are compared with the built ones, and a breaking
// change fails the gate unless it follows the deprecation path
// (docs/development.md, "The breaking-change gate"). It also holds
// SpecCost, the cost a client computes from the SDL's cost directives.
package contract

import (
	"fmt"
	"regexp"
	"strings"
)

// Change is one breaking change between a snapshot and the built contract.
type Change struct {
	Rule    string // the rule's id: "field-removed", oasdiff's "api-removed-without-deprecation"
	Element string // what changed, as the CHANGELOG names it: `Order.status`, `GET /v1/orders`
	Message string
	// Removal: the element is gone. Only a removal can take the
	// deprecation path.
	Removal bool
	// Deprecated: the snapshot marks the element deprecated (@deprecated;
	// deprecated: true). A GraphQL type cannot be marked; its removal
	// needs only the CHANGELOG.
	Deprecated bool
}

func (c Change) String() string { return fmt.Sprintf("%s: %s (%s)", c.Rule, c.Message, c.Element) }

// Changelog is what the gate reads of CHANGELOG.md (Keep a Changelog): the
// elements named, in backquotes, under "### Deprecated" of a released
// version (a "## [x.y.z]" section) and under "### Removed" of
// "## [Unreleased]".
type Changelog struct {
	DeprecatedReleased map[string]bool
	RemovedUnreleased  map[string]bool
}

var (
	versionHeading = regexp.MustCompile(`^## \[([^\]]+)\]`)
	backquoted     = regexp.MustCompile("`([^`]+)`")
)

// ParseChangelog reads a CHANGELOG.md.
func ParseChangelog(text string) Changelog {
	cl := Changelog{DeprecatedReleased: map[string]bool{}, RemovedUnreleased: map[string]bool{}}
	version, section := "", ""
	for _, line := range strings.Split(text, "\n") {
		if m := versionHeading.FindStringSubmatch(line); m != nil {
			version, section = m[1], ""
			continue
		}
		if s, ok := strings.CutPrefix(line, "### "); ok {
			section = strings.TrimSpace(s)
			continue
		}
		var into map[string]bool
		switch {
		case section == "Deprecated" && version != "" && !strings.EqualFold(version, "Unreleased"):
			into = cl.DeprecatedReleased
		case section == "Removed" && strings.EqualFold(version, "Unreleased"):
			into = cl.RemovedUnreleased
		default:
			continue
		}
		for _, m := range backquoted.FindAllStringSubmatch(line, -1) {
			into[strings.TrimSpace(m[1])] = true
		}
	}
	return cl
}

// Allowed reports whether c follows the deprecation path: a removal of an
// element the snapshot marks deprecated (a GraphQL type: any), whose
// deprecation a released version's "Deprecated" names and whose removal
// "[Unreleased]"'s "Removed" names.
func (cl Changelog) Allowed(c Change) bool {
	return c.Removal && (c.Deprecated || strings.HasPrefix(c.Rule, "type-")) &&
		cl.DeprecatedReleased[c.Element] && cl.RemovedUnreleased[c.Element]
}

// Gate is the breaking changes that do not follow the deprecation path.
func Gate(changes []Change, cl Changelog) []Change {
	var out []Change
	for _, c := range changes {
		if !cl.Allowed(c) {
			out = append(out, c)
		}
	}
	return out
}
