package parse

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBrokenProtocolLine: a line that opens as a call of the JSONL protocol
// and is not valid JSON is a parse_error, or a repaired call where the
// repair rules allow; never prose, and never more than its own line, so
// the call on the next line is still read. The events do not depend on
// where the input is split.
func TestBrokenProtocolLine(t *testing.T) {
	const next = `{"type":"tool_call","name":"b","arguments":{}}`
	const nextEvent = `{"type":"tool_call","id":"call_%d","name":"b","arguments":{},"format":"jsonl"}`
	tests := []struct {
		name, line string
		want       string // the event for the line
		nextID     int
	}{
		{"unquoted value", `{"type":"tool_call",name:get_weather,"arguments":{}}`,
			`{"type":"parse_error","error":"invalid JSON in tool call at byte 35: expected a value, found unquoted text 'get_weather'; strings must be in double quotes","raw":"{\"type\":\"tool_call\",name:get_weather,\"arguments\":{}}","offset":10,"format":"jsonl"}`, 1},
		{"unescaped quote", `{"type": "tool_call", "name": "a", "arguments": {"s": "x"y"}}`,
			`{"type":"parse_error","error":"invalid JSON in tool call at byte 67: expected ',' or '}' after object member, found 'y'; if the string before it was meant to contain a '\"', escape it as \\\"","raw":"{\"type\": \"tool_call\", \"name\": \"a\", \"arguments\": {\"s\": \"x\"y\"}}","offset":10,"format":"jsonl"}`, 1},
		{"single quotes, broken", `{'type':'tool_call','name':'a','arguments':{'s':'it's'}}`,
			`{"type":"parse_error","error":"invalid JSON in tool call at byte 62: expected ',' or '}' after object member, found 's'; if the string before it was meant to contain a '\"', escape it as \\\"","raw":"{'type':'tool_call','name':'a','arguments':{'s':'it's'}}","offset":10,"format":"jsonl"}`, 1},
		{"string left open", `{"type":"tool_call","name":"a","arguments":{"s":"x`,
			`{"type":"parse_error","error":"tool call cut off at byte 58: the JSON ends inside a string, before its closing quote: the output was cut off — send the whole call again","raw":"{\"type\":\"tool_call\",\"name\":\"a\",\"arguments\":{\"s\":\"x","offset":10,"format":"jsonl"}`, 1},
		{"closing brace missing is repaired", `{"type":"tool_call","name":"a","arguments":{"s":"x"}`,
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{"s":"x"},"format":"jsonl","repaired":true}`, 2},
		{"written over two lines", "{\"type\":\"tool_call\",\n\"name\":\"a\",\"arguments\":{\"p\":1}}",
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{"p":1},"format":"jsonl"}`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "Checking.\n" + tt.line + "\n" + next + "\n"
			want := `{"type":"text","content":"Checking.\n"}` + "\n" + tt.want + "\n" +
				strings.Replace(nextEvent, "%d", string(rune('0'+tt.nextID)), 1) + "\n"
			got := parseAll(t, []byte(in), Options{}, nil)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			for cut := 1; cut < len(in); cut++ {
				if got := parseAll(t, []byte(in), Options{}, []int{cut, len(in)}); got != want {
					t.Fatalf("split at %d:\n%s", cut, cmp.Diff(want, got))
				}
			}
			// A byte at a time, as a server streams it.
			if got := parseAll(t, []byte(in), Options{}, []int{1}); got != want {
				t.Fatalf("a byte at a time:\n%s", cmp.Diff(want, got))
			}
		})
	}
}

// TestBrokenProtocolLineAtEnd: the last line of the output, broken, is a
// parse_error too, not the final answer.
func TestBrokenProtocolLineAtEnd(t *testing.T) {
	for _, in := range []string{
		`{"type":"tool_call","name":"a","arguments":{"s":"x"y"}}`,
		"I will check.\n" + `{"type":"tool_call","name":"a","arguments":{"s":"x"y"}}`,
		`{"type":"tool_call","name":"a","arguments":{"s":"x"y"}}` + "\n",
	} {
		got := parseAll(t, []byte(in), Options{}, nil)
		if !strings.Contains(got, `"type":"parse_error"`) || strings.Contains(got, `"type":"text","content":"{`) || strings.Contains(got, `"final_answer"`) {
			t.Errorf("%q:\n%s", in, got)
		}
	}
}
