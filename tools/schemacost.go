package tools

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxChecksPerValue bounds how many subschemas a schema may apply to one
// value of the arguments, counted as the validator walks them: every
// branch of an anyOf, allOf or oneOf and every $ref, followed through
// $defs. A chain of alternatives that refer to the next level (each level
// naming the next three times) needs 3^L checks for one wrongly typed
// argument: from a 1.4 KB sidecar at L = 10, about 24 seconds and 4 GB.
// Hand-written schemas need tens; a generated one a few thousand.
const maxChecksPerValue = 10000

// checksPerValue returns the largest number of checks the schema may
// apply to one value (see maxChecksPerValue), computed over the compiled
// schema in time linear in its size: each subschema's count is found once
// and reused wherever it is referred to. Subschemas that apply to the
// value's members or items (properties, items) are counted where they
// apply, each for its own values. A $ref loop at one value is counted
// once: the validator refuses an endless one itself.
func checksPerValue(root *jsonschema.Schema) int {
	const inProgress = -1
	cost := map[*jsonschema.Schema]int{}
	var worst int
	var inPlace func(s *jsonschema.Schema) int
	inPlace = func(s *jsonschema.Schema) int {
		if s == nil {
			return 0
		}
		switch c, seen := cost[s]; {
		case seen && c == inProgress:
			return 1
		case seen:
			return c
		}
		cost[s] = inProgress
		n := 1
		for _, c := range inPlaceSubschemas(s) {
			n = min(n+inPlace(c), maxChecksPerValue*16) // no overflow, whatever the depth
		}
		cost[s] = n
		worst = max(worst, n)
		// The members' and items' schemas start again, at their values.
		for _, c := range memberSubschemas(s) {
			inPlace(c)
		}
		return n
	}
	inPlace(root)
	return worst
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

// checkCost refuses a schema whose checks of one value could take
// exponential time (see maxChecksPerValue): such a tool is withheld, as a
// schema that does not compile is, instead of letting one call hold a
// core and gigabytes.
func checkCost(s *jsonschema.Schema) error {
	if n := checksPerValue(s); n > maxChecksPerValue {
		return fmt.Errorf("checking one value may take %d subschema checks, more than the %d allowed (anyOf, allOf or oneOf branches that refer to each other multiply); refer to a shared definition once rather than from every branch", min(n, maxChecksPerValue*16), maxChecksPerValue)
	}
	return nil
}
