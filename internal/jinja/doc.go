// Package jinja is a Jinja template engine for LLM chat templates, written
// for toolcall from the Jinja2 template designer documentation and from
// what Python's Jinja does, set up as Hugging Face transformers sets it up
// (sandboxed, trim_blocks, lstrip_blocks, loop controls).
//
// A chat template is code from outside, so the bounds are part of the
// engine: every loop iteration, call and value-building operator is a
// step, checked against Limits and the render's context where the work
// happens; strings and lists are sized before they are built; parsing
// and macro calls nest to a bound. There is no loader: include, import,
// from and extends are parse errors.
//
// Where it knowingly differs from Python's Jinja in that setup: a
// template may change its own lists and dicts (append, update, pop; the
// immutable sandbox refuses them), within the bounds; tojson writes a
// generator (map, select, …) as the list it yields, where json.dumps
// refuses it; ints are 64-bit, and one that would pass that is a float;
// dict.items() prints as a list of tuples, not as dict_items([...]).
package jinja
