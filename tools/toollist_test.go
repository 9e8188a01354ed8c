package tools

import (
	"slices"
	"strings"
	"testing"
)

func TestParseToolList(t *testing.T) {
	cases := []struct {
		name, data, shape string
		tools             []string
	}{
		{"openai", `[{"type":"function","function":{"name":"get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},{"type":"function","function":{"name":"add","parameters":{"type":"object"}}}]`,
			ListArray, []string{"get_weather", "add"}},
		{"anthropic", `[{"name":"get_stock_price","description":"Price.","input_schema":{"type":"object","properties":{"ticker":{"type":"string"}},"required":["ticker"]}}]`,
			ListArray, []string{"get_stock_price"}},
		{"mcp result", `{"tools":[{"name":"echo","description":"Echo.","inputSchema":{"type":"object"}},{"name":"add","description":"Add.","inputSchema":{"type":"object"}}],"nextCursor":"x"}`,
			ListMCP, []string{"echo", "add"}},
		{"json-rpc response", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","description":"Echo.","inputSchema":{"type":"object"}}]}}`,
			ListJSONRPC, []string{"echo"}},
		{"bfcl entry", `{"id":"simple_1","question":[[{"role":"user","content":"?"}]],"function":[{"name":"math.factorial","description":"n!","parameters":{"type":"dict","properties":{"n":{"type":"integer"}},"required":["n"]}}]}`,
			ListBFCL, []string{"math.factorial"}},
	}
	for _, c := range cases {
		ts, shape, _, err := ParseToolList("defs.json", []byte(c.data))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var names []string
		for _, tool := range ts {
			names = append(names, tool.Name)
			if !tool.Definition || tool.Command != "" || tool.InputSchema == nil {
				t.Errorf("%s: %s: definition %v, command %q, schema %s", c.name, tool.Name, tool.Definition, tool.Command, tool.InputSchema)
			}
		}
		if shape != c.shape || !slices.Equal(names, c.tools) {
			t.Errorf("%s: %s %v; want %s %v", c.name, shape, names, c.shape, c.tools)
		}
	}
}

func TestParseToolListErrors(t *testing.T) {
	for data, want := range map[string]string{
		`{"description":"one tool","input_schema":{"type":"object"}}`:                  `defs.json: not a list of tools: give --tools a directory of sidecars, or a file holding`,
		`[{"description":"nameless","input_schema":{"type":"object"}}]`:                `defs.json: [0]: the definition has no "name"; in a list, every tool must name itself`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object"}},"b"]}`:                 `defs.json: tools[1]: a tool definition must be a JSON object, found the string "b"`,
		`{"tools":[{"name":"a","inputSchema":{"$ref":"https://example.com/s.json"}}]}`: `defs.json: tools[0]: inputSchema: $ref "https://example.com/s.json" at /$ref leaves the sidecar`,
		`{"tools":[]}`: `defs.json: an MCP tools/list result holds no tools`,
		"{\"function\":[{\"name\":\"a\"}]}\n{\"function\":[{\"name\":\"b\"}]}\n": `defs.json: the file holds 2 JSON values, one per line (JSONL, as BFCL's data files are); give --tools one entry per file`,
		`[{"name":"a",`: `defs.json: not valid JSON`,
	} {
		_, _, _, err := ParseToolList("defs.json", []byte(data))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %s…", data, err, want)
		}
	}
}

// A list pasted into a per-tool sidecar: the error says what the file is
// and how to use it.
func TestSidecarThatIsAList(t *testing.T) {
	for data, shape := range map[string]string{
		`[{"type":"function","function":{"name":"f","parameters":{}}}]`:                  "a tools array",
		`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`:                    "an MCP tools/list result",
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{}}]}}`: "a JSON-RPC tools/list response",
		`{"id":"simple_0","question":[],"function":[{"name":"f","parameters":{}}]}`:      "a BFCL entry",
	} {
		_, _, err := ParseSidecar("tools/t.json", []byte(data))
		want := "tools/t.json: this file is " + shape + ", not a sidecar, which describes one tool; put each tool in its own NAME.json beside its executable, or give this file itself to --tools (--tools tools/t.json)"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %s…", data, err, want)
		}
	}
}
