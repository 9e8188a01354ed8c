package parse

import "testing"

// TestLlama3Specs: Llama 3's built-in tool calls and its JSON calls share
// <|python_tag|> and are read by their specs alone: NAME.call(…) is a
// built-in tool's, JSON (an object, objects separated by ';', or a list)
// llama3_json's; code or nothing after the tag is prose.
func TestLlama3Specs(t *testing.T) {
	readAs(t, []reading{
		{`<|python_tag|>brave_search.call(query="x")<|eom_id|>`, `{"type":"tool_call","id":"call_1","name":"brave_search","arguments":{"query":"x"},"format":"llama3_builtin"}
`},
		{`<|python_tag|>{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}`, `{"type":"tool_call","id":"call_1","name":"f","arguments":{"a":1},"format":"llama3_json"}
{"type":"tool_call","id":"call_2","name":"g","arguments":{},"format":"llama3_json"}
`},
		{`<|python_tag|>[{"name": "f", "parameters": {"a": 1}}]`, `{"type":"tool_call","id":"call_1","name":"f","arguments":{"a":1},"format":"llama3_json"}
`},
		{"<|python_tag|>import os\nprint(1)", `{"type":"text","content":"<|python_tag|>import os\nprint(1)"}
`},
		{"Done.<|python_tag|>", `{"type":"text","content":"Done.<|python_tag|>"}
`},
	})
}
