//go:build unix

package run

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
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

// TestRunEqualsPipelineConfirmAll is the proof that the loop is the
// stages when a person approves with "all" (--confirm) across turns:
// run's events for its turns are those of parse | exec --confirm on the
// same turns, one exec for the whole stream, and each asks once. A
// refused call keeps its line ("validated": false) before its
// observation in both.
func TestRunEqualsPipelineConfirmAll(t *testing.T) {
	turns := []string{
		`{"type":"tool_call","name":"get_wether","arguments":{"city":"Oslo"}}` + "\n" +
			`{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n",
		`{"type":"tool_call","name":"get_weather","arguments":{"town":"Bergen"}}` + "\n" +
			`{"type":"tool_call","name":"get_weather","arguments":{"city":"Bergen"}}` + "\n",
		`{"type":"final_answer","content":"Rain in both."}`,
	}
	unsafe := weatherTool
	unsafe.sidecar = strings.Replace(unsafe.sidecar, `{"description"`, `{"safe":false,"description"`, 1)
	cat := shCatalog(t, unsafe)
	asked := map[string]int{}
	confirm := func(who string) func(*tools.Tool, *tools.Call) tools.Consent {
		return func(*tools.Tool, *tools.Call) tools.Consent {
			asked[who]++
			return tools.ConsentAll
		}
	}

	opts := Options{MaxIterations: 5, Catalog: cat}
	opts.Exec.Confirm = confirm("run")
	out, res := runLoop(t, &scripted{replies: append([]string(nil), turns...)}, opts, "Weather in Oslo and Bergen?")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v\n%s", res, out)
	}
	var fromRun []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		switch gjson.Get(line, "type").Str {
		case event.TypeSystem, event.TypeUser, event.TypeAssistant, event.TypeStep, event.TypeStop:
		default:
			fromRun = append(fromRun, durationField.ReplaceAllString(line, ""))
		}
	}

	// parse, with the options run reads its turns with, numbering the
	// calls on from one turn to the next as parse does over several
	// files; then one exec for the whole stream.
	var events, executed bytes.Buffer
	ids := 0
	for _, turn := range turns {
		st, err := parse.Stream(context.Background(), strings.NewReader(turn), &events, ParserOptions(catalog.NewLive(cat), parse.Options{FirstID: ids}))
		if err != nil {
			t.Fatal(err)
		}
		ids += st.Calls
	}
	xopts := tools.ExecOptions{Environ: []string{"PATH=" + os.Getenv("PATH")}, Confirm: confirm("exec")}
	if _, err := tools.Exec(context.Background(), &events, &executed, cat, xopts); err != nil {
		t.Fatal(err)
	}
	var fromPipe []string
	for _, line := range strings.Split(strings.TrimSpace(executed.String()), "\n") {
		fromPipe = append(fromPipe, durationField.ReplaceAllString(line, ""))
	}
	if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
		t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
	}
	if asked["run"] != 1 || asked["exec"] != 1 {
		t.Errorf("asked %v; want once each: \"all\" holds for the rest", asked)
	}
	if n := strings.Count(out, `"validated":false`); n != 2 {
		t.Errorf("%d refused calls kept in run's transcript, want 2:\n%s", n, out)
	}
}
