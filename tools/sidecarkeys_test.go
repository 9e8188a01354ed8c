package tools

import (
	"slices"
	"testing"
)

// A key that means nothing where it stands is noted; what a dialect's
// own definition holds is not.
func TestStrayKeys(t *testing.T) {
	for _, tc := range []struct {
		name, sidecar string
		want          []string
	}{
		{"ours", `{"description": "d", "input_schema": {"type": "object"}, "safe": true, "tags": ["x"]}`, nil},
		{"anthropic", `{"name": "a", "description": "d", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}`, nil},
		{"mcp", `{"name": "a", "title": "A", "description": "d", "inputSchema": {"type": "object"}, "annotations": {}, "_meta": {}, "icons": []}`, nil},
		{"openai", `{"type": "function", "function": {"name": "a", "description": "d", "parameters": {"type": "object"}, "strict": true}, "safe": false}`, nil},
		{"typo", `{"descripton": "d", "input_schema": {"type": "object"}}`,
			[]string{`"descripton" is not a sidecar key, so it is ignored; did you mean "description"?`}},
		{"unknown", `{"description": "d", "input_schema": {"type": "object"}, "zzz": 1}`,
			[]string{`"zzz" is not a sidecar key, so it is ignored; delete it, or see docs/tools.md for the keys of a sidecar`}},
		{"overridden", `{"description": "outer", "function": {"name": "a", "description": "inner", "parameters": {"type": "object"}}}`,
			[]string{`"description" is beside "function", whose own "description" is the one read, so it is ignored; delete it, or move it into "function"`}},
		{"beside schema", `{"description": "d", "input_schema": {"type": "object"}, "properties": {"a": {}}}`,
			[]string{`"properties" is beside the input schema, not in it, so it is ignored; move it into "input_schema"`}},
		{"inside function", `{"function": {"name": "a", "description": "d", "properties": {}, "parameters": {"type": "object"}}}`,
			[]string{`"function.properties" is not read inside "function": the schema of the arguments is "function.parameters", so it is ignored; move it into "parameters"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, _, err := ParseSidecar("a.json", []byte(tc.sidecar))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tool.StrayKeys, tc.want) {
				t.Errorf("stray keys\n%q\nwant\n%q", tool.StrayKeys, tc.want)
			}
		})
	}
}
