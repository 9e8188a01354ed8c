package schema

import (
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compiledAt finds the compiled subschema whose location is loc, in the
// schema and everything it reaches, $refs included.
func compiledAt(root *jsonschema.Schema, loc string) *jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{}
	var find func(s *jsonschema.Schema) *jsonschema.Schema
	find = func(s *jsonschema.Schema) *jsonschema.Schema {
		if s == nil || seen[s] {
			return nil
		}
		seen[s] = true
		if s.Location == loc {
			return s
		}
		for _, c := range subschemas(s) {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	return find(root)
}

// subschemas lists the schemas s holds directly: those it applies to the
// value itself, then those it applies to the value's members and items.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	return append(inPlaceSubschemas(s), memberSubschemas(s)...)
}

// memberSubschemas lists the schemas s applies to the members, items,
// names or content of its value.
func memberSubschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.PropertyNames, s.UnevaluatedProperties, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema}
	out = append(out, s.PrefixItems...)
	for _, c := range s.Properties {
		out = append(out, c)
	}
	for _, c := range s.PatternProperties {
		out = append(out, c)
	}
	for _, x := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch x := x.(type) {
		case *jsonschema.Schema:
			out = append(out, x)
		case []*jsonschema.Schema:
			out = append(out, x...)
		}
	}
	return out
}

// inPlaceSubschemas lists the schemas s applies to the same value it is
// applied to.
func inPlaceSubschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, c := range s.DependentSchemas {
		out = append(out, c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	return out
}
