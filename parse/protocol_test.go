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
		// Quotes the repair can place, and a bare word, are repaired.
		{"unquoted value is repaired", `{"type":"tool_call",name:get_weather,"arguments":{}}`,
			`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{},"format":"jsonl","repaired":true,"repairs":["unquoted_key","bare_word"]}`, 2},
		{"unescaped quote is repaired", `{"type": "tool_call", "name": "a", "arguments": {"s": "x"y"}}`,
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{"s":"x\"y"},"format":"jsonl","repaired":true,"repairs":["unescaped_quote"]}`, 2},
		{"an apostrophe in single quotes is repaired", `{'type':'tool_call','name':'a','arguments':{'s':'it's'}}`,
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{"s":"it's"},"format":"jsonl","repaired":true,"repairs":["single_quotes","unescaped_quote"]}`, 2},
		// What has two readings, or none, is not.
		{"two bare words", `{"type":"tool_call","name":"a","arguments":{"s": hello world}}`,
			`{"type":"parse_error","error":"invalid JSON in tool call at byte 59: expected a value, found unquoted text 'hello'; strings must be in double quotes","raw":"{\"type\":\"tool_call\",\"name\":\"a\",\"arguments\":{\"s\": hello world}}","offset":10,"format":"jsonl"}`, 1},
		{"elided", `{"type":"tool_call","name":"a","arguments":{"s": "x", ...}}`,
			`{"type":"parse_error","error":"invalid JSON in tool call at byte 64: '...' stands for content that was left out (elided); JSON cannot hold it and it is not guessed: send the whole value","raw":"{\"type\":\"tool_call\",\"name\":\"a\",\"arguments\":{\"s\": \"x\", ...}}","offset":10,"format":"jsonl"}`, 1},
		{"a quote no close fits", `{"type":"tool_call","name":"a","arguments":{"s":"x"y}}`,
			`{"type":"parse_error","error":"invalid JSON in tool call at byte 58: at the end of the line, the JSON ends inside a string, before its closing quote; escape a '\"' inside a string as \\\" and send the whole call again on one line","raw":"{\"type\":\"tool_call\",\"name\":\"a\",\"arguments\":{\"s\":\"x\"y}}","offset":10,"format":"jsonl"}`, 1},
		{"string left open", `{"type":"tool_call","name":"a","arguments":{"s":"x`,
			`{"type":"parse_error","error":"invalid JSON in tool call at byte 58: at the end of the line, the JSON ends inside a string, before its closing quote; escape a '\"' inside a string as \\\" and send the whole call again on one line","raw":"{\"type\":\"tool_call\",\"name\":\"a\",\"arguments\":{\"s\":\"x","offset":10,"format":"jsonl"}`, 1},
		{"closing brace missing is repaired", `{"type":"tool_call","name":"a","arguments":{"s":"x"}`,
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{"s":"x"},"format":"jsonl","repaired":true,"repairs":["missing_closer"]}`, 2},
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
		`{"type":"tool_call","name":"a","arguments":{"s": hello world}}`,
		"I will check.\n" + `{"type":"tool_call","name":"a","arguments":{"s":"x"y}}`,
		`{"type":"tool_call","name":"a","arguments":{"s":"x", ...}}` + "\n",
	} {
		got := parseAll(t, []byte(in), Options{}, nil)
		if !strings.Contains(got, `"type":"parse_error"`) || strings.Contains(got, `"type":"text","content":"{`) || strings.Contains(got, `"final_answer"`) {
			t.Errorf("%q:\n%s", in, got)
		}
	}
}
