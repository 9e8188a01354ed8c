#!/usr/bin/env python3
"""Render the test corpus of chat templates with Python's Jinja, set up as
Hugging Face transformers sets it up for apply_chat_template, and store the
renders as the reference TestPythonRenders compares toolcall's renders with.

Regenerate after adding templates or conversations (Python 3 and Jinja2 3.1
are needed here only, not to run the tests):

    python3 parse/chattemplate/testdata/render_python.py

It reads testdata/conversations.json (the conversations, in the key order a
client sends) and every testdata/llamacpp/*.jinja, and writes one
testdata/python/NAME.json per template: for each conversation, the render
or the error the template raised.
"""

import datetime
import json
import pathlib
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = pathlib.Path(__file__).resolve().parent


class Generation(jinja2.ext.Extension):
    """{% generation %} ... {% endgeneration %}: transformers marks the
    assistant's tokens with it; rendering a prompt, only the body is kept."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.Scope(body, lineno=lineno)


def environment(now):
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[Generation, jinja2.ext.loopcontrols],
    )

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        # No HTML escaping, non-ASCII kept: json.dumps as transformers calls it.
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent,
                          separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = now.strftime
    return env


def main():
    data = json.loads((HERE / "conversations.json").read_text())
    now = datetime.datetime.fromisoformat(data["now"].replace("Z", "+00:00"))
    env = environment(now)
    out_dir = HERE / "python"
    out_dir.mkdir(exist_ok=True)
    for path in sorted((HERE / "llamacpp").glob("*.jinja")):
        renders = {}
        try:
            template = env.from_string(path.read_text())
        except jinja2.exceptions.TemplateError as err:
            renders = {c["name"]: {"error": "does not parse: %s" % err} for c in data["conversations"]}
        else:
            for conv in data["conversations"]:
                # transformers passes tools and documents as None when
                # there are none.
                variables = {
                    "messages": conv["messages"],
                    "tools": data["tools"] if conv["tools"] else None,
                    "documents": None,
                    "add_generation_prompt": conv["add_generation_prompt"],
                    "bos_token": "",
                    "eos_token": "",
                    # Not transformers': llama.cpp passes these to
                    # Firefunction v2's template (the tools as JSON with
                    # an indent of 2, and the date), and so does toolcall.
                    "functions": json.dumps(data["tools"], ensure_ascii=False, indent=2) if conv["tools"] else "",
                    "datetime": now.strftime("%b %d %Y %H:%M:%S GMT"),
                }
                try:
                    renders[conv["name"]] = {"render": template.render(**variables)}
                except Exception as err:  # the template's own errors, and Jinja's
                    renders[conv["name"]] = {"error": "%s: %s" % (type(err).__name__, err)}
        target = out_dir / (path.stem + ".json")
        target.write_text(json.dumps(renders, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    print("wrote %d renders with Jinja2 %s" % (len(list(out_dir.glob("*.json"))), jinja2.__version__), file=sys.stderr)


if __name__ == "__main__":
    main()
