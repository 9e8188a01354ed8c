package parse

import (
	"strings"
	"testing"
)

// TestDirectlyAnswer: Command R's directly_answer pseudo-call is no call
// (a text event in the format it came in, no id taken) unless a tool of
// that name is known; outside the Command R families the name is a
// name like any other.
func TestDirectlyAnswer(t *testing.T) {
	action := func(names ...string) string {
		var b strings.Builder
		b.WriteString("Action: ```json\n[")
		for i, n := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`{"tool_name": "` + n + `", "parameters": {}}`)
		}
		b.WriteString("]\n```")
		return b.String()
	}
	known := func(names ...string) func(string) bool {
		return func(s string) bool {
			for _, n := range names {
				if n == s {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		name  string
		in    string
		known func(string) bool
		want  string
	}{
		{"alone", action("directly_answer"), nil,
			`{"type":"text","content":"{\"tool_name\":\"directly_answer\",\"parameters\":{}}","format":"command_r_action"}`},
		{"hyphen", action("directly-answer"), known("get_time"),
			`{"type":"text","content":"{\"tool_name\":\"directly-answer\",\"parameters\":{}}","format":"command_r_action"}`},
		{"beside a call", action("directly_answer", "get_time"), known("get_time"),
			`{"type":"text","content":"{\"tool_name\":\"directly_answer\",\"parameters\":{}}","format":"command_r_action"}` + "\n" +
				`{"type":"tool_call","id":"call_1","name":"get_time","arguments":{},"format":"command_r_action"}`},
		{"a real tool of that name", action("directly_answer"), known("directly_answer"),
			`{"type":"tool_call","id":"call_1","name":"directly_answer","arguments":{},"format":"command_r_action"}`},
		{"a real tool of the other spelling", action("directly-answer"), known("directly_answer"),
			`{"type":"tool_call","id":"call_1","name":"directly-answer","arguments":{},"format":"command_r_action"}`},
		{"command r7b", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "directly_answer", "parameters": {}}]<|END_ACTION|>`, nil,
			`{"type":"text","content":"{\"tool_call_id\":\"0\",\"tool_name\":\"directly_answer\",\"parameters\":{}}","format":"command_r7b"}`},
		{"hermes", `<tool_call>{"name": "directly_answer", "arguments": {}}</tool_call>`, nil,
			`{"type":"tool_call","id":"call_1","name":"directly_answer","arguments":{},"format":"hermes"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := strings.TrimSpace(parseAll(t, []byte(c.in), Options{KnownTool: c.known}, nil))
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
