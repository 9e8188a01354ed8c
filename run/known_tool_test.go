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
