package parse

import (
	"strings"
	"testing"
)

// hermesBlockCases are inputs near hermesCall's block: ones it takes, ones
// that differ from them in one way it leaves to the Hermes spec, and the state
// around them (pending prose, sections, reasoning, --format).
var hermesBlockCases = []string{
	string(denseHermes(2000)),
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"b\", \"n\": -12, \"z\": 0, \"t\": true, \"u\": false, \"v\": null}}\n</tool_call>\n",
	"Some prose first.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\nand after.\n",
	"prose <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call> and after",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call></tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_calls>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}, \"id\": \"x\"}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"\", \"arguments\": {}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"read<|message|>\", \"arguments\": {}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"directly_answer\", \"arguments\": {}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"final_answer\", \"arguments\": {\"content\": \"x\"}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\\u0041\", \"arguments\": {}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1e400}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1.5}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": " + strings.Repeat("9", 400) + "}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1]}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": {\"b\": 1}}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": { \"a\": 1 }}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\":1}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1,\"b\": 2}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 01}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": -}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"x</tool_call>y\"}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"<b>\"}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"b\"\"}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"b\"}\"}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"b\"}}\"\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"b\\n\"}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"caf\u00e9\"}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": \"{}\"}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": []}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {\"b\": 2}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"b\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {\"s\": \"open}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {" + strings.Repeat("\"k\": 1, ", 14) + "\"z\": 2}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {" + strings.Repeat("\"k\": 1, ", 15) + "\"z\": 2}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {" + strings.Repeat("\"k\": 1e400, ", 15) + "\"z\": 2}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {" + strings.Repeat("\"k\": 1, ", 15) + "\"z\": " + strings.Repeat("9", 400) + "}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {" + strings.Repeat("\"k\": 1, ", 16) + "\"z\": " + strings.Repeat("9", 400) + "}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"" + strings.Repeat("x", 100) + "\", \"b\": \"" + strings.Repeat("y", 17) + "\"}}\n</tool_call>\n",
	"<think>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n</think>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>\n",
	"<tool_calls>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n</tool_calls>\n",
	"<minimax:tool_call>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n</minimax:tool_call>\n",
	"```\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n```\n",
	"<tool_call>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n",
	"<tool_call>\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n</tool_call>\n",
	"[TOOL_CALLS]<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n",
}

// hermesBlockOptions are the options hermesBlockCases are read with.
var hermesBlockOptions = []Options{{}, {NoRepair: true}, {Format: FormatHermes}, {Format: FormatQwen3Coder}, {Format: FormatJSONL}, knownTools("f", "g", "get_weather")}

// hermesBlockDiff reads in with hermesCall and without it (pathDiff).
func hermesBlockDiff(t *testing.T, in []byte, cut int) {
	t.Helper()
	pathDiff(t, in, cut, hermesBlockOptions, &noHermesBlock, "hermesCall", "hermesSpec")
}

// TestHermesBlock holds hermesCall to the Hermes spec's reading of the same input,
// and checks that it does take the blocks it is for.
func TestHermesBlock(t *testing.T) {
	// No marker but <tool_call> starts "<tool_call>\n": matchMarker would
	// try a longer one first.
	buildMarkers()
	for _, m := range angleMarkers {
		if strings.HasPrefix(hermesOpen, m.tok) && m.tok != "<tool_call>" {
			t.Fatalf("marker %q starts %q", m.tok, hermesOpen)
		}
	}
	for _, in := range hermesBlockCases {
		hermesBlockDiff(t, []byte(in), len(in)/2)
	}
	for _, tc := range []struct {
		block string
		ok    bool
	}{
		{"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"day\": 1}}\n</tool_call>", true},
		{"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>", true},
		{"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_cal", false},                         // not all there yet
		{"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\":1}}\n</tool_call>", false},                // whitespace
		{"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": []}}\n</tool_call>", false},              // not flat
		{"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"</tool_call>\"}}\n</tool_call>", true}, // strict JSON holds it
		{"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n\n</tool_call>", false},             // a blank line
		{"<tool_call>\n{\"name\": \"f\\n\", \"arguments\": {}}\n</tool_call>", false},                    // an escape
	} {
		p, err := NewParser(Options{}, func(*Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		p.buf = []byte(tc.block)
		end, ok, err := p.hermesCall(0)
		if ok != tc.ok || err != nil || ok && end != len(tc.block) {
			t.Errorf("hermesCall(%q) = %d, %v, %v; want ok %v", tc.block, end, ok, err, tc.ok)
		}
	}
}

// FuzzHermesBlock checks that hermesCall changes no event: on any input,
// split anywhere, with the options above, the events are byte for byte
// those of the Hermes spec's reading.
func FuzzHermesBlock(f *testing.F) {
	addFileSeeds(f, "testdata/formats/*.txt")
	for _, s := range hermesBlockCases {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		hermesBlockDiff(t, in, int(split)%(len(in)+1))
	})
}
