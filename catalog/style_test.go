package catalog

import (
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tools"
)

// What the model sees of a call and a result, in each style: the syntax
// the prompt taught it, the same in its examples and in its history.
func TestStyleWritesCallsAndResults(t *testing.T) {
	for _, c := range []struct {
		style, call, result string
	}{
		{StyleJSONL,
			`{"type":"tool_call","name":"add","arguments":{"a":1}}` + "\n",
			`{"type":"tool_observation","id":"call_1","name":"add","content":"no \"a\"","is_error":true}`},
		{StyleXML,
			"<tool_call>\n" + `{"name":"add","arguments":{"a":1}}` + "\n</tool_call>\n",
			"<tool_response>\n" + `{"id":"call_1","name":"add","content":"no \"a\"","is_error":true}` + "\n</tool_response>"},
		{StyleMarkdown,
			"```json\n" + `{"name":"add","arguments":{"a":1}}` + "\n```\n",
			"```json\n" + `{"id":"call_1","name":"add","content":"no \"a\"","is_error":true}` + "\n```"},
	} {
		s, err := PromptStyle(c.style)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(s.AppendCall(nil, "add", []byte(`{"a":1}`))); got != c.call {
			t.Errorf("%s call = %q, want %q", c.style, got, c.call)
		}
		if got := string(s.AppendResult(nil, "call_1", "add", `no "a"`, true)); got != c.result {
			t.Errorf("%s result = %q, want %q", c.style, got, c.result)
		}
		// The prompt's example is the call as history writes it.
		tool := &tools.Tool{Name: "add", Safe: true, Examples: [][]byte{[]byte(`{ "a": 1 }`)}}
		var b strings.Builder
		if err := Render(&b, nil, []Ranked{{Tool: tool}}, RenderOptions{Format: FormatPrompt, Style: c.style}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "Example:\n"+c.call) {
			t.Errorf("%s prompt has no example %q:\n%s", c.style, c.call, b.String())
		}
	}
	if s, err := PromptStyle(""); err != nil || s.Name() != StyleJSONL {
		t.Errorf(`PromptStyle("") = %v, %v; want jsonl`, s, err)
	}
	if _, err := PromptStyle("yaml"); err == nil || !strings.Contains(err.Error(), "jsonl, xml, markdown") {
		t.Errorf(`PromptStyle("yaml") error = %v; want one naming the styles`, err)
	}
}
