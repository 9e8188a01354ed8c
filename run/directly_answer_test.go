//go:build unix

package run

import (
	"strings"
	"testing"
)

// Command R+'s tool-use template, as the model writes its directly_answer.
const (
	directlyAnswerTurn = "Plan: I will answer the user directly.\nAction: ```json\n[\n    {\n        \"tool_name\": \"directly_answer\",\n        \"parameters\": {}\n    }\n]\n```"
	directlyAnswerHyph = "Action: ```json\n[{\"tool_name\": \"directly-answer\", \"parameters\": {}}]\n```"
)

// TestLoopDirectlyAnswerAsksForAnswer: Command R's directly_answer alone is
// the model saying it will answer without a tool. The loop neither runs it
// (no unknown_tool) nor takes the plan before it as the answer: it asks for
// the answer, and the next turn's text is it.
func TestLoopDirectlyAnswerAsksForAnswer(t *testing.T) {
	for name, first := range map[string]string{"underscore": directlyAnswerTurn, "hyphen": directlyAnswerHyph} {
		t.Run(name, func(t *testing.T) {
			b := &scripted{replies: []string{first, "Answer: Paris is the capital of France.\nGrounded answer: Paris is the capital of France."}}
			out, res := runLoop(t, b, Options{}, "What is the capital of France?")
			if res.Reason != StopFinalAnswer || res.FinalAnswer != "Paris is the capital of France." {
				t.Fatalf("result %+v\n%s", res, out)
			}
			if strings.Contains(out, `"type":"tool_call"`) || strings.Contains(out, "unknown_tool") || strings.Contains(out, `"kind":"decode"`) {
				t.Errorf("directly_answer was taken as a call or an error:\n%s", out)
			}
			if got, want := types(out), "system user assistant text text user step assistant text final_answer step stop"; name == "underscore" && got != want {
				t.Errorf("events %s, want %s\n%s", got, want, out)
			}
			if len(b.seen) != 2 {
				t.Fatalf("%d turns, want 2", len(b.seen))
			}
			last := b.seen[1][len(b.seen[1])-1]
			if last.Role != "user" || last.Content != answerPrompt {
				t.Errorf("the second turn was not asked for the answer: %+v", last)
			}
			if prev := b.seen[1][len(b.seen[1])-2]; prev.Role != "assistant" || prev.Content != first {
				t.Errorf("the model's own turn is not in the conversation as it wrote it: %+v", prev)
			}
		})
	}
}

// TestLoopDirectlyAnswerThenAnswer: the answer written after the
// directly_answer action in the same turn is the final answer, in one turn.
func TestLoopDirectlyAnswerThenAnswer(t *testing.T) {
	b := &scripted{replies: []string{directlyAnswerTurn + "\nAnswer: Paris is the capital of France."}}
	out, res := runLoop(t, b, Options{}, "What is the capital of France?")
	if res.Reason != StopFinalAnswer || res.FinalAnswer != "Paris is the capital of France." || len(b.seen) != 1 {
		t.Fatalf("result %+v after %d turns\n%s", res, len(b.seen), out)
	}
	if strings.Contains(out, `"type":"tool_call"`) {
		t.Errorf("directly_answer was taken as a call:\n%s", out)
	}
}

// TestLoopDirectlyAnswerGrounded: after directly_answer, Command R writes
// its answer in the grounded-generation layout; the final answer is the
// text of its Answer line.
func TestLoopDirectlyAnswerGrounded(t *testing.T) {
	b := &scripted{replies: []string{directlyAnswerTurn + "\nRelevant Documents: None\nCited Documents: None\nAnswer: The Louvre is closed\non Tuesdays.\nGrounded answer: The Louvre is closed on Tuesdays.<|END_OF_TURN_TOKEN|>"}}
	out, res := runLoop(t, b, Options{}, "Is the Louvre open on Tuesdays?")
	if res.Reason != StopFinalAnswer || res.FinalAnswer != "The Louvre is closed\non Tuesdays." {
		t.Fatalf("result %+v\n%s", res, out)
	}
}

func TestGroundedAnswer(t *testing.T) {
	for in, want := range map[string]string{
		"Answer: 4":                     "4",
		"Answer: 4\nGrounded answer: 4": "4",
		"Cited Documents: None\nAnswer:\nIt is 4.\n\nGrounded answer: It is <co: 0>4</co: 0>.": "It is 4.",
		"It is 4.":                    "It is 4.",
		"My Answer: 4":                "My Answer: 4",
		"Answer:\nGrounded answer: 4": "Answer:\nGrounded answer: 4",
	} {
		if got := groundedAnswer(in); got != want {
			t.Errorf("groundedAnswer(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoopDirectlyAnswerBesideCalls: beside real calls, directly_answer is
// dropped and the real calls stand.
func TestLoopDirectlyAnswerBesideCalls(t *testing.T) {
	b := &scripted{replies: []string{
		"Action: ```json\n[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}, {\"tool_name\": \"directly_answer\", \"parameters\": {}}]\n```",
		"It is 18 C and raining in Oslo.",
	}}
	out, res := runLoop(t, b, Options{}, "Weather in Oslo?")
	if res.Reason != StopFinalAnswer || res.FinalAnswer != "It is 18 C and raining in Oslo." {
		t.Fatalf("result %+v\n%s", res, out)
	}
	if n := strings.Count(out, `"type":"tool_call"`); n != 1 || strings.Contains(out, "unknown_tool") {
		t.Errorf("%d calls, want get_weather's alone:\n%s", n, out)
	}
	if !strings.Contains(out, `"status":"ok"`) {
		t.Errorf("get_weather did not run:\n%s", out)
	}
}

// TestLoopDirectlyAnswerTwice: a model that answers the request for its
// answer with directly_answer again ends the run as a repeated call does,
// instead of spending every iteration.
func TestLoopDirectlyAnswerTwice(t *testing.T) {
	b := &scripted{replies: []string{directlyAnswerTurn, directlyAnswerTurn, "never asked"}}
	out, res := runLoop(t, b, Options{}, "What is the capital of France?")
	if res.Reason != StopRepeated || len(b.seen) != 2 {
		t.Fatalf("result %+v after %d turns\n%s", res, len(b.seen), out)
	}
}

// TestLoopDirectlyAnswerRealTool: a catalog tool named directly_answer is
// called like any other.
func TestLoopDirectlyAnswerRealTool(t *testing.T) {
	b := &scripted{replies: []string{directlyAnswerTurn, "Done."}}
	cat := shCatalog(t, shTool{"directly_answer", `{"description":"Answer.","input_schema":{"type":"object","properties":{}}}`, `echo answered`})
	out, res := runLoop(t, b, Options{Catalog: cat}, "Hi")
	if res.Reason != StopFinalAnswer || !strings.Contains(out, `"type":"tool_call","id":"call_1","name":"directly_answer"`) || !strings.Contains(out, "answered") {
		t.Fatalf("result %+v: the real tool was not called\n%s", res, out)
	}
}
