package parse

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// parseAll runs model text through a Parser in pieces of the given sizes
// (cycled; nil means all at once) and returns the JSONL it writes.
func parseAll(t testing.TB, in []byte, opts Options, sizes []int) string {
	t.Helper()
	var out []byte
	p, err := NewParser(opts, func(e *Event) error {
		out = e.AppendJSON(out)
		out = append(out, '\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; len(in) > 0; n++ {
		k := len(in)
		if len(sizes) > 0 {
			k = min(k, sizes[n%len(sizes)])
		}
		if _, err := p.Write(in[:k]); err != nil {
			t.Fatal(err)
		}
		in = in[k:]
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// knownTools is Options whose KnownTool knows the given names.
func knownTools(names ...string) Options {
	return Options{KnownTool: func(n string) bool {
		for _, k := range names {
			if k == n {
				return true
			}
		}
		return false
	}}
}

// checkEvents fails unless every line is one JSON object with a known type.
func checkEvents(t testing.TB, out string) {
	t.Helper()
	known := map[string]bool{event.TypeText: true, event.TypeReasoning: true, tools.TypeToolCall: true, event.TypeFinalAnswer: true, event.TypeParseError: true}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var ev struct {
			Type      string          `json:"type"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("output line is not JSON: %v\n%s", err, line)
		}
		if !known[ev.Type] {
			t.Fatalf("output line has unknown type %q: %s", ev.Type, line)
		}
		if ev.Type == tools.TypeToolCall && (len(ev.Arguments) == 0 || ev.Arguments[0] != '{') {
			t.Fatalf("tool_call arguments are not an object: %s", line)
		}
	}
}

// TestFormats parses every fixture in testdata/formats and compares the
// events with the golden .jsonl beside it. Run with -update to rewrite them,
// then review the diff against testdata/formats/EXPECTED.md.
func TestFormats(t *testing.T) {
	files, err := filepath.Glob("testdata/formats/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/formats")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := parseAll(t, in, Options{}, nil)
			checkEvents(t, got)
			golden.Check(t, strings.TrimSuffix(file, ".txt")+".jsonl", []byte(got))
		})
	}
}

// TestChunking feeds every fixture in pieces of many sizes: the events must
// not depend on where the input was cut.
func TestChunking(t *testing.T) {
	files, _ := filepath.Glob("testdata/formats/*.txt")
	rng := rand.New(rand.NewPCG(1, 2))
	for _, file := range files {
		in, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := parseAll(t, in, Options{}, nil)
		sizes := [][]int{{1}, {2}, {3}, {7}, {64}}
		for range 4 {
			s := make([]int, 16)
			for k := range s {
				s[k] = 1 + rng.IntN(40)
			}
			sizes = append(sizes, s)
		}
		for _, s := range sizes {
			if got := parseAll(t, in, Options{}, s); got != want {
				t.Errorf("%s in pieces of %v:\n%s", file, s, cmp.Diff(want, got))
				break
			}
		}
	}
}

// TestTruncation cuts a stream of calls at every byte: complete calls before
// the cut survive, the cut one is a parse_error or is left whole, and no
// call is ever invented with arguments the model did not finish.
func TestTruncation(t *testing.T) {
	inputs := map[string]string{
		"hermes":      "Checking.\n<tool_call>{\"name\":\"a\",\"arguments\":{\"x\":1}}</tool_call>\n<tool_call>{\"name\":\"b\",\"arguments\":{\"s\":\"hi there\",\"n\":[1,2]}}</tool_call>",
		"qwen3_coder": "<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=b>\n<parameter=s>\nhi there\n</parameter>\n</function>\n</tool_call>",
		"jsonl":       "{\"type\":\"tool_call\",\"name\":\"a\",\"arguments\":{\"x\":1}}\n{\"type\":\"tool_call\",\"name\":\"b\",\"arguments\":{\"s\":\"hi there\"}}",
		"pythonic":    "[a(x=1), b(s='hi there', n=[1, 2])]",
		"kimi":        "<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\":1}<|tool_call_end|><|tool_call_begin|>functions.b:1<|tool_call_argument_begin|>{\"s\":\"hi there\"}<|tool_call_end|><|tool_calls_section_end|>",
		"mistral_v11": "[TOOL_CALLS]a[ARGS]{\"x\":1}[TOOL_CALLS]b[ARGS]{\"s\":\"hi there\"}",
	}
	wantArgs := map[string]string{"a": `{"x":1}`, "b": `{"s":"hi there","n":[1,2]}`}
	for name, in := range inputs {
		for cut := 0; cut <= len(in); cut++ {
			out := parseAll(t, []byte(in[:cut]), Options{}, nil)
			checkEvents(t, out)
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var ev struct {
					Type      string          `json:"type"`
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}
				if line == "" {
					continue
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatal(err)
				}
				if ev.Type != tools.TypeToolCall {
					continue
				}
				want := wantArgs[ev.Name]
				if name != "hermes" && name != "pythonic" && ev.Name == "b" {
					want = `{"s":"hi there"}`
				}
				if string(ev.Arguments) != want {
					t.Errorf("%s cut at %d: call %s has arguments %s, want %s (never a guessed payload)\n%q", name, cut, ev.Name, ev.Arguments, want, in[:cut])
				}
			}
			if cut == len(in) {
				if n := strings.Count(out, `"type":"tool_call"`); n != 2 {
					t.Errorf("%s whole: %d calls, want 2:\n%s", name, n, out)
				}
			}
		}
	}
}

// TestStreaming feeds bytes through a pipe slowly: the first call must come
// out before the input ends.
func TestStreaming(t *testing.T) {
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_, err := Stream(context.Background(), pr, outW, Options{})
		outW.CloseWithError(err)
	}()
	first := "I'll look it up.\n<tool_call>{\"name\":\"lookup\",\"arguments\":{\"q\":\"go\"}}</tool_call>\n"
	written := make(chan struct{})
	go func() {
		for i := 0; i < len(first); i += 5 {
			pw.Write([]byte(first[i:min(len(first), i+5)]))
		}
		close(written)
		// The rest of the output has not been written yet.
	}()
	lines := bufio.NewScanner(outR)
	deadline := time.AfterFunc(10*time.Second, func() { pw.CloseWithError(io.ErrUnexpectedEOF) })
	defer deadline.Stop()
	var got []string
	for lines.Scan() {
		got = append(got, lines.Text())
		if strings.Contains(lines.Text(), `"tool_call"`) {
			break
		}
	}
	want := []string{
		`{"type":"text","content":"I'll look it up.\n"}`,
		`{"type":"tool_call","id":"call_1","name":"lookup","arguments":{"q":"go"},"format":"hermes"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("events before the input ended (-want +got):\n%s", diff)
	}
	// The call may come out before its closing tag has been written: let
	// the writer finish before writing the rest.
	<-written
	pw.Write([]byte("Done."))
	pw.Close()
	rest, _ := io.ReadAll(outR)
	if string(rest) != "{\"type\":\"text\",\"content\":\"\\nDone.\"}\n" {
		t.Errorf("after the end: %q", rest)
	}
}

// TestPartialMarker holds back a marker split across writes.
func TestPartialMarker(t *testing.T) {
	in := "Hi <tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>"
	for cut := 1; cut < len(in); cut++ {
		got := parseAll(t, []byte(in), Options{}, []int{cut, len(in)})
		want := "{\"type\":\"text\",\"content\":\"Hi \"}\n{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{},\"format\":\"hermes\"}\n"
		if got != want {
			t.Errorf("split at %d:\n%s", cut, cmp.Diff(want, got))
		}
	}
}

// TestLongProse checks that prose is split into bounded events at line
// ends, independently of the write size.
func TestLongProse(t *testing.T) {
	line := "The quick brown fox jumps over the lazy dog.\n"
	in := []byte(strings.Repeat(line, 3*openingSplit/len(line)))
	a := parseAll(t, in, Options{}, nil)
	b := parseAll(t, in, Options{}, []int{4096})
	if a != b {
		t.Fatal("prose events depend on the write size")
	}
	var total int
	for _, l := range strings.Split(strings.TrimSpace(a), "\n") {
		var ev Event
		var e struct{ Content string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		_ = ev
		if len(e.Content) > 2*openingSplit {
			t.Errorf("a text event of %d bytes", len(e.Content))
		}
		total += len(e.Content)
	}
	if total != len(in) {
		t.Errorf("text events hold %d bytes, want %d", total, len(in))
	}
}

func TestCases(t *testing.T) {
	tests := []struct {
		name, in string
		opts     Options
		want     []string
	}{
		{"forced open think", "thinking...</think>\n\n<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>", Options{}, []string{
			`{"type":"reasoning","content":"thinking...","format":"think"}`,
			`{"type":"tool_call","id":"call_1","name":"f","arguments":{},"format":"hermes"}`,
		}},
		{"data object is prose", "{\"name\":\"Alice\",\"role\":\"admin\"}\n", Options{}, []string{
			`{"type":"text","content":"{\"name\":\"Alice\",\"role\":\"admin\"}\n"}`,
		}},
		{"inline code mention", "Use `<tool_call>` tags.", Options{}, []string{
			"{\"type\":\"text\",\"content\":\"Use `<tool_call>` tags.\"}",
		}},
		{"no repair", "<tool_call>{'name':'f','arguments':{}}</tool_call>", Options{NoRepair: true}, nil},
		{"forced format ignores others", "<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>", Options{Format: FormatMistral}, []string{
			`{"type":"text","content":"<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>"}`,
		}},
		{"double encoded", `{"name":"f","arguments":"{\"a\":1}"}`, Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"f","arguments":{"a":1},"format":"llama3_json"}`,
		}},
		{"first id", "<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>", Options{FirstID: 4}, []string{
			`{"type":"tool_call","id":"call_5","name":"f","arguments":{},"format":"hermes"}`,
		}},
		{"one word first line is prose", "Sure\n{\"city\": \"Paris\"}", Options{}, []string{
			`{"type":"text","content":"Sure\n{\"city\": \"Paris\"}"}`,
		}},
		{"tag names in prose", "Wrap calls in <tool_call> and </tool_call> tags.", Options{}, []string{
			`{"type":"text","content":"Wrap calls in <tool_call> and </tool_call> tags."}`,
		}},
		{"fence under another format stays prose", "```json\n{\"name\":\"a\",\"arguments\":{}}\n```", Options{Format: FormatHermes}, []string{
			"{\"type\":\"text\",\"content\":\"```json\\n{\\\"name\\\":\\\"a\\\",\\\"arguments\\\":{}}\\n```\"}",
		}},
		{"closing tag inside a tagged value", "<tool_call>\n<function=write>\n<parameter=s>\nx = \"</parameter>\"\n</parameter>\n</function>\n</tool_call>", Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"write","arguments":{"s":"x = \"</parameter>\""},"format":"qwen3_coder"}`,
		}},
		{"tool definition is not a call", "```json\n{\"type\":\"function\",\"function\":{\"name\":\"w\",\"description\":\"d\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}\n```", Options{}, []string{
			"{\"type\":\"text\",\"content\":\"```json\\n{\\\"type\\\":\\\"function\\\",\\\"function\\\":{\\\"name\\\":\\\"w\\\",\\\"description\\\":\\\"d\\\",\\\"parameters\\\":{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{}}}}\\n```\"}",
		}},
		{"json line between prose is prose", "It returns\n{\"name\":\"a\",\"arguments\":{}}\nas you see.", Options{}, []string{
			`{"type":"text","content":"It returns\n{\"name\":\"a\",\"arguments\":{}}\nas you see."}`,
		}},
		{"json line closing the output is a call", "Calling:\n{\"name\":\"a\",\"arguments\":{}}\n", Options{}, []string{
			`{"type":"text","content":"Calling:\n"}`,
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{},"format":"llama3_json"}`,
		}},
		{"byte order mark", "\xef\xbb\xbf{\"name\":\"a\",\"parameters\":{\"x\":1}}", Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{"x":1},"format":"llama3_json"}`,
		}},
		{"values in a row, comma between", "{\"name\":\"a\",\"arguments\":{}}, {\"name\":\"b\",\"arguments\":{}}\n", Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{},"format":"llama3_json"}`,
			`{"type":"tool_call","id":"call_2","name":"b","arguments":{},"format":"llama3_json"}`,
		}},
		{"values in a row, nothing between", "{\"name\":\"a\",\"arguments\":{}}{\"name\":\"b\",\"arguments\":{}}", Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{},"format":"llama3_json"}`,
			`{"type":"tool_call","id":"call_2","name":"b","arguments":{},"format":"llama3_json"}`,
		}},
		{"comma after prose stays prose", "Hello, {\"name\":\"a\",\"arguments\":{}}", Options{}, []string{
			`{"type":"text","content":"Hello, {\"name\":\"a\",\"arguments\":{}}"}`,
		}},
		{"unescaped quotes repaired", `<tool_call>{"name":"run","arguments":{"cmd":"grep -r "TODO" src/","timeout":30s}}</tool_call>`, Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"run","arguments":{"cmd":"grep -r \"TODO\" src/","timeout":"30s"},"format":"hermes","repaired":true,"repairs":["bare_word","unescaped_quote"]}`,
		}},
		{"payload escaped once more", `<tool_call>{\"name\": \"f\", \"arguments\": {\"q\": \"x\"}}</tool_call>`, Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"f","arguments":{"q":"x"},"format":"hermes","repaired":true,"repairs":["escaped_payload"]}`,
		}},
		{"typographic quotes and fullwidth braces", "<tool_call>{\u201cname\u201d: \u201cf\u201d, \u201carguments\u201d: \uff5b\"q\"\uff1a1\uff5d}</tool_call>", Options{}, []string{
			`{"type":"tool_call","id":"call_1","name":"f","arguments":{"q":1},"format":"hermes","repaired":true,"repairs":["typographic_quote","fullwidth_punctuation"]}`,
		}},
		{"elided arguments refused", `<tool_call>{"name":"f","arguments":{"items":[1, 2, ...]}}</tool_call>`, Options{}, nil},
		{"markdown link at line start", "[len(obj)](https://go.dev) explains it.", Options{}, []string{
			`{"type":"text","content":"[len(obj)](https://go.dev) explains it."}`,
		}},
		{"empty think block", "<think>\n\n</think>\n\nHello!", Options{}, []string{
			`{"type":"text","content":"\n\nHello!"}`,
		}},
		{"longer fence holds a shorter one", "````markdown\n```json\n{\"name\":\"a\",\"arguments\":{}}\n```\n````", Options{}, []string{
			"{\"type\":\"text\",\"content\":\"````markdown\\n```json\\n{\\\"name\\\":\\\"a\\\",\\\"arguments\\\":{}}\\n```\\n````\"}",
		}},
		// Kimi K2 Thinking opens its call section before </think>, as
		// llama.cpp's Kimi handler expects: the section ends the reasoning.
		{"call section ends a think block", "<think>maybe <|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|> no</think>ok", Options{}, []string{
			`{"type":"reasoning","content":"maybe ","format":"think"}`,
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{},"format":"kimi_k2"}`,
			`{"type":"text","content":" no"}`,
			`{"type":"text","content":"ok"}`,
		}},
		{"known tool after prose in a line", "Sure, calling {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}} now.", knownTools("get_weather"), []string{
			`{"type":"text","content":"Sure, calling "}`,
			`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"llama3_json"}`,
			`{"type":"text","content":" now."}`,
		}},
		{"unknown tool after prose stays prose", "Sure, calling {\"name\": \"rm_rf\", \"parameters\": {}} now.", knownTools("get_weather"), []string{
			`{"type":"text","content":"Sure, calling {\"name\": \"rm_rf\", \"parameters\": {}} now."}`,
		}},
		{"known tool without tools stays prose", "Sure, calling {\"name\": \"get_weather\", \"parameters\": {}} now.", Options{}, []string{
			`{"type":"text","content":"Sure, calling {\"name\": \"get_weather\", \"parameters\": {}} now."}`,
		}},
		{"json data that names a known tool is prose", "The record {\"name\": \"get_weather\", \"owner\": \"ops\"} is old.", knownTools("get_weather"), []string{
			`{"type":"text","content":"The record {\"name\": \"get_weather\", \"owner\": \"ops\"} is old."}`,
		}},
		// A broken call to a known tool is never prose: prose would end a
		// run loop as if it were the answer.
		{"cut-off known call after prose is a parse_error", "Calling {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Par", knownTools("get_weather"), []string{
			`{"type":"text","content":"Calling "}`,
			`{"type":"parse_error","error":"call to \"get_weather\" was cut off: its arguments end before they are complete; send the whole call again","raw":"{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Par","offset":8}`,
		}},
		{"broken known call is a parse_error", `{"name": "get_weather", "arguments": {"city": "Paris", "days": ...}} and more`, knownTools("get_weather"), []string{
			`{"type":"parse_error","error":"call to \"get_weather\": invalid JSON in tool call at byte 63: '...' stands for content that was left out (elided); JSON cannot hold it and it is not guessed: send the whole value","raw":"{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": ...}}","offset":0}`,
			`{"type":"text","content":" and more"}`,
		}},
		{"broken unknown call is prose", `{"name": "get_time", "arguments": {"city": "Paris", "days": ...}} and more`, knownTools("get_weather"), []string{
			`{"type":"text","content":"{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\", \"days\": ...}} and more"}`,
		}},
		{"known json line between prose", "It returns\n{\"name\":\"a\",\"arguments\":{}}\nas you see.", knownTools("a"), []string{
			`{"type":"text","content":"It returns\n"}`,
			`{"type":"tool_call","id":"call_1","name":"a","arguments":{},"format":"llama3_json"}`,
			`{"type":"text","content":"\nas you see."}`,
		}},
		{"known pythonic after prose", "Let me check: [get_weather(city='Paris'), get_time(tz='UTC')] done", knownTools("get_weather", "get_time"), []string{
			`{"type":"text","content":"Let me check: "}`,
			`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"pythonic"}`,
			`{"type":"tool_call","id":"call_2","name":"get_time","arguments":{"tz":"UTC"},"format":"pythonic"}`,
			`{"type":"text","content":" done"}`,
		}},
		{"pythonic with one unknown name stays prose", "See [get_weather(city='Paris'), launch(x=1)] here", knownTools("get_weather"), []string{
			`{"type":"text","content":"See [get_weather(city='Paris'), launch(x=1)] here"}`,
		}},
		{"markdown link with known tools", "See [the docs](https://example.com) and [get_weather(x)] too", knownTools("get_weather"), []string{
			`{"type":"text","content":"See [the docs](https://example.com) and [get_weather(x)] too"}`,
		}},
		{"minimax m3 section opened without its token", "Go.\n<tool_call>\n]<]minimax[>[<invoke name=\"run\">]<]minimax[>[<cmd>ls</cmd>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>", Options{}, []string{
			`{"type":"text","content":"Go.\n"}`,
			`{"type":"tool_call","id":"call_1","name":"run","arguments":{"cmd":"ls"},"format":"minimax_m3"}`,
		}},
		{"stray minimax m3 token in prose", "a ]<]minimax[>[ b", Options{}, []string{
			`{"type":"text","content":"a "}`,
			`{"type":"text","content":" b"}`,
		}},
		{"call section in think under another format", "<think>maybe <|tool_calls_section_begin|> no</think>ok", Options{Format: FormatHermes}, []string{
			`{"type":"reasoning","content":"maybe <|tool_calls_section_begin|> no","format":"think"}`,
			`{"type":"text","content":"ok"}`,
		}},
		{"think mentions a section in words", "<think>I could write <|tool_calls_section_begin in prose</think>ok", Options{}, []string{
			`{"type":"reasoning","content":"I could write <|tool_calls_section_begin in prose","format":"think"}`,
			`{"type":"text","content":"ok"}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseAll(t, []byte(tt.in), tt.opts, nil)
			checkEvents(t, got)
			if tt.want == nil {
				if !strings.Contains(got, `"parse_error"`) {
					t.Errorf("want a parse_error, got:\n%s", got)
				}
				return
			}
			if diff := cmp.Diff(strings.Join(tt.want, "\n")+"\n", got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestInputs runs whole responses and event streams (testdata/input)
// through Stream and compares the events with the goldens in
// testdata/input/golden.
func TestInputs(t *testing.T) {
	files, _ := filepath.Glob("testdata/input/*.*")
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out bytes.Buffer
			if _, err := Stream(context.Background(), f, &out, Options{}); err != nil {
				t.Fatal(err)
			}
			checkEvents(t, out.String())
			golden.Check(t, filepath.Join("testdata/input/golden", name+".jsonl"), out.Bytes())
		})
	}
}

// TestKnownToolChunking: with known tools, a bare call in prose is found
// however the input is cut.
func TestKnownToolChunking(t *testing.T) {
	opts := knownTools("get_weather", "get_time")
	for _, in := range []string{
		"Sure, calling {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}} now.",
		"Let me check: [get_weather(city='Paris'), get_time(tz='UTC')] done",
		"See [the docs](https://example.com) and {\"a\": 1} and [get_weather(x)] too",
		"Calling {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Par",
		"{  \n \"na",
	} {
		want := parseAll(t, []byte(in), opts, nil)
		for _, n := range []int{1, 2, 3, 7} {
			if got := parseAll(t, []byte(in), opts, []int{n}); got != want {
				t.Errorf("%q in pieces of %d:\n%s", in, n, cmp.Diff(want, got))
			}
		}
	}
}

// TestKnownTools parses the fixtures in testdata/known with the tools
// named in testdata/known/TOOLS known, as parse --tools and run do, and
// compares the events with the golden .jsonl beside each.
func TestKnownTools(t *testing.T) {
	names, err := os.ReadFile("testdata/known/TOOLS")
	if err != nil {
		t.Fatal(err)
	}
	opts := knownTools(strings.Fields(string(names))...)
	files, _ := filepath.Glob("testdata/known/*.txt")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/known")
	}
	for _, file := range files {
		in, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got := parseAll(t, in, opts, nil)
		checkEvents(t, got)
		golden.Check(t, strings.TrimSuffix(file, ".txt")+".jsonl", []byte(got))
		if split := parseAll(t, in, opts, []int{3}); split != got {
			t.Errorf("%s in pieces of 3:\n%s", file, cmp.Diff(got, split))
		}
	}
}

// TestTypedValues parses the fixtures in testdata/typed with the schema
// types in testdata/typed/SCHEMA ("tool param type" per line), as parse
// --tools does: in every XML-style format the schema decides a bare
// value's type, so "007" stays a string where the schema says string.
func TestTypedValues(t *testing.T) {
	schema, err := os.ReadFile("testdata/typed/SCHEMA")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(schema)), "\n") {
		f := strings.Fields(line)
		types[f[0]+"."+f[1]] = f[2]
	}
	opts := Options{ParamType: func(tool, param string) string { return types[tool+"."+param] }}
	files, _ := filepath.Glob("testdata/typed/*.txt")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/typed")
	}
	for _, file := range files {
		in, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got := parseAll(t, in, opts, nil)
		checkEvents(t, got)
		golden.Check(t, strings.TrimSuffix(file, ".txt")+".jsonl", []byte(got))
	}
}

// TestForcedFormatNeverWorse: --format X finds every call that auto-detection
// reads as format X in the same input, with the same arguments.
func TestForcedFormatNeverWorse(t *testing.T) {
	files, _ := filepath.Glob("testdata/formats/*.txt")
	type call struct{ Name, Format, Args string }
	calls := func(out string) []call {
		var cs []call
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var ev struct {
				Type, Name, Format string
				Arguments          json.RawMessage
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == tools.TypeToolCall {
				cs = append(cs, call{ev.Name, ev.Format, string(ev.Arguments)})
			}
		}
		return cs
	}
	for _, file := range files {
		in, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		auto := calls(parseAll(t, in, Options{}, nil))
		seen := map[string]bool{}
		for _, c := range auto {
			if seen[c.Format] || !knownFormat(c.Format) {
				continue
			}
			seen[c.Format] = true
			var want []call
			for _, a := range auto {
				if a.Format == c.Format {
					want = append(want, a)
				}
			}
			var got []call
			for _, f := range calls(parseAll(t, in, Options{Format: c.Format}, nil)) {
				if f.Format == c.Format {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s with --format %s (-auto +forced):\n%s", file, c.Format, diff)
			}
		}
	}
}

// layout is the test flushText used to write as TrimSpace and Trim.
func TestLayout(t *testing.T) {
	for _, s := range []string{"", " ", "\n\t\r ", "\v\f", " ; ", ",", "\v;", "\u00a0", "\u00a0;", "\u3000 x", " x ", "a", ";;,\n", "\u0085\n"} {
		for _, seps := range []bool{false, true} {
			b := []byte(s)
			want := len(bytes.TrimSpace(b)) == 0 || seps && len(bytes.Trim(b, " \t\r\n;,")) == 0
			if got := layout(b, seps); got != want {
				t.Errorf("layout(%q, %v) = %v, want %v", s, seps, got, want)
			}
		}
	}
}

// TestNumberedID holds numberedID, which counts digits up rather than
// formatting each number, to strconv: across 9 to 10, 99 to 100 and
// batches, from any first number.
func TestNumberedID(t *testing.T) {
	for _, first := range []int{-70, -1, 0, 5, 90, 990, 99_999_950} {
		p := &Parser{}
		for n := first; n < first+3*idBatch; n++ {
			if got, want := p.numberedID(n), "call_"+strconv.Itoa(n); got != want {
				t.Fatalf("numberedID(%d) = %q, want %q", n, got, want)
			}
		}
	}
}
