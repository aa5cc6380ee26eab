package graph

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Limits on what a document spells out, checked before gqlgen validates it
// (README: Limits). Validation reports an error for every unknown or
// repeated directive, unknown argument, unused fragment or variable, and
// every pair of conflicting fields: 24,000 repetitions of an unknown
// directive on one field, 48 KB of document, made 47,999 errors and an
// 8.3 MB response. Each count below bounds one such multiplication; the
// fields (aliases and repetitions included) are bounded by Options.MaxFields.
// Validation also compares every two fields that share a response name in
// a selection set, and every two fragments spread in one: 499 repetitions
// of totalCount took 220 ms and 21 MB, 250 fragments spread side by side
// 340 ms and 40 MB, with no error at all; MaxSameName and MaxFragments
// bound those pairs to about a tenth of that.
const (
	MaxTokens     = 50_000 // tokens of the document: bounds the lexing and parsing of everything below
	MaxDirectives = 100    // directive uses (@include, @skip, unknown ones…), wherever they are written
	// MaxArguments bounds the arguments of fields and directives as
	// written. The members and elements of their values are not counted
	// here (one where: argument within the input limits holds 17,000): the
	// token limit bounds them before validation, the input limits
	// (inputlimits.go) after, and the validation errors they can cause are
	// bounded by boundedRules.
	MaxArguments = 1_000
	MaxFragments = 200 // fragment definitions, spreads and inline fragments
	MaxVariables = 200 // variable definitions of all operations
	// MaxSameName bounds the fields one response name (an alias, or the
	// field's name) has in one selection set, counting the fields of its
	// inline fragments and of the fragments it spreads.
	MaxSameName = 100
	// maxValidationErrors is the most errors validation collects for one
	// document: the response shows MaxErrors of them and says there were
	// more (responselimits.go).
	maxValidationErrors = MaxErrors + 1
)

// documentLimits is the gqlgen extension that enforces the limits above and
// Options.MaxFields, for every transport (HTTP, WebSocket, SSE). It mutates
// the operation's parameters, which gqlgen does before it parses and
// validates the document, and after the persisted query extension (added
// before it) has put the document of a hash in place.
type documentLimits struct {
	maxFields int
	// parsed is gqlgen's query cache: a document is in it only once it
	// passed these limits (they run before gqlgen parses) and validation.
	parsed graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = (*documentLimits)(nil)

func newDocumentLimits(maxFields int, parsed graphql.Cache[*ast.QueryDocument]) *documentLimits {
	return &documentLimits{maxFields: maxFields, parsed: parsed}
}

func (*documentLimits) ExtensionName() string                   { return "DocumentLimits" }
func (*documentLimits) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters refuses a document over a limit. A document
// gqlgen has parsed and kept was counted before: a repeated query costs the
// cache look-up gqlgen makes anyway.
func (l *documentLimits) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	query := p.Query
	if query == "" {
		return nil
	}
	if _, ok := l.parsed.Get(ctx, query); ok {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, MaxTokens)
	if err != nil {
		// gqlgen reports the parse error itself, except a document past the
		// token limit, which it would lex in full.
		if strings.Contains(err.Error(), "token limit") {
			return documentLimitError(fmt.Sprintf("the document has more than %d tokens", MaxTokens), "TOKEN_LIMIT_EXCEEDED")
		}
		return nil
	}
	var n documentCounts
	n.document(doc)
	for _, c := range []struct {
		n, max      int
		what, extra string
		code        string
	}{
		{n.fields, l.maxFields, "fields", " (aliases and repeated fields count)", "FIELD_LIMIT_EXCEEDED"},
		{n.directives, MaxDirectives, "directives", " (every use counts)", "DIRECTIVE_LIMIT_EXCEEDED"},
		{n.arguments, MaxArguments, "arguments", " (of fields and directives)", "ARGUMENT_LIMIT_EXCEEDED"},
		{n.fragments, MaxFragments, "fragments", " (definitions, spreads and inline fragments)", "FRAGMENT_LIMIT_EXCEEDED"},
		{n.variables, MaxVariables, "variable definitions", "", "VARIABLE_LIMIT_EXCEEDED"},
		{n.sameName, MaxSameName, "fields named " + strconv.Quote(n.sameNameOf) + " in one selection set", " (fragments included)", "RESPONSE_NAME_LIMIT_EXCEEDED"},
	} {
		if c.max > 0 && c.n > c.max {
			return documentLimitError(fmt.Sprintf("the document has %d %s%s; the limit is %d", c.n, c.what, c.extra, c.max), c.code)
		}
	}
	return nil
}

// documentLimitError is a document over a limit; the presenter gives it
// code BAD_USER_INPUT and this code as its reason.
func documentLimitError(msg, code string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": code}}
}

// documentCounts counts a document as written: every occurrence, fragments
// once (where they are defined, not where they are spread).
type documentCounts struct {
	fields, directives, arguments, fragments, variables int

	sameName   int    // the most fields one response name has in one selection set
	sameNameOf string // that response name
	defs       map[string]*ast.FragmentDefinition
	names      map[string]map[string]int // response names of a fragment's selection set, flattened
}

func (n *documentCounts) document(doc *ast.QueryDocument) {
	n.defs = make(map[string]*ast.FragmentDefinition, len(doc.Fragments))
	n.names = make(map[string]map[string]int, len(doc.Fragments))
	for _, f := range doc.Fragments {
		if n.defs[f.Name] == nil {
			n.defs[f.Name] = f // validation refuses a name given twice
		}
	}
	for _, op := range doc.Operations {
		n.variableDefinitions(op.VariableDefinitions)
		n.directiveList(op.Directives)
		n.selectionSet(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		n.fragments++
		n.variableDefinitions(f.VariableDefinition)
		n.directiveList(f.Directives)
		n.selectionSet(f.SelectionSet)
	}
}

// selectionSet counts a selection set of an operation, a fragment or a
// field: what it holds, and the fields of its response names.
func (n *documentCounts) selectionSet(set ast.SelectionSet) {
	names := map[string]int{}
	n.flatten(set, names)
	for name, c := range names {
		if c > n.sameName || c == n.sameName && name < n.sameNameOf {
			n.sameName, n.sameNameOf = c, name
		}
	}
	n.selections(set)
}

// flatten adds to names the response names of the fields set selects at
// its level: its own, its inline fragments' and its spread fragments'.
func (n *documentCounts) flatten(set ast.SelectionSet, names map[string]int) {
	const saturated = 1 << 30 // fragments spread in fragments multiply
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			name := s.Alias
			if name == "" {
				name = s.Name
			}
			names[name] = min(names[name]+1, saturated)
		case *ast.InlineFragment:
			n.flatten(s.SelectionSet, names)
		case *ast.FragmentSpread:
			for name, c := range n.fragmentNames(s.Name) {
				names[name] = min(names[name]+c, saturated)
			}
		}
	}
}

// fragmentNames is flatten of the fragment's selection set, worked out
// once per fragment; a fragment that spreads itself (validation refuses
// the cycle) adds nothing the second time round.
func (n *documentCounts) fragmentNames(fragment string) map[string]int {
	if m, ok := n.names[fragment]; ok {
		return m // nil while it is being worked out
	}
	f := n.defs[fragment]
	if f == nil {
		return nil
	}
	n.names[fragment] = nil
	m := map[string]int{}
	n.flatten(f.SelectionSet, m)
	n.names[fragment] = m
	return m
}

func (n *documentCounts) selections(set ast.SelectionSet) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			n.fields++
			n.argumentList(s.Arguments)
			n.directiveList(s.Directives)
			if len(s.SelectionSet) > 0 {
				n.selectionSet(s.SelectionSet)
			}
		case *ast.InlineFragment:
			n.fragments++
			n.directiveList(s.Directives)
			n.selections(s.SelectionSet)
		case *ast.FragmentSpread:
			n.fragments++
			n.directiveList(s.Directives)
		}
	}
}

func (n *documentCounts) variableDefinitions(defs ast.VariableDefinitionList) {
	for _, v := range defs {
		n.variables++
		n.directiveList(v.Directives)
	}
}

func (n *documentCounts) directiveList(list ast.DirectiveList) {
	for _, d := range list {
		n.directives++
		n.argumentList(d.Arguments)
	}
}

func (n *documentCounts) argumentList(list ast.ArgumentList) {
	n.arguments += len(list)
}

// boundedRules are gqlparser's validation rules, each reporting through a
// counter shared by all of them: once maxValidationErrors errors are
// collected, the rules go on checking but their errors are dropped before
// they are formatted. Two conflicting fields are one error each pair, so
// 500 fields (within the field limit) made 62,250 errors and 60 MB before
// this. gqlgen replaces FieldsOnCorrectType and ScalarLeafs with its own
// copies after this (suggestions on or off): they make at most one error
// per field, bounded by the field limit.
func boundedRules() *rules.Rules {
	all := rules.NewDefaultRules()
	out := rules.NewRules()
	collected := 0
	for name, f := range all.GetInner() {
		out.AddRule(name, func(obs *core.Events, addError core.AddErrFunc) {
			f(obs, func(options ...core.ErrorOption) {
				if collected >= maxValidationErrors {
					return
				}
				collected++
				addError(options...)
			})
		})
	}
	return out
}
