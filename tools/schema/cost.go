package schema

import (
	"fmt"
	"strings"

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

// checkCost refuses a schema whose checks of one value could take
// exponential time (see maxChecksPerValue): such a tool is withheld, as a
// schema that does not compile is, instead of letting one call hold a
// core and gigabytes.
func checkCost(s *jsonschema.Schema) error {
	if n := checksPerValue(s); n > maxChecksPerValue {
		return fmt.Errorf("checking one value may take %d subschema checks, more than the %d allowed (anyOf, allOf or oneOf branches that refer to each other multiply); refer to a shared definition once rather than from every branch", min(n, maxChecksPerValue*16), maxChecksPerValue)
	}
	if at, k := multiplyingRecursion(s); at != "" {
		_, frag, _ := strings.Cut(at, "#")
		return fmt.Errorf("the alternatives at %q each descend into the same member or item and recur there (%d times a level), so checking a value nested d deep takes %d^d checks; descend from one place, as in one \"items\" or \"properties\" beside the alternatives, rather than from each", "#"+frag, k, k)
	}
	return nil
}

// childSlot is one kind of member or item a schema's checks descend into:
// the item at a position a tuple names, any other item, the member of a
// name some schema names, any other member. Schemas that apply to the
// same slot of a value apply to the same child value.
type childSlot struct {
	item   int    // a tuple position, or -1 for items past every tuple
	member string // for members
	object bool
}

// multiplyingRecursion finds a recursion whose checks multiply with the
// value's nesting: a subschema that, applied to a value, applies itself
// again to one member or item more than once (through alternatives that
// each descend into it), so that a value nested d deep is checked k^d
// times. It returns the location of such a subschema and k, or "" when
// there is none. Only schemas that recur are looked at, so that the large
// schemas without recursion cost one walk.
func multiplyingRecursion(root *jsonschema.Schema) (string, int) {
	var all []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		all = append(all, s)
		for _, c := range subschemas(s) {
			walk(c)
		}
	}
	walk(root)
	component := components(all, func(s *jsonschema.Schema) []*jsonschema.Schema { return subschemas(s) })
	var recurring []*jsonschema.Schema
	for _, s := range all {
		if component[s] >= 0 {
			recurring = append(recurring, s)
		}
	}
	if len(recurring) == 0 {
		return "", 0
	}

	slots := []childSlot{{item: -1}, {object: true}}
	tuple, names := 0, map[string]bool{}
	for _, s := range recurring {
		if items, ok := s.Items.([]*jsonschema.Schema); ok {
			tuple = max(tuple, len(items))
		}
		tuple = max(tuple, len(s.PrefixItems))
		for name := range s.Properties {
			if !names[name] {
				names[name] = true
				slots = append(slots, childSlot{object: true, member: name})
			}
		}
	}
	for i := range tuple {
		slots = append(slots, childSlot{item: i})
	}
	var worst *jsonschema.Schema
	var worstK int
	for _, slot := range slots {
		// edges[s] lists, with repeats, the recurring schemas that
		// applying s to a value applies to the value's child in slot.
		edges := map[*jsonschema.Schema][]*jsonschema.Schema{}
		for _, s := range recurring {
			forEachInPlace(s, func(t *jsonschema.Schema) {
				for _, c := range slotSubschemas(t, slot) {
					if component[c] >= 0 {
						edges[s] = append(edges[s], c)
					}
				}
			})
		}
		within := components(recurring, func(s *jsonschema.Schema) []*jsonschema.Schema { return edges[s] })
		for _, s := range recurring {
			k := 0
			for _, c := range edges[s] {
				if within[c] >= 0 && within[c] == within[s] {
					k++
				}
			}
			if k >= 2 && worst == nil {
				worst, worstK = s, k
			}
		}
	}
	if worst == nil {
		return "", 0
	}
	// The schema that holds the alternatives says most: the one found
	// may be a $ref to it.
	at := worst.Location
	forEachInPlace(worst, func(t *jsonschema.Schema) {
		if at == worst.Location && len(t.AnyOf)+len(t.OneOf)+len(t.AllOf) >= 2 {
			at = t.Location
		}
	})
	return at, worstK
}

// forEachInPlace calls f for s and for every schema s applies to the same
// value, once for each way it is reached (the validator checks it that
// many times), stopping at a loop and after maxChecksPerValue.
func forEachInPlace(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	n := 0
	onPath := map[*jsonschema.Schema]bool{}
	var visit func(t *jsonschema.Schema)
	visit = func(t *jsonschema.Schema) {
		if t == nil || onPath[t] || n > maxChecksPerValue {
			return
		}
		n++
		onPath[t] = true
		f(t)
		for _, c := range inPlaceSubschemas(t) {
			visit(c)
		}
		onPath[t] = false
	}
	visit(s)
}

// slotSubschemas lists the schemas t applies to its value's child in slot.
func slotSubschemas(t *jsonschema.Schema, slot childSlot) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(c *jsonschema.Schema) {
		if c != nil {
			out = append(out, c)
		}
	}
	if slot.object {
		if c, ok := t.Properties[slot.member]; ok && slot.member != "" {
			add(c)
		} else if c, ok := t.AdditionalProperties.(*jsonschema.Schema); ok {
			add(c)
		}
		for re, c := range t.PatternProperties {
			if slot.member == "" || re.MatchString(slot.member) {
				add(c)
			}
		}
		add(t.UnevaluatedProperties)
		return out
	}
	switch items := t.Items.(type) {
	case *jsonschema.Schema:
		add(items)
	case []*jsonschema.Schema:
		if slot.item >= 0 && slot.item < len(items) {
			add(items[slot.item])
		} else if c, ok := t.AdditionalItems.(*jsonschema.Schema); ok {
			add(c)
		}
	}
	if slot.item >= 0 && slot.item < len(t.PrefixItems) {
		add(t.PrefixItems[slot.item])
	} else {
		add(t.Items2020)
	}
	add(t.Contains)
	add(t.UnevaluatedItems)
	return out
}

// components numbers the strongly connected components of the graph that
// next gives over nodes which lie on a cycle (Tarjan's algorithm); a node
// on none gets -1.
func components(nodes []*jsonschema.Schema, next func(*jsonschema.Schema) []*jsonschema.Schema) map[*jsonschema.Schema]int {
	index := map[*jsonschema.Schema]int{}
	low := map[*jsonschema.Schema]int{}
	onStack := map[*jsonschema.Schema]bool{}
	out := map[*jsonschema.Schema]int{}
	var stack []*jsonschema.Schema
	n := 0
	var connect func(s *jsonschema.Schema)
	connect = func(s *jsonschema.Schema) {
		index[s], low[s] = len(index), len(index)
		stack = append(stack, s)
		onStack[s] = true
		loops := false
		for _, c := range next(s) {
			if c == nil {
				continue
			}
			loops = loops || c == s
			if _, ok := index[c]; !ok {
				connect(c)
				low[s] = min(low[s], low[c])
			} else if onStack[c] {
				low[s] = min(low[s], index[c])
			}
		}
		if low[s] != index[s] {
			return
		}
		var members []*jsonschema.Schema
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[top] = false
			members = append(members, top)
			if top == s {
				break
			}
		}
		id := -1
		if len(members) > 1 || loops {
			id, n = n, n+1
		}
		for _, m := range members {
			out[m] = id
		}
	}
	for _, s := range nodes {
		if _, ok := index[s]; !ok {
			connect(s)
		}
	}
	return out
}
