package parse

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// jsonFamilies write a call to f whose arguments are the JSON text args,
// as each JSON-bodied family does; end is the marker that ends the call
// ("" for the bare forms), which no text event may hold.
var jsonFamilies = []struct {
	name, end string
	wrap      func(args string) string
}{
	{"hermes", "</tool_call>", func(a string) string { return `<tool_call>{"name":"f","arguments":` + a + `}</tool_call>` }},
	{"hermes_nl", "</tool_call>", func(a string) string {
		return "<tool_call>\n{\"name\": \"f\", \"arguments\": " + a + "}\n</tool_call>\nDone."
	}},
	{"function_tag", "</function>", func(a string) string { return `<function=f>` + a + `</function>` }},
	{"kimi_k2", "<|tool_call_end|>", func(a string) string {
		return `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>` + a + `<|tool_call_end|><|tool_calls_section_end|>`
	}},
	{"deepseek_v3_1", "<｜tool▁call▁end｜>", func(a string) string {
		return `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>` + a + `<｜tool▁call▁end｜><｜tool▁calls▁end｜>`
	}},
	{"deepseek_r1", "<｜tool▁call▁end｜>", func(a string) string {
		return "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n" + a + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
	}},
	{"mistral_v11", "", func(a string) string { return `[TOOL_CALLS]f[ARGS]` + a }},
	{"mistral", "", func(a string) string { return `[TOOL_CALLS][{"name":"f","arguments":` + a + `}]` }},
	{"harmony", "<|call|>", func(a string) string {
		return `<|channel|>commentary to=functions.f <|constrain|>json<|message|>` + a + `<|call|>`
	}},
	{"nemotron", "</TOOLCALL>", func(a string) string { return `<TOOLCALL>[{"name":"f","arguments":` + a + `}]</TOOLCALL>` }},
	{"command_r7b", "<|END_ACTION|>", func(a string) string {
		return `<|START_ACTION|>[{"tool_call_id":"0","tool_name":"f","parameters":` + a + `}]<|END_ACTION|>`
	}},
	{"apertus", "<|tools_suffix|>", func(a string) string { return `<|tools_prefix|>[{"f":` + a + `}]<|tools_suffix|>` }},
	{"internlm2", "<|action_end|>", func(a string) string {
		return `<|action_start|><|plugin|>{"name":"f","parameters":` + a + `}<|action_end|>`
	}},
	{"tool_calls_array", "</tool_calls>", func(a string) string { return `<tool_calls>[{"name":"f","arguments":` + a + `}]</tool_calls>` }},
	{"json_fenced", "```", func(a string) string { return "```json\n{\"name\": \"f\", \"arguments\": " + a + "}\n```" }},
	{"llama3_json", "", func(a string) string { return `{"name": "f", "parameters": ` + a + `}` }},
	{"python_tag", "<|eom_id|>", func(a string) string { return `<|python_tag|>{"name": "f", "parameters": ` + a + `}<|eom_id|>` }},
	{"gigachat3", "", func(a string) string { return "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": " + a + "}" }},
	{"phi4_mini", "", func(a string) string { return `functools[{"name": "f", "arguments": ` + a + `}]` }},
	{"laguna", "</tool_call>", func(a string) string { return "<tool_call>f\n" + a + "</tool_call>" }},
	{"solar_open", "<|tool_call:end|>", func(a string) string {
		return `<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>f<|tool_call:args|>` + a + `<|tool_call:end|><|calls|>`
	}},
	{"hyperclovax", "<|im_end|>", func(a string) string {
		return " -> tool/function_call\n[{\"name\": \"f\", \"arguments\": " + a + "}]<|im_end|>"
	}},
	{"command_r_action", "```", func(a string) string {
		return "Action:\n```json\n[\n    {\n        \"tool_name\": \"f\",\n        \"parameters\": " + a + "\n    }\n]```\n"
	}},
	{"cwm", "</tool>", func(a string) string { return "<tool: function>\nf " + a + "\n</tool>" }},
	{"kimi_k3", "<|close|>call<|sep|>", func(a string) string {
		return `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>json type="object"<|sep|>` + a + `<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`
	}},
	{"plamo3", "<|plamo:end_tool_request:plamo|>", func(a string) string {
		return `<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>` + a + `<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>`
	}},
}

// repairedArgs are arguments written with each kind of repair a JSON body
// can need, and the object meant.
var repairedArgs = []struct{ in, want string }{
	{`{"city": "Paris", "n": 3}`, `{"city":"Paris","n":3}`},
	{`{'city': 'Paris', 'ok': True, 'x': None}`, `{"city":"Paris","ok":true,"x":null}`},
	{`{city: "Paris", timeout: 30s}`, `{"city":"Paris","timeout":"30s"}`},
	{"{\"a\": [1, 2,], /* c */ \"b\": \"x\ny\"}", `{"a":[1,2],"b":"x\ny"}`},
	{`{"cmd": "grep "x" f", "n": +1}`, `{"cmd":"grep \"x\" f","n":1}`},
	{`{"a": {"b": [1, 2}}`, `{"a":{"b":[1,2]}}`},
	{`{"re": "\d+", "u": "\x41"}`, `{"re":"\\d+","u":"A"}`},
	{`{"a"：1，"b"：“x”}`, `{"a":1,"b":"x"}`},
	{`{"city" "Paris",, n": 3, "tool": get_weather", "h": "<a href="https://x.com">x</a>"}`, `{"city":"Paris","n":3,"tool":"get_weather","h":"<a href=\"https://x.com\">x</a>"}`},
}

// injections change well-formed arguments {M} the way a model's slip
// does, inside the call's markers; the arguments meant stay M's (with
// "k" added where the injection adds it).
var injections = []struct {
	name string
	do   func(args string) (string, bool)
	// addK: the injected text adds "k" first, with this value.
	addK string
}{
	{"none", func(a string) (string, bool) { return a, true }, ""},
	{"extra closer after", func(a string) (string, bool) { return a + "}", true }, ""},
	{"extra closers after", func(a string) (string, bool) { return a + "}}", true }, ""},
	{"wrong closer", func(a string) (string, bool) {
		return a[:len(a)-1] + "]", strings.HasSuffix(a, "}")
	}, ""},
	{"array closed by brace", func(a string) (string, bool) {
		// {"k":[1,2}, M…}: the '}' was meant as the array's ']'.
		return `{"k":[1,2},` + a[1:], strings.HasPrefix(a, "{") && len(a) > 2
	}, `[1,2]`},
	{"object closed twice", func(a string) (string, bool) {
		// {"k":{"b":1}}}, M…}: one '}' too many before the rest.
		return `{"k":{"b":1}}},` + a[1:], strings.HasPrefix(a, "{") && len(a) > 2
	}, `{"b":1}`},
	{"text after", func(a string) (string, bool) { return a + " oops", true }, ""},
	{"member after", func(a string) (string, bool) { return a + `, "z": 1`, true }, ""},
}

// Never silently wrong: for every family, every kind of repair and every
// slip inside the call's markers, each call that comes out has the
// arguments meant, or the call is a parse_error; no text event holds the
// family's end marker; and the call is never lost as prose.
func TestNeverSilentlyWrong(t *testing.T) {
	for _, fam := range jsonFamilies {
		for _, ra := range repairedArgs {
			for _, inj := range injections {
				args, ok := inj.do(ra.in)
				if !ok {
					continue
				}
				in := fam.wrap(args)
				want := ra.want
				if inj.addK != "" {
					want = `{"k":` + inj.addK + `,` + want[1:]
					if want[len(want)-2] == ',' { // M was {}
						want = want[:len(want)-2] + "}"
					}
				}
				// Bare JSON that does not read is prose unless it names
				// a known tool: then it must not pass as prose.
				opts := Options{}
				if fam.name == "llama3_json" {
					opts = knownTools("f")
				}
				checkNeverWrong(t, fam.name+"/"+inj.name, in, want, fam.end, opts)
			}
		}
	}
}

// checkNeverWrong parses in whole and a byte at a time and checks what
// TestNeverSilentlyWrong asks of it.
func checkNeverWrong(t *testing.T, name, in, want, end string, opts Options) {
	t.Helper()
	var wantV any
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatalf("%s: bad want %s: %v", name, want, err)
	}
	whole := parseAll(t, []byte(in), opts, nil)
	if bytewise := parseAll(t, []byte(in), opts, []int{1}); bytewise != whole {
		t.Errorf("%s: a byte at a time differs from whole:\n%s\n%s\nin: %s", name, whole, bytewise, in)
	}
	calls := 0
	for _, line := range strings.Split(strings.TrimSpace(whole), "\n") {
		ev := gjson.Parse(line)
		switch ev.Get("type").Str {
		case tools.TypeToolCall:
			calls++
			var got any
			if err := json.Unmarshal([]byte(ev.Get("arguments").Raw), &got); err != nil || !reflect.DeepEqual(got, wantV) {
				t.Errorf("%s: call with arguments %s, want %s or a parse_error\nin: %s\n%s", name, ev.Get("arguments").Raw, want, in, whole)
			}
		case event.TypeParseError:
			calls++
		case event.TypeText:
			if end != "" && strings.Contains(ev.Get("content").Str, end) {
				t.Errorf("%s: text holds the end marker %s:\nin: %s\n%s", name, end, in, whole)
			}
		}
	}
	if calls == 0 {
		t.Errorf("%s: no call and no parse_error:\nin: %s\n%s", name, in, whole)
	}
}

// xmlFamilies write a call to f with the arguments a=1 and s="x y" in each
// XML-style family; slip is put between the call's end and its wrapper's.
var xmlFamilies = []struct {
	name, end string
	wrap      func(slip string) string
}{
	{"qwen3_coder", "</tool_call>", func(s string) string {
		return "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=s>\nx y\n</parameter>\n</function>" + s + "\n</tool_call>"
	}},
	{"seed_oss", "</seed:tool_call>", func(s string) string {
		return "<seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n<parameter=s>x y</parameter>\n</function>" + s + "\n</seed:tool_call>"
	}},
	{"glm_4_5", "</tool_call>", func(s string) string {
		return "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>s</arg_key>\n<arg_value>x y</arg_value>" + s + "\n</tool_call>"
	}},
	{"glm_4_7", "</tool_call>", func(s string) string {
		return "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>s</arg_key><arg_value>x y</arg_value>" + s + "</tool_call>"
	}},
	{"hunyuan_hy", "</tool_call>", func(s string) string {
		return "<tool_calls>\n<tool_call>f<tool_sep>\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>s</arg_key>\n<arg_value>x y</arg_value>" + s + "\n</tool_call>\n</tool_calls>"
	}},
	{"longcat", "</longcat_tool_call>", func(s string) string {
		return "<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key>\n<longcat_arg_value>1</longcat_arg_value>\n<longcat_arg_key>s</longcat_arg_key>\n<longcat_arg_value>x y</longcat_arg_value>" + s + "\n</longcat_tool_call>"
	}},
	{"muse_glimmer", "</atem:function_calls>", func(s string) string {
		return "<atem:function_calls>\n<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">1</atem:parameter>\n<atem:parameter name=\"s\">x y</atem:parameter>\n</atem:invoke>" + s + "\n</atem:function_calls>"
	}},
	{"laguna_user", "</user>", func(s string) string {
		return "<user>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>s</arg_key>\n<arg_value>x y</arg_value>" + s + "\n</user>"
	}},
	{"solar_open2", "<|tool_call:end|>", func(s string) string {
		return "<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>1<|tool_arg:end|>\n<|tool_arg:start|>s<|tool_arg:value|>x y<|tool_arg:end|>" + s + "\n<|tool_call:end|>"
	}},
}

// The same for the XML-style families: text, stray markup or a stray
// closing tag inside the call's markers never follows an emitted call.
func TestNeverSilentlyWrongXML(t *testing.T) {
	for _, fam := range xmlFamilies {
		for _, slip := range []string{"", " oops", "\n<foo>bar</foo>", "\n</parameter>", "\n</arg_value>", "}", "\n</function>"} {
			// <user> is a call only to a known tool.
			checkNeverWrong(t, fmt.Sprintf("%s/%q", fam.name, slip), fam.wrap(slip), `{"a":1,"s":"x y"}`, fam.end, knownTools("f"))
		}
	}
}

// Truncation is never completed: in every family, a prefix of a call cut
// anywhere inside its arguments is never a call.
func TestCutArgumentsNeverACall(t *testing.T) {
	const args = `{"city": "Paris", "n": [1, 2], "s": "x y", "o": {"k": true}}`
	check := func(name, in string, from, to int) {
		for cut := from; cut < to; cut++ {
			out := parseAll(t, []byte(in[:cut]), knownTools("f"), nil)
			if strings.Contains(out, `"type":"tool_call"`) {
				t.Errorf("%s cut at %d (%q): a call was completed:\n%s", name, cut, in[:cut], out)
				return
			}
		}
	}
	for _, fam := range jsonFamilies {
		in := fam.wrap(args)
		at := strings.Index(in, args)
		check(fam.name, in, at+1, at+len(args))
	}
	for _, fam := range xmlFamilies {
		in := fam.wrap("")
		from := strings.Index(in, "<parameter")
		for _, open := range []string{"<arg_key>", "<|tool_arg:start|>", "<longcat_arg_key>", "<atem:parameter"} {
			if from < 0 {
				from = strings.Index(in, open)
			}
		}
		to := strings.LastIndex(in, "</function>")
		for _, end := range []string{"</atem:invoke>", "</tool_call>", "<|tool_call:end|>", "</longcat_tool_call>", "</user>"} {
			if to < 0 {
				to = strings.LastIndex(in, end) // GLM's call ends there
			}
		}
		if from < 0 || to < 0 {
			t.Fatalf("%s: no arguments found in %q", fam.name, in)
		}
		check(fam.name, in, from+1, to)
	}
}

// Comments around a bare JSON call, as in a fenced one, leave it the
// whole output: it is a call, whatever the chunking.
func TestBareJSONComments(t *testing.T) {
	for _, in := range []string{
		"// the call\n{\"name\": \"f\", \"arguments\": {\"a\": 1}} // done",
		"{\n  // the tool\n  \"name\": \"f\", /* args */ \"arguments\": {\"a\": 1}\n}\n// done\n",
	} {
		whole := parseAll(t, []byte(in), Options{}, nil)
		if !strings.Contains(whole, `"type":"tool_call","id":"call_1","name":"f","arguments":{"a":1}`) {
			t.Errorf("%q: no call:\n%s", in, whole)
		}
		for _, size := range []int{1, 2, 5} {
			if got := parseAll(t, []byte(in), Options{}, []int{size}); got != whole {
				t.Errorf("%q in pieces of %d:\n%s\nwhole:\n%s", in, size, got, whole)
			}
		}
	}
}

// Arguments nested past what tools validate, and \u escapes of half a
// surrogate pair, never reach the output as they are: jq and the like
// could not read the line.
func TestArgumentsReadable(t *testing.T) {
	deep := `<tool_call>{"name":"f","arguments":{"a":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}</tool_call>`
	out := parseAll(t, []byte(deep), Options{}, nil)
	if strings.Contains(out, `"type":"tool_call"`) || !strings.Contains(out, "nested deeper than 1000 levels") {
		t.Errorf("100,000-deep arguments: %.200s", out)
	}
	ok := `<tool_call>{"name":"f","arguments":{"a":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}}</tool_call>`
	if out := parseAll(t, []byte(ok), Options{}, nil); !strings.Contains(out, `"type":"tool_call"`) {
		t.Errorf("999 levels: %.200s", out)
	}
	lone := `<tool_call>{"name":"f","arguments":{"a":"\udc00x\ud800"}}</tool_call>`
	out = parseAll(t, []byte(lone), Options{}, nil)
	if !strings.Contains(out, `"arguments":{"a":"\ufffdx\ufffd"}`) || !json.Valid([]byte(strings.TrimSpace(out))) {
		t.Errorf("lone surrogates: %s", out)
	}
}
