#!/usr/bin/env python3
"""The cases of lang_test.go, rendered by Python's Jinja set up as
transformers sets it up: writes the table's lines (group, name, source,
render, exception) to paste into pythonCases.

    python3 testdata/cases_python.py /tmp/cases.txt
"""
import json, jinja2, jinja2.ext, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
env.filters["tojson"] = tojson
V = {"msgs": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], "n": 3, "s": "Hello", "d": {"z": 1, "a": 2}}
cases = [
 # group, name, src
 ("whitespace", "trim_blocks eats the newline", "{% if true %}\nx\n{% endif %}\ny"),
 ("whitespace", "lstrip_blocks drops indentation", "a\n    {% if true %}\n    b\n    {% endif %}\nc"),
 ("whitespace", "minus trims both ways", "a  \n {%- if true -%}  \n b {%- endif %}"),
 ("whitespace", "plus keeps indentation", "a\n  {%+ if true %}b{% endif %}"),
 ("whitespace", "plus keeps the newline", "{% if true +%}\nb{% endif %}"),
 ("whitespace", "variables are not lstripped", "a\n  {{ 1 }}\n"),
 ("whitespace", "comments strip like blocks", "a\n  {# c #}\nb"),
 ("whitespace", "raw", "{% raw %}{{ x }}{% endraw %}"),
 ("literals", "numbers", "{{ 1 }}|{{ 1.0 }}|{{ 1e3 }}|{{ 1_000 }}|{{ 0.1 + 0.2 }}|{{ 1e20 }}|{{ 1e-5 }}|{{ 123456789012345678.0 }}|{{ -0.0 }}"),
 ("literals", "strings and escapes", "{{ 'a\\tb' }}|{{ \"q'\" }}|{{ 'a' \"b\" }}|{{ '\\u00e9\\x41' }}"),
 ("literals", "constants", "{{ true }}|{{ False }}|{{ none }}|{{ None }}|[{{ undefined_name }}]"),
 ("literals", "lists, tuples and dicts print as Python", "{{ [1, 'a', none, true, 1.5] }}|{{ (1,) }}|{{ (1, 'b') }}|{{ {'k': 'v', 'n': [1]} }}|{{ [\"it's\"] }}|{{ ['a\\nb'] }}"),
 ("literals", "non-str dict keys", "{% set x = {1: 'a', 2.0: 'b', true: 'c', none: 'n'} %}{{ x }}|{{ x[1] }}{{ x[2] }}|{{ x | tojson }}"),
 ("arithmetic", "ints and floats", "{{ 7 // 2 }}|{{ -7 // 2 }}|{{ 7 % 3 }}|{{ -7 % 3 }}|{{ 7 / 2 }}|{{ 4 / 2 }}|{{ 2 ** 10 }}|{{ 2 ** -1 }}|{{ 2 ** 3 ** 2 }}|{{ -2 ** 2 }}|{{ 7.5 // 2 }}|{{ 1 + true }}"),
 ("arithmetic", "strings and lists", "{{ 'ab' * 3 }}|{{ 2 * 'x' }}|{{ [1] * 2 }}|{{ 'a' + 'b' }}|{{ [1] + [2] }}|{{ 'a' ~ 1 ~ none }}|{{ 'ab' * -1 }}|"),
 ("arithmetic", "precedence", "{{ 1 + 2 * 3 }}|{{ (1 + 2) * 3 }}|{{ 10 - 2 - 3 }}|{{ 'a' ~ (1 + 2) }}|{{ not 1 == 2 }}|{{ -3 | abs }}"),
 ("compare", "comparisons", "{{ 1 < 2 < 3 }}|{{ 1 < 3 < 2 }}|{{ 'a' < 'b' }}|{{ [1, 2] < [1, 3] }}|{{ 1 == 1.0 }}|{{ 1 == true }}|{{ 'a' in 'cat' }}|{{ 2 not in [1] }}|{{ 'z' in d }}"),
 ("compare", "and or return operands", "{{ 0 or 'x' }}|{{ 1 and 'y' }}|{{ '' or [] }}|{{ none and 1 }}"),
 ("compare", "conditional expressions", "{{ 'a' if n > 2 else 'b' }}|{{ 'a' if n > 5 }}|{{ 'x' if false else 'y' if true else 'z' }}"),
 ("access", "attributes and items", "{{ msgs[0].role }}|{{ msgs[-1]['content'] }}|{{ d.z }}|{{ msgs[5] }}|{{ s[0] }}{{ s[-1] }}|[{{ s.nope }}]"),
 ("access", "slices", "{{ s[1:3] }}|{{ s[::-1] }}|{{ s[:-2] }}|{{ [1,2,3,4][1::2] }}|{{ [1,2,3][5:] }}|{{ 'héllo'[1:3] }}|{{ (1,2,3)[:2] }}"),
 ("loops", "loop variables", "{% for x in ['a','b','c'] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.previtem }}{{ loop.nextitem }}{{ loop.cycle('o','e') }};{% endfor %}"),
 ("loops", "else, filter and unpacking", "{% for x in [] %}x{% else %}empty{% endfor %}|{% for x in [1,2,3,4] if x is even %}{{ x }}{{ loop.length }}{% endfor %}|{% for k, v in d.items() %}{{ k }}={{ v }},{% endfor %}|{% for k in d %}{{ k }}{% endfor %}"),
 ("loops", "break and continue", "{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}"),
 ("loops", "scopes", "{% set x = 1 %}{% for i in [1, 2] %}{% set x = x + i %}{{ x }}{% endfor %}|{{ x }}"),
 ("loops", "namespace carries out of a loop", "{% set ns = namespace(c=0, l=[]) %}{% for i in range(4) %}{% set ns.c = ns.c + i %}{% endfor %}{{ ns.c }}"),
 ("loops", "recursive", "{% for x in [[1, [2]], 3] recursive %}{% if x is iterable %}({{ loop(x) }}){% else %}{{ x }}@{{ loop.depth }}{% endif %}{% endfor %}"),
 ("loops", "changed", "{% for x in [1, 1, 2, 2, 3] %}{% if loop.changed(x) %}{{ x }}{% endif %}{% endfor %}"),
 ("macros", "defaults, varargs and kwargs", "{% macro m(a, b='B') %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1) }}|{{ m(1, 2, 3) }}|{{ m(1, c=4) }}|{{ m(b=5, a=6) }}"),
 ("macros", "kwargs keep the call's order", "{% macro m(a) %}{{ kwargs }}{% endmacro %}{{ m(1, z=1, b=2) }}|{{ m(1, **{'y': 1, 'c': 2}) }}|{% macro w() %}{{ caller(q=1, a=2) }}{% endmacro %}{% call(q, a) w() %}{{ q }}{{ a }}{% endcall %}"),
 ("macros", "scopes", "{% macro m() %}{{ g }}{% endmacro %}{% set g = 1 %}{{ m() }}|{% set x = 5 %}{% for i in [1,2] %}{{ x }}{% set x = i %}{{ x }}{% endfor %}{{ x }}|{% for a in [1] %}{% for b in [2] %}{{ loop.index }}{{ a }}{% set a = 9 %}{% endfor %}{{ a }}{% endfor %}|{% set ns = namespace(x=1) %}{{ ns }}"),
 ("macros", "call blocks", "{% macro w(t) %}<{{ caller(t) }}>{% endmacro %}{% call(x) w('v') %}[{{ x }}]{% endcall %}"),
 ("macros", "macros see the template's variables", "{% set g = 'G' %}{% macro m() %}{{ g }}{% endmacro %}{{ m() }}"),
 ("blocks", "set block and filter block", "{% set x %}a{{ 1 }}b{% endset %}{{ x }}|{% set y | upper %}q{% endset %}{{ y }}|{% filter upper %}f{{ 'g' }}{% endfilter %}"),
 ("blocks", "with", "{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}[{{ a }}]"),
 ("filters", "strings", "{{ 'ab' | upper }}|{{ 'AB' | lower }}|{{ '  x ' | trim }}|{{ 'xxaxx' | trim('x') }}|{{ 'hello world' | title }}|{{ 'hELLO' | capitalize }}|{{ 'a-b' | replace('-', '+') }}|{{ 'abc' | center(7) }}|{{ 'a b  c' | wordcount }}|{{ 'abc' | reverse }}"),
 ("filters", "length, first, last, join", "{{ msgs | length }}|{{ 'héllo' | length }}|{{ d | length }}|{{ [1,2,3] | first }}|{{ [1,2,3] | last }}|{{ [1,2,3] | join('-') }}|{{ msgs | join(',', attribute='role') }}|{{ undefined_name | length }}"),
 ("filters", "default", "{{ x | default('d') }}|{{ none | default('d') }}|{{ '' | default('d', true) }}|{{ 0 | d('z', boolean=true) }}"),
 ("filters", "numbers", "{{ '42' | int }}|{{ '4.7' | int }}|{{ 'x' | int(7) }}|{{ 3 | float }}|{{ '2.5' | float }}|{{ 2.567 | round(2) }}|{{ 2.5 | round }}|{{ 2.1 | round(0, 'ceil') }}|{{ [1, 2.5] | sum }}|{{ [3, 1, 2] | min }}{{ [3, 1, 2] | max }}"),
 ("filters", "lists", "{{ [3, 1, 2] | sort }}|{{ ['b', 'A', 'a'] | sort }}|{{ [3, 1, 2] | sort(reverse=true) }}|{{ ['a', 'A', 'b'] | unique | list }}|{{ [1, 2, 3] | reverse | list }}|{{ 'ab' | list }}|{{ [1, 2, 3, 4, 5] | batch(2) | list }}|{{ msgs | sort(attribute='role', reverse=true) | map(attribute='role') | join }}"),
 ("filters", "dicts", "{{ d | dictsort }}|{{ d | dictsort(by='value', reverse=true) }}|{{ d | items | list }}|{% for k, v in d | items %}{{ k }}{{ v }}{% endfor %}"),
 ("filters", "map, select, reject", "{{ ['a', 'b'] | map('upper') | join }}|{{ msgs | map(attribute='role') | list }}|{{ [1, 2, 3, 4] | select('odd') | list }}|{{ [1, 2, 3] | reject('equalto', 2) | list }}|{{ msgs | selectattr('role', 'equalto', 'user') | map(attribute='content') | join }}|{{ [0, 1, '', 'a'] | select | list }}|{{ none | select | list }}"),
 ("filters", "generators", "{{ [1, 2] | map('string') | join(',') }}|{% set g = [1, 2] | select %}{% for x in g %}{{ x }}{% endfor %}{% for x in g %}{{ x }}{% endfor %}"),
 ("filters", "tojson as transformers", "{{ d | tojson }}|{{ d | tojson(indent=2) }}|{{ d | tojson(sort_keys=true) }}|{{ ['é', '\"', none, 1.0, true] | tojson }}|{{ d | tojson(separators=(',', ':')) }}|{{ (1, 2) | tojson }}"),
 ("filters", "indent", "{{ 'a\\nb\\n\\nc' | indent }}|{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n\\nb' | indent(1, blank=true) }}|{{ 'a\\nb' | indent('> ') }}"),
 ("filters", "safe and escape", "{{ '<a>' | e }}|{{ '<a>' | safe }}|{{ ('<b>' | safe) + '<i>' }}|{{ '<i>' + ('<b>' | safe) }}|{{ ('<b>' | safe) ~ '<i>' }}|{{ '\"' | escape }}|{{ '<' | safe is escaped }}"),
 ("filters", "string, list, attr", "{{ 1 | string }}|{{ [1] | string }}|{{ none | string }}|{{ msgs[0] | attr('role') }}|{{ d | list }}"),
 ("tests", "kinds", "{{ x is defined }}{{ n is defined }}{{ none is none }}{{ 1 is number }}{{ true is number }}{{ 1 is integer }}{{ true is integer }}{{ 1.0 is float }}{{ 's' is string }}{{ d is mapping }}{{ msgs is sequence }}{{ s is iterable }}{{ 1 is iterable }}{{ x is sequence }}{{ true is boolean }}{{ range is callable }}"),
 ("tests", "values", "{{ 3 is odd }}{{ 4 is even }}{{ 9 is divisibleby 3 }}{{ 1 is sameas true }}{{ true is sameas true }}{{ 2 is in [1, 2] }}{{ 'ab' is lower }}{{ 'AB' is upper }}{{ 1 is eq 1 }}{{ 2 is gt 1 }}{{ 1 is not ge 2 }}{{ none is not none }}{{ true is true }}{{ 0 is false }}"),
 ("methods", "str methods", "{{ s.upper() }}|{{ s.lower() }}|{{ '  a '.strip() }}|{{ 'xxa'.lstrip('x') }}|{{ 'a b c'.split() }}|{{ 'a,b,c'.split(',', 1) }}|{{ s.startswith('He') }}{{ s.endswith(('x', 'o')) }}|{{ s.replace('l', 'L') }}|{{ s.find('l') }}{{ s.rfind('l') }}{{ s.count('l') }}|{{ '-'.join(['a', 'b']) }}|{{ 'ab'.ljust(4, '.') }}|{{ 'ab'.rjust(4) }}|{{ 'hello world'.title() }}|{{ 'a\\nb'.splitlines() }}"),
 ("methods", "dict and list methods", "{{ d.keys() | list }}|{{ d.values() | list }}|{{ d.items() | list }}|{{ d.get('z') }}{{ d.get('q') }}{{ d.get('q', 0) }}|{{ [1, 2, 1].count(1) }}{{ [1, 2].index(2) }}"),
 ("methods", "more str methods", "{{ 'a b  c'.split(None, 1) }}|{{ 'a,b,c'.rsplit(',', 1) }}|{{ 'x=1'.partition('=') }}|{{ 'pre-x'.removeprefix('pre-') }}|{{ '7'.zfill(3) }}|{{ 'they\'re'.title() }}|{{ 'Ab'.swapcase() }}|{{ '12'.isdigit() }}{{ 'a1'.isalnum() }}{{ ' '.isspace() }}|{{ 'a\tb'.expandtabs(4) }}|{{ 'a\r\nb'.splitlines(true) }}"),
 ("formatting", "str % values", "{{ 'video_%02d' % 3 }}|{{ '%s-%s' % ('a', 1) }}|{{ '%(k)s' % {'k': 'v'} }}|{{ '%5.1f|%-4s|%x|%r' % (3.14159, 'l', 255, 'q') }}|{{ '%d%%' % 50 }}"),
 ("formatting", "format filter and str.format", "{{ '%s=%d' | format('a', 7) }}|{{ '%(k)s' | format(k='v') }}|{{ '{} and {name}'.format('x', name='n') }}|{{ '{0:>4}|{1:.2f}|{2:,}'.format('x', 2.5, 1234567) }}|{{ '{a[b]}'.format_map({'a': {'b': 1}}) }}"),
 ("globals", "range, namespace, dict", "{{ range(3) | list }}|{{ range(1, 7, 2) | list }}|{{ range(5, 0, -2) | list }}|{% set ns = namespace(a=1) %}{{ ns.a }}|{{ dict(a=1, b=2) }}"),
 ("errors", "undefined attribute of undefined", "{{ x.y }}"),
 ("errors", "str plus int", "{{ 'a' + 1 }}"),
 ("errors", "int plus str", "{{ 1 + 'a' }}"),
 ("errors", "iterating None", "{% for x in none %}{% endfor %}"),
 ("errors", "~ binds tighter than +", "{{ 'a' ~ 1 + 2 }}"),
 ("errors", "too few arguments for %", "{{ '%s %s' % 'a' }}"),
 ("errors", "division by zero", "{{ 1 / 0 }}"),
 ("errors", "length of a generator", "{{ [1] | map('string') | length }}"),
 ("errors", "ordering str and int", "{{ 'a' < 1 }}"),
 ("errors", "an unknown filter", "{{ 1 | nope }}"),
 ("errors", "an unknown filter in an if not taken", "{% if false %}{{ 1 | nope }}{% endif %}ok"),
 ("errors", "an unknown tag", "{% frobnicate %}"),
 ("errors", "unclosed block", "{% if true %}x"),
 ("errors", "set attribute of a non-namespace", "{% set d.x = 1 %}"),
]
out = []
for group, name, src in cases:
    try:
        r = env.from_string(src).render(**V)
        out.append({"group": group, "name": name, "src": src, "want": r})
    except Exception as e:
        out.append({"group": group, "name": name, "src": src, "err": type(e).__name__})
lines = []
for c in out:
    lines.append("\t{%s, %s, %s, %s, %s}," % (json.dumps(c["group"]), json.dumps(c["name"]), json.dumps(c["src"], ensure_ascii=False), json.dumps(c.get("want", ""), ensure_ascii=False), json.dumps(c.get("err", ""))))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
