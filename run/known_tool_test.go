//go:build unix

package run

import (
	"strings"
	"testing"
)

// TestLoopKnownToolAfterProse: in run the catalog is known, so a bare call
// to one of its tools counts even inside a line of prose.
func TestLoopKnownToolAfterProse(t *testing.T) {
	b := &scripted{replies: []string{
		`Sure, I will check: {"name": "get_weather", "parameters": {"city": "Oslo"}}`,
		`{"type":"final_answer","content":"It is 18 C and raining in Oslo."}`,
	}}
	out, res := runLoop(t, b, Options{}, "Weather in Oslo?")
	if res.Reason != StopFinalAnswer || res.FinalAnswer != "It is 18 C and raining in Oslo." {
		t.Errorf("result %+v\n%s", res, out)
	}
	if !strings.Contains(out, `"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Oslo"}`) {
		t.Errorf("the call after prose was not taken:\n%s", out)
	}
}

// TestLoopBrokenKnownCallAsksAgain: a broken call to a known tool, in any
// family, is a parse_error, so the loop asks the model again instead of
// taking the turn's text as its final answer.
func TestLoopBrokenKnownCallAsksAgain(t *testing.T) {
	for name, broken := range map[string]string{
		"bare json after prose":    `Sure: {"name": "get_weather", "arguments": {"city": "Oslo", "days": ...}}`,
		"bare json line":           `{"name": "get_weather", "arguments": {"city": "Oslo"} oops}`,
		"hermes, text inside":      `<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}} oops</tool_call>`,
		"qwen3-coder, text inside": "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\noops\n</tool_call>",
		"glm, text inside":         "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\noops\n</tool_call>",
	} {
		t.Run(name, func(t *testing.T) {
			b := &scripted{replies: []string{
				broken,
				`{"type":"final_answer","content":"It is 18 C in Oslo."}`,
			}}
			out, res := runLoop(t, b, Options{}, "Weather in Oslo?")
			if res.Reason != StopFinalAnswer || res.FinalAnswer != "It is 18 C in Oslo." {
				t.Errorf("result %+v: the broken call was taken as the answer\n%s", res, out)
			}
			if len(b.seen) != 2 || !strings.Contains(out, `"kind":"decode"`) {
				t.Errorf("the model was not asked again after a broken call (%d turns):\n%s", len(b.seen), out)
			}
			if strings.Contains(out, `"type":"tool_call"`) {
				t.Errorf("a call came out of a broken one:\n%s", out)
			}
			// The model sees its turn once, then what to fix.
			conv := b.seen[1]
			if n := len(conv); n != 4 || conv[2].Role != "assistant" || conv[2].Content != broken || conv[3].Role != "user" {
				t.Errorf("the second turn's conversation: %+v", conv)
			}
		})
	}
}
