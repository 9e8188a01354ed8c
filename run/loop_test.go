//go:build unix

package run

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
)

// scripted is a Backend that answers each turn with the next of its
// replies, a few bytes at a time, as a streaming server would.
type scripted struct {
	replies []string
	seen    [][]Message // the conversation of each turn
	schemas [][]byte    // the schema each turn asked the server to follow
	stopped []bool      // whether the loop stopped each turn early
	err     error       // returned once the replies run out
}

func (s *scripted) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	s.seen = append(s.seen, append([]Message(nil), req.Messages...))
	s.schemas = append(s.schemas, req.Schema)
	if len(s.replies) == 0 {
		if s.err != nil {
			return Response{}, s.err
		}
		return Response{}, &ProviderError{Message: "no more replies", Attempts: 1}
	}
	reply := s.replies[0]
	s.replies = s.replies[1:]
	for len(reply) > 0 {
		if err := ctx.Err(); err != nil {
			return Response{}, err
		}
		n := min(7, len(reply))
		stop, err := sink.Text([]byte(reply[:n]))
		if err != nil {
			return Response{}, err
		}
		reply = reply[n:]
		if stop {
			s.stopped = append(s.stopped, true)
			return Response{Model: "scripted", Stopped: true}, nil
		}
	}
	s.stopped = append(s.stopped, false)
	return Response{Model: "scripted", Usage: []byte(`{"total_tokens":12}`)}, nil
}

// shTool is a tool for tests: its sidecar and an sh script.
type shTool struct{ name, sidecar, script string }

var (
	weatherTool = shTool{"get_weather", `{"description":"Weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`,
		`read a; echo "18 C and rain in $(echo "$a" | sed 's/.*"city":"\([^"]*\)".*/\1/')"`}
	addTool = shTool{"add", `{"description":"Add two numbers.","input_schema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}`,
		`echo 5`}
)

// shCatalog writes the tools into a new directory and loads it.
func shCatalog(t testing.TB, ts ...shTool) *catalog.Catalog {
	t.Helper()
	dir := t.TempDir()
	for _, tl := range ts {
		// Under ForkLock: a child forked meanwhile would hold the file
		// open for writing, and running it would fail (ETXTBSY).
		syscall.ForkLock.RLock()
		err := os.WriteFile(filepath.Join(dir, tl.name+".json"), []byte(tl.sidecar), 0o644)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, tl.name), []byte("#!/bin/sh\n"+tl.script+"\n"), 0o755)
		}
		syscall.ForkLock.RUnlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := catalog.Load([]string{dir}, catalog.LoadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// loopCatalog is a catalog of two sh tools.
func loopCatalog(t testing.TB) *catalog.Catalog {
	return shCatalog(t, weatherTool, addTool)
}

func runLoop(t *testing.T, b Backend, opts Options, prompt string) (string, Result) {
	t.Helper()
	opts.Backend = b
	if opts.Catalog == nil {
		opts.Catalog = loopCatalog(t)
	}
	opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
	var out bytes.Buffer
	res, err := Loop(context.Background(), Input{Messages: []Message{{Role: "user", Content: prompt}}}, &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), res
}

// types lists the event types of a transcript.
func types(transcript string) string {
	var ts []string
	for _, line := range strings.Split(strings.TrimSpace(transcript), "\n") {
		ts = append(ts, gjson.Get(line, "type").Str)
	}
	return strings.Join(ts, " ")
}

func TestLoopCallThenAnswer(t *testing.T) {
	b := &scripted{replies: []string{
		"Let me check.\n" + `{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n",
		`{"type":"final_answer","content":"It is 18 C and raining in Oslo."}`,
	}}
	out, res := runLoop(t, b, Options{}, "Weather in Oslo?")
	if res.Reason != StopFinalAnswer || res.Iterations != 2 || res.FinalAnswer != "It is 18 C and raining in Oslo." {
		t.Errorf("result %+v", res)
	}
	want := "system user assistant text tool_call tool_observation step assistant final_answer step stop"
	if got := types(out); got != want {
		t.Errorf("events %s\nwant %s\n%s", got, want, out)
	}
	// The observation went back to the model as the protocol promised.
	last := b.seen[1][len(b.seen[1])-1]
	if last.Role != "user" || !strings.Contains(last.Content, `{"type":"tool_observation","id":"call_1","name":"get_weather","content":"18 C and rain in Oslo"}`) {
		t.Errorf("observation given back as %+v", last)
	}
	if !strings.Contains(b.seen[0][0].Content, "### get_weather") {
		t.Errorf("the system prompt does not list the tools:\n%s", b.seen[0][0].Content)
	}
}

// TestLoopStopsAfterCall checks that reading stops when the model goes on
// after its call, and that what it invented is left out.
func TestLoopStopsAfterCall(t *testing.T) {
	b := &scripted{replies: []string{
		"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>\nObservation: it is sunny and 30 C in Oslo, so the answer is...",
		"It is 18 C and raining.",
	}}
	out, res := runLoop(t, b, Options{Style: catalog.StyleXML}, "Weather in Oslo?")
	if !b.stopped[0] {
		t.Error("the loop did not stop reading after the call")
	}
	if strings.Contains(out, `"type":"text","content":"\nObservation`) || strings.Contains(out, "sunny and 30") && !strings.Contains(gjson.Get(strings.Split(out, "\n")[2], "content").Str, "sunny") {
		t.Errorf("the invented observation reached the events:\n%s", out)
	}
	if res.Reason != StopFinalAnswer || res.FinalAnswer != "It is 18 C and raining." {
		t.Errorf("result %+v\n%s", res, out)
	}
	if got := b.seen[1][len(b.seen[1])-1].Content; !strings.HasPrefix(got, "<tool_response>\n") {
		t.Errorf("xml style observation given back as %q", got)
	}
	// The model's own turn comes back whole and clean: its call, not the
	// result it had started to invent.
	want := "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}\n</tool_call>"
	if got := b.seen[1][len(b.seen[1])-2]; got.Role != "assistant" || got.Content != want {
		t.Errorf("the model's turn given back as %+v, want %q", got, want)
	}
}

func TestLoopLimits(t *testing.T) {
	call := func(city string) string {
		return `{"type":"tool_call","name":"get_weather","arguments":{"city":"` + city + `"}}` + "\n"
	}
	t.Run("max iterations", func(t *testing.T) {
		b := &scripted{replies: []string{call("A"), call("B"), call("C")}}
		out, res := runLoop(t, b, Options{MaxIterations: 2}, "?")
		if res.Reason != StopMaxIterations || res.Iterations != 2 {
			t.Errorf("result %+v\n%s", res, out)
		}
	})
	t.Run("repeated call", func(t *testing.T) {
		b := &scripted{replies: []string{call("A"), call("A"), call("A")}}
		_, res := runLoop(t, b, Options{}, "?")
		if res.Reason != StopRepeated || res.Iterations != 2 {
			t.Errorf("result %+v", res)
		}
	})
	t.Run("provider error", func(t *testing.T) {
		b := &scripted{replies: []string{call("A")}, err: &ProviderError{Status: 503, Message: "loading model", Attempts: 3}}
		out, res := runLoop(t, b, Options{}, "?")
		if res.Reason != StopProvider || !strings.Contains(out, `"reason":"provider_error","iterations":2,"error":"model server: HTTP 503: loading model (after 3 attempts)"`) {
			t.Errorf("result %+v\n%s", res, out)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		b := &slow{}
		start := time.Now()
		_, res := runLoop(t, b, Options{Timeout: 200 * time.Millisecond}, "?")
		if res.Reason != StopTimeout || time.Since(start) > 10*time.Second {
			t.Errorf("result %+v after %v", res, time.Since(start))
		}
	})
}

type slow struct{}

func (slow) Complete(ctx context.Context, _ *Request, _ Sink) (Response, error) {
	<-ctx.Done()
	return Response{}, ctx.Err()
}

func TestLoopProse(t *testing.T) {
	t.Run("answer first", func(t *testing.T) {
		out, res := runLoop(t, &scripted{replies: []string{"Paris is the capital of France."}}, Options{}, "Capital of France?")
		if res.Reason != StopFinalAnswer || res.FinalAnswer != "Paris is the capital of France." {
			t.Errorf("result %+v\n%s", res, out)
		}
		if got := types(out); got != "system user assistant text final_answer step stop" {
			t.Errorf("events %s", got)
		}
	})
	t.Run("strict protocol", func(t *testing.T) {
		b := &scripted{replies: []string{"Paris.", `{"type":"final_answer","content":"Paris."}`}}
		out, res := runLoop(t, b, Options{StrictProtocol: true}, "Capital of France?")
		if res.Reason != StopFinalAnswer || res.Iterations != 2 {
			t.Errorf("result %+v\n%s", res, out)
		}
		if !strings.Contains(out, `"kind":"decode"`) {
			t.Errorf("no decode error:\n%s", out)
		}
		if got := b.seen[1][len(b.seen[1])-1].Content; !strings.Contains(got, "no tool call and no final answer") {
			t.Errorf("the model was told %q", got)
		}
	})
}

// TestLoopRefusals checks that a bad call is answered, not run, and the
// model gets the error to correct itself.
func TestLoopRefusals(t *testing.T) {
	b := &scripted{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"town":"Oslo"}}` + "\n",
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n",
		`{"type":"final_answer","content":"18 C."}`,
	}}
	out, res := runLoop(t, b, Options{}, "?")
	if res.Reason != StopFinalAnswer || res.Iterations != 3 {
		t.Errorf("result %+v\n%s", res, out)
	}
	if got := b.seen[1][len(b.seen[1])-1].Content; !strings.Contains(got, `required property \"city\" is missing`) {
		t.Errorf("the model was told %q", got)
	}
	if n := strings.Count(out, `"type":"tool_observation"`); n != 2 {
		t.Errorf("%d observations:\n%s", n, out)
	}
	_ = tools.TypeToolCall
}

// BenchmarkLoopIteration measures the loop's own cost per iteration: the
// model answers at once with a call that is refused without running a
// tool, so neither model nor tool time is in the figure.
func BenchmarkLoopIteration(b *testing.B) {
	c := loopCatalog(b)
	const iterations = 10
	replies := make([]string, iterations)
	for i := range replies {
		replies[i] = `{"type":"tool_call","name":"get_weather","arguments":{"town":"` + strings.Repeat("x", i+1) + `"}}` + "\n"
	}
	for b.Loop() {
		be := &scripted{replies: append([]string(nil), replies...)}
		res, err := Loop(context.Background(), Input{Messages: []Message{{Role: "user", Content: "Weather?"}}}, io.Discard,
			Options{Backend: be, Catalog: c, MaxIterations: iterations})
		if err != nil || res.Reason != StopMaxIterations {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*iterations), "µs/iteration")
}

// TestLoopPickAndConstrain checks that --pick offers only the best tools
// for the request, and --constrain sends a schema of the protocol that
// names exactly those tools.
func TestLoopPickAndConstrain(t *testing.T) {
	b := &scripted{replies: []string{`{"type":"final_answer","content":"ok"}`}}
	_, res := runLoop(t, b, Options{Pick: 1, Constrain: true}, "What is the weather in Oslo?")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v", res)
	}
	system := b.seen[0][0].Content
	if !strings.Contains(system, "### get_weather") || strings.Contains(system, "### add") {
		t.Errorf("--pick 1 offered the wrong tools:\n%s", system)
	}
	schema := b.schemas[0]
	if !gjson.ValidBytes(schema) {
		t.Fatalf("schema is not JSON: %s", schema)
	}
	var names []string
	gjson.GetBytes(schema, "anyOf").ForEach(func(_, v gjson.Result) bool {
		if n := v.Get("properties.name.const"); n.Exists() {
			names = append(names, n.Str)
		}
		return true
	})
	if strings.Join(names, ",") != "get_weather" || !strings.Contains(string(schema), `"const":"final_answer"`) {
		t.Errorf("protocol schema names %v:\n%s", names, schema)
	}
}

// TestLoopPickSmallCatalog: --pick N over a catalog of no more than N
// tools offers them all, even one that matches no word of the request.
func TestLoopPickSmallCatalog(t *testing.T) {
	b := &scripted{replies: []string{`{"type":"final_answer","content":"ok"}`}}
	_, res := runLoop(t, b, Options{Pick: 2}, "What is the weather in Oslo?")
	if res.Reason != StopFinalAnswer {
		t.Fatalf("result %+v", res)
	}
	if system := b.seen[0][0].Content; !strings.Contains(system, "### get_weather") || !strings.Contains(system, "### add") {
		t.Errorf("--pick 2 over a catalog of 2 left a tool out:\n%s", system)
	}
}

// TestLoopToolChoice checks that tool_choice binds the calls, not only the
// tools offered.
func TestLoopToolChoice(t *testing.T) {
	call := `{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n"
	for _, tc := range []struct {
		choice, offered, kind string
	}{
		{"none", "", "permission"},
		{"add", "### add", "permission"},
		{"get_weather", "### get_weather", ""},
	} {
		t.Run(tc.choice, func(t *testing.T) {
			b := &scripted{replies: []string{call, `{"type":"final_answer","content":"ok"}`}}
			out, _ := runLoop(t, b, Options{ToolChoice: tc.choice}, "Weather in Oslo?")
			system := b.seen[0][0].Content
			if tc.offered == "" && strings.Contains(system, "### ") || tc.offered != "" && !strings.Contains(system, tc.offered) {
				t.Errorf("offered:\n%s", system)
			}
			obs := ""
			for _, line := range strings.Split(out, "\n") {
				if gjson.Get(line, "type").Str == tools.TypeToolObservation {
					obs = line
				}
			}
			if got := gjson.Get(obs, "error.kind").Str; got != tc.kind {
				t.Errorf("observation %s, want kind %q", obs, tc.kind)
			}
		})
	}
}

// TestLoopBrokenProtocolLine: a JSONL protocol call that is not valid JSON
// is a parse_error the model is told about, not prose taken as the final
// answer, even with prose before it.
func TestLoopBrokenProtocolLine(t *testing.T) {
	b := &scripted{replies: []string{
		"Let me check.\n" + `{"type":"tool_call","name":"get_weather","arguments":{"city": Oslo Norway}}` + "\n",
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n",
		`{"type":"final_answer","content":"18 C."}`,
	}}
	out, res := runLoop(t, b, Options{}, "Weather in Oslo?")
	if res.Reason != StopFinalAnswer || res.FinalAnswer != "18 C." || res.Iterations != 3 {
		t.Errorf("result %+v\n%s", res, out)
	}
	want := "system user assistant text parse_error tool_observation step assistant tool_call tool_observation step assistant final_answer step stop"
	if got := types(out); got != want {
		t.Errorf("events %s\nwant %s\n%s", got, want, out)
	}
	if got := b.seen[1][len(b.seen[1])-1].Content; !strings.Contains(got, "Your tool call could not be read: invalid JSON in tool call") {
		t.Errorf("the model was told %q", got)
	}
}

// TestLoopPickRefusesUnoffered: under --pick, a call to a catalog tool
// the model was not offered does not run; the observation says it was not
// offered and lists the tools that were.
func TestLoopPickRefusesUnoffered(t *testing.T) {
	call := `{"type":"tool_call","name":"add","arguments":{"a":1,"b":2}}` + "\n"
	b := &scripted{replies: []string{call, `{"type":"final_answer","content":"ok"}`}}
	out, _ := runLoop(t, b, Options{Pick: 1}, "What is the weather in Oslo?")
	var obs string
	for _, line := range strings.Split(out, "\n") {
		if gjson.Get(line, "type").Str == tools.TypeToolObservation {
			obs = line
		}
	}
	if gjson.Get(obs, "error.kind").Str != string(tools.KindUnknownTool) ||
		!strings.Contains(obs, `Tool \"add\" is not available here: it is not among the tools offered for this request (--pick).`) || !strings.Contains(obs, "Available tools: get_weather.") {
		t.Errorf("observation: %s\nrun:\n%s", obs, out)
	}
	// Without --pick every tool is offered, and add runs.
	b = &scripted{replies: []string{call, `{"type":"final_answer","content":"ok"}`}}
	out, _ = runLoop(t, b, Options{}, "What is the weather in Oslo?")
	if strings.Contains(out, `"unknown_tool"`) {
		t.Errorf("without --pick add was refused:\n%s", out)
	}
}
