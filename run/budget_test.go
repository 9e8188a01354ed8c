package run

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// TestLoopBudgets: a tool whose budget is spent is no longer offered, a
// call to it is refused, and the run stops with call_budget only when
// nothing is left to offer.
func TestLoopBudgets(t *testing.T) {
	call := func(city string) string {
		return `{"type":"tool_call","name":"get_weather","arguments":{"city":"` + city + `"}}` + "\n"
	}
	once := weatherTool
	once.sidecar = strings.Replace(once.sidecar, `{"description"`, `{"max_calls":1,"description"`, 1)

	t.Run("max_calls", func(t *testing.T) {
		b := &scripted{replies: []string{call("A"), call("B"), `{"type":"final_answer","content":"rain"}`}}
		out, res := runLoop(t, b, Options{Catalog: shCatalog(t, once, addTool), Constrain: true}, "Weather in A and B?")
		if res.Reason != StopFinalAnswer || res.Iterations != 3 {
			t.Fatalf("result %+v\n%s", res, out)
		}
		first, second := b.seen[0][0].Content, b.seen[1][0].Content
		if !strings.Contains(first, "### get_weather") || strings.Contains(second, "### get_weather") || !strings.Contains(second, "### add") {
			t.Errorf("the spent tool is still offered:\n--- turn 1\n%s\n--- turn 2\n%s", first, second)
		}
		if strings.Contains(string(b.schemas[1]), `"get_weather"`) || !strings.Contains(string(b.schemas[0]), `"get_weather"`) {
			t.Errorf("--constrain's schema still names the spent tool: %s", b.schemas[1])
		}
		var kinds []string
		for _, line := range strings.Split(out, "\n") {
			if gjson.Get(line, "type").Str == "tool_observation" {
				kinds = append(kinds, gjson.Get(line, "status").Str+"/"+gjson.Get(line, "error.details.budget").Str)
			}
		}
		if got := strings.Join(kinds, " "); got != "ok/ blocked/tool" {
			t.Errorf("observations %s, want ok/ blocked/tool\n%s", got, out)
		}
	})

	t.Run("max-calls", func(t *testing.T) {
		b := &scripted{replies: []string{call("A"), call("B"), call("C")}}
		out, res := runLoop(t, b, Options{Exec: tools.ExecOptions{MaxCalls: 1}}, "Weather in A and B?")
		if res.Reason != StopCallBudget || res.Iterations != 2 {
			t.Fatalf("result %+v\n%s", res, out)
		}
		if !strings.HasSuffix(strings.TrimSpace(out), `{"type":"stop","reason":"call_budget","iterations":2}`) {
			t.Errorf("stop event:\n%s", out)
		}
		if second := b.seen[1][0].Content; strings.Contains(second, "### ") || !strings.Contains(second, "No tools are available now") {
			t.Errorf("tools still offered after the run's budget:\n%s", second)
		}
	})

	t.Run("answer after the budget", func(t *testing.T) {
		b := &scripted{replies: []string{call("A"), `{"type":"final_answer","content":"rain"}`}}
		_, res := runLoop(t, b, Options{Exec: tools.ExecOptions{MaxCalls: 1}}, "Weather in A?")
		if res.Reason != StopFinalAnswer {
			t.Errorf("result %+v", res)
		}
	})
}

// toolsSeen is a scripted backend that also notes the tools each request
// offered natively.
type toolsSeen struct {
	scripted
	tools []string
}

func (s *toolsSeen) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	s.tools = append(s.tools, string(req.Tools))
	return s.scripted.Complete(ctx, req, sink)
}

// TestLoopBudgetsNative: with the server's own tool calling, a spent tool
// leaves the request's tools.
func TestLoopBudgetsNative(t *testing.T) {
	once := weatherTool
	once.sidecar = strings.Replace(once.sidecar, `{"description"`, `{"max_calls":1,"description"`, 1)
	b := &toolsSeen{scripted: scripted{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"A"}}` + "\n",
		`{"type":"final_answer","content":"rain"}`,
	}}}
	out, res := runLoop(t, b, Options{Catalog: shCatalog(t, once, addTool), Native: true, ObservationRole: RoleTool}, "Weather in A?")
	if res.Reason != StopFinalAnswer || len(b.tools) != 2 {
		t.Fatalf("result %+v, %d requests\n%s", res, len(b.tools), out)
	}
	if !strings.Contains(b.tools[0], `"get_weather"`) || strings.Contains(b.tools[1], `"get_weather"`) || !strings.Contains(b.tools[1], `"add"`) {
		t.Errorf("tools offered:\n%s\nthen:\n%s", b.tools[0], b.tools[1])
	}
}
