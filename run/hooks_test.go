//go:build unix

package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// TestLoopHooks: in run, a before-hook rewrites one call and blocks
// another, an after-hook rewrites a result; the transcript records it,
// the model reads what the hooks decided, and the hooks never see the
// API key the model echoed.
func TestLoopHooks(t *testing.T) {
	const key = "sk-live-0123456789abcdefghijklmnop"
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	guard := script(t, `read -r call; echo "$call" >> `+seen+`
case "$call" in
*Atlantis*) echo "no such place" >&2; exit 2;;
*Oslo*) echo '{"city": "Bergen"}';;
esac`)
	note := script(t, `read -r call; read -r obs; echo "$obs" >> `+seen+`
case "$obs" in *Bergen*) echo "Bergen: wet, as always";; esac`)
	b := &scripted{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n" +
			`{"type":"tool_call","name":"get_weather","arguments":{"city":"Atlantis ` + key + `"}}` + "\n",
		`{"type":"final_answer","content":"ok"}`,
	}}
	opts := Options{Exec: tools.ExecOptions{Secrets: []string{key}, Hooks: tools.Hooks{
		Before: []tools.Hook{{Argv: []string{guard}}},
		After:  []tools.Hook{{Argv: []string{note}}},
	}}}
	out, res := runLoop(t, b, opts, "Weather?")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v\n%s", res, out)
	}
	if !strings.Contains(out, `"arguments":{"city":"Bergen"},"format":"jsonl","validated":true,"rewritten_by":["`+guard+`"]`) ||
		!strings.Contains(out, `"content":"Bergen: wet, as always"`) || !strings.Contains(out, `"rewritten_by":["`+note+`"]`) {
		t.Errorf("the transcript does not record the hooks:\n%s", out)
	}
	told := ""
	for _, m := range b.seen[1] {
		told += m.Content + "\n"
	}
	if !strings.Contains(told, "Bergen: wet, as always") || !strings.Contains(told, "A check of the user's blocked this call: no such place") {
		t.Errorf("the model was told:\n%s", told)
	}
	hooked, _ := os.ReadFile(seen)
	if strings.Contains(string(hooked), key) || strings.Contains(out, key) {
		t.Errorf("the key reached a hook or the transcript:\n%s\n%s", hooked, out)
	}
	if !strings.Contains(string(hooked), "Atlantis [REDACTED]") {
		t.Errorf("the hooks saw:\n%s", hooked)
	}
}

// TestLoopRetries: in run, a safe tool that fails once is run again and
// the model reads its answer; a retry whose wait would pass the run's
// time limit does not start.
func TestLoopRetries(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	flaky := shTool{"flaky", `{"description":"Works the second time.","input_schema":{"type":"object"},"retries":1}`,
		`[ -e ` + state + ` ] || { : > ` + state + `; echo busy >&2; exit 1; }; echo fine`}
	c := shCatalog(t, flaky)
	reply := `{"type":"tool_call","name":"flaky","arguments":{}}` + "\n"
	b := &scripted{replies: []string{reply, `{"type":"final_answer","content":"ok"}`}}
	out, res := runLoop(t, b, Options{Catalog: c, Exec: tools.ExecOptions{RetryBackoff: time.Millisecond}}, "Go.")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v\n%s", res, out)
	}
	var obs gjson.Result
	for _, line := range strings.Split(out, "\n") {
		if gjson.Get(line, "type").Str == "tool_observation" {
			obs = gjson.Parse(line)
		}
	}
	if obs.Get("content").Str != "fine" || obs.Get("attempts.#").Int() != 2 {
		t.Errorf("observation %s", obs.Raw)
	}

	// Within the run's time: the wait would outlast it, so no retry. (A
	// wait is capped at 8s and drawn from its upper half: at least 4s.)
	os.Remove(state)
	b = &scripted{replies: []string{reply, `{"type":"final_answer","content":"ok"}`}}
	start := time.Now()
	out, _ = runLoop(t, b, Options{Catalog: c, Timeout: 3 * time.Second, Exec: tools.ExecOptions{RetryBackoff: 30 * time.Second}}, "Go.")
	if !strings.Contains(out, `"message":"tool \"flaky\" failed (exit status 1)"`) || strings.Contains(out, `"attempts"`) || time.Since(start) > 3*time.Second {
		t.Errorf("a retry started that would pass the run's time limit (%v):\n%s", time.Since(start), out)
	}
}
