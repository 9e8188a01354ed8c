package schema

import (
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Place is the compiled schemas that apply to one value, found by At.
type Place struct {
	schemas []*jsonschema.Schema
}

// At is the place of the value at the pointer tokens (property names,
// and "*" or an index for an item): every schema that applies to it,
// through properties and items, each with the schemas it applies in place
// ($ref, allOf, anyOf, oneOf, if/then/else).
func (s *Schema) At(tokens []string) Place {
	return Place{schemasAt(s.compiled, tokens)}
}

// Empty reports whether no schema applies there.
func (p Place) Empty() bool { return len(p.schemas) == 0 }

// HasProperty reports whether a schema there defines the property name.
func (p Place) HasProperty(name string) bool {
	return slices.ContainsFunc(p.schemas, func(s *jsonschema.Schema) bool { return s.Properties[name] != nil })
}

// values is what the enums and consts there allow.
func (p Place) values() []any {
	var allowed []any
	for _, s := range p.schemas {
		allowed = append(allowed, s.Enum...)
		if len(s.Constant) > 0 {
			allowed = append(allowed, s.Constant[0])
		}
	}
	return allowed
}

// HasValues reports whether an "enum" or "const" there lists values.
func (p Place) HasValues() bool { return len(p.values()) > 0 }

// Allows reports whether the JSON value raw is one of those values, as a
// JSON value: 1 and 1.0 alike, objects whatever their key order.
func (p Place) Allows(raw []byte) bool {
	values := p.values()
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
