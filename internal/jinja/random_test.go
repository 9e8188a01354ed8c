package jinja

import (
	"encoding/json"
	"os"
	"testing"
)

// TestRandomLikePython renders random templates as Python's Jinja
// rendered them, set up as transformers sets it up: the same text, or an
// error where Python raised one. random.json holds expressions of every
// operator, filter, test and str method its generator knows, in loops,
// ifs and sets (testdata/random_python.py); whitespace.json text and
// tags under every whitespace control (testdata/whitespace_python.py);
// control.json loops, macros and call blocks (testdata/control_python.py).
func TestRandomLikePython(t *testing.T) {
	withCalls := func() map[string]Value {
		vars := pythonVars()
		msgs := vars["msgs"].AsList()
		call := dict("function", dict("name", "f", "arguments", dict("a", NewInt(1))))
		msgs.Items[1].AsDict().Set("tool_calls", NewList([]Value{call}))
		msgs.Items = append(msgs.Items, dict("role", "tool", "content", "r"))
		return vars
	}
	for _, set := range []struct {
		file string
		vars func() map[string]Value
	}{
		{"testdata/random.json", pythonVars},
		{"testdata/whitespace.json", pythonVars},
		{"testdata/control.json", withCalls},
	} {
		raw, err := os.ReadFile(set.file)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct{ Src, Want, Err string }
		if err := json.Unmarshal(raw, &cases); err != nil {
			t.Fatal(err)
		}
		vars := set.vars()
		for _, c := range cases {
			got, err := render(c.Src, vars)
			switch {
			case c.Err != "" && err == nil:
				t.Errorf("%s: %s\nrendered %q; Python raises %s", set.file, c.Src, got, c.Err)
			case c.Err == "" && err != nil:
				t.Errorf("%s: %s\nfails: %v; Python renders %q", set.file, c.Src, err, c.Want)
			case got != c.Want:
				t.Errorf("%s: %s\ngot    %q\nPython %q", set.file, c.Src, got, c.Want)
			}
		}
	}
}
