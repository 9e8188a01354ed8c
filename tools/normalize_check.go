package tools

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// AliasProblems lists what is wrong with the tool's aliases, for catalog
// --check: an alias must rename a property the input schema defines in
// that object, and must not be a property of it itself (the model could
// never give that property); a value alias must stand for a value the
// schema's enum (or const) at that pointer allows, and must not be one
// itself. Nil when the tool has no aliases or they are fine; a schema
// that does not compile is reported elsewhere.
func (t *Tool) AliasProblems() []string {
	a := t.Aliases
	if a == nil {
		return nil
	}
	if t.InputSchema == nil {
		return []string{`"aliases" and "value_aliases" need an input schema to say what they stand for; remove them, or add the schema`}
	}
	root, err := t.Compile()
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range a.Names {
		at := schemasAt(root, n.parentPointers)
		where := "the arguments"
		if n.Parent != "" {
			where = n.Parent
		}
		switch {
		case len(at) == 0:
			out = append(out, fmt.Sprintf(`aliases: %q: the input schema has nothing at %s; write the pointer with the schema's property names`, n.Key, where))
		case !slices.ContainsFunc(at, func(s *jsonschema.Schema) bool { return s.Properties[n.To] != nil }):
			out = append(out, fmt.Sprintf(`aliases: %q -> %q: %q is not a property of %s in the input schema; point each alias at a property the schema defines`, n.Key, n.To, n.To, where))
		case slices.ContainsFunc(at, func(s *jsonschema.Schema) bool { return s.Properties[n.From] != nil }):
			out = append(out, fmt.Sprintf(`aliases: %q is itself a property of %s in the input schema, so calls that give it could not be told apart; remove the alias`, n.From, where))
		}
	}
	for _, v := range a.Values {
		at := schemasAt(root, v.tokens)
		var allowed []any
		for _, s := range at {
			allowed = append(allowed, s.Enum...)
			if len(s.Constant) > 0 {
				allowed = append(allowed, s.Constant[0])
			}
		}
		if len(allowed) == 0 {
			out = append(out, fmt.Sprintf(`value_aliases: %q: the input schema has no "enum" or "const" at %s; value aliases stand for enum values`, v.Pointer, v.Pointer))
			continue
		}
		if !allows(allowed, v.To) {
			out = append(out, fmt.Sprintf(`value_aliases: %q: %q -> %s: %s is not one of the schema's values there; map each alias to a value of the enum`, v.Pointer, v.From, v.To, v.To))
		}
		if allows(allowed, []byte(strconv.Quote(v.From))) {
			out = append(out, fmt.Sprintf(`value_aliases: %q: %q is itself one of the schema's values there, so the alias would change a valid call; remove it`, v.Pointer, v.From))
		}
	}
	return out
}

// allows reports whether the JSON value raw is among the decoded values.
func allows(values []any, raw []byte) bool {
	d := argDecoder{src: raw}
	v, _, err := d.decode()
	if err != nil {
		return false
	}
	want := string(appendCanonical(nil, v))
	return slices.ContainsFunc(values, func(x any) bool { return string(appendCanonical(nil, x)) == want })
}

// schemasAt lists the compiled schemas that apply to the value at the
// pointer tokens, through properties and items ("*" or an index for an
// item), each with the schemas it applies in place ($ref, allOf, anyOf,
// oneOf, if/then/else).
func schemasAt(root *jsonschema.Schema, tokens []string) []*jsonschema.Schema {
	at := inPlace([]*jsonschema.Schema{root})
	for _, tok := range tokens {
		var next []*jsonschema.Schema
		idx, err := strconv.Atoi(tok)
		item := tok == "*" || (err == nil && idx >= 0)
		for _, s := range at {
			if p := s.Properties[tok]; p != nil {
				next = append(next, p)
			}
			if !item {
				continue
			}
			next = append(next, s.Items2020)
			switch x := s.Items.(type) {
			case *jsonschema.Schema:
				next = append(next, x)
			case []*jsonschema.Schema:
				if tok != "*" && idx < len(x) {
					next = append(next, x[idx])
				} else {
					next = append(next, x...)
				}
			}
			if tok != "*" && idx < len(s.PrefixItems) {
				next = append(next, s.PrefixItems[idx])
			} else if tok == "*" {
				next = append(next, s.PrefixItems...)
			}
			if x, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
				next = append(next, x)
			}
		}
		at = inPlace(next)
	}
	return at
}

// inPlace is ss and every schema they apply to the same value, but for
// "not", each once.
func inPlace(ss []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		for _, c := range inPlaceSubschemas(s) {
			if c != s.Not {
				add(c)
			}
		}
	}
	for _, s := range ss {
		add(s)
	}
	return out
}
