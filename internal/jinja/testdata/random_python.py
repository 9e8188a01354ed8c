#!/usr/bin/env python3
"""Random templates rendered by Python's Jinja, set up as transformers sets
it up, for TestRandomLikePython (random_test.go): the render, or the
exception, of each. Python 3 and Jinja2 3.1 are needed here only:

    python3 testdata/random_python.py testdata/random.json SEED COUNT
"""
import json, random, jinja2, jinja2.ext, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
env.filters["tojson"] = tojson
V = {"msgs": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], "n": 3, "s": "Hello", "d": {"z": 1, "a": 2}}
random.seed(int(sys.argv[2]))
atoms = ["1", "2", "0", "-1", "2.5", "0.1", "1e3", "'a'", "'Ab c'", "''", "\"it's\"", "none", "true", "false", "n", "s", "d", "msgs", "msgs[0]", "msgs[0].role", "d.z", "[1, 2]", "['x', 'y']", "(1, 2)", "{'k': 1}", "x", "s[1:]", "s[::-1]", "d['a']", "msgs | length", "range(3)"]
binops = ["+", "-", "*", "/", "//", "%", "~", "==", "!=", "<", ">", "and", "or", "in", "not in"]
filters = ["length", "string", "upper", "lower", "trim", "first", "last", "list", "join", "join(',')", "tojson", "default('q')", "int", "float", "abs", "reverse | list", "sort | list", "unique | list", "items | list", "dictsort", "capitalize", "title", "e", "safe", "count", "map('string') | list", "select | list", "reject | list", "sum", "min", "max", "batch(2) | list", "center(9)", "indent(2)", "replace('a', 'b')", "round(1)", "wordcount"]
tests = ["defined", "none", "string", "number", "integer", "float", "mapping", "sequence", "iterable", "boolean", "true", "false", "odd", "even", "divisibleby 2", "sameas true", "lower", "upper", "in [1, 'a']"]
methods = ["upper()", "lower()", "strip()", "split()", "split(' ')", "startswith('H')", "endswith('o')", "replace('l', 'L')", "find('l')", "count('l')", "title()", "capitalize()", "lstrip('H')", "rstrip('o')", "splitlines()", "zfill(8)", "ljust(7, '*')", "center(8)", "isdigit()", "isalpha()", "partition('l')", "format(1)"]
def expr(d=0):
    r = random.random()
    if d > 2 or r < 0.3: return random.choice(atoms)
    if r < 0.5: return "(%s %s %s)" % (expr(d+1), random.choice(binops), expr(d+1))
    if r < 0.65: return "(%s | %s)" % (expr(d+1), random.choice(filters))
    if r < 0.75: return "(%s is %s%s)" % (expr(d+1), random.choice(["", "not "]), random.choice(tests))
    if r < 0.85: return "s.%s" % random.choice(methods)
    if r < 0.92: return "(%s if %s else %s)" % (expr(d+1), expr(d+1), expr(d+1))
    return "(not %s)" % expr(d+1)
def stmt(d=0):
    r = random.random()
    if d > 1 or r < 0.5: return "{{ %s }}|" % expr()
    if r < 0.7: return "{%% for i in %s %%}[{{ i }}{{ loop.index }}]{%% else %%}E{%% endfor %%}" % random.choice(["[1, 2]", "s", "d", "msgs", "range(3)", "d.items()", "[]", "x"])
    if r < 0.85: return "{%% if %s %%}T%s{%% else %%}F{%% endif %%}" % (expr(), stmt(d+1))
    return "{%% set v = %s %%}{{ v }}|" % expr()
out = []
for i in range(int(sys.argv[3])):
    src = "".join(stmt() for _ in range(3))
    try:
        out.append({"src": src, "want": env.from_string(src).render(**json.loads(json.dumps(V)))})
    except Exception as e:
        out.append({"src": src, "err": type(e).__name__ + ": " + str(e)[:80]})
json.dump(out, open(sys.argv[1], "w"), ensure_ascii=False, indent=0)
