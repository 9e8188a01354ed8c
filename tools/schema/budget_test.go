package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// treeSchema is the attack of the second red team: a recursive oneOf of
// `shapes` array shapes and a string, under $defs. Every array shape
// descends into the same items, so the validator checks a node at depth d
// shapes^d times.
func treeSchema(shapes int) string {
	var alts []string
	for i := range shapes {
		alts = append(alts, fmt.Sprintf(`{"type":"array","minItems":%d,"items":{"$ref":"#/$defs/n"}}`, i))
	}
	alts = append(alts, `{"type":"string"}`)
	return `{"type":"object","properties":{"t":{"$ref":"#/$defs/n"}},"$defs":{"n":{"oneOf":[` + strings.Join(alts, ",") + `]}}}`
}

// alternatingSchema escapes the load-time check, which follows one kind
// of child at a time: arrays and objects alternate, and only the arrays'
// `shapes` alternatives multiply.
func alternatingSchema(shapes int) string {
	var alts []string
	for i := range shapes {
		alts = append(alts, fmt.Sprintf(`{"type":"array","minItems":%d,"items":{"$ref":"#/$defs/o"}}`, i))
	}
	alts = append(alts, `{"type":"string"}`)
	return `{"type":"object","properties":{"t":{"$ref":"#/$defs/n"}},"$defs":{` +
		`"n":{"oneOf":[` + strings.Join(alts, ",") + `]},` +
		`"o":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}}}}}`
}

// tree is a complete tree of the given depth, each node with `fan`
// children, leaves the string "x". With wrap, each child is {"c": child},
// for alternatingSchema.
func tree(depth, fan int, wrap bool) string {
	if depth == 0 {
		return `"x"`
	}
	kids := make([]string, fan)
	for i := range kids {
		kids[i] = tree(depth-1, fan, wrap)
		if wrap {
			kids[i] = `{"c":` + kids[i] + `}`
		}
	}
	return "[" + strings.Join(kids, ",") + "]"
}

// A sidecar whose alternatives each descend into the same items and recur
// is withheld at load, as a schema that does not compile, saying where
// and by how much the checks multiply: the second red team's recursive
// oneOf of two (and four) array shapes.
func TestHostileRecursionThroughAlternatives(t *testing.T) {
	for _, shapes := range []int{2, 4} {
		tool := &testTool{Name: "tree", InputSchema: []byte(treeSchema(shapes))}
		err := tool.CheckSchema()
		want := fmt.Sprintf(`the alternatives at "#/$defs/n" each descend into the same member or item and recur there (%d times a level)`, shapes)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d shapes: CheckSchema = %v, want %q", shapes, err, want)
		}
	}
	// Recursion that descends once a level loads: a JSON value's
	// schema, a binary tree as a tuple, alternatives told apart by type.
	for _, schema := range []string{
		`{"$defs":{"v":{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/v"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/v"}}]}},"type":"object","properties":{"x":{"$ref":"#/$defs/v"}}}`,
		`{"$defs":{"b":{"oneOf":[{"type":"integer"},{"type":"array","prefixItems":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}],"items":false}]}},"type":"object","properties":{"x":{"$ref":"#/$defs/b"}}}`,
		`{"$defs":{"e":{"type":"object","properties":{"and":{"type":"array","items":{"$ref":"#/$defs/e"}},"or":{"type":"array","items":{"$ref":"#/$defs/e"}},"field":{"type":"string"}}}},"type":"object","properties":{"where":{"$ref":"#/$defs/e"}}}`,
	} {
		tool := &testTool{Name: "ok", InputSchema: []byte(schema)}
		if err := tool.CheckSchema(); err != nil {
			t.Errorf("%s: %v", schema, err)
		}
	}
}

// A call the model chooses cannot choose the cost of its check: where the
// checks multiply through nesting the load-time check cannot see, a 5 KB
// binary tree, or a 1.3 KB one against four shapes, is answered with one
// "cost" error naming where the nesting multiplies, instead of 40 s and
// 1.2 GB.
func TestValidationWithinBudget(t *testing.T) {
	for _, tc := range []struct {
		shapes, depth, fan int
	}{
		{2, 10, 2},
		{4, 6, 2},
		{4, 10, 1}, // a chain: deep but thin
		{2, 30, 1},
	} {
		t.Run(fmt.Sprintf("shapes=%d,depth=%d,fan=%d", tc.shapes, tc.depth, tc.fan), func(t *testing.T) {
			tool := &testTool{Name: "tree", InputSchema: []byte(alternatingSchema(tc.shapes))}
			args := `{"t":` + tree(tc.depth, tc.fan, true) + `}`
			c, err := tool.CheckArguments([]byte(args), true)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Errors) != 1 || c.Errors[0].Keyword != "cost" {
				t.Fatalf("%d-byte call: errors %+v, want one cost error", len(args), c.Errors)
			}
			e := c.Errors[0]
			if !strings.HasPrefix(e.Pointer, "/t") || !strings.Contains(e.Message, "steps") {
				t.Errorf("cost error %+v: want a pointer into /t and a message saying why", e)
			}
		})
	}
}

// The budget refuses only what multiplies: the same schema checks a
// shallow tree exactly, valid and invalid, and a wide flat array of
// thousands of items is well within it.
func TestValidationBudgetKeepsOrdinaryCalls(t *testing.T) {
	tool := &testTool{Name: "tree", InputSchema: []byte(alternatingSchema(2))}
	c, err := tool.CheckArguments([]byte(`{"t":`+tree(3, 2, true)+`}`), false)
	if err != nil {
		t.Fatal(err)
	}
	// Both array shapes accept every array: oneOf fails, and says so.
	if c.Validated || len(c.Errors) == 0 || c.Errors[0].Keyword == "cost" {
		t.Fatalf("depth 3: %+v, want the oneOf failure explained", c)
	}
	c, err = tool.CheckArguments([]byte(`{"t":"leaf"}`), false)
	if err != nil || !c.Validated {
		t.Fatalf("a string leaf: %+v, %v", c, err)
	}

	flat := &testTool{Name: "flat", InputSchema: []byte(`{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}}}}}}`)}
	items := make([]string, 20_000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"a":%d,"b":"v"}`, i)
	}
	c, err = flat.CheckArguments([]byte(`{"xs":[`+strings.Join(items, ",")+`]}`), false)
	if err != nil || !c.Validated {
		t.Fatalf("20,000 flat items: %+v, %v", c.Errors, err)
	}
}

// The budget is the whole check's: a refused check takes nothing from it,
// and a *CostError says what it is to errors.Is.
func TestCostErrorIs(t *testing.T) {
	b := &validationBudget{left: 10}
	s := mustCompile(t, alternatingSchema(2))
	var v any = map[string]any{"t": []any{map[string]any{"c": "x"}, map[string]any{"c": "y"}}}
	err := b.check(s, v)
	if !errors.Is(err, ErrTooCostly) {
		t.Fatalf("check = %v, want ErrTooCostly", err)
	}
	if b.left != 10 {
		t.Errorf("a refused check took %d steps from the budget", 10-b.left)
	}
}

// BenchmarkValidationNearBudget is about the costliest check the budget
// lets through on the attack schema: a chain of arrays, four shapes each,
// whose leaf no branch accepts, so that every branch is followed to the
// end and every failure explained.
func BenchmarkValidationNearBudget(b *testing.B) {
	tool := &testTool{Name: "tree", InputSchema: []byte(alternatingSchema(4))}
	args := []byte(`{"t":` + strings.Replace(tree(5, 1, true), `"x"`, `1`, 1) + `}`)
	s := mustCompileB(b, alternatingSchema(4))
	c := costCounter{limit: baseValidationSteps, memo: map[costKey]work{}}
	var v any = map[string]any{"t": nestedChain(5)}
	steps := c.cost(s, v, "").total(c.limit)
	for b.Loop() {
		c, err := tool.CheckArguments(args, false)
		if err != nil || c.Validated || c.Errors[0].Keyword == "cost" {
			b.Fatalf("%+v, %v", c, err)
		}
	}
	b.ReportMetric(float64(steps), "steps")
}

func nestedChain(depth int) any {
	if depth == 0 {
		return json.Number("1")
	}
	return []any{map[string]any{"c": nestedChain(depth - 1)}}
}

func mustCompileB(b *testing.B, schema string) *jsonschema.Schema {
	s, _, err := compileSchema("t", []byte(schema))
	if err != nil {
		b.Fatal(err)
	}
	return s
}
