package parse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMistralSpecs: Mistral v0.3's and v11's calls share [TOOL_CALLS] and are
// read by their specs alone: JSON after it is v0.3's, a name v11's, with
// or without a call id and [ARGS]; a name the output cuts off is a
// parse_error, and the marker with nothing call-like after it prose.
// Phi-4-mini's and FireFunction's functools[…] are read by their specs
// too, found at the list's '['.
func TestMistralSpecs(t *testing.T) {
	readAs(t, []reading{
		{`[TOOL_CALLS]f[CALL_ID]a1b2c3d4e[ARGS]{"a": 1}`, `{"type":"tool_call","id":"call_1","name":"f","arguments":{"a":1},"format":"mistral_v11"}
`},
		{`[TOOL_CALLS]get_weather{"city": "SF"}`, `{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"SF"},"format":"mistral_v11"}
`},
		{`[TOOL_CALLS] [{"name": "f", "arguments": {}}]`, `{"type":"tool_call","id":"call_1","name":"f","arguments":{},"format":"mistral"}
`},
		{`Checking.[TOOL_CALLS]get_weat`, `{"type":"text","content":"Checking."}
{"type":"parse_error","error":"tool call cut off in its header: write [TOOL_CALLS]name[ARGS]{…}","raw":"[TOOL_CALLS]get_weat","offset":9,"format":"mistral_v11"}
`},
		{"Done. [TOOL_CALLS]\n", `{"type":"text","content":"Done. [TOOL_CALLS]\n"}
`},
		{`The [TOOL_CALLS] token starts a call.`, `{"type":"text","content":"The [TOOL_CALLS] token starts a call."}
`},
		// functools[…]: a space before the word is FireFunction's.
		{`functools[{"name": "f", "arguments": {}}]`, `{"type":"tool_call","id":"call_1","name":"f","arguments":{},"format":"phi4_mini"}
`},
		{`Sure. functools[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]`, `{"type":"text","content":"Sure."}
{"type":"tool_call","id":"call_1","name":"f","arguments":{"a":1},"format":"firefunction_v2"}
{"type":"tool_call","id":"call_2","name":"g","arguments":{},"format":"firefunction_v2"}
`},
		// The word before a '[' that opens no call object is prose.
		{`Use functools[0] here.`, `{"type":"text","content":"Use functools[0] here."}
`},
		// Another family's call after the marker is that family's.
		{`[TOOL_CALLS]<tool_call>{"name": "f", "arguments": {}}</tool_call>`, `{"type":"text","content":"[TOOL_CALLS]"}
{"type":"tool_call","id":"call_1","name":"f","arguments":{},"format":"hermes"}
`},
	})
}

// reading is an input and the events it must give.
type reading struct{ in, want string }

// readAs checks each reading whole and in pieces of one and five bytes.
func readAs(t *testing.T, readings []reading) {
	t.Helper()
	for _, c := range readings {
		for _, pieces := range [][]int{nil, {1}, {5}} {
			if got := parseAll(t, []byte(c.in), Options{}, pieces); got != c.want {
				t.Errorf("%q in pieces %v:\n%s", c.in, pieces, cmp.Diff(c.want, got))
			}
		}
	}
}
