package run

import (
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
	"github.com/toolcall/toolcall/tools/redact"
	"github.com/toolcall/toolcall/tools/schema"
)

// The redactor over values leaves no secret in any string of any event,
// and writes what redacting the event's line as JSON wrote before it took
// values: the bytes of a transcript do not change with it. An event
// without a secret is handed on as it is, not copied.
func TestRedactEventEveryField(t *testing.T) {
	const key = "tcsk-9Qm2Zr7Lx4Vb8Np3Kd6Wf1Hy5"
	r := redact.New(nil, nil, key)
	k := "a " + key + " b"
	kj := []byte(`{"` + key + `":["` + k + `",1]}`)
	n := int64(7)
	events := []event.Event{
		&event.TextEvent{Type: event.TypeText, Content: []byte(k), Format: k, File: k},
		&event.TextEvent{Type: event.TypeFinalAnswer, Content: []byte(k)},
		&event.ParseError{Error: k, Raw: []byte(k), Offset: 3, Format: k, File: k},
		&tools.CallEvent{Call: tools.Call{ID: k, Name: k, Arguments: kj, Format: k, Repaired: true, Repairs: []string{"x", k}},
			Checked: true, NoSchemaMode: k, Coerced: []schema.Coercion{{Pointer: k, From: k, To: kj}},
			Normalized: []tools.Normalization{{From: k, To: k}, {Pointer: k, From: k, To: string(kj)}}, RewrittenBy: []string{k}},
		&tools.Observation{ID: k, Name: k, Content: k, IsError: true, Status: k, Error: &tools.ToolError{Kind: tools.ErrorKind(k), Message: k, Details: kj},
			Parts: kj, Structured: kj, Signal: k, DurationMS: &n, Ref: k, Attempts: []tools.Attempt{{Status: k, Kind: tools.ErrorKind(k), Signal: k}}, RewrittenBy: []string{k}},
		&event.Message{Type: event.TypeUser, Content: k, API: k},
		&event.Assistant{Content: k, ToolCalls: []tools.Call{{ID: k, Name: k, Arguments: []byte(k)}}, Model: k, Usage: kj, DurationMS: &n},
		&event.Stop{Reason: k, Iterations: 2, Error: k},
		&event.Summary{Request: k, Reason: k, File: k, Error: k},
		&event.Batch{Counts: []event.Count{{Key: k, N: 1}}, Phases: []event.Phase{{Key: k, P50: 1}}, DurationMS: 5},
		&event.Check{File: k, Status: k, Ignored: []string{k}, Difference: k, Error: k},
		&event.Step{Iteration: 1, Calls: []event.StepCall{{ID: k, Name: k, Status: k}}},
		&event.Reflection{Iteration: 1, Calls: []event.Finding{{ID: k, Name: k, Status: k, Finding: k, NextAction: k}}},
		&event.OtherEvent{Type: "tool", Line: []byte(`{"type":"tool","name":"` + k + `"}`)},
	}
	for _, e := range events {
		line := string(e.AppendJSON(nil))
		got := string(redactEvent(r, e).AppendJSON(nil))
		if strings.Contains(got, key) {
			t.Errorf("%s: the key is left in\n%s", e.EventType(), got)
		}
		if want := string(r.JSON([]byte(line))); got != want {
			t.Errorf("%s: redacted as a value\n%s\nas a line\n%s", e.EventType(), got, want)
		}
		if again := string(e.AppendJSON(nil)); again != line {
			t.Errorf("%s: the caller's event was changed:\n%s", e.EventType(), again)
		}
	}
	plain := &event.Step{Iteration: 1, Calls: []event.StepCall{{ID: "call_1", Name: "add", Status: "ok"}}}
	if redactEvent(r, plain) != event.Event(plain) {
		t.Errorf("an event without a secret was copied")
	}
}
