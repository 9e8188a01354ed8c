package run

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools/event"
)

// eventsOf decodes the events of type typ of a transcript.
func eventsOf[E any](transcript, typ string, decode func([]byte) E) []E {
	var evs []E
	for _, line := range strings.Split(strings.TrimSpace(transcript), "\n") {
		if gjson.Get(line, "type").Str == typ {
			evs = append(evs, decode([]byte(line)))
		}
	}
	return evs
}

// threeCalls is a turn of three calls: one that runs, one that fails
// the schema, one to a tool that does not exist.
const threeCalls = `{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n" +
	`{"type":"tool_call","name":"get_weather","arguments":{"town":"Oslo"}}` + "\n" +
	`{"type":"tool_call","name":"get_wether","arguments":{"city":"Oslo"}}` + "\n"

// TestLoopStepLedger: every turn ends with a step event, after its
// observations: the calls with their statuses, the four phases, and the
// server's tokens when it counted them.
func TestLoopStepLedger(t *testing.T) {
	b := &scripted{replies: []string{threeCalls, `{"type":"final_answer","content":"18 C."}`}}
	out, res := runLoop(t, b, Options{}, "Weather in Oslo?")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v\n%s", res, out)
	}
	want := "system user assistant tool_call tool_observation tool_call tool_observation tool_call tool_observation step assistant final_answer step stop"
	if got := types(out); got != want {
		t.Errorf("events %s\nwant %s", got, want)
	}
	steps := eventsOf(out, event.TypeStep, event.DecodeStep)
	if len(steps) != 2 {
		t.Fatalf("%d steps:\n%s", len(steps), out)
	}
	wantCalls := []event.StepCall{{ID: "call_1", Name: "get_weather", Status: "ok"}, {ID: "call_2", Name: "get_weather", Status: "error"}, {ID: "call_3", Name: "get_wether", Status: "error"}}
	if diff := cmp.Diff(wantCalls, steps[0].Calls); diff != "" || steps[0].Iteration != 1 {
		t.Errorf("step 1, iteration %d (-want +got):\n%s", steps[0].Iteration, diff)
	}
	if steps[1].Iteration != 2 || len(steps[1].Calls) != 0 || steps[1].Tokens != nil {
		t.Errorf("step 2: %+v", steps[1])
	}
	for _, k := range []string{"model_ms", "parse_ms", "validate_ms", "exec_ms"} {
		if n := strings.Count(out, `"`+k+`":`); n != 2 {
			t.Errorf("%s written %d times, want once a step", k, n)
		}
	}
	// The tool ran: its time is the executor's, after the checks.
	if steps[0].ExecMS+steps[0].ValidateMS < 0 || steps[0].ModelMS < 0 {
		t.Errorf("negative phases: %+v", steps[0])
	}
}

func TestUsageTokens(t *testing.T) {
	for usage, want := range map[string]*event.Tokens{
		`{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}`: {Prompt: 12, Completion: 3},
		`{"input_tokens":7,"output_tokens":2}`:                         {Prompt: 7, Completion: 2},
		`{"prompt_eval_count":40,"eval_count":9}`:                      {Prompt: 40, Completion: 9},
		`{"total_tokens":12}`:                                          nil,
		``:                                                             nil,
	} {
		if got := usageTokens([]byte(usage)); !cmp.Equal(got, want) {
			t.Errorf("usageTokens(%s) = %+v, want %+v", usage, got, want)
		}
	}
}

// TestStepClock: the executor's time is split at the first tool's start;
// without one it is all checks.
func TestStepClock(t *testing.T) {
	var c stepClock
	c.hand()
	if v, x := c.split(); x != 0 || v < 0 {
		t.Errorf("no tool started: validate %v, exec %v", v, x)
	}
	c.toolStarted()
	first := c.started.Load()
	c.toolStarted()
	if c.started.Load() != first {
		t.Error("a later tool moved the first start")
	}
	if v, x := c.split(); v < 0 || x < 0 {
		t.Errorf("validate %v, exec %v", v, x)
	}
}

// TestLoopReflect: with Reflect, a reflection event follows the turn's
// observations, before its step, and the model's next request carries
// the same note after the observations, in the style's syntax.
func TestLoopReflect(t *testing.T) {
	b := &scripted{replies: []string{threeCalls, `{"type":"final_answer","content":"18 C."}`}}
	out, _ := runLoop(t, b, Options{Reflect: true}, "Weather in Oslo?")
	if got := types(out); !strings.Contains(got, "tool_observation reflection step assistant final_answer step stop") {
		t.Errorf("events %s", got)
	}
	notes := eventsOf(out, event.TypeReflection, event.DecodeReflection)
	if len(notes) != 1 {
		t.Fatalf("%d reflections:\n%s", len(notes), out)
	}
	want := event.Reflection{Iteration: 1, Calls: []event.Finding{
		{ID: "call_1", Name: "get_weather", Status: "ok", Finding: "18 C and rain in Oslo", NextAction: "use this result: answer if it is enough, or make the next call it leads to"},
		{ID: "call_2", Name: "get_weather", Status: "error", Finding: `/city: required property "city" is missing`, NextAction: "fix the argument at /city and call get_weather again"},
		{ID: "call_3", Name: "get_wether", Status: "error", Finding: `Unknown tool "get_wether". Did you mean "get_weather"? Available tools: add, get_weather.`, NextAction: "call get_weather instead, or answer without a tool"},
	}}
	if diff := cmp.Diff(want, notes[0]); diff != "" {
		t.Errorf("reflection (-want +got):\n%s", diff)
	}
	last := b.seen[1][len(b.seen[1])-1]
	var note event.Reflection
	note.Calls = want.Calls
	wantNote := "\n" + `{"type":"reflection",` + string(note.AppendCalls(nil)) + "}"
	if last.Role != "user" || !strings.HasSuffix(last.Content, wantNote) || !strings.HasPrefix(last.Content, `{"type":"tool_observation"`) {
		t.Errorf("the model was given:\n%s\nwant the observations, then%s", last.Content, wantNote)
	}

	// Without Reflect: no note, in the transcript or the prompt.
	b = &scripted{replies: []string{threeCalls, `{"type":"final_answer","content":"18 C."}`}}
	out, _ = runLoop(t, b, Options{}, "Weather in Oslo?")
	if strings.Contains(out, `"reflection"`) || strings.Contains(b.seen[1][len(b.seen[1])-1].Content, "reflection") {
		t.Errorf("a note without --reflect:\n%s", out)
	}
}

// TestLoopReflectStyles: the note comes back as each style gives back a
// result; where the observations go back as tool messages it is a user
// message of its own.
func TestLoopReflectStyles(t *testing.T) {
	call := "<tool_call>\n" + `{"name":"get_weather","arguments":{"city":"Oslo"}}` + "\n</tool_call>\n"
	for _, tc := range []struct {
		style, role, open, close string
	}{
		{catalog.StyleXML, RoleUser, "\n</tool_response>\n<tool_reflection>\n{\"type\":\"reflection\",", "}\n</tool_reflection>"},
		{catalog.StyleMarkdown, RoleUser, "\n```\n```json\n{\"type\":\"reflection\",", "}\n```"},
		{catalog.StyleXML, RoleTool, "<tool_reflection>\n{\"type\":\"reflection\",", "}\n</tool_reflection>"},
	} {
		t.Run(tc.style+"-"+tc.role, func(t *testing.T) {
			reply := call
			if tc.style == catalog.StyleMarkdown {
				reply = "```json\n" + `{"name":"get_weather","arguments":{"city":"Oslo"}}` + "\n```\n"
			}
			b := &scripted{replies: []string{reply, "It is 18 C."}}
			runLoop(t, b, Options{Reflect: true, Style: tc.style, ObservationRole: tc.role}, "Weather in Oslo?")
			msgs := b.seen[1]
			last := msgs[len(msgs)-1]
			if last.Role != "user" || !strings.Contains(last.Content, tc.open) || !strings.HasSuffix(last.Content, tc.close) {
				t.Errorf("last message %s: %q", last.Role, last.Content)
			}
			if tc.role == RoleTool && msgs[len(msgs)-2].Role != "tool" {
				t.Errorf("the note is not after the tool message: %+v", msgs[len(msgs)-2])
			}
		})
	}
}

// TestCheckPredatesSteps: a recording made before step events existed
// still checks: the new run's steps are left out, and the diff's last
// line says so; one that has them compares them, timings and tokens
// aside.
func TestCheckPredatesSteps(t *testing.T) {
	b := &scripted{replies: []string{threeCalls, `{"type":"final_answer","content":"18 C."}`}}
	out, _ := runLoop(t, b, Options{}, "Weather in Oslo?")
	got := splitLines(out)
	var old [][]byte // the recording as made before steps
	for _, ev := range got {
		if !isType(ev, event.TypeStep) {
			old = append(old, ev)
		}
	}
	if len(old) != len(got)-2 {
		t.Fatalf("%d events without steps, of %d", len(old), len(got))
	}
	if diff, ok := Check(old, got); !ok {
		t.Errorf("a recording without steps differs:\n%s", diff)
	}

	// A difference elsewhere: named at its lines in each, and the steps
	// said to be left out.
	changed := append([][]byte(nil), old...)
	for i, ev := range changed {
		if isType(ev, event.TypeFinalAnswer) {
			changed[i] = []byte(strings.Replace(string(ev), "18 C.", "19 C.", 1))
		}
	}
	diff, ok := Check(changed, got)
	if ok || !strings.Contains(diff, "want line 11, got line 12: final_answer changed") ||
		!strings.HasSuffix(diff, "(duration_ms and usage are not compared; nor the step events, which the recording predates)\n") {
		t.Errorf("diff:\n%s", diff)
	}

	// A recording with steps: their timings and tokens are not compared,
	// their calls are.
	retimed := append([][]byte(nil), got...)
	for i, ev := range retimed {
		if isType(ev, event.TypeStep) {
			s := event.DecodeStep(ev)
			s.ModelMS, s.ExecMS, s.Tokens = 4031, 77, &event.Tokens{Prompt: 1, Completion: 2}
			retimed[i] = s.AppendJSON(nil)
		}
	}
	if diff, ok := Check(got, retimed); !ok {
		t.Errorf("timings made a difference:\n%s", diff)
	}
	restated := append([][]byte(nil), got...)
	for i, ev := range restated {
		if isType(ev, event.TypeStep) {
			restated[i] = []byte(strings.Replace(string(ev), `"status":"error"`, `"status":"ok"`, 1))
			break
		}
	}
	diff, ok = Check(got, restated)
	if ok || !strings.Contains(diff, ": step changed\n  calls\n") || !strings.Contains(diff, "(duration_ms and usage are not compared, nor the step events' timings and tokens)") {
		t.Errorf("a step's statuses changed, diff:\n%s", diff)
	}
}

func splitLines(s string) [][]byte {
	var lines [][]byte
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		lines = append(lines, []byte(l))
	}
	return lines
}

// TestPhasePercentiles: p50 and p95 by the nearest rank, exact under
// 128 ms and at most 1/64 under above it.
func TestPhasePercentiles(t *testing.T) {
	var p phaseStats
	if p.percentiles() != nil {
		t.Error("percentiles of no steps")
	}
	for v := int64(1); v <= 100; v++ {
		p.add(stepTimes{v, 0, v * 1000, 100 - v})
	}
	got := p.percentiles()
	want := []event.Phase{{Key: "model_ms", P50: 50, P95: 95}, {Key: "parse_ms"}, {Key: "validate_ms", P50: 49664, P95: 94208}, {Key: "exec_ms", P50: 49, P95: 94}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("percentiles (-want +got):\n%s", diff)
	}
	for _, v := range []int64{0, 1, 127, 128, 129, 1000, 49999, 1 << 40, 1<<62 + 12345} {
		lo := lowest(bucket(v))
		if lo > v || float64(v-lo) > float64(v)/64 {
			t.Errorf("%d is counted as %d", v, lo)
		}
	}
	if bucket(-5) != 0 || bucket(1<<63-1) >= histBuckets {
		t.Errorf("buckets of the extremes: %d, %d", bucket(-5), bucket(1<<63-1))
	}
}
