package chattemplate

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/parse"
)

// Syntaxes no built-in format has, in templates written for this test:
// the derived parser reads what the template writes.
func TestDeriveOwnSyntax(t *testing.T) {
	turns := func(call string) string {
		return `{%- for m in messages -%}
<|turn|>{{ m.role }}
{{ m.content }}{% for c in m.tool_calls %}` + call + `{% endfor %}<|turn_end|>
{% endfor -%}
{%- if add_generation_prompt %}<|turn|>assistant
{% endif -%}`
	}
	cases := map[string]string{
		"name then JSON": turns(`<|fn|>{{ c.function.name }}<|args|>{{ c.function.arguments | tojson }}<|fn_end|>`),
		"id, name, JSON": turns(`<|call|>{{ c.id }}<|name|>{{ c.function.name }}<|args|>{{ c.function.arguments | tojson }}<|call_end|>`),
		"JSON call":      turns(`<|invoke|>{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}<|invoke_end|>`),
		"tagged, attributes": turns(`<do:call tool="{{ c.function.name }}">` +
			`{% for k, v in c.function.arguments.items() %}<do:arg key="{{ k }}">{{ v if v is string else v | tojson }}</do:arg>{% endfor %}</do:call>`),
		"pythonic": `{%- for m in messages -%}
<|turn|>{{ m.role }}
{{ m.content }}{% if m.tool_calls %}<|py|>[{% for c in m.tool_calls %}{{ c.function.name }}({% for k, v in c.function.arguments.items() %}{{ k }}={{ v | tojson }}{% if not loop.last %}, {% endif %}{% endfor %}){% if not loop.last %}, {% endif %}{% endfor %}]<|py_end|>{% endif %}<|turn_end|>
{% endfor -%}
{%- if add_generation_prompt %}<|turn|>assistant
{% endif -%}`,
		"tagged, key in tag": turns(`<|tool|>{{ c.function.name }}
{% for k, v in c.function.arguments.items() %}<param:{{ k }}>{{ v if v is string else v | tojson }}</param>
{% endfor %}<|tool_end|>`),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			tp := &Template{Name: name, Source: src}
			d, err := tp.Derive()
			if err != nil {
				t.Fatal(err)
			}
			if d.Format != parse.FormatTemplate {
				t.Fatalf("format %q, want template", d.Format)
			}
			for _, c := range callShapes {
				calls, want := c.calls()
				out, _ := modelOutput(t, tp, d, c.content, calls)
				roundTrips(t, out, d.Options(parse.Options{}), want, c.content)
			}
		})
	}
}

// FunctionGemma's call syntax, written by a template made for this test
// as Google's writes it (the published template itself is not in the
// corpus): <start_function_call>call:NAME{key:<escape>text<escape>,n:1}
// <end_function_call>, nothing but the brace between the name and the
// arguments, which are not JSON. Derivation maps it onto parse's
// functiongemma format, and the calls read back.
func TestDeriveFunctionGemmaSyntax(t *testing.T) {
	src := `{%- macro arg(v) -%}
{%- if v is string -%}<escape>{{ v }}<escape>
{%- elif v is boolean -%}{{ 'true' if v else 'false' }}
{%- elif v is mapping -%}{{ '{' }}{%- for k, x in v | dictsort -%}{{ k }}:{{ arg(x) }}{% if not loop.last %},{% endif %}{%- endfor -%}{{ '}' }}
{%- elif v is sequence -%}[{%- for x in v -%}{{ arg(x) }}{% if not loop.last %},{% endif %}{%- endfor -%}]
{%- else -%}{{ v }}{%- endif -%}
{%- endmacro -%}
{{ bos_token }}{%- for m in messages -%}
<start_of_turn>{{ 'model' if m.role == 'assistant' else m.role }}
{{ m.content | trim if m.content else '' }}
{%- for c in m.tool_calls or [] -%}<start_function_call>call:{{ c.function.name }}{{ arg(c.function.arguments) }}<end_function_call>{%- endfor -%}
{%- if m.tool_calls %}<start_function_response>{% else %}<end_of_turn>
{% endif -%}
{%- endfor -%}
{%- if add_generation_prompt %}<start_of_turn>model
{% endif -%}`
	tp := &Template{Name: "functiongemma-like", Source: src}
	d, err := tp.Derive()
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != parse.FormatFunctionGemma {
		t.Fatalf("format %q, want %s", d.Format, parse.FormatFunctionGemma)
	}
	for _, c := range callShapes {
		calls, want := c.calls()
		out, _ := modelOutput(t, tp, d, c.content, calls)
		roundTrips(t, out, d.Options(parse.Options{}), want, c.content)
	}
}

// The templates that want call ids of a form of their own: Kimi's
// functions.NAME:INDEX where the name belongs, Mistral's nine letters
// and digits. A change here changes the prompts run renders.
func TestCallIDForms(t *testing.T) {
	var kimi, nine []string
	for tp, d := range derivedCorpus(t) {
		if d.KimiIDs {
			kimi = append(kimi, nameOf(tp.Name))
		}
		if d.NineCharIDs {
			nine = append(nine, nameOf(tp.Name))
		}
	}
	t.Logf("Kimi's ids: %v", kimi)
	t.Logf("nine-character ids: %v", nine)
	if !slices.Equal(kimi, []string{"moonshotai-Kimi-K2-Instruct-0905"}) {
		t.Errorf("Kimi's ids for %v", kimi)
	}
	for _, want := range []string{"Mistral-Small-3.2-24B-Instruct-2506", "mistralai-Mistral-Nemo-Instruct-2407"} {
		if !slices.Contains(nine, want) {
			t.Errorf("%s: not derived as wanting nine-character ids (%v)", want, nine)
		}
	}
	d := &Derived{NineCharIDs: true}
	for _, id := range []string{"call_1", "chatcmpl-tool-5f0e9a1b2c3d4e5f", ""} {
		got := d.CallID(id, "f", 0)
		if len(got) != 9 || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789") != "" || got != d.CallID(id, "g", 3) {
			t.Errorf("%q: %q", id, got)
		}
	}
	if got := d.CallID("aB3dE6gH9", "f", 0); got != "aB3dE6gH9" {
		t.Errorf("a nine-character id changed: %q", got)
	}
	if d.CallID("call_1", "f", 0) == d.CallID("call_2", "f", 0) {
		t.Error("two ids give one")
	}
	k := &Derived{KimiIDs: true}
	if got := k.CallID("call_1", "get_weather", 2); got != "functions.get_weather:2" {
		t.Errorf("Kimi: %q", got)
	}
	if got := k.CallID("functions.get_weather:7", "get_weather", 2); got != "functions.get_weather:7" {
		t.Errorf("Kimi's own id changed: %q", got)
	}
}
