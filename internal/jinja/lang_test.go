package jinja

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// pythonCases are the language feature by feature; each want is what
// Python's Jinja (3.1, set up as transformers sets it up: sandboxed,
// trim_blocks, lstrip_blocks, loop controls, tojson as json.dumps)
// renders with pythonVars, and err the exception it raises instead.
var pythonCases = []struct{ group, name, src, want, err string }{
	{"whitespace", "trim_blocks eats the newline", "{% if true %}\nx\n{% endif %}\ny", "x\ny", ""},
	{"whitespace", "lstrip_blocks drops indentation", "a\n    {% if true %}\n    b\n    {% endif %}\nc", "a\n    b\nc", ""},
	{"whitespace", "minus trims both ways", "a  \n {%- if true -%}  \n b {%- endif %}", "ab", ""},
	{"whitespace", "plus keeps indentation", "a\n  {%+ if true %}b{% endif %}", "a\n  b", ""},
	{"whitespace", "plus keeps the newline", "{% if true +%}\nb{% endif %}", "\nb", ""},
	{"whitespace", "variables are not lstripped", "a\n  {{ 1 }}\n", "a\n  1", ""},
	{"whitespace", "comments strip like blocks", "a\n  {# c #}\nb", "a\nb", ""},
	{"whitespace", "raw", "{% raw %}{{ x }}{% endraw %}", "{{ x }}", ""},
	{"literals", "numbers", "{{ 1 }}|{{ 1.0 }}|{{ 1e3 }}|{{ 1_000 }}|{{ 0.1 + 0.2 }}|{{ 1e20 }}|{{ 1e-5 }}|{{ 123456789012345678.0 }}|{{ -0.0 }}", "1|1.0|1000.0|1000|0.30000000000000004|1e+20|1e-05|1.2345678901234568e+17|-0.0", ""},
	{"literals", "strings and escapes", "{{ 'a\\tb' }}|{{ \"q'\" }}|{{ 'a' \"b\" }}|{{ '\\u00e9\\x41' }}", "a\tb|q'|ab|éA", ""},
	{"literals", "constants", "{{ true }}|{{ False }}|{{ none }}|{{ None }}|[{{ undefined_name }}]", "True|False|None|None|[]", ""},
	{"literals", "lists, tuples and dicts print as Python", "{{ [1, 'a', none, true, 1.5] }}|{{ (1,) }}|{{ (1, 'b') }}|{{ {'k': 'v', 'n': [1]} }}|{{ [\"it's\"] }}|{{ ['a\\nb'] }}", "[1, 'a', None, True, 1.5]|(1,)|(1, 'b')|{'k': 'v', 'n': [1]}|[\"it's\"]|['a\\nb']", ""},
	{"literals", "non-str dict keys", "{% set x = {1: 'a', 2.0: 'b', true: 'c', none: 'n'} %}{{ x }}|{{ x[1] }}{{ x[2] }}|{{ x | tojson }}", "{1: 'c', 2.0: 'b', None: 'n'}|cb|{\"1\": \"c\", \"2.0\": \"b\", \"null\": \"n\"}", ""},
	{"arithmetic", "ints and floats", "{{ 7 // 2 }}|{{ -7 // 2 }}|{{ 7 % 3 }}|{{ -7 % 3 }}|{{ 7 / 2 }}|{{ 4 / 2 }}|{{ 2 ** 10 }}|{{ 2 ** -1 }}|{{ 2 ** 3 ** 2 }}|{{ -2 ** 2 }}|{{ 7.5 // 2 }}|{{ 1 + true }}", "3|-4|1|2|3.5|2.0|1024|0.5|64|4|3.0|2", ""},
	{"arithmetic", "strings and lists", "{{ 'ab' * 3 }}|{{ 2 * 'x' }}|{{ [1] * 2 }}|{{ 'a' + 'b' }}|{{ [1] + [2] }}|{{ 'a' ~ 1 ~ none }}|{{ 'ab' * -1 }}|", "ababab|xx|[1, 1]|ab|[1, 2]|a1None||", ""},
	{"arithmetic", "precedence", "{{ 1 + 2 * 3 }}|{{ (1 + 2) * 3 }}|{{ 10 - 2 - 3 }}|{{ 'a' ~ (1 + 2) }}|{{ not 1 == 2 }}|{{ -3 | abs }}", "7|9|5|a3|True|3", ""},
	{"compare", "comparisons", "{{ 1 < 2 < 3 }}|{{ 1 < 3 < 2 }}|{{ 'a' < 'b' }}|{{ [1, 2] < [1, 3] }}|{{ 1 == 1.0 }}|{{ 1 == true }}|{{ 'a' in 'cat' }}|{{ 2 not in [1] }}|{{ 'z' in d }}", "True|False|True|True|True|True|True|True|True", ""},
	{"compare", "and or return operands", "{{ 0 or 'x' }}|{{ 1 and 'y' }}|{{ '' or [] }}|{{ none and 1 }}", "x|y|[]|None", ""},
	{"compare", "conditional expressions", "{{ 'a' if n > 2 else 'b' }}|{{ 'a' if n > 5 }}|{{ 'x' if false else 'y' if true else 'z' }}", "a||y", ""},
	{"access", "attributes and items", "{{ msgs[0].role }}|{{ msgs[-1]['content'] }}|{{ d.z }}|{{ msgs[5] }}|{{ s[0] }}{{ s[-1] }}|[{{ s.nope }}]", "user|yo|1||Ho|[]", ""},
	{"access", "slices", "{{ s[1:3] }}|{{ s[::-1] }}|{{ s[:-2] }}|{{ [1,2,3,4][1::2] }}|{{ [1,2,3][5:] }}|{{ 'héllo'[1:3] }}|{{ (1,2,3)[:2] }}", "el|olleH|Hel|[2, 4]|[]|él|(1, 2)", ""},
	{"loops", "loop variables", "{% for x in ['a','b','c'] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.previtem }}{{ loop.nextitem }}{{ loop.cycle('o','e') }};{% endfor %}", "103TrueFalse3bo;212FalseFalse3ace;321FalseTrue3bo;", ""},
	{"loops", "else, filter and unpacking", "{% for x in [] %}x{% else %}empty{% endfor %}|{% for x in [1,2,3,4] if x is even %}{{ x }}{{ loop.length }}{% endfor %}|{% for k, v in d.items() %}{{ k }}={{ v }},{% endfor %}|{% for k in d %}{{ k }}{% endfor %}", "empty|2242|z=1,a=2,|za", ""},
	{"loops", "break and continue", "{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}", "0134", ""},
	{"loops", "scopes", "{% set x = 1 %}{% for i in [1, 2] %}{% set x = x + i %}{{ x }}{% endfor %}|{{ x }}", "23|1", ""},
	{"loops", "namespace carries out of a loop", "{% set ns = namespace(c=0, l=[]) %}{% for i in range(4) %}{% set ns.c = ns.c + i %}{% endfor %}{{ ns.c }}", "6", ""},
	{"loops", "recursive", "{% for x in [[1, [2]], 3] recursive %}{% if x is iterable %}({{ loop(x) }}){% else %}{{ x }}@{{ loop.depth }}{% endif %}{% endfor %}", "(1@2(2@3))3@1", ""},
	{"loops", "changed", "{% for x in [1, 1, 2, 2, 3] %}{% if loop.changed(x) %}{{ x }}{% endif %}{% endfor %}", "123", ""},
	{"macros", "defaults, varargs and kwargs", "{% macro m(a, b='B') %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1) }}|{{ m(1, 2, 3) }}|{{ m(1, c=4) }}|{{ m(b=5, a=6) }}", "1B(){}|12(3,){}|1B(){'c': 4}|65(){}", ""},
	{"macros", "kwargs keep the call's order", "{% macro m(a) %}{{ kwargs }}{% endmacro %}{{ m(1, z=1, b=2) }}|{{ m(1, **{'y': 1, 'c': 2}) }}|{% macro w() %}{{ caller(q=1, a=2) }}{% endmacro %}{% call(q, a) w() %}{{ q }}{{ a }}{% endcall %}", "{'z': 1, 'b': 2}|{'y': 1, 'c': 2}|12", ""},
	{"macros", "scopes", "{% macro m() %}{{ g }}{% endmacro %}{% set g = 1 %}{{ m() }}|{% set x = 5 %}{% for i in [1,2] %}{{ x }}{% set x = i %}{{ x }}{% endfor %}{{ x }}|{% for a in [1] %}{% for b in [2] %}{{ loop.index }}{{ a }}{% set a = 9 %}{% endfor %}{{ a }}{% endfor %}|{% set ns = namespace(x=1) %}{{ ns }}", "1|51525|111|<Namespace {'x': 1}>", ""},
	{"macros", "call blocks", "{% macro w(t) %}<{{ caller(t) }}>{% endmacro %}{% call(x) w('v') %}[{{ x }}]{% endcall %}", "<[v]>", ""},
	{"macros", "macros see the template's variables", "{% set g = 'G' %}{% macro m() %}{{ g }}{% endmacro %}{{ m() }}", "G", ""},
	{"blocks", "set block and filter block", "{% set x %}a{{ 1 }}b{% endset %}{{ x }}|{% set y | upper %}q{% endset %}{{ y }}|{% filter upper %}f{{ 'g' }}{% endfilter %}", "a1b|Q|FG", ""},
	{"blocks", "with", "{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}[{{ a }}]", "3[]", ""},
	{"filters", "strings", "{{ 'ab' | upper }}|{{ 'AB' | lower }}|{{ '  x ' | trim }}|{{ 'xxaxx' | trim('x') }}|{{ 'hello world' | title }}|{{ 'hELLO' | capitalize }}|{{ 'a-b' | replace('-', '+') }}|{{ 'abc' | center(7) }}|{{ 'a b  c' | wordcount }}|{{ 'abc' | reverse }}", "AB|ab|x|a|Hello World|Hello|a+b|  abc  |3|cba", ""},
	{"filters", "length, first, last, join", "{{ msgs | length }}|{{ 'héllo' | length }}|{{ d | length }}|{{ [1,2,3] | first }}|{{ [1,2,3] | last }}|{{ [1,2,3] | join('-') }}|{{ msgs | join(',', attribute='role') }}|{{ undefined_name | length }}", "2|5|2|1|3|1-2-3|user,assistant|0", ""},
	{"filters", "default", "{{ x | default('d') }}|{{ none | default('d') }}|{{ '' | default('d', true) }}|{{ 0 | d('z', boolean=true) }}", "d|None|d|z", ""},
	{"filters", "numbers", "{{ '42' | int }}|{{ '4.7' | int }}|{{ 'x' | int(7) }}|{{ 3 | float }}|{{ '2.5' | float }}|{{ 2.567 | round(2) }}|{{ 2.5 | round }}|{{ 2.1 | round(0, 'ceil') }}|{{ [1, 2.5] | sum }}|{{ [3, 1, 2] | min }}{{ [3, 1, 2] | max }}", "42|4|7|3.0|2.5|2.57|2.0|3.0|3.5|13", ""},
	{"filters", "lists", "{{ [3, 1, 2] | sort }}|{{ ['b', 'A', 'a'] | sort }}|{{ [3, 1, 2] | sort(reverse=true) }}|{{ ['a', 'A', 'b'] | unique | list }}|{{ [1, 2, 3] | reverse | list }}|{{ 'ab' | list }}|{{ [1, 2, 3, 4, 5] | batch(2) | list }}|{{ msgs | sort(attribute='role', reverse=true) | map(attribute='role') | join }}", "[1, 2, 3]|['A', 'a', 'b']|[3, 2, 1]|['a', 'b']|[3, 2, 1]|['a', 'b']|[[1, 2], [3, 4], [5]]|userassistant", ""},
	{"filters", "dicts", "{{ d | dictsort }}|{{ d | dictsort(by='value', reverse=true) }}|{{ d | items | list }}|{% for k, v in d | items %}{{ k }}{{ v }}{% endfor %}", "[('a', 2), ('z', 1)]|[('a', 2), ('z', 1)]|[('z', 1), ('a', 2)]|z1a2", ""},
	{"filters", "map, select, reject", "{{ ['a', 'b'] | map('upper') | join }}|{{ msgs | map(attribute='role') | list }}|{{ [1, 2, 3, 4] | select('odd') | list }}|{{ [1, 2, 3] | reject('equalto', 2) | list }}|{{ msgs | selectattr('role', 'equalto', 'user') | map(attribute='content') | join }}|{{ [0, 1, '', 'a'] | select | list }}|{{ none | select | list }}", "AB|['user', 'assistant']|[1, 3]|[1, 3]|hi|[1, 'a']|[]", ""},
	{"filters", "generators", "{{ [1, 2] | map('string') | join(',') }}|{% set g = [1, 2] | select %}{% for x in g %}{{ x }}{% endfor %}{% for x in g %}{{ x }}{% endfor %}", "1,2|12", ""},
	{"filters", "tojson as transformers", "{{ d | tojson }}|{{ d | tojson(indent=2) }}|{{ d | tojson(sort_keys=true) }}|{{ ['é', '\"', none, 1.0, true] | tojson }}|{{ d | tojson(separators=(',', ':')) }}|{{ (1, 2) | tojson }}", "{\"z\": 1, \"a\": 2}|{\n  \"z\": 1,\n  \"a\": 2\n}|{\"a\": 2, \"z\": 1}|[\"é\", \"\\\"\", null, 1.0, true]|{\"z\":1,\"a\":2}|[1, 2]", ""},
	{"filters", "indent", "{{ 'a\\nb\\n\\nc' | indent }}|{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n\\nb' | indent(1, blank=true) }}|{{ 'a\\nb' | indent('> ') }}", "a\n    b\n\n    c|  a\n  b|a\n \n b|a\n> b", ""},
	{"filters", "safe and escape", "{{ '<a>' | e }}|{{ '<a>' | safe }}|{{ ('<b>' | safe) + '<i>' }}|{{ '<i>' + ('<b>' | safe) }}|{{ ('<b>' | safe) ~ '<i>' }}|{{ '\"' | escape }}|{{ '<' | safe is escaped }}", "&lt;a&gt;|<a>|<b>&lt;i&gt;|&lt;i&gt;<b>|<b><i>|&#34;|True", ""},
	{"filters", "string, list, attr", "{{ 1 | string }}|{{ [1] | string }}|{{ none | string }}|{{ msgs[0] | attr('role') }}|{{ d | list }}", "1|[1]|None||['z', 'a']", ""},
	{"tests", "kinds", "{{ x is defined }}{{ n is defined }}{{ none is none }}{{ 1 is number }}{{ true is number }}{{ 1 is integer }}{{ true is integer }}{{ 1.0 is float }}{{ 's' is string }}{{ d is mapping }}{{ msgs is sequence }}{{ s is iterable }}{{ 1 is iterable }}{{ x is sequence }}{{ true is boolean }}{{ range is callable }}", "FalseTrueTrueTrueTrueTrueFalseTrueTrueTrueTrueTrueFalseTrueTrueTrue", ""},
	{"tests", "values", "{{ 3 is odd }}{{ 4 is even }}{{ 9 is divisibleby 3 }}{{ 1 is sameas true }}{{ true is sameas true }}{{ 2 is in [1, 2] }}{{ 'ab' is lower }}{{ 'AB' is upper }}{{ 1 is eq 1 }}{{ 2 is gt 1 }}{{ 1 is not ge 2 }}{{ none is not none }}{{ true is true }}{{ 0 is false }}", "TrueTrueTrueFalseTrueTrueTrueTrueTrueTrueTrueFalseTrueFalse", ""},
	{"methods", "str methods", "{{ s.upper() }}|{{ s.lower() }}|{{ '  a '.strip() }}|{{ 'xxa'.lstrip('x') }}|{{ 'a b c'.split() }}|{{ 'a,b,c'.split(',', 1) }}|{{ s.startswith('He') }}{{ s.endswith(('x', 'o')) }}|{{ s.replace('l', 'L') }}|{{ s.find('l') }}{{ s.rfind('l') }}{{ s.count('l') }}|{{ '-'.join(['a', 'b']) }}|{{ 'ab'.ljust(4, '.') }}|{{ 'ab'.rjust(4) }}|{{ 'hello world'.title() }}|{{ 'a\\nb'.splitlines() }}", "HELLO|hello|a|a|['a', 'b', 'c']|['a', 'b,c']|TrueTrue|HeLLo|232|a-b|ab..|  ab|Hello World|['a', 'b']", ""},
	{"methods", "dict and list methods", "{{ d.keys() | list }}|{{ d.values() | list }}|{{ d.items() | list }}|{{ d.get('z') }}{{ d.get('q') }}{{ d.get('q', 0) }}|{{ [1, 2, 1].count(1) }}{{ [1, 2].index(2) }}", "['z', 'a']|[1, 2]|[('z', 1), ('a', 2)]|1None0|21", ""},
	{"methods", "more str methods", "{{ 'a b  c'.split(None, 1) }}|{{ 'a,b,c'.rsplit(',', 1) }}|{{ 'x=1'.partition('=') }}|{{ 'pre-x'.removeprefix('pre-') }}|{{ '7'.zfill(3) }}|{{ 'they're'.title() }}|{{ 'Ab'.swapcase() }}|{{ '12'.isdigit() }}{{ 'a1'.isalnum() }}{{ ' '.isspace() }}|{{ 'a\tb'.expandtabs(4) }}|{{ 'a\r\nb'.splitlines(true) }}", "", "TemplateSyntaxError"},
	{"formatting", "str % values", "{{ 'video_%02d' % 3 }}|{{ '%s-%s' % ('a', 1) }}|{{ '%(k)s' % {'k': 'v'} }}|{{ '%5.1f|%-4s|%x|%r' % (3.14159, 'l', 255, 'q') }}|{{ '%d%%' % 50 }}", "video_03|a-1|v|  3.1|l   |ff|'q'|50%", ""},
	{"formatting", "format filter and str.format", "{{ '%s=%d' | format('a', 7) }}|{{ '%(k)s' | format(k='v') }}|{{ '{} and {name}'.format('x', name='n') }}|{{ '{0:>4}|{1:.2f}|{2:,}'.format('x', 2.5, 1234567) }}|{{ '{a[b]}'.format_map({'a': {'b': 1}}) }}", "a=7|v|x and n|   x|2.50|1,234,567|1", ""},
	{"globals", "range, namespace, dict", "{{ range(3) | list }}|{{ range(1, 7, 2) | list }}|{{ range(5, 0, -2) | list }}|{% set ns = namespace(a=1) %}{{ ns.a }}|{{ dict(a=1, b=2) }}", "[0, 1, 2]|[1, 3, 5]|[5, 3, 1]|1|{'a': 1, 'b': 2}", ""},
	{"errors", "undefined attribute of undefined", "{{ x.y }}", "", "UndefinedError"},
	{"errors", "str plus int", "{{ 'a' + 1 }}", "", "TypeError"},
	{"errors", "int plus str", "{{ 1 + 'a' }}", "", "TypeError"},
	{"errors", "iterating None", "{% for x in none %}{% endfor %}", "", "TypeError"},
	{"errors", "~ binds tighter than +", "{{ 'a' ~ 1 + 2 }}", "", "TypeError"},
	{"errors", "too few arguments for %", "{{ '%s %s' % 'a' }}", "", "TypeError"},
	{"errors", "division by zero", "{{ 1 / 0 }}", "", "ZeroDivisionError"},
	{"errors", "length of a generator", "{{ [1] | map('string') | length }}", "", "TypeError"},
	{"errors", "ordering str and int", "{{ 'a' < 1 }}", "", "TypeError"},
	{"errors", "an unknown filter", "{{ 1 | nope }}", "", "TemplateAssertionError"},
	{"errors", "an unknown filter in an if not taken", "{% if false %}{{ 1 | nope }}{% endif %}ok", "ok", ""},
	{"errors", "an unknown tag", "{% frobnicate %}", "", "TemplateSyntaxError"},
	{"errors", "unclosed block", "{% if true %}x", "", "TemplateSyntaxError"},
	{"errors", "set attribute of a non-namespace", "{% set d.x = 1 %}", "", "TemplateRuntimeError"},
}

// pythonVars are the variables the cases render with.
func pythonVars() map[string]Value {
	msgs := []Value{dict("role", "user", "content", "hi"), dict("role", "assistant", "content", "yo")}
	return map[string]Value{
		"msgs": NewList(msgs), "n": NewInt(3), "s": NewString("Hello"),
		"d": dict("z", NewInt(1), "a", NewInt(2)),
	}
}

func dict(kv ...any) Value {
	d := NewDict()
	for i := 0; i < len(kv); i += 2 {
		v, ok := kv[i+1].(Value)
		if !ok {
			v = FromGoValue(kv[i+1])
		}
		d.AsDict().Set(kv[i].(string), v)
	}
	return d
}

func TestLikePython(t *testing.T) {
	for _, c := range pythonCases {
		t.Run(c.group+"/"+c.name, func(t *testing.T) {
			got, err := render(c.src, pythonVars())
			switch {
			case c.err != "" && err == nil:
				t.Errorf("%s\nrendered %q; Python raises %s", c.src, got, c.err)
			case c.err != "":
				if !strings.Contains(err.Error(), c.err) && !pythonClass(err, c.err) {
					t.Logf("%s: %v (Python: %s)", c.src, err, c.err)
				}
			case err != nil:
				t.Errorf("%s\nfails: %v; Python renders %q", c.src, err, c.want)
			case got != c.want:
				t.Errorf("%s\ngot    %q\nPython %q", c.src, got, c.want)
			}
		})
	}
}

// pythonClass reports whether err is the kind of error Python's class
// names: a parse error for TemplateSyntaxError, a missing filter for
// TemplateAssertionError.
func pythonClass(err error, class string) bool {
	var se *SyntaxError
	var re *RenderError
	switch class {
	case "TemplateSyntaxError", "TemplateAssertionError":
		return errors.As(err, &se)
	}
	return errors.As(err, &re) && re.Type == class
}

func render(src string, vars map[string]Value) (string, error) {
	t, err := Compile(src)
	if err != nil {
		return "", err
	}
	return t.Render(context.Background(), vars, &Options{Limits: Limits{Steps: 100000, Output: 1 << 20, String: 1 << 20, Items: 1 << 16, Depth: 100}})
}
