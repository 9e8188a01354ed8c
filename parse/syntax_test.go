package parse

import (
	"strings"
	"testing"
)

// solar is a call syntax no built-in format has, as derived from Upstage
// Solar Open's template.
var solar = &Syntax{
	Skip: []string{"<|end|>", "<|tool_calls|>", "<|calls|>"},
	Call: &CallSyntax{Open: "<|tool_call:begin|>", NameAfter: "<|tool_call:name|>", ArgsAfter: "<|tool_call:args|>", Close: "<|tool_call:end|>"},
}

func TestTemplateSyntax(t *testing.T) {
	opts := Options{Format: FormatTemplate, Syntax: solar}
	cases := []struct{ name, in, want string }{
		{"two calls after prose",
			`Let me look.<|tool_calls|><|tool_call:begin|>c1<|tool_call:name|>get_weather<|tool_call:args|>{"city": "Paris"}<|tool_call:end|><|tool_call:begin|>c2<|tool_call:name|>get_time<|tool_call:args|>{}<|tool_call:end|><|calls|><|end|>`,
			`{"type":"text","content":"Let me look."}
{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"template"}
{"type":"tool_call","id":"call_2","name":"get_time","arguments":{},"format":"template"}
`},
		{"built-in markers are off",
			`<tool_call>{"name": "f", "arguments": {}}</tool_call>`,
			`{"type":"text","content":"<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"}
`},
		{"cut-off arguments",
			`<|tool_call:begin|>c1<|tool_call:name|>f<|tool_call:args|>{"a": "x`,
			`{"type":"parse_error","error":"call to \"f\": tool call cut off at byte 64: the JSON ends inside a string, before its closing quote: the output was cut off — send the whole call again","raw":"<|tool_call:begin|>c1<|tool_call:name|>f<|tool_call:args|>{\"a\": \"x","offset":0,"format":"template"}
`},
	}
	for _, c := range cases {
		for _, sizes := range [][]int{nil, {1}, {3, 7}} {
			if got := parseAll(t, []byte(c.in), opts, sizes); got != c.want {
				t.Errorf("%s (chunks %v):\ngot  %s\nwant %s", c.name, sizes, got, c.want)
			}
		}
	}
}

func TestTemplateSyntaxSkipsControlTokens(t *testing.T) {
	// A built-in format, with the template's own end-of-turn token.
	opts := Options{Format: FormatHermes, Syntax: &Syntax{Skip: []string{"<|im_sep|>", "<|assistant_start|>\n"}, Reasoning: [][2]string{{"<|think_on|>", "<|think_off|>"}}}}
	in := "<|assistant_start|>\n<|think_on|>hmm<|think_off|>Sure.<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call><|im_sep|>"
	got := parseAll(t, []byte(in), opts, []int{2})
	if strings.Contains(got, "<|") {
		t.Errorf("control tokens leaked:\n%s", got)
	}
	if !strings.Contains(got, `"type":"reasoning","content":"hmm"`) || !strings.Contains(got, `"name":"f"`) {
		t.Errorf("got:\n%s", got)
	}
}

func TestTemplateSyntaxInvalid(t *testing.T) {
	for _, o := range []Options{
		{Format: FormatTemplate},
		{Syntax: solar},
		{Format: FormatTemplate, Syntax: &Syntax{Call: &CallSyntax{Open: "Action:"}}},
	} {
		if _, err := NewParser(o, func(*Event) error { return nil }); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// FuzzTemplateSyntax: a template's own call syntax gives the same events
// however the input is cut into pieces.
func FuzzTemplateSyntax(f *testing.F) {
	f.Add(`Hi<|tool_calls|><|tool_call:begin|>c1<|tool_call:name|>f<|tool_call:args|>{"a": 1}<|tool_call:end|><|calls|><|end|>`)
	f.Add(`<|tool_call:begin|><|tool_call:name|><|tool_call:args|>{`)
	f.Add(`<think>x</think><|tool_call:begin|>id<|tool_call:name|>g<|tool_call:args|>{"b": "<|end|>"}`)
	withPrompt := *solar
	withPrompt.Prompt = "<|begin|>assistant"
	all := []Options{
		{Format: FormatTemplate, Syntax: solar},
		{Format: FormatTemplate, Syntax: &withPrompt},
		{Format: FormatHarmony, Syntax: &Syntax{Prompt: "<|start|>assistant"}},
		{Syntax: &Syntax{Prompt: "<|im_start|>assistant\n<think>\n", Skip: []string{"<|im_end|>"}}},
		{Format: FormatTemplate, Syntax: &Syntax{Call: &CallSyntax{Open: `<do:call tool="`, ArgsAfter: `">`, ParamOpen: "<do:arg key=", ParamClose: "</do:arg>", Close: "</do:call>", AttrKeys: true}}},
	}
	all = append(all, Options{Format: FormatTemplate, Syntax: &Syntax{Call: &CallSyntax{Open: "<|py|>", Close: "<|py_end|>", Pythonic: true}}})
	f.Add(`<|py|>[f(a=1, b="x"), g()]<|py_end|>`)
	f.Add(`<do:call tool="f"><do:arg key="a">1</do:arg><do:arg key="b">x</do:arg></do:call>`)
	f.Add(` to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>`)
	f.Add("x</think><tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call><|im_end|>")
	f.Fuzz(func(t *testing.T, in string) {
		for _, opts := range all {
			whole := parseAll(t, []byte(in), opts, nil)
			if got := parseAll(t, []byte(in), opts, []int{1, 5, 2}); got != whole {
				t.Errorf("%+v chunked:\n%s\nwhole:\n%s", opts.Syntax, got, whole)
			}
		}
	})
}

func TestTemplatePrompt(t *testing.T) {
	cases := []struct{ name, prompt, format, in, want string }{
		{"gpt-oss call right after the prompt", "<|start|>assistant", FormatHarmony,
			` to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>`,
			`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"gpt_oss_harmony"}
`},
		{"think block the prompt opened", "<|im_start|>assistant\n<think>\n", FormatHermes,
			"Plan it.\n</think>\n\nSure.",
			`{"type":"reasoning","content":"Plan it.\n","format":"think"}
{"type":"text","content":"\n\nSure."}
`},
		{"header words are not text", "<|im_assistant|>assistant<|im_middle|>", FormatKimiK2,
			"Hello.",
			`{"type":"text","content":"Hello."}
`},
		{"offsets stay the output's", "<|start|>assistant", FormatHarmony,
			"Hi <|tool_call_begin|>",
			`{"type":"text","content":"Hi <|tool_call_begin|>"}
`},
	}
	for _, c := range cases {
		opts := Options{Format: c.format, Syntax: &Syntax{Prompt: c.prompt}}
		for _, sizes := range [][]int{nil, {1}} {
			if got := parseAll(t, []byte(c.in), opts, sizes); got != c.want {
				t.Errorf("%s (chunks %v):\ngot  %s\nwant %s", c.name, sizes, got, c.want)
			}
		}
	}
}
