package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWaitForTiming: skipping the readings of a block that waitFor says
// cannot end yet changes when no event comes: fed a byte at a time and in
// pieces of three, every output in testdata/formats gives the same events
// after the same piece with the skipping on and off.
func TestWaitForTiming(t *testing.T) {
	files, err := filepath.Glob("testdata/formats/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatal("no inputs", err)
	}
	inputs := map[string][]byte{
		"harmony turn": []byte("<|channel|>analysis<|message|>Think < more.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>after"),
		"hermes":       []byte("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"x}y\", \"b\": [1, {\"c\": 2}]}}\n</tool_call>\n<tool_call>{\"name\": \"g\", \"arguments\": {\"s\": \"a\"</tool_call> text"),
		"fullwidth":    []byte("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1｝｝ and"),
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = b
	}
	known := Options{KnownTool: func(string) bool { return true }}
	for name, in := range inputs {
		for _, opts := range []Options{{}, known} {
			for _, size := range []int{1, 3} {
				on := eventsByPiece(t, in, size, opts, false)
				off := eventsByPiece(t, in, size, opts, true)
				if !slices.Equal(on, off) {
					t.Errorf("%s in pieces of %d (known tools %v): events differ with the skipping:\n on %q\noff %q", name, size, opts.KnownTool != nil, on, off)
				}
			}
		}
	}
}

// eventsByPiece is in's events, each after the number of the piece whose
// Write emitted it.
func eventsByPiece(t *testing.T, in []byte, size int, opts Options, skipOff bool) []string {
	t.Helper()
	noWaitFor = skipOff
	defer func() { noWaitFor = false }()
	var out []string
	piece := 0
	p, err := NewParser(opts, func(e *Event) error {
		out = append(out, fmt.Sprintf("%d %s", piece, e.AppendJSON(nil)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(in); off += size {
		piece++
		if _, err := p.Write(in[off:min(len(in), off+size)]); err != nil {
			t.Fatal(err)
		}
	}
	piece++
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}
