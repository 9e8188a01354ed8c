package schema

import (
	"strings"
	"testing"
)

// TestSchemaErrorWording pins what the model is told for the keywords
// whose explanation depends on where the validator reports them: a
// boolean false schema against a keyword whose value is false, and the
// counts of contains. The answers are worked out from the keyword's
// location and the schema's value, never from the validator's message.
func TestSchemaErrorWording(t *testing.T) {
	cases := []struct {
		name, schema, args string
		want               []string // keyword: message, one per error
	}{
		{"false root", `false`, `{}`,
			[]string{`false: arguments: no arguments are allowed`}},
		{"false property", `{"properties": {"cvv": false}}`, `{"cvv": "123"}`,
			[]string{`false: /cvv: property "cvv" is not allowed; remove it`}},
		{"false through a $ref", `{"$defs": {"no": false}, "properties": {"x": {"$ref": "#/$defs/no"}}}`, `{"x": 1}`,
			[]string{`false: /x: property "x" is not allowed; remove it`}},
		{"items false after prefixItems", `{"properties": {"p": {"prefixItems": [{"type": "string"}], "items": false}}}`, `{"p": ["a", 2]}`,
			[]string{`items: /p/1: item 1 is not allowed here; remove it`}},
		{"unevaluatedProperties false", `{"properties": {"a": {}}, "unevaluatedProperties": false}`, `{"a": 1, "b": 2}`,
			[]string{`unevaluatedProperties: /b: property "b" is not allowed; remove it`}},
		{"additionalProperties false", `{"properties": {"city": {}}, "additionalProperties": false}`, `{"city": "x", "cty": 1}`,
			[]string{`additionalProperties: /cty: property "cty" is not allowed; did you mean "city"?`}},
		{"additionalItems false", `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"p": {"items": [{"type": "number"}], "additionalItems": false}}}`, `{"p": [1, 2]}`,
			[]string{`additionalItems: /p: only 1 items are allowed, but found 2 items`}},
		{"const false", `{"properties": {"ok": {"const": false}}}`, `{"ok": true}`,
			[]string{`const: /ok: must be false, got boolean true`}},
		{"contains alone", `{"properties": {"v": {"contains": {"type": "string"}}}}`, `{"v": [1, 2]}`,
			[]string{`minContains: /v: at least 1 item must match {"type":"string"}, but 0 do`}},
		{"minContains", `{"properties": {"v": {"contains": {"type": "string"}, "minContains": 2}}}`, `{"v": ["a", 2, 3]}`,
			[]string{`minContains: /v: at least 2 items must match {"type":"string"}, but 1 do`}},
		{"maxContains", `{"properties": {"v": {"contains": {"type": "string"}, "maxContains": 1}}}`, `{"v": ["a", "b", 3, "c"]}`,
			[]string{`maxContains: /v: at most 1 item must match {"type":"string"}, but 3 do`}},
		{"maxContains through a $ref", `{"$defs": {"s": {"type": "string"}}, "properties": {"v": {"contains": {"$ref": "#/$defs/s"}, "maxContains": 0}}}`, `{"v": ["a", 1]}`,
			[]string{`maxContains: /v: at most 0 items must match {"$ref":"#/$defs/s"}, but 1 do`}},
		{"oneOf matched twice", `{"properties": {"n": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "number"}]}}}`, `{"n": 3}`,
			[]string{`oneOf: /n: integer 3 matches more than one alternative under "oneOf" (schemas at indexes 1 and 2); it must match exactly one`}},
		{"uniqueItems", `{"properties": {"u": {"uniqueItems": true}}}`, `{"u": [1, {"a": [true]}, 2, 1.0, {"a": [true]}]}`,
			[]string{`uniqueItems: /u: items must be unique, but the items at index 0 and 3 are equal`}},
		{"uniqueItems, strings and objects", `{"properties": {"u": {"uniqueItems": true}}}`, `{"u": ["x", {"a": 1, "b": null}, "y", {"b": null, "a": 1e0}]}`,
			[]string{`uniqueItems: /u: items must be unique, but the items at index 1 and 3 are equal`}},
		{"uniqueItems, a long array", `{"properties": {"u": {"uniqueItems": true}}}`, `{"u": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,"x",23,"y","x",5e0]}`,
			[]string{`uniqueItems: /u: items must be unique, but the items at index 22 and 25 are equal`}},
	}
	for _, c := range cases {
		tool := &testTool{Name: "t", InputSchema: []byte(c.schema)}
		got, err := tool.CheckArguments([]byte(c.args), false)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var have []string
		for _, e := range got.Errors {
			have = append(have, e.Keyword+": "+e.Message)
		}
		if strings.Join(have, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, have, c.want)
		}
	}
}
