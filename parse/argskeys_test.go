package parse

import (
	"strings"
	"testing"
)

// A call between markers whose arguments are under "args", "input" or
// "params" keeps them: they were dropped, the call coming out with {}
// and no word of it. "arguments" wins over them, and bare JSON in prose
// with such a key stays text.
func TestOtherArgumentKeys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`<|function_call|>{"tool_name": "get_weather", "args": {"city": "Paris"}}`, `"arguments":{"city":"Paris"},"format":"gigachat3"`},
		{`<tool_call>{"name": "get_weather", "input": {"city": "Paris"}}</tool_call>`, `"arguments":{"city":"Paris"},"format":"hermes"`},
		{`<tool_call>{"name": "get_weather", "params": {"city": "Paris"}}</tool_call>`, `"arguments":{"city":"Paris"},"format":"hermes"`},
		{`<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}, "args": {"city": "Paris"}}</tool_call>`, `"arguments":{"city":"Rome"}`},
		{`{"name": "get_weather", "args": {"city": "Paris"}}`, `{"type":"text"`},
	} {
		for _, sizes := range [][]int{nil, {1}, {5, 3}} {
			got := parseAll(t, []byte(tc.in), Options{}, sizes)
			if !strings.Contains(got, tc.want) {
				t.Errorf("%s in pieces %v:\n%s\nwant %s", tc.in, sizes, got, tc.want)
			}
		}
	}
}
