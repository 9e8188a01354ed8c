package jinja

import (
	"encoding/json"
	"os"
	"testing"
)

// TestRandomLikePython renders random templates (expressions of every
// operator, filter, test and str method the generator knows, in loops,
// ifs and sets; testdata/random_python.py) as Python's Jinja rendered
// them, set up as transformers sets it up: the same text, or an error
// where Python raised one.
func TestRandomLikePython(t *testing.T) {
	raw, err := os.ReadFile("testdata/random.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Src, Want, Err string }
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := render(c.Src, pythonVars())
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
