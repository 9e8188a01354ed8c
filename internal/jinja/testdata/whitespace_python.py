#!/usr/bin/env python3
"""Random templates of text, tags and whitespace control (trim_blocks,
lstrip_blocks, "-" and "+", comments, raw, set and filter blocks, macros)
rendered by Python's Jinja set up as transformers sets it up, for
TestRandomLikePython. Python 3 and Jinja2 3.1 are needed here only:

    python3 testdata/whitespace_python.py testdata/whitespace.json SEED COUNT
"""
import json, random, jinja2, jinja2.ext, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
random.seed(int(sys.argv[2]))
texts = ["", " ", "  ", "\n", "\n\n", " \n ", "\t", "a", " b ", "\n  c\n", "x\n   ", "  \n\t"]
def mod(): return random.choice(["", "", "-", "+"])
def endmod(): return random.choice(["", "", "-", "+"])
def tag(body):
    return "{%" + mod() + " " + body + " " + endmod().replace("+", random.choice(["+", ""])) + "%}"
def var(): return "{{" + random.choice(["", "-"]) + " " + random.choice(["1", "'v'", "n", "loop.index if loop is defined else 0"]) + " " + random.choice(["", "-"]) + "}}"
def comment(): return "{#" + random.choice(["", "-"]) + " c " + random.choice(["", "-"]) + "#}"
def t(): return random.choice(texts)
def block(d=0):
    parts = []
    for _ in range(random.randint(1, 4)):
        r = random.random()
        parts.append(t())
        if r < 0.3 or d > 1: parts.append(var())
        elif r < 0.4: parts.append(comment())
        elif r < 0.6: parts.append(tag("if n > 1") + block(d+1) + tag(random.choice(["else", "elif false"])) + block(d+1) + tag("endif"))
        elif r < 0.8: parts.append(tag("for i in [1, 2]") + block(d+1) + tag("endfor"))
        elif r < 0.9: parts.append(tag("set x = 1"))
        elif r < 0.93: parts.append(tag("macro m()") + block(d+1) + tag("endmacro") + t() + "{{ m() }}")
        elif r < 0.96: parts.append(tag("set y") + block(d+1) + tag("endset") + t() + "{{ y }}")
        elif r < 0.98: parts.append(tag("raw") + t() + "{{ x }}" + t() + tag("endraw"))
        else: parts.append(tag("filter upper") + block(d+1) + tag("endfilter"))
        parts.append(t())
    return "".join(parts)
out = []
for i in range(int(sys.argv[3])):
    src = block()
    try:
        out.append({"src": src, "want": env.from_string(src).render(n=3)})
    except Exception as e:
        out.append({"src": src, "err": type(e).__name__ + ": " + str(e)[:80]})
json.dump(out, open(sys.argv[1], "w"), ensure_ascii=False, indent=0)
