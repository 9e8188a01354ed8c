#!/usr/bin/env python3
"""Random templates of control flow (for loops with else, conditions,
unpacking and the loop variable, break and continue, if and elif, set,
namespace, macros with defaults, varargs and kwargs, call blocks, with)
rendered by Python's Jinja set up as transformers sets it up, for
TestRandomLikePython. Python 3 and Jinja2 3.1 are needed here only:

    python3 testdata/control_python.py testdata/control.json SEED COUNT
"""
import json, random, jinja2, jinja2.ext, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
random.seed(int(sys.argv[2]))
V = {"msgs": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}, {"role": "tool", "content": "r"}], "n": 3, "s": "Hello", "d": {"z": 1, "a": 2}}
vals = ["1", "'a'", "n", "x", "i", "j", "ns.c", "loop.index", "loop.index0", "loop.revindex", "loop.first", "loop.last", "loop.length", "loop.previtem", "loop.nextitem", "loop.depth", "loop.cycle('a', 'b')", "m.role", "m.content", "m['tool_calls']", "m.tool_calls is defined", "varargs", "kwargs", "caller is defined", "a", "b"]
iters = ["[1, 2, 3]", "msgs", "range(n)", "d", "d.items()", "[]", "s", "msgs | selectattr('role', 'equalto', 'user')", "msgs[1:]", "msgs | reverse"]
def v(): return random.choice(vals)
def body(d):
    parts = []
    for _ in range(random.randint(1, 3)):
        r = random.random()
        if r < 0.3 or d > 2: parts.append("{{ %s }}," % v())
        elif r < 0.45:
            tgt = random.choice(["i", "m", "i", "(k, w)" if random.random() < 0.3 else "j"])
            parts.append("{%% for %s in %s%s %%}%s{%% else %%}E{%% endfor %%}" % (tgt, random.choice(iters), random.choice(["", "", " if loop is not defined or true", " if %s" % v()]), body(d+1)))
        elif r < 0.55: parts.append("{%% if %s %%}%s{%% elif %s %%}%s{%% endif %%}" % (v(), body(d+1), v(), body(d+1)))
        elif r < 0.65: parts.append("{%% set x = %s %%}" % v())
        elif r < 0.72: parts.append("{%% set ns.c = ns.c + 1 %%}")
        elif r < 0.78: parts.append(random.choice(["{% break %}", "{% continue %}"]) if d > 0 else "{{ n }}")
        elif r < 0.86: parts.append("{{ mac(%s) }}" % random.choice(["", "1", "1, 2", "1, 2, 3", "b=5", "1, z=2", "a=1, b=2, c=3"]))
        elif r < 0.92: parts.append("{%% call(q) cm(%s) %%}[{{ q }}%s]{%% endcall %%}" % (random.choice(["1", "'w'", ""]), "{{ x }}"))
        else: parts.append("{%% with x = %s %%}{{ x }}{%% endwith %%}" % v())
    return "".join(parts)
pre = "{% set ns = namespace(c=0) %}{% macro mac(a, b=2) %}<{{ a }}|{{ b }}|{{ varargs }}|{{ kwargs }}|{{ x }}>{% endmacro %}{% macro cm(a='d') %}({{ caller(a) }}){% endmacro %}"
out = []
for i in range(int(sys.argv[3])):
    src = pre + body(0) + "{{ ns.c }}{{ x }}"
    try:
        out.append({"src": src, "want": env.from_string(src).render(**json.loads(json.dumps(V)))})
    except Exception as e:
        out.append({"src": src, "err": type(e).__name__ + ": " + str(e)[:80]})
json.dump(out, open(sys.argv[1], "w"), ensure_ascii=False, indent=0)
