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
// tags under every whitespace control (testdata/whitespace_python.py).
func TestRandomLikePython(t *testing.T) {
	var cases []struct{ Src, Want, Err string }
	for _, name := range []string{"testdata/random.json", "testdata/whitespace.json"} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var some []struct{ Src, Want, Err string }
		if err := json.Unmarshal(raw, &some); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, some...)
	}
	vars := pythonVars()
	vars["n"] = NewInt(3)
	for _, c := range cases {
		got, err := render(c.Src, vars)
		switch {
		case c.Err != "" && err == nil:
			t.Errorf("%s\nrendered %q; Python raises %s", c.Src, got, c.Err)
		case c.Err == "" && err != nil:
			t.Errorf("%s\nfails: %v; Python renders %q", c.Src, err, c.Want)
		case got != c.Want:
			t.Errorf("%s\ngot    %q\nPython %q", c.Src, got, c.Want)
		}
	}
}
