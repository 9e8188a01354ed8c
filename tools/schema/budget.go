package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/toolcall/toolcall/internal/jsonptr"
)

// The validation budget bounds the work of checking one call: the first
// validation, the coercion rounds after it and the checks its explanation
// makes, together. A step is one subschema applied to one value (and one
// for each member or item the validator lists there), plus one for every
// schema it is applied under, since the validator's error for it spells
// out that whole path. The validator does not remember what it has
// checked, so alternatives (anyOf, oneOf) that each descend into the same
// items check them once per branch, at every level: against a small
// recursive schema a 5 KB binary tree takes 4^10 checks, 40 s and 1.2 GB.
//
// Ordinary calls take tens to a few thousand steps, about a microsecond
// each. The budget grows with the arguments' size, so that a long flat
// list is checked whatever its length, while the work the arguments'
// nesting multiplies is bounded: about half a second for a small call.
const (
	baseValidationSteps    = 500_000
	validationStepsPerByte = 4
)

// ErrTooCostly is what a check that would exceed the validation budget
// matches with errors.Is.
var ErrTooCostly = errors.New("checking the arguments would take too long")

// CostError says that checking a value against a schema was given up
// before it started, and where the cost concentrates.
type CostError struct {
	// Steps is at least how many steps the check would take (it is
	// counted up to a little past the budget, not further).
	Steps int
	// Budget is what was left of the call's validation budget.
	Budget int
	// Pointer is the JSON pointer of the deepest value whose own check
	// would exceed the budget: the nesting below it is what multiplies.
	Pointer string
}

func (e *CostError) Error() string {
	return fmt.Sprintf("checking the value at %s against the schema would take more than %d steps", jsonptr.Label(e.Pointer), e.Budget)
}

func (e *CostError) Is(target error) bool { return target == ErrTooCostly }

// validationBudget is the steps left for checking one call. Every
// validation goes through check, which counts its cost before running
// the validator and refuses it when the cost is over what is left.
type validationBudget struct {
	left int
}

// newValidationBudget is the budget for checking arguments (or a result)
// of size bytes of JSON.
func newValidationBudget(size int) *validationBudget {
	return &validationBudget{left: baseValidationSteps + validationStepsPerByte*size}
}

// check validates v against s when that fits the budget, and returns a
// *CostError, without validating, when it does not.
func (b *validationBudget) check(s *jsonschema.Schema, v any) error {
	c := costCounter{limit: b.left, memo: map[costKey]work{}}
	steps := c.cost(s, v, "").total(c.limit)
	if c.over {
		return &CostError{Steps: steps, Budget: b.left, Pointer: c.pointer}
	}
	b.left -= steps
	return validateSafely(s, v)
}

// costKey is one subschema applied to one value. Containers are keyed by
// their identity (a decoded value's map or slice is not copied while the
// call is checked); scalars, whose cost depends only on their kind, by
// that kind.
type costKey struct {
	s    *jsonschema.Schema
	node any // a map's pointer, a slice's first item, or a scalar kind
}

type scalarKind int

const (
	kindNull scalarKind = iota
	kindBool
	kindInteger
	kindNumber
)

// stringKey is a string's identity: equal strings decoded apart have two.
type stringKey struct {
	data *byte
	n    int
}

// costCounter counts the steps the validator would take, as it takes
// them (nothing remembered), in time proportional to the distinct pairs
// of subschema and value: each pair's count is found once. Counting stops
// once it passes limit.
type costCounter struct {
	limit int
	memo  map[costKey]work
	over  bool
	// pointer is the deepest value whose pair alone went over limit.
	pointer string
	depth   int // of pointer, in tokens; -1 until set
	set     bool
}

// work is what the validator does for one subschema applied to one
// value: flat counts the subschemas it applies (and the members it lists),
// deep adds, for each, how far below the first it is applied.
type work struct{ flat, deep int }

var inProgress = work{-1, -1}

// total is flat plus deep, saturating at just past limit.
func (w work) total(limit int) int { return min(w.flat+w.deep, limit+1) }

// plus adds n steps at this level.
func (c *costCounter) plus(w work, n int) work {
	w.flat = min(w.flat+n, c.limit+1)
	return w
}

// under adds the work of a subschema applied one level below.
func (c *costCounter) under(w, sub work) work {
	w.flat = min(w.flat+sub.flat, c.limit+1)
	w.deep = min(w.deep+sub.deep+sub.flat, c.limit+1)
	return w
}

func nodeKey(v any) (any, int) {
	switch v := v.(type) {
	case map[string]any:
		return reflect.ValueOf(v).UnsafePointer(), len(v)
	case []any:
		if len(v) == 0 {
			return "[]", 0
		}
		return &v[0], len(v)
	case nil:
		return kindNull, 0
	case bool:
		return kindBool, 0
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return kindNumber, 0
		}
		return kindInteger, 0
	case string:
		// Keyed by the string itself (its bytes' address and length, not
		// its text), as patterns and lengths take time in its length.
		return stringKey{unsafe.StringData(v), len(v)}, 0
	}
	return fmt.Sprintf("%T", v), 0
}

// cost returns how many steps applying s to v (found at ptr) takes.
func (c *costCounter) cost(s *jsonschema.Schema, v any, ptr string) work {
	if s == nil {
		return work{}
	}
	node, members := nodeKey(v)
	key := costKey{s, node}
	switch n, seen := c.memo[key]; {
	case seen && n == inProgress:
		return work{flat: 1} // a $ref loop at one value: the validator stops there
	case seen:
		return n
	}
	if len(c.memo) > c.limit {
		// More distinct pairs than the budget: the validator, which
		// visits each at least once, would take more.
		c.over = true
		c.giveUpAt(ptr)
		return work{flat: c.limit + 1}
	}
	c.memo[key] = inProgress
	wasOver := c.over
	n := c.steps(s, v, ptr, members)
	c.memo[key] = n
	if n.total(c.limit) > c.limit {
		c.over = true
		if !wasOver {
			c.giveUpAt(ptr)
		}
	}
	return n
}

// giveUpAt keeps the deepest pointer at which the count went over.
func (c *costCounter) giveUpAt(ptr string) {
	d := strings.Count(ptr, "/")
	if !c.set || d > c.depth {
		c.pointer, c.depth, c.set = ptr, d, true
	}
}

// steps follows the validator's own order and short cuts: a schema that
// is true or false, or whose type does not match, stops at once; the
// alternatives of anyOf and oneOf, then and else, are all counted.
func (c *costCounter) steps(s *jsonschema.Schema, v any, ptr string, members int) work {
	n := work{flat: 1 + members} // the validator lists a container's members at each visit
	if s.Always != nil || !typeMatches(s.Types, v) {
		return n
	}
	n = c.plus(n, len(s.Enum)+len(s.Constant))
	for _, sub := range inPlaceSubschemas(s) {
		n = c.under(n, c.cost(sub, v, ptr))
	}
	switch v := v.(type) {
	case map[string]any:
		for name, value := range v {
			at := ptr + "/" + jsonptr.Token(name)
			if sub, ok := s.Properties[name]; ok {
				n = c.under(n, c.cost(sub, value, at))
			}
			if s.PropertyNames != nil {
				n = c.under(n, c.cost(s.PropertyNames, name, at))
			}
			for re, sub := range s.PatternProperties {
				n = c.plus(n, 1) // the match itself
				if re.MatchString(name) {
					n = c.under(n, c.cost(sub, value, at))
				}
			}
			if sub, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
				n = c.under(n, c.cost(sub, value, at))
			}
			n = c.under(n, c.cost(s.UnevaluatedProperties, value, at))
		}
	case []any:
		if s.UniqueItems {
			n = c.plus(n, len(v)*len(v)/2)
		}
		for i, item := range v {
			at := ptr + "/" + strconv.Itoa(i)
			switch items := s.Items.(type) {
			case *jsonschema.Schema:
				n = c.under(n, c.cost(items, item, at))
			case []*jsonschema.Schema:
				if i < len(items) {
					n = c.under(n, c.cost(items[i], item, at))
				} else if sub, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
					n = c.under(n, c.cost(sub, item, at))
				}
			}
			if i < len(s.PrefixItems) {
				n = c.under(n, c.cost(s.PrefixItems[i], item, at))
			} else {
				n = c.under(n, c.cost(s.Items2020, item, at))
			}
			n = c.under(n, c.cost(s.Contains, item, at))
			n = c.under(n, c.cost(s.UnevaluatedItems, item, at))
		}
	case string:
		if s.Pattern != nil || s.Format != "" || s.MinLength >= 0 || s.MaxLength >= 0 {
			n = c.plus(n, len(v)/64) // read through, at a step per 64 bytes
		}
		if s.ContentSchema != nil {
			var content any
			d := json.NewDecoder(strings.NewReader(v))
			d.UseNumber()
			if d.Decode(&content) == nil {
				n = c.plus(n, len(v))
				n = c.under(n, c.cost(s.ContentSchema, content, ptr))
			}
		}
	}
	return n
}

// typeMatches is the validator's type test: "integer" takes a number with
// no fraction.
func typeMatches(types []string, v any) bool {
	if len(types) == 0 {
		return true
	}
	want := ""
	switch v := v.(type) {
	case nil:
		want = "null"
	case bool:
		want = "boolean"
	case string:
		want = "string"
	case []any:
		want = "array"
	case map[string]any:
		want = "object"
	case json.Number:
		want = "number"
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			want = "integer"
		}
	}
	for _, t := range types {
		if t == want || (t == "number" && want == "integer") || (t == "integer" && want == "number") {
			// A number written with a fraction may still be an
			// integer (1.0); counting it as matching only counts more.
			return true
		}
	}
	return false
}
