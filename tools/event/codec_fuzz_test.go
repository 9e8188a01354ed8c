package event

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/schema"
)

// Every event type of the codec round-trips: its decoder reads what its
// encoder writes, as a reader of the line sees it (each string as
// jsonw.ValidString gives it back), DecodeEvent gives the same value of
// the right type, and the line is one JSON object of that type.
func FuzzEventCodec(f *testing.F) {
	f.Add("call_1", "get_weather", "Paris, 18 °C", "hermes", uint8(0), int64(3), true)
	f.Add("", "", "", "", uint8(0), int64(0), false)
	f.Add("id\xff", "na\x00me", "\u2028\xc3 \"q\" \\", "f\"o\\rmat", uint8(7), int64(-1), true)
	f.Fuzz(func(t *testing.T, id, name, text, format string, pick uint8, n int64, flag bool) {
		v := jsonw.ValidString
		raw := append(jsonw.AppendString([]byte(`{"v":`), text), '}') // some JSON
		dur := n
		for _, c := range []struct {
			in, want Event
			decode   func([]byte) Event
		}{
			{in: &TextEvent{Type: []string{TypeText, TypeReasoning, TypeFinalAnswer}[int(pick)%3], Content: []byte(text), Format: format, File: name},
				want:   &TextEvent{Type: []string{TypeText, TypeReasoning, TypeFinalAnswer}[int(pick)%3], Content: []byte(v(text)), Format: v(format), File: v(name)},
				decode: func(b []byte) Event { e := DecodeText(b); return &e }},
			{in: &ParseError{Error: name, Raw: []byte(text), Offset: n, Format: format, File: id},
				want:   &ParseError{Error: v(name), Raw: []byte(v(text)), Offset: n, Format: v(format), File: v(id)},
				decode: func(b []byte) Event { e := DecodeParseError(b); return &e }},
			{in: &tools.CallEvent{Call: tools.Call{ID: id, Name: name, Arguments: raw, Format: format, Repaired: flag, Repairs: []string{text}}, Checked: true, Validated: flag,
				NoSchemaMode: map[bool]string{true: "", false: format}[flag], Coerced: []schema.Coercion{{Pointer: "/" + name, From: text, To: []byte("42")}},
				Normalized: []tools.Normalization{{From: "/" + text, To: "/" + name}, {Pointer: "/" + id, From: format, To: `"celsius"`}}, RewrittenBy: []string{format, id}},
				want: &tools.CallEvent{Call: asEncoded(tools.Call{ID: id, Name: name, Arguments: raw, Format: format, Repaired: flag, Repairs: []string{text}}), Checked: true, Validated: flag,
					NoSchemaMode: map[bool]string{true: "", false: v(format)}[flag], Coerced: []schema.Coercion{{Pointer: "/" + v(name), From: v(text), To: []byte("42")}},
					Normalized: []tools.Normalization{{From: "/" + v(text), To: "/" + v(name)}, {Pointer: "/" + v(id), From: v(format), To: `"celsius"`}}, RewrittenBy: []string{v(format), v(id)}},
				decode: func(b []byte) Event { e, _ := tools.DecodeCallEvent(b); return &e }},
			{in: &tools.CallEvent{Call: tools.Call{ID: id, Name: name, Format: format}},
				want:   &tools.CallEvent{Call: asEncoded(tools.Call{ID: id, Name: name, Format: format})},
				decode: func(b []byte) Event { e, _ := tools.DecodeCallEvent(b); return &e }},
			{in: &tools.Observation{ID: id, Name: name, Content: text, IsError: flag, Status: format, Error: &tools.ToolError{Kind: tools.ErrorKind(name), Message: text, Details: raw},
				Parts: raw, Structured: raw, ExitCode: ptr(int(int32(n))), Signal: format, DurationMS: &dur, Truncated: !flag, Ref: id,
				Attempts: []tools.Attempt{{Status: name, Kind: tools.ErrorKind(format), ExitCode: ptr(int(pick)), Signal: text}, {Status: id}}, RewrittenBy: []string{text}},
				want: &tools.Observation{ID: v(id), Name: v(name), Content: v(text), IsError: flag, Status: v(format), Error: &tools.ToolError{Kind: tools.ErrorKind(v(name)), Message: v(text), Details: raw},
					Parts: raw, Structured: raw, ExitCode: ptr(int(int32(n))), Signal: v(format), DurationMS: &dur, Truncated: !flag, Ref: v(id),
					Attempts: []tools.Attempt{{Status: v(name), Kind: tools.ErrorKind(v(format)), ExitCode: ptr(int(pick)), Signal: v(text)}, {Status: v(id)}}, RewrittenBy: []string{v(text)}},
				decode: func(b []byte) Event { e := tools.DecodeObservation(b); return &e }},
			{in: &tools.Observation{ID: id, Name: name, Content: text},
				want:   &tools.Observation{ID: v(id), Name: v(name), Content: v(text)},
				decode: func(b []byte) Event { e := tools.DecodeObservation(b); return &e }},
			{in: &Message{Type: []string{TypeSystem, TypeUser}[int(pick)%2], Content: text, API: format},
				want:   &Message{Type: []string{TypeSystem, TypeUser}[int(pick)%2], Content: v(text), API: v(format)},
				decode: func(b []byte) Event { e := DecodeMessage(b); return &e }},
			{in: &Assistant{Content: text, ToolCalls: []tools.Call{{ID: id, Name: name, Arguments: []byte(text)}}, Model: format, Usage: raw, Stopped: flag, DurationMS: &dur},
				want:   &Assistant{Content: v(text), ToolCalls: []tools.Call{{ID: v(id), Name: v(name), Arguments: []byte(v(text))}}, Model: v(format), Usage: raw, Stopped: flag, DurationMS: &dur},
				decode: func(b []byte) Event { e := DecodeAssistant(b); return &e }},
			{in: &Assistant{Content: text}, want: &Assistant{Content: v(text)},
				decode: func(b []byte) Event { e := DecodeAssistant(b); return &e }},
			{in: &Stop{Reason: name, Iterations: int(int32(n)), Error: text},
				want:   &Stop{Reason: v(name), Iterations: int(int32(n)), Error: v(text)},
				decode: func(b []byte) Event { e := DecodeStop(b); return &e }},
			{in: &Summary{Request: id, Reason: name, Iterations: int(int32(n)), Calls: ptr(int(pick)), DurationMS: &dur, File: text, Skipped: flag, Error: format},
				want:   &Summary{Request: v(id), Reason: v(name), Iterations: int(int32(n)), Calls: ptr(int(pick)), DurationMS: &dur, File: v(text), Skipped: flag, Error: v(format)},
				decode: func(b []byte) Event { e := DecodeSummary(b); return &e }},
			{in: &Summary{Request: id}, want: &Summary{Request: v(id)},
				decode: func(b []byte) Event { e := DecodeSummary(b); return &e }},
			{in: &Batch{Counts: []Count{{Key: "n_" + name, N: int(pick)}, {Key: "files", N: int(int32(n))}}, DurationMS: n},
				want:   &Batch{Counts: []Count{{Key: v("n_" + name), N: int(pick)}, {Key: "files", N: int(int32(n))}}, DurationMS: n},
				decode: func(b []byte) Event { e := DecodeBatch(b); return &e }},
			{in: &Batch{Counts: []Count{{Key: "calls", N: int(pick)}}, Phases: []Phase{{Key: name, P50: n, P95: dur + 1}, {Key: "exec_ms", P50: int64(pick)}}, DurationMS: n},
				want:   &Batch{Counts: []Count{{Key: "calls", N: int(pick)}}, Phases: []Phase{{Key: v(name), P50: n, P95: dur + 1}, {Key: "exec_ms", P50: int64(pick)}}, DurationMS: n},
				decode: func(b []byte) Event { e := DecodeBatch(b); return &e }},
			{in: &Step{Iteration: int(int32(n)), Calls: []StepCall{{ID: id, Name: name, Status: format}, {Status: text}}, ModelMS: n, ParseMS: int64(pick), ValidateMS: -n, ExecMS: dur + 1,
				Tokens: map[bool]*Tokens{true: {Prompt: n, Completion: int64(pick)}}[flag]},
				want: &Step{Iteration: int(int32(n)), Calls: []StepCall{{ID: v(id), Name: v(name), Status: v(format)}, {Status: v(text)}}, ModelMS: n, ParseMS: int64(pick), ValidateMS: -n, ExecMS: dur + 1,
					Tokens: map[bool]*Tokens{true: {Prompt: n, Completion: int64(pick)}}[flag]},
				decode: func(b []byte) Event { e := DecodeStep(b); return &e }},
			{in: &Reflection{Iteration: int(pick), Calls: []Finding{{ID: id, Name: name, Status: format, Finding: text, NextAction: name + text}, {}}},
				want:   &Reflection{Iteration: int(pick), Calls: []Finding{{ID: v(id), Name: v(name), Status: v(format), Finding: v(text), NextAction: v(name + text)}, {}}},
				decode: func(b []byte) Event { e := DecodeReflection(b); return &e }},
			{in: &Check{File: name, Status: format, Ignored: []string{text, "system"}, Difference: text, Error: id},
				want:   &Check{File: v(name), Status: v(format), Ignored: []string{v(text), "system"}, Difference: v(text), Error: v(id)},
				decode: func(b []byte) Event { e := DecodeCheck(b); return &e }},
		} {
			line := c.in.AppendJSON(nil)
			if diff := diffEmpty(c.want, c.decode(line)); diff != "" {
				t.Errorf("%s read back (-want +got):\n%s", line, diff)
			}
			typ, err := tools.EventType(line)
			if err != nil || typ != c.in.EventType() {
				t.Errorf("%s: type %q, %v; want %q", line, typ, err, c.in.EventType())
			}
			e, err := DecodeEvent(line)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if diff := diffEmpty(c.want, e); diff != "" {
				t.Errorf("DecodeEvent(%s) (-want +got):\n%s", line, diff)
			}
		}
	})
}

// diffEmpty is cmp.Diff with nil and empty taken as equal, called only
// when reflect.DeepEqual (stricter, so never equal where cmp would not
// be) finds a difference: cmp's reflection took three quarters of each
// fuzz input's time, and with it the minimizer's, while the codec took a
// twentieth.
func diffEmpty(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}

// asEncoded is c as its tool_call event gives it back once read, as the
// executor's own asEncoded has it: strings as the JSON writer writes
// them, no repairs without Repaired, "{}" for no arguments.
func asEncoded(c tools.Call) tools.Call {
	c.ID, c.Name, c.Format = jsonw.ValidString(c.ID), jsonw.ValidString(c.Name), jsonw.ValidString(c.Format)
	if !c.Repaired {
		c.Repairs = nil
	}
	for i, k := range c.Repairs {
		c.Repairs[i] = jsonw.ValidString(k)
	}
	if len(c.Arguments) == 0 {
		c.Arguments = []byte("{}")
	}
	return c
}
