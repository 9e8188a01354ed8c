package chattemplate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Templates that meet the engine's gaps (issue 25) render as Python's
// Jinja, set up as transformers sets it up, renders them. Each want was
// checked against jinja2 3.1.
func TestJinjaGaps(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hi"}}
	cases := []struct{ name, src, want string }{
		{"conditional in parentheses", `{{ "p" + ("a" if messages else "b") }}`, "pa"},
		{"chained conditional", `{{ ["a" if x else "b" if messages else "c"] | join }}`, "b"},
		{"x[-1] on one item", `{{ messages[-1]['role'] }}|{{ messages[-1].content[-1] }}|{{ "[-1]" }}`, "user|i|[-1]"},
		{"method after a subscript", `{% set s = "a\n</think>\n b" ~ messages[0].content %}{{ s.split('</think>')[-1].lstrip('\n') }}|{{ messages[-1].content.upper() }}`, " bhi|HI"},
		{"endswith and startswith", `{{ "".endswith("x") }}|{{ "ab".endswith(("x", "b")) }}|{{ "ab".startswith("a") }}`, "False|True|True"},
		{"strip", `[{{ "  a  ".lstrip() }}|{{ "xxaxx".strip("x") }}|{{ "a \n".rstrip() }}]`, "[a  |a|a]"},
		{"generation block", `{% generation %}G{% endgeneration %}`, "G"},
		{"tojson indent keeps key order", `{{ {"z": 1, "a": [1, {}], "m": {"y": none}} | tojson(indent=2) }}`,
			"{\n  \"z\": 1,\n  \"a\": [\n    1,\n    {}\n  ],\n  \"m\": {\n    \"y\": null\n  }\n}"},
		{"tojson sort_keys", `{{ {"z": 1, "a": 2} | tojson(sort_keys=true) }}`, `{"a": 2, "z": 1}`},
		{"format filter, Python's %", `{{ "%s=%d %.2f %5s|%-4s|%03d %%" | format("a", 7, 3.14159, "r", "l", 5) }}|{{ "%(k)s" | format(k="v") }}`, "a=7 3.14     r|l   |005 %|v"},
		{"set in a loop does not leak into the next iteration", `{% for i in [1, 2] %}{% if i == 1 %}{% set x = "one" %}{% endif %}[{{ x }}]{% endfor %}`, "[one][]"},
		{"is sameas without parentheses", `{{ true is sameas true }}|{{ 1 is sameas true }}|{{ 4 is divisibleby 2 }}`, "True|False|True"},
		{"*args and **kwargs in a call", `{% macro m(a, b, c) %}{{ a }}{{ b }}{{ c }}{{ varargs | length }}{% endmacro %}{% set l = [1, 2, 3, 4] %}{{ m(*l) }}|{{ m(**{"a": "x", "b": "y", "c": "z"}) }}`, "1231|xyz0"},
		{"adjacent string literals", `{{ "a" 'b' "c" }}|{{ [1, 2] | join("x" "y") }}`, "abc|1xy2"},
		{"{%+ keeps the indentation", "a\n  {%+ if true %}b{% endif %}\nc", "a\n  bc"},
		{"+%} keeps the newline", "{% if true +%}\nb{% endif %}", "\nb"},
		{"floats print as Python's", `{{ 1.0 }}|{{ 2.5 * 2 }}|{{ 0.1 + 0.2 }}|{{ 1e20 }}|{{ [1.0, 0.5] }}|{{ 10 / 4 }}`, "1.0|5.0|0.30000000000000004|1e+20|[1.0, 0.5]|2.5"},
		{"map with a filter name", `{{ ["a", "b"] | map("upper") | join }}|{{ [" a ", "b "] | map("trim") | list }}`, "AB|['a', 'b']"},
		{"None prints as None", `{{ none }}|{{ "x" ~ none }}`, "None|xNone"},
		{"str repr in lists", `{{ ["it's", "a"] }}|{{ {"k": "v"} }}`, `["it's", 'a']|{'k': 'v'}`},
		{"str.format", `{{ "{} and {name}, {0:>4}|{1:.2f}".format("x", 2.5, name="n") }}`, "x and n,    x|2.50"},
		{"ljust, rjust, center, zfill", `[{{ "ab".ljust(4) }}|{{ "ab".rjust(4, "*") }}|{{ "ab".center(5) }}|{{ "7".zfill(3) }}]`, "[ab  |**ab|  ab |007]"},
		{"split with maxsplit", `{{ "a b  c".split() }}|{{ "a,b,c".split(",", 1) }}|{{ "a,b,c".rsplit(",", 1) }}`, "['a', 'b', 'c']|['a', 'b,c']|['a,b', 'c']"},
		{"title and capitalize", `{{ "hELLO wORLD".title() }}|{{ "hELLO".capitalize() }}`, "Hello World|Hello"},
		{"{%- trims only the text right before it", `{% if true %}A: {{ "x" }}{%- endif %}`, "A: x"},
		{"only the template's first text is at a line start", `{{ "a" }}{% if true %} {{ "b" }}{% endif %}`, "a b"},
		{"a str indexed by a str is undefined", `[{{ "Y"["text"] }}]`, "[]"},
		{"Python's arithmetic", `{{ 2 ** 10 }}|{{ 2 ** -1 }}|{{ -7 // 2 }}|{{ -1 % 3 }}|{{ 7.5 // 2 }}|{{ 10 ** 20 > 0 }}`, "1024|0.5|-4|2|3.0|True"},
		{"str % values", `{{ 'video_%02d' % 3 }}|{{ '%s-%s' % ('a', 1) }}|{{ '%(k)s' % {'k': 'v'} }}|{{ 7 % 3 }}`, "video_03|a-1|v|1"},
		{"is sequence as Python's", `{{ x is sequence }}|{{ "a" is sequence }}|{{ {} is sequence }}|{{ none is sequence }}|{{ 1 is sequence }}|{{ [] is sequence }}`, "True|True|True|False|False|True"},
		{"string escapes", `{{ "a\tb\x41\u00e9" }}`, "a\tbAé"},
	}
	for _, c := range cases {
		tp := &Template{Name: "t", Source: c.src}
		got, err := tp.Render(msgs, RenderOptions{})
		if err != nil || got != c.want {
			t.Errorf("%s: %s: got %q, %v; want %q", c.name, c.src, got, err, c.want)
		}
	}
}

// Python's Jinja reads a template with its newlines made \n and one
// trailing newline dropped (transformers leaves keep_trailing_newline
// off): a template saved with CRLF, or ending in a newline, renders the
// same bytes as without.
func TestTemplateNewlines(t *testing.T) {
	for src, want := range map[string]string{
		"a\r\nb{{ 1 }}\r\n":                  "a\nb1",
		"a\n{% if true %}\nb\n{% endif %}\n": "a\nb\n",
		"x\n\n":                              "x\n",
		"lone\rcr":                           "lone\ncr",
	} {
		got, err := FromSource("t", src).Render(nil, RenderOptions{})
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", src, got, err, want)
		}
	}
}

// A tool given as JSON reaches the template with its keys in the order
// the request wrote them, tojson with and without an indent.
func TestToolKeyOrder(t *testing.T) {
	tool := json.RawMessage(`{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}}}`)
	tp := FromSource("t", `{{ tools[0] | tojson }}|{% for k in tools[0].function.parameters.properties %}{{ k }}{% endfor %}|{{ tools[0].function | tojson(indent=1) }}`)
	got, err := tp.Render(nil, RenderOptions{Tools: []Tool{tool}})
	want := `{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}}}|za|{` +
		"\n \"name\": \"f\",\n \"parameters\": {\n  \"type\": \"object\",\n  \"properties\": {\n   \"z\": {\n    \"type\": \"string\"\n   },\n   \"a\": {\n    \"type\": \"integer\"\n   }\n  }\n }\n}"
	if err != nil || got != want {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
}

// Where Python's Jinja fails, the render fails too, rather than write a
// prompt transformers would never have written.
func TestFailsWherePythonFails(t *testing.T) {
	for src, want := range map[string]string{
		`{{ "Y"["text"] + "z" }}`:                 "UndefinedError",
		`{{ x.y }}`:                               "UndefinedError",
		`{% for x in none %}{% endfor %}`:         "'NoneType' object is not iterable",
		`{{ "a" + 1 }}`:                           "TypeError",
		`{% for t in tools %}{{ t }}{% endfor %}`: "'NoneType' object is not iterable",
	} {
		_, err := FromSource("t", src).Render(nil, RenderOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", src, err, want)
		}
	}
}

func TestRunawayMacro(t *testing.T) {
	for _, src := range []string{
		`{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}`,
		`{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}`,
	} {
		tp := &Template{Name: "loop.jinja", Source: src}
		if _, err := tp.Render(nil, RenderOptions{}); err == nil || !strings.Contains(err.Error(), "recurses without end") {
			t.Errorf("runaway recursion %s: %v", src, err)
		}
	}
	// Deep but finite recursion is fine.
	deep := &Template{Name: "deep.jinja", Source: `{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% else %}done{% endif %}{% endmacro %}{{ f(50) }}`}
	if out, err := deep.Render(nil, RenderOptions{}); err != nil || out != "done" {
		t.Errorf("finite recursion: %q, %v", out, err)
	}
}

// Nesting past any real template's fails as an error, never as an
// overflowed stack (which no recover catches): brackets, signs, blocks,
// and a list that holds itself, printed.
func TestDeepNesting(t *testing.T) {
	const n = 200000
	for name, src := range map[string]string{
		"brackets": "{{ " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + " }}",
		"lists":    "{{ " + strings.Repeat("[", n) + strings.Repeat("]", n) + " }}",
		"signs":    "{{ " + strings.Repeat("-", n) + "1 }}",
		"nots":     "{{ " + strings.Repeat("not ", n) + "1 }}",
		"blocks":   strings.Repeat("{% if true %}", n) + strings.Repeat("{% endif %}", n),
	} {
		if _, err := FromSource(name, src).Render(nil, RenderOptions{}); err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("%s nested %d deep: %.200v", name, n, err)
		}
	}
	// Python prints a list met again inside itself as [...].
	for src, want := range map[string]string{
		`{% set l = [1] %}{% set _ = l.append(l) %}{{ l | length }}{{ l }}`:                                "2[1, [...]]",
		`{% set l = [1] %}{% set _ = l.append(l) %}{% set _ = l.append(l) %}{{ l == l }}|{{ l | string }}`: "True|[1, [...], [...]]",
		`{% set d = {} %}{% set _ = d.update({"d": d}) %}{{ d }}`:                                          "{'d': {...}}",
	} {
		got, err := FromSource("self", src).Render(nil, RenderOptions{})
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", src, got, err, want)
		}
	}
}

// Output past its bound stops the render, however long writing it takes
// (no clock here: a busy machine under -race takes seconds to write 16 MiB).
func TestRunawayOutput(t *testing.T) {
	tp := &Template{Name: "big.jinja", Source: `{% for i in range(100000) %}{{ "x" * 1000 }}{% endfor %}`}
	if _, err := tp.RenderContext(context.Background(), nil, RenderOptions{}); err == nil || !strings.Contains(err.Error(), "more than 16 MiB") {
		t.Errorf("runaway output: %v", err)
	}
}

// Firefunction v2's template reads functions and datetime, which
// transformers does not pass; they come as llama.cpp passes them: the
// tools as JSON with an indent of 2 ("" without tools), and the date.
func TestFunctionsAndDatetime(t *testing.T) {
	tp := FromSource("t", `[{{ functions }}]{{ datetime }}`)
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tool := json.RawMessage(`{"type": "function", "function": {"name": "f", "description": "é"}}`)
	got, err := tp.Render(nil, RenderOptions{Tools: []Tool{tool}, Now: now})
	want := "[[\n  {\n    \"type\": \"function\",\n    \"function\": {\n      \"name\": \"f\",\n      \"description\": \"é\"\n    }\n  }\n]]Mar 04 2026 05:06:07 GMT"
	if err != nil || got != want {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
	if got, err := tp.Render(nil, RenderOptions{Now: now}); err != nil || got != "[]Mar 04 2026 05:06:07 GMT" {
		t.Errorf("without tools: %q, %v", got, err)
	}
}
