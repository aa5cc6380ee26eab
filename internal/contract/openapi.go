package contract

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

// OpenAPIBreaking is every breaking change from the old document to the
// new, by oasdiff's checker (all its rules; a warning counts as breaking:
// an optional response member removed, for one). The element of a change
// is its operation ("GET /v1/orders"): in the REST API an operation is
// what is deprecated and removed. oasdiff itself lets a deprecated
// operation go ("api-removed-with-deprecation", informational); the gate
// reports it, as a removal that the deprecation path may allow.
func OpenAPIBreaking(old, new []byte) ([]Change, error) {
	loader := openapi3.NewLoader()
	s1, err := load.NewSpecInfoFromData(loader, old, "snapshot")
	if err != nil {
		return nil, fmt.Errorf("the OpenAPI snapshot: %w", err)
	}
	s2, err := load.NewSpecInfoFromData(openapi3.NewLoader(), new, "built")
	if err != nil {
		return nil, fmt.Errorf("the built OpenAPI document: %w", err)
	}
	d, sources, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	if err != nil {
		return nil, fmt.Errorf("oasdiff: %w", err)
	}
	cfg := checker.NewConfig(checker.GetAllChecks())
	var out []Change
	for _, c := range checker.CheckBackwardCompatibilityUntilLevel(cfg, d, sources, checker.INFO) {
		id := c.GetId()
		withDeprecation := id == checker.APIRemovedWithDeprecationId || id == checker.APIPathRemovedWithDeprecationId
		if c.GetLevel() < checker.WARN && !withDeprecation {
			continue
		}
		el := strings.TrimSpace(c.GetOperation() + " " + c.GetPath())
		out = append(out, Change{
			Rule: id, Element: el, Message: c.GetUncolorizedText(checker.NewDefaultLocalizer()),
			Removal:    strings.Contains(id, "removed"),
			Deprecated: withDeprecation || operationDeprecated(s1.Spec, c.GetOperation(), c.GetPath()),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Element < out[j].Element })
	return out, nil
}

func operationDeprecated(doc *openapi3.T, method, path string) bool {
	if doc == nil || doc.Paths == nil {
		return false
	}
	item := doc.Paths.Value(path)
	if item == nil {
		return false
	}
	op := item.GetOperation(strings.ToUpper(method))
	return op != nil && op.Deprecated
}
