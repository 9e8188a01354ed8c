package chattemplate

import (
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
