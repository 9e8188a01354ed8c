package parse

import "testing"

// TestToolCallsSpecs: <tool_calls> is read by MiniMax M1's and
// tool_calls_array's specs alone, in id order: call objects one a line
// are M1's, a list (or one object on the marker's line) the array
// family's; Hunyuan's <tool_call> calls still read in it; the marker
// with nothing call-like after it is prose.
func TestToolCallsSpecs(t *testing.T) {
	readAs(t, []reading{
		{"<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n{\"name\": \"g\", \"arguments\": {\"a\": 1}}\n</tool_calls>\nDone.", `{"type":"tool_call","id":"call_1","name":"f","arguments":{},"format":"minimax_m1"}
{"type":"tool_call","id":"call_2","name":"g","arguments":{"a":1},"format":"minimax_m1"}
{"type":"text","content":"\nDone."}
`},
		{`<tool_calls>[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {}}]</tool_calls>`, `{"type":"tool_call","id":"call_1","name":"f","arguments":{},"format":"tool_calls_array"}
{"type":"tool_call","id":"call_2","name":"g","arguments":{},"format":"tool_calls_array"}
`},
		{"<tool_calls>\n<tool_call>f<tool_sep>\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>\n</tool_calls>", `{"type":"tool_call","id":"call_1","name":"f","arguments":{"a":1},"format":"hunyuan_hy"}
`},
		{"<tool_calls>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n</tool_calls>", `{"type":"tool_call","id":"call_1","name":"f","arguments":{},"format":"hermes"}
`},
		{"The <tool_calls> tag opens calls.", `{"type":"text","content":"The <tool_calls> tag opens calls."}
`},
		{"Done. <tool_calls>", `{"type":"text","content":"Done. <tool_calls>"}
`},
	})
}
