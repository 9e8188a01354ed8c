package run

import (
	"strings"
	"testing"
)

// TestLoopNormalizes: run applies a sidecar's aliases as exec does, and
// says so on the call; a collision is the model's to fix.
func TestLoopNormalizes(t *testing.T) {
	aliased := weatherTool
	aliased.sidecar = strings.Replace(aliased.sidecar, `{"description"`, `{"aliases":{"town":"city"},"description"`, 1)
	b := &scripted{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"town":"Oslo","city":"Bergen"}}` + "\n",
		`{"type":"tool_call","name":"get_weather","arguments":{"town":"Oslo"}}` + "\n",
		`{"type":"final_answer","content":"rain"}`,
	}}
	out, res := runLoop(t, b, Options{Catalog: shCatalog(t, aliased)}, "Weather in Oslo?")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v\n%s", res, out)
	}
	for _, want := range []string{
		`"content":"The arguments for tool \"get_weather\" do not match its input schema:\n- /town: \"town\" is another name for \"city\", and the call also gives \"city\"; give the value once, as \"city\"`,
		`{"type":"tool_call","id":"call_2","name":"get_weather","arguments":{"city":"Oslo"},"format":"jsonl","validated":true,"normalized":[{"from":"/town","to":"/city"}]}`,
		`"content":"18 C and rain in Oslo"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %s\n%s", want, out)
		}
	}
	if system := b.seen[0][0].Content; strings.Contains(system, "town") {
		t.Errorf("the prompt shows the alias:\n%s", system)
	}
}
