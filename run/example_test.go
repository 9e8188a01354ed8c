package run_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// script is a Backend that answers each turn with the next of its
// replies, as a model server would stream them: a test's model, or a
// stand-in while the prompt is worked out.
type script struct{ replies []string }

func (s *script) Complete(ctx context.Context, req *run.Request, sink run.Sink) (run.Response, error) {
	reply := s.replies[0]
	s.replies = s.replies[1:]
	if _, err := sink.Text([]byte(reply)); err != nil {
		return run.Response{}, err
	}
	return run.Response{Model: "script"}, nil
}

// A whole run of the loop as toolcall run makes it: a tools directory
// with one tool (its sidecar and an sh script), a model that calls the
// tool and then answers from its result. The transcript is the JSONL
// toolcall run writes; here only its event types are shown, as its
// durations differ from run to run.
func ExampleLoop() {
	dir, err := os.MkdirTemp("", "tools")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sidecar := `{"description": "Weather for a city.", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}`
	if err := os.WriteFile(filepath.Join(dir, "get_weather.json"), []byte(sidecar), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "get_weather"), []byte("#!/bin/sh\necho '18 C and rain'\n"), 0o755); err != nil {
		log.Fatal(err)
	}
	cat, err := catalog.Load([]string{dir}, catalog.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}

	model := &script{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris"}}`,
		`{"type":"final_answer","content":"It is 18 C and raining in Paris."}`,
	}}
	opts := run.Options{Backend: model, Catalog: cat}
	opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")} // what the tool's environment holds
	in := run.Input{Messages: []run.Message{{Role: run.RoleUser, Content: "What is the weather in Paris?"}}}
	var transcript bytes.Buffer
	res, err := run.Loop(context.Background(), in, &transcript, opts)
	if err != nil {
		log.Fatal(err)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(transcript.String()), "\n") {
		typ, _ := tools.EventType([]byte(line))
		types = append(types, typ)
	}
	fmt.Println(strings.Join(types, " "))
	fmt.Printf("%s after %d turns and %d call: %s\n", res.Reason, res.Iterations, res.Calls, res.FinalAnswer)
	// Output:
	// system user assistant tool_call tool_observation step assistant final_answer step stop
	// final_answer after 2 turns and 1 call: It is 18 C and raining in Paris.
}

// calls is an event.Sink that prints what became of each call, from the
// event values the loop hands it: no line of JSON between.
type calls struct{}

func (calls) Emit(e event.Event) error {
	switch e := e.(type) {
	case *tools.CallEvent:
		fmt.Printf("call %s %s\n", e.Name, e.Arguments)
	case *tools.Observation:
		fmt.Printf("  %s (%s)\n", e.Status, e.Error.Kind)
	case *event.Stop:
		fmt.Println("stop:", e.Reason)
	}
	return nil
}

func (calls) Flush() error { return nil }

// The loop hands its events to a sink as values, redacted, in order: the
// view at a terminal is such a sink, and Loop is LoopSink with the JSONL
// encoder. Here the model calls a tool that is not there, and answers.
func ExampleLoopSink() {
	model := &script{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris"}}`,
		`{"type":"final_answer","content":"I cannot look it up."}`,
	}}
	in := run.Input{Messages: []run.Message{{Role: run.RoleUser, Content: "What is the weather in Paris?"}}}
	if _, err := run.LoopSink(context.Background(), in, calls{}, run.Options{Backend: model}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// call get_weather {"city":"Paris"}
	//   error (unknown_tool)
	// stop: final_answer
}
