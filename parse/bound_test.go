package parse

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// boundFormats are the JSON-bodied formats whose calls end with an end
// marker: each writes a call to NAME with the arguments ARGS. The
// _unclosed ones leave the call's own marker out, and the end of the
// section or wrapper ends it.
var boundFormats = []struct{ name, call, end string }{
	{"function_tag", `<function=NAME>ARGS</function>`, "</function>"},
	{"function_tag_attr", `<function name="NAME">ARGS</function>`, "</function>"},
	{"function_in_tool_call", "<tool_call>\n<function=NAME>ARGS\n</function>\n</tool_call>", "</function>"},
	{"function_in_tool_call_unclosed", "<tool_call>\n<function=NAME>ARGS\n</tool_call>", "</tool_call>"},
	{"hermes", `<tool_call>{"name": "NAME", "arguments": ARGS}</tool_call>`, "</tool_call>"},
	{"hermes_lines", "<tool_call>\n{\"name\": \"NAME\", \"arguments\": ARGS}\n</tool_call>", "</tool_call>"},
	{"longcat", `<longcat_tool_call>{"name": "NAME", "arguments": ARGS}</longcat_tool_call>`, "</longcat_tool_call>"},
	{"json_fenced", "```json\n{\"name\": \"NAME\", \"arguments\": ARGS}\n```", "```"},
	{"lfm2", `<|tool_call_start|>[{"name": "NAME", "arguments": ARGS}]<|tool_call_end|>`, "<|tool_call_end|>"},
	{"command_r7b", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "NAME", "parameters": ARGS}]<|END_ACTION|>`, "<|END_ACTION|>"},
	{"granite_20b", `<function_call>{"name": "NAME", "arguments": ARGS}</function_call>`, "</function_call>"},
	{"nemotron", `<TOOLCALL>[{"name": "NAME", "arguments": ARGS}]</TOOLCALL>`, "</TOOLCALL>"},
	{"apertus", `<|tools_prefix|>[{"NAME": ARGS}]<|tools_suffix|>`, "<|tools_suffix|>"},
	{"internlm2", `<|action_start|><|plugin|>{"name": "NAME", "parameters": ARGS}<|action_end|>`, "<|action_end|>"},
	{"llama4", `<|python_start|>{"name": "NAME", "parameters": ARGS}<|python_end|>`, "<|python_end|>"},
	{"minimax_m2", `<minimax:tool_call><invoke name="NAME">ARGS</invoke></minimax:tool_call>`, "</invoke>"},
	{"minimax_m2_unclosed", `<minimax:tool_call><invoke name="NAME">ARGS</minimax:tool_call>`, "</minimax:tool_call>"},
	{"kimi_k2_unclosed", `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>ARGS<|tool_calls_section_end|>`, "<|tool_calls_section_end|>"},
	{"kimi_k2", `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>ARGS<|tool_call_end|><|tool_calls_section_end|>`, "<|tool_call_end|>"},
	{"deepseek_v3_1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "<｜tool▁call▁end｜>"},
	{"deepseek_r1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "```"},
	{"harmony", `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>ARGS<|call|>`, "<|call|>"},
	{"solar_open", `<|tool_calls|><|tool_call:begin|>c1<|tool_call:name|>NAME<|tool_call:args|>ARGS<|tool_call:end|><|calls|>`, "<|tool_call:end|>"},
	{"solar_open_unclosed", `<|tool_calls|><|tool_call:begin|>c1<|tool_call:name|>NAME<|tool_call:args|>ARGS<|calls|>`, "<|calls|>"},
	{"plamo3", `<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>ARGS<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>`, "<|plamo:end_tool_arguments:plamo|>"},
}

// TestBoundAtEndMarker: in every JSON-bodied format with an end marker, a
// body that a stray quote or an open string would run on through the
// marker is read up to it alone: the call comes out repaired with the
// arguments meant, or is a parse_error, and the call after it is its own
// tool_call however the input is cut. No text, and no arguments but those
// strict JSON holds in a string, carry the end marker.
func TestBoundAtEndMarker(t *testing.T) {
	bodies := []struct {
		args, want string // want "": a parse_error
	}{
		{`{"a": "x" "b":true"}`, `{"a":"x","b":true}`},
		{`{"a": "x", "b": 2"}`, `{"a":"x","b":2}`},
		{`{"a": "x" "b":"y}`, ""},
		{`{"a": "x`, ""},
		{`{a: "open`, ""},
		{`{"html": "<p>END</p>"}`, `{"html":"<p>END</p>"}`},
		{`{"html": "<p>END</p>", "x": 1,}`, ""},
	}
	for _, f := range boundFormats {
		for _, b := range bodies {
			if f.name == "harmony" && strings.Contains(b.args, "END") {
				continue // <|call|> ends a Harmony message wherever it stands
			}
			if f.end == "```" && strings.Contains(b.args, "END") {
				continue // a fence only counts at a line's start
			}
			args := strings.ReplaceAll(b.args, "END", f.end)
			want := strings.ReplaceAll(b.want, "END", f.end)
			first := strings.NewReplacer("NAME", "f", "ARGS", args).Replace(f.call)
			second := strings.NewReplacer("NAME", "g", "ARGS", `{"id": 1}`).Replace(f.call)
			in := first + "\nhello \"there\"\n" + second + "\n"
			whole := parseAll(t, []byte(in), Options{}, nil)
			checkBound(t, f.name, in, whole, f.end, want)
			for _, s := range [][]int{{1}, {3}, {7}, {len(first) - len(f.end) + 1}, {len(first)}} {
				if got := parseAll(t, []byte(in), Options{}, s); got != whole {
					t.Errorf("%s: %q in pieces of %v:\n%s", f.name, in, s, cmp.Diff(whole, got))
				}
			}
		}
	}
}

func checkBound(t *testing.T, format, in, out, end, want string) {
	t.Helper()
	var calls []string
	first := ""
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type, Name, Content string
			Arguments           json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%s: %v: %s", format, err, line)
		}
		switch ev.Type {
		case "tool_call":
			calls = append(calls, ev.Name+" "+string(ev.Arguments))
			if strings.Contains(string(ev.Arguments), end) && !strings.Contains(want, end) {
				t.Errorf("%s: %q: arguments hold the end marker: %s", format, in, line)
			}
		case "text":
			if strings.Contains(ev.Content, end) {
				t.Errorf("%s: %q: text holds the end marker: %s", format, in, line)
			}
		}
		if first == "" && ev.Type != "text" {
			first = ev.Type
		}
	}
	wantCalls := []string{`g {"id":1}`}
	wantFirst := "parse_error"
	if want != "" {
		wantCalls = append([]string{"f " + want}, wantCalls...)
		wantFirst = "tool_call"
	}
	if first != wantFirst || !cmp.Equal(calls, wantCalls) {
		t.Errorf("%s: %q: got calls %q after a %s, want %q after a %s:\n%s", format, in, calls, first, wantCalls, wantFirst, out)
	}
}
