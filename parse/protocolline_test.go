package parse

import (
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tools"
)

// protocolLineCases are inputs near protocolCall's line: ones it takes,
// ones that differ from them in one way it leaves to bareJSON, and the
// state around them (pending prose, ids the model gave, --format).
var protocolLineCases = []string{
	string(denseJSONL(400)),
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":\"b\",\"n\":-12,\"z\":0,\"t\":true,\"u\":false,\"v\":null}} \t\r\n",
	"Some prose first.\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\nand after.\n",
	"prose {\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}} x\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n/",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n// done\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}},\"x\":1\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}}\n",
	"{\"type\":\"tool_call\",\"name\":\"\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"read<|message|>\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"directly_answer\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"final_answer\",\"arguments\":{\"content\":\"x\"}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\\u0041\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":1e400}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":" + strings.Repeat("9", 400) + "}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":[1]}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":{\"b\":1}}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{ \"a\": 1 }}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":[]}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":\"{}\"}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":01}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{},\"id\":\"call_2\"}\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{}}\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"s\":\"a\"b\"}}\n{\"type\":\"tool_call\",\"name\":\"g\",\"arguments\":{}}\n",
	"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"s\":\"a\n{\"type\":\"tool_call\",\"name\":\"g\",\"arguments\":{}}\n",
	"<tool_call>\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n</tool_call>\n",
	"[TOOL_CALLS]\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n",
	"<think>\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n</think>\n{\"type\":\"tool_call\",\"name\":\"g\",\"arguments\":{}}\n",
	"```\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n```\n",
	"; {\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n",
	"{\"type\":\"final_answer\",\"content\":\"done\"}\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n",
}

// protocolLineOptions are the options protocolLineCases are read with.
var protocolLineOptions = []Options{{}, {NoRepair: true}, {Format: FormatJSONL}, {Format: FormatLlama3JSON}, knownTools("f", "g", "get_weather")}

// protocolLineDiff reads in with protocolCall and without it (pathDiff).
func protocolLineDiff(t *testing.T, in []byte, cut int) {
	t.Helper()
	pathDiff(t, in, cut, protocolLineOptions, &noProtocolLine, "protocolCall", "bareJSON")
}

// pathDiff reads in with each of opts, with a dedicated path on and off
// (*off), whole and split at cut and into pieces of seven bytes, and
// fails on any difference in the events.
func pathDiff(t *testing.T, in []byte, cut int, opts []Options, off *bool, path, general string) {
	t.Helper()
	for _, o := range opts {
		for _, sizes := range [][]int{nil, {max(cut, 1), len(in)}, {7}} {
			fast := parseAll(t, in, o, sizes)
			*off = true
			full := parseAll(t, in, o, sizes)
			*off = false
			if fast != full {
				t.Fatalf("%q (split %v, %+v): %s gives\n%s\n%s\n%s", in, sizes, o, path, fast, general, full)
			}
		}
	}
}

// TestProtocolLine holds protocolCall to bareJSON's reading of the same
// input, and checks that it does take the lines it is for.
func TestProtocolLine(t *testing.T) {
	if want := `{"type":"` + tools.TypeToolCall + `","name":"`; protocolOpen != want {
		t.Fatalf("protocolOpen is %q, not %q", protocolOpen, want)
	}
	for _, in := range protocolLineCases {
		protocolLineDiff(t, []byte(in), len(in)/2)
	}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"{\"type\":\"tool_call\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"day\":1}}\n", true},
		{"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}} \r\n", true},
		{"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}", false},                // its line not ended yet
		{"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n/", false},             // bareJSON waits
		{"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{},\"id\":\"x\"}\n", false}, // an id
		{"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":[]}}\n", false},      // not flat
		{"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\": 1}}\n", false},      // whitespace
		{"{\"type\":\"tool_call\",\"name\":\"f\\n\",\"arguments\":{}}\n", false},           // an escape
	} {
		p, err := NewParser(Options{}, func(*Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		p.buf = []byte(tc.line)
		end, ok, err := p.protocolCall(0)
		if ok != tc.ok || err != nil || ok && end != strings.LastIndexByte(tc.line, '}')+1 {
			t.Errorf("protocolCall(%q) = %d, %v, %v; want ok %v", tc.line, end, ok, err, tc.ok)
		}
	}
}

// FuzzProtocolLine checks that protocolCall changes no event: on any
// input, split anywhere, with the options above, the events are byte for
// byte those of bareJSON's reading.
func FuzzProtocolLine(f *testing.F) {
	addFileSeeds(f, "testdata/formats/*.txt")
	for _, s := range protocolLineCases {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		protocolLineDiff(t, in, int(split)%(len(in)+1))
	})
}
