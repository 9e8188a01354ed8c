package parse

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Each kind of repair, made alone: the transcoder reports exactly it, and
// every kind the event may name is made by some input.
func TestRepairKinds(t *testing.T) {
	cases := []struct {
		kind   string
		in     string
		python bool
		want   string
	}{
		{"bom", "\uFEFF{\"a\":1}", false, `{"a":1}`},
		{"nbsp", "{\"a\":\u00a01}", false, `{"a":1}`},
		{"comment", "{\"a\":1, // one\n\"b\":2}", false, `{"a":1,"b":2}`},
		{"comment", `{"a":1 /* one */}`, false, `{"a":1}`},
		{"comment", "{\"a\":1 # one\n}", false, `{"a":1}`},
		{"typographic_quote", `{“a”: 1}`, false, `{"a":1}`},
		{"typographic_quote", `{"a": ‘it’s’}`, false, `{"a":"it’s"}`},
		{"fullwidth_punctuation", `｛"a"：1｝`, false, `{"a":1}`},
		{"single_quotes", `{'a': 'b'}`, false, `{"a":"b"}`},
		{"unquoted_key", `{a: 1}`, false, `{"a":1}`},
		{"bare_word", `{"timeout": 30s}`, false, `{"timeout":"30s"}`},
		{"bare_word", `{"a": TrueBlue}`, false, `{"a":"TrueBlue"}`},
		{"literal", `{"a": True, "b": None, "c": FALSE}`, false, `{"a":true,"b":null,"c":false}`},
		{"literal", `{"a": undefined}`, false, `{"a":null}`},
		{"non_finite_number", `{"a": NaN, "b": Infinity}`, false, `{"a":null,"b":null}`},
		{"non_finite_number", `[-Infinity]`, false, `[null]`},
		{"number_form", `[+1]`, false, `[1]`},
		{"number_form", `[07]`, false, `[7]`},
		{"number_form", `[.5]`, false, `[0.5]`},
		{"number_form", `[5.]`, false, `[5.0]`},
		{"unescaped_quote", `{"text": "a 24" screen"}`, false, `{"text":"a 24\" screen"}`},
		{"missing_closing_quote", `{"a": "hello, "b": 2}`, false, `{"a":"hello","b":2}`},
		{"control_character", "{\"a\": \"x\ny\"}", false, `{"a":"x\ny"}`},
		{"invalid_utf8", "{\"a\": \"x\xffy\"}", false, `{"a":"x\ufffdy"}`},
		{"invalid_escape", `{"a": "\d+"}`, false, `{"a":"\\d+"}`},
		{"invalid_escape", `{"a": "\x41"}`, false, `{"a":"A"}`},
		{"invalid_escape", `{"a": "\u12"}`, false, `{"a":"\\u12"}`},
		{"escaped_payload", `{\"a\": \"b\"}`, false, `{"a":"b"}`},
		{"escaped_payload", `{\"a\": 1,\n\"b\": 2}`, false, `{"a":1,"b":2}`},
		{"trailing_comma", `[1,]`, false, `[1]`},
		{"trailing_comma", `{"a":1,,}`, false, `{"a":1}`},
		{"leading_comma", `[,1]`, false, `[1]`},
		{"repeated_comma", `{"a":1,,"b":2}`, false, `{"a":1,"b":2}`},
		{"repeated_comma", `{"a":1, ,"b":2}`, false, `{"a":1,"b":2}`},
		{"missing_comma", "{\"a\":1\n\"b\":2}", false, `{"a":1,"b":2}`},
		{"missing_colon", `{"a" 1, "b" "x"}`, false, `{"a":1,"b":"x"}`},
		{"missing_opening_quote", `{"a": "b", c": "d"}`, false, `{"a":"b","c":"d"}`},
		{"missing_opening_quote", `{"name": get_weather", "x": 1}`, false, `{"name":"get_weather","x":1}`},
		{"missing_comma", `[{"a":1}{"b":2}]`, false, `[{"a":1},{"b":2}]`},
		{"mismatched_closer", `{"a": [1, 2}`, false, `{"a":[1,2]}`},
		{"mismatched_closer", `{"a": {"b": 1]}`, false, `{"a":{"b":1}}`},
		{"missing_closer", `{"a": [1, 2]`, false, `{"a":[1,2]}`},
		{"tuple", `(1, 2)`, true, `[1,2]`},
		{"set", `{"a", "b"}`, true, `["a","b"]`},
		{"set", `[{"x"}]`, true, `[["x"]]`},
		{"string_prefix", `u"x"`, true, `"x"`},
		{"string_concatenation", `"a" "b"`, true, `"ab"`},
		{"string_concatenation", `["a" "b"]`, true, `["ab"]`},
	}
	made := map[string]bool{}
	for _, tc := range cases {
		out, res, err := appendJSON(nil, []byte(tc.in), false, tc.python)
		if err != nil {
			t.Errorf("%s: appendJSON(%q): %v", tc.kind, tc.in, err)
			continue
		}
		if got := res.Repairs.Names(); !slices.Equal(got, []string{tc.kind}) || string(out) != tc.want {
			t.Errorf("appendJSON(%q) = %s, repairs %q; want %s, repairs [%s]", tc.in, out, got, tc.want, tc.kind)
		}
		made[tc.kind] = true
	}
	// The kinds the call around the JSON adds.
	for _, tc := range []struct{ kind, in string }{
		{"double_encoded", `<tool_call>{"name": "f", "arguments": "\"{\\\"a\\\": 1}\""}</tool_call>`},
		// The end marker shows the JSON goes on past the closers that
		// would end it: the extra ones are dropped, nothing is lost.
		{"extra_closer", `<tool_call>{"name":"f","arguments":{"a":{"b":1}}},"c":2}}</tool_call>`},
		{"extra_closer", `<tool_call>{"name":"f","arguments":{"a":1}}}</tool_call>`},
		{"mismatched_closer", `<tool_call>{"name":"f","arguments":{"key1":["v1","v2"},"key2":["v3"]}}</tool_call>`},
		// Half a surrogate pair is no character: U+FFFD, as for bytes
		// that are not UTF-8; a whole pair stays.
		{"lone_surrogate", `<tool_call>{"name":"f","arguments":{"a":"x\ud800y","b":"\ud83d\ude00","c":"\\ud800"}}</tool_call>`},
		{"missing_closing_tag", "<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</tool_call>"},
		{"missing_closing_tag", "<tool_call>\n<function=f>\n<parameter=a>\nx\n<parameter=b>\ny\n</parameter>\n</function>\n</tool_call>"},
		{"missing_closing_tag", "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">x</parameter>\n</minimax:tool_call>"},
		{"tag_spelling", "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call\nDone."},
		{"missing_closing_tag", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>x</arg_value>\n<tool_call>g\n<arg_key>b</arg_key>\n<arg_value>y</arg_value>\n</tool_call>"},
		// A value's </arg_value> left out right before the call's end
		// marker, with a later call's </arg_value> to be found: the value
		// ends at the marker, and the next call stands (Solar Open 2,
		// GLM); and with none to be found at all.
		{"missing_closing_tag", "<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>x<|tool_call:end|><|tool_call:start|>g\n<|tool_arg:start|>b<|tool_arg:value|>y<|tool_arg:end|>\n<|tool_call:end|>"},
		{"missing_closing_tag", "<tool_call>f<arg_key>a</arg_key><arg_value>x</tool_call>"},
	} {
		// --no-repair refuses each of them: no call comes out repaired.
		strict := parseAll(t, []byte(tc.in), Options{NoRepair: true}, nil)
		if strings.Contains(strict, `"repaired"`) || !strings.Contains(strict, `"type":"parse_error"`) {
			t.Errorf("parse --no-repair of %q gave a repaired call or no parse_error:\n%s", tc.in, strict)
		}
		out := parseAll(t, []byte(tc.in), Options{}, nil)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if e := gjson.Parse(line); e.Get("type").Str == "tool_call" {
				for _, k := range e.Get("repairs").Array() {
					got = append(got, k.Str)
				}
			}
		}
		if !slices.Equal(got, []string{tc.kind}) {
			t.Errorf("parse(%q) repairs %q, want [%s]:\n%s", tc.in, got, tc.kind, out)
		}
		made[tc.kind] = true
	}
	// The kinds only the generic reader makes, with known tools
	// (generic_block.go).
	for _, tc := range []struct{ kind, in string }{
		{"tag_spelling", `<ĠinvokeĠname="f"><ĠparameterĠname="a">x</Ġparameter></Ġinvoke>`},
	} {
		out := parseAll(t, []byte(tc.in), knownTools("f"), nil)
		if !strings.Contains(out, `"repairs":["`+tc.kind+`"]`) {
			t.Errorf("parse --tools f (%q): want repairs [%s]:\n%s", tc.in, tc.kind, out)
		}
		made[tc.kind] = true
	}
	for _, k := range RepairKinds() {
		if !made[k] {
			t.Errorf("no input here makes the repair %q", k)
		}
	}
}

// A call lists its repairs in a fixed order, each once, however often
// and in whatever order the model made them; a call that needed none has
// neither "repaired" nor "repairs".
func TestCallRepairs(t *testing.T) {
	in := "<tool_call>{\"name\": \"f\", \"arguments\": {'a': [1,], b: 'x', \"c\": [2,],}}</tool_call>\n" +
		"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>\n" +
		"<tool_call>{\"name\": \"f\", \"arguments\": {b: 'x', 'a': [1,]}}</tool_call>\n"
	var calls []gjson.Result
	for _, line := range strings.Split(strings.TrimSpace(parseAll(t, []byte(in), Options{}, []int{7})), "\n") {
		if e := gjson.Parse(line); e.Get("type").Str == "tool_call" {
			calls = append(calls, e)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("%d calls, want 3", len(calls))
	}
	want := `["single_quotes","unquoted_key","trailing_comma"]`
	for _, k := range []int{0, 2} {
		if got := calls[k].Get("repairs").Raw; got != want || !calls[k].Get("repaired").Bool() {
			t.Errorf("call %d: repaired %v, repairs %s; want %s", k+1, calls[k].Get("repaired").Raw, got, want)
		}
	}
	if calls[1].Get("repaired").Exists() || calls[1].Get("repairs").Exists() {
		t.Errorf("a call that needed no repair: %s", calls[1].Raw)
	}
}

// --no-repair refuses what each kind would repair: strict mode never
// reports a repair.
func TestRepairKindsStrict(t *testing.T) {
	for _, in := range []string{`{'a': 1}`, `{a: 1}`, `[+1]`, `{"a": True}`, "{\"a\": \"x\ny\"}", `[1,]`} {
		if _, res, err := appendJSON(nil, []byte(in), true, false); err == nil || res.Repairs != 0 {
			t.Errorf("strict appendJSON(%q): repairs %q, err %v", in, res.Repairs.Names(), err)
		}
	}
}
