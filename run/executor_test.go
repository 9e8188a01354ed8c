//go:build unix

package run

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// One executor lives for the whole run: "[a]ll" at the --confirm prompt
// approves the tool for every later turn, not only for the turn it was
// given in. (Each turn once had its own executor, and asked again.)
func TestLoopConsentAllLastsTheRun(t *testing.T) {
	b := &scripted{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n",
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Bergen"}}` + "\n",
		`{"type":"final_answer","content":"Rain in both."}`,
	}}
	asked := 0
	unsafe := weatherTool
	unsafe.sidecar = strings.Replace(unsafe.sidecar, `{"description"`, `{"safe":false,"description"`, 1)
	opts := Options{MaxIterations: 5, Catalog: shCatalog(t, unsafe)}
	opts.Exec.Confirm = func(t *tools.Tool, c *tools.Call) tools.Consent {
		asked++
		return tools.ConsentAll
	}
	out, res := runLoop(t, b, opts, "Weather in Oslo and Bergen?")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v\n%s", res, out)
	}
	if asked != 1 {
		t.Errorf("a person was asked %d times; \"all\" should hold for the run", asked)
	}
	ran := 0
	for _, line := range strings.Split(out, "\n") {
		if gjson.Get(line, "type").Str == "tool_observation" {
			if gjson.Get(line, "is_error").Bool() {
				t.Errorf("refused: %s", line)
			}
			ran++
		}
	}
	if ran != 2 {
		t.Errorf("%d observations, want 2:\n%s", ran, out)
	}
}
