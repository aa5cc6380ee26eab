package gqlcodegen

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"text/template/parse"
)

// upstreamBlocks are the blocks of ent's and entgql's templates that
// ent/template replaces by name, each with the SHA-256 of the upstream
// block our copy was made from. A block of text/template has no smaller
// hook, so our copy holds the whole block with a few lines changed (marked
// "logistics:"); when an upgrade changes the upstream block, generation
// would silently go on with our copy of the old one. This test fails
// instead: diff the new block against the old one, carry the change into
// ours, and put the new hash here (docs/design/0016).
var upstreamBlocks = []struct {
	module, file, block, ours, sum string
}{
	{"entgo.io/contrib", "entgql/template/collection.tmpl", "gql_collection", "collection.tmpl",
		"7a7391e05ce8a3af02962f17e658dd0ec2d6a4912c7e17eb42caf7ea655f26a4"},
	{"entgo.io/contrib", "entgql/template/edge.tmpl", "gql_edge", "edge.tmpl",
		"34f00194fdac72be34e228400b0d401dc6b9e5f49232dfdcd1d61cf14d88812a"},
	{"entgo.io/contrib", "entgql/template/pagination.tmpl", "gql_pagination", "pagination.tmpl",
		"784f4dc4d3e8b93663bcd61e7118ac730d85c52e75e9fba02ca4e69d6fb581d2"},
	{"entgo.io/contrib", "entgql/template/pagination.tmpl", "gql_pagination/helper/paginate", "paginate.tmpl",
		"054df42fbc283e10081f435636a7cce29787f756be98208fa1b982ae55b398c5"},
	{"entgo.io/ent", "entc/gen/template/dialect/sql/decode.tmpl", "dialect/sql/decode/one", "decode.tmpl",
		"b8e04f4b9f83fc15d68d0f67013801a5b8d4fca925a8eac89b271267f0e71a75"},
	{"entgo.io/ent", "entc/gen/template/dialect/sql/predicate.tmpl", "dialect/sql/predicate/field/ops", "casefold.tmpl",
		"cc60a1e42e5b2895c43b9f329e811cd1c026b2c1f734a61c03434e21399bd18d"},
}

func TestUpstreamTemplates(t *testing.T) {
	for _, u := range upstreamBlocks {
		t.Run(u.block, func(t *testing.T) {
			out, err := osexec.Command("go", "list", "-m", "-f", "{{.Dir}}", u.module).Output()
			if err != nil {
				t.Fatalf("%s's module directory: %v", u.module, err)
			}
			b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), u.file))
			if err != nil {
				t.Fatal(err)
			}
			text, ok := block(string(b), u.block)
			if !ok {
				t.Fatalf("%s of %s no longer defines %q, which ent/template/%s replaces", u.file, u.module, u.block, u.ours)
			}
			sum := sha256.Sum256([]byte(text))
			if got := hex.EncodeToString(sum[:]); got != u.sum {
				t.Errorf("%s's %q changed (SHA-256 %s, ours was made from %s): carry the change into ent/template/%s and update upstreamBlocks", u.module, u.block, got, u.sum, u.ours)
			}

			// Ours must define the same name, or it would be generated as a
			// file of its own instead of replacing the block.
			mine, err := os.ReadFile(filepath.Join("..", "..", "ent", "template", u.ours))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := block(string(mine), u.block); !ok {
				t.Errorf("ent/template/%s does not define %q", u.ours, u.block)
			}
			if _, err := parseTemplate(u.ours, string(mine)); err != nil {
				t.Errorf("ent/template/%s: %v", u.ours, err)
			}
		})
	}
}

// block is the text of the template named name in src: from its define
// line up to the next define, without the blank lines between them.
func block(src, name string) (string, bool) {
	start := strings.Index(src, "{{ define \""+name+"\" }}")
	if start < 0 {
		start = strings.Index(src, "{{ define \""+name+"\" -}}")
	}
	if start < 0 {
		return "", false
	}
	rest := src[start+1:]
	end := len(rest)
	for _, next := range []string{"\n{{ define ", "\n{{- define "} {
		if i := strings.Index(rest, next); i >= 0 && i < end {
			end = i
		}
	}
	return strings.TrimRight(src[start:start+1+end], "\n") + "\n", true
}

// parseTemplate parses a template without knowing its functions.
func parseTemplate(name, src string) (map[string]*parse.Tree, error) {
	tr := parse.New(name)
	tr.Mode = parse.SkipFuncCheck | parse.ParseComments
	trees := map[string]*parse.Tree{}
	_, err := tr.Parse(src, "{{", "}}", trees)
	return trees, err
}
