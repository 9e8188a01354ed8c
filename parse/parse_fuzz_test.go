package parse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tools"
)

// addFileSeeds adds each file the pattern matches as a seed, split in
// the middle.
func addFileSeeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(pattern)
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, uint16(len(b)/2))
		}
	}
}

// FuzzParse checks the parser's promises on any input: it never panics,
// every line it writes is a JSON object of a known type, the events do not
// depend on where the input is split, and a call written back in the JSONL
// protocol parses to the same call.
func FuzzParse(f *testing.F) {
	addFileSeeds(f, "testdata/formats/*.txt")
	for _, s := range []string{
		"", "<", "<tool_call>", "<tool_call>{", "[f(a=1)", "```json\n{", "<think>", "</think>x",
		"{\"name\":\"f\",\"arguments\":{\"a\":[1,{\"b\":\"c\"}]}}",
		"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}",
		// Protocol lines broken past repair, with a call after them.
		"x\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"s\":\"a\"b\"}}\n{\"type\":\"tool_call\",\"name\":\"g\",\"arguments\":{}}\n",
		"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"s\":\"a\n{\"type\":\"tool_call\",\"name\":\"g\",\"arguments\":{}}",
		"{\"type\":\"tool_call\",\n\"name\":\"f\",\"arguments\":{}}\n",
		// Issue 24: closers mistyped or once too often inside a call's
		// markers; issue 31: half a surrogate pair, deep nesting.
		"<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":{\"b\":1}}},\"c\":2}}</tool_call>",
		"<tool_call>{\"name\":\"f\",\"arguments\":{\"k\":[\"v1\",\"v2\"},\"k2\":[\"v3\"]}}</tool_call>",
		"<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":\"\\ud800x\\udc00\"}}</tool_call>",
		// A Gemma 4 thought channel ending the text: no call is looked
		// for past the last byte.
		"<|channel><channel|>",
		"<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":" + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + "}}</tool_call>",
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	// A protocol line with more of it after it on its line, cut right
	// after its closing brace: it waits for its line to end, as in one piece.
	protocol := `{"type":"tool_call","name":"f","arguments":{}}`
	f.Add([]byte(protocol+`,"x":1}`+"\n"+protocol+"\n}\n"), uint16(len(protocol)))
	// Long runs without a newline, at the length where they are cut hard,
	// so mutations land on both sides of it. Made here, not committed as
	// files, because they are large.
	call := `{"name":"f","arguments":{}}`
	for _, s := range []string{
		strings.Repeat("a", 2*openingSplit),
		call + strings.Repeat("a", 2*textSplit),
		call + strings.Repeat("\x80", 2*textSplit+1),
		call + "x" + strings.Repeat("é", textSplit),
		"<think>" + strings.Repeat("a", 2*textSplit),
		"```\n" + strings.Repeat("€", 2*textSplit/3+1),
	} {
		f.Add([]byte(s), uint16(len(s)%65536))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		whole := parseAll(t, in, Options{}, nil)
		checkEvents(t, whole)
		cut := int(split) % (len(in) + 1)
		if got := parseAll(t, in, Options{}, []int{max(cut, 1), len(in)}); got != whole {
			t.Fatalf("split at %d changes the events:\nwhole:\n%s\nsplit:\n%s", cut, whole, got)
		}
		checkOneScan(t, in, Options{}, cut, whole)
		for _, line := range strings.Split(strings.TrimSpace(whole), "\n") {
			if !strings.Contains(line, `"type":"tool_call"`) {
				continue
			}
			var c struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				Repaired  bool            `json:"repaired"`
				Repairs   []string        `json:"repairs"`
			}
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatal(err)
			}
			checkRepairList(t, line, c.Repaired, c.Repairs)
			call := tools.Call{ID: "x", Name: c.Name, Arguments: c.Arguments}
			again := parseAll(t, append(call.AppendJSON(nil), '\n'), Options{}, nil)
			var back struct {
				Type      string          `json:"type"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(again)), &back); err != nil {
				t.Fatalf("re-emitted call %s parses to %q: %v", line, again, err)
			}
			if back.Type != tools.TypeToolCall || back.Name != c.Name || string(back.Arguments) != string(c.Arguments) {
				t.Fatalf("call %s re-emitted parses back to %s", line, again)
			}
		}
	})
}

// checkRepairList fails unless a repaired call names its repairs, each a
// known kind, once, in the kinds' order, and a call not repaired names none.
func checkRepairList(t *testing.T, line string, repaired bool, repairs []string) {
	t.Helper()
	if repaired != (len(repairs) > 0) {
		t.Fatalf("repaired %v with repairs %q: %s", repaired, repairs, line)
	}
	last := -1
	for _, r := range repairs {
		k := slices.Index(RepairKinds(), r)
		if k <= last {
			t.Fatalf("repairs %q: unknown, repeated or out of order: %s", repairs, line)
		}
		last = k
	}
}

// FuzzParseKnownTools checks, with known tools (parse --tools, run), that
// the parser never panics, writes only known events, and that the events
// do not depend on where the input is split: a bare call found after prose
// must be found however the input arrives.
func FuzzParseKnownTools(f *testing.F) {
	addFileSeeds(f, "testdata/known/*.txt")
	for _, s := range []string{
		`x {"name":"f","parameters":{}} y`, `a [f(a=1), g(b=2)] b`, `{ "na`, `[f(`, `x {"function":{"name":"f","arguments":"{}"}}`,
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	opts := knownTools("f", "g", "get_weather", "get_time", "search_web")
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		whole := parseAll(t, in, opts, nil)
		checkEvents(t, whole)
		cut := int(split) % (len(in) + 1)
		if got := parseAll(t, in, opts, []int{max(cut, 1), len(in)}); got != whole {
			t.Fatalf("split at %d changes the events:\nwhole:\n%s\nsplit:\n%s", cut, whole, got)
		}
		checkOneScan(t, in, opts, cut, whole)
	})
}

// checkOneScan fails unless looking for each trigger byte in turn gives
// the events that looking for all of them at once (oneScan) gave, whole
// and split at cut.
func checkOneScan(t *testing.T, in []byte, opts Options, cut int, whole string) {
	t.Helper()
	was := oneScan
	oneScan = false
	defer func() { oneScan = was }()
	for _, sizes := range [][]int{nil, {max(cut, 1), len(in)}} {
		if got := parseAll(t, in, opts, sizes); got != whole {
			t.Fatalf("one trigger at a time (pieces %v) changes the events:\nall at once:\n%s\none at a time:\n%s", sizes, whole, got)
		}
	}
}
