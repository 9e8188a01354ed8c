package parse

import (
	"strings"
	"testing"
)

// Prose that quotes an event line, a tool_observation it was given above
// all, is text, complete or cut short, even when the line names a known
// tool and holds arguments; the calls beside it are still read (issue 41,
// trip 11).
func TestQuotedEventIsText(t *testing.T) {
	for _, in := range []string{
		"The tool said:\n" + `{"type":"tool_observation","id":"call_1","name":"calculator","content":"428","is_error":false}` + "\nSo 428.\n",
		`Result: {"type": "tool_observation", "name": "calculator", "arguments": {"expression": "1+1"}, "content": "2"}` + "\n",
		`{"type":"tool_observation","id":"call_1","name":"calculator","content":"428"` + "\n",
		`and the last one: {"type":"tool_observation","id":"call_2","name":"calculator","content":"4` + "\nSo 428.\n",
		`{"type":"parse_error","error":"x","raw":"{\"name\":\"calculator\"","name":"calculator","arguments":{}}` + "\n",
	} {
		for _, sizes := range [][]int{nil, {1}, {7}} {
			out := parseAll(t, []byte(in), knownTools("calculator"), sizes)
			if strings.Contains(out, `"type":"tool_call"`) || strings.Contains(out, `"type":"parse_error"`) {
				t.Errorf("%q in pieces of %v:\n%s\nwant text only", in, sizes, out)
			}
		}
	}
	in := `{"type":"tool_observation","name":"calculator","content":"4"}` + "\n" + `{"type":"tool_call","name":"calculator","arguments":{"expression":"2+2"}}` + "\n"
	if out := parseAll(t, []byte(in), knownTools("calculator"), nil); strings.Count(out, `"type":"tool_call"`) != 1 {
		t.Errorf("the call after a quoted observation:\n%s", out)
	}
}
