package event

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonread"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

func ptr[T any](v T) *T { return &v }

// The events only run writes: the conversation, each turn's ledger and
// note, how a run and a batch ended, and a bulk check's verdicts.

// Message is a system or user event: a message of the conversation as
// run was given it.
type Message struct {
	Type    string // TypeSystem or TypeUser
	Content string
	// API, on a system event, says how the tools were offered:
	// "native" when they went in the request, not in this text.
	API string
}

func (m *Message) EventType() string { return m.Type }

func (m *Message) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonw.AppendString(dst, m.Type)
	dst = append(dst, `,"content":`...)
	dst = jsonw.AppendString(dst, m.Content)
	dst = appendOptString(dst, `,"api":`, m.API)
	return append(dst, '}')
}

// DecodeMessage reads a system or user event.
func DecodeMessage(line []byte) Message {
	var m Message
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "type":
			m.Type = jsonread.Str(v)
		case "content":
			m.Content = jsonread.Str(v)
		case "api":
			m.API = jsonread.Str(v)
		}
	})
	return m
}

// Assistant is an assistant event: a turn of the model, its text as read
// and the calls the server parsed itself; or, without DurationMS, an
// assistant message run was given with the request.
type Assistant struct {
	Content string
	// ToolCalls are the calls the server parsed itself, arguments as the
	// server sent them (written as a JSON string), under the ids the
	// tool_call events give them.
	ToolCalls []tools.Call
	Model     string
	// Usage is the server's token counts, compact JSON.
	Usage   []byte
	Stopped bool // reading stopped before the reply ended
	// DurationMS is how long the turn took; nil for a message of the
	// request, which was not a turn.
	DurationMS *int64
}

func (a *Assistant) EventType() string { return TypeAssistant }

func (a *Assistant) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"assistant","content":`...)
	dst = jsonw.AppendString(dst, a.Content)
	if len(a.ToolCalls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for i, c := range a.ToolCalls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = openIDName(dst, c.ID, c.Name)
			dst = append(dst, `,"arguments":`...)
			dst = jsonw.AppendBytes(dst, c.Arguments)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = appendOptString(dst, `,"model":`, a.Model)
	if len(a.Usage) > 0 {
		dst = append(dst, `,"usage":`...)
		dst = jsonw.AppendCompact(dst, a.Usage)
	}
	if a.Stopped {
		dst = append(dst, `,"stopped":true`...)
	}
	if a.DurationMS != nil {
		dst = append(dst, `,"duration_ms":`...)
		dst = strconv.AppendInt(dst, *a.DurationMS, 10)
	}
	return append(dst, '}')
}

// DecodeAssistant reads an assistant event.
func DecodeAssistant(line []byte) Assistant {
	var a Assistant
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "content":
			a.Content = jsonread.Str(v)
		case "tool_calls":
			a.ToolCalls = nil
			v.ForEach(func(_, c gjson.Result) bool {
				a.ToolCalls = append(a.ToolCalls, tools.Call{ID: c.Get("id").Str, Name: c.Get("name").Str, Arguments: []byte(c.Get("arguments").Str)})
				return true
			})
		case "model":
			a.Model = jsonread.Str(v)
		case "usage":
			a.Usage = jsonread.Raw(v)
		case "stopped":
			a.Stopped = v.Type == gjson.True
		case "duration_ms":
			a.DurationMS = nil
			if v.Type == gjson.Number {
				a.DurationMS = ptr(v.Int())
			}
		}
	})
	return a
}

// Stop is the stop event that ends a run's transcript: why, after how
// many turns, and what failed when something did.
type Stop struct {
	Reason     string
	Iterations int
	Error      string
}

func (s *Stop) EventType() string { return TypeStop }

func (s *Stop) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"stop","reason":`...)
	dst = jsonw.AppendString(dst, s.Reason)
	dst = append(dst, `,"iterations":`...)
	dst = strconv.AppendInt(dst, int64(s.Iterations), 10)
	dst = appendOptString(dst, `,"error":`, s.Error)
	return append(dst, '}')
}

// DecodeStop reads a stop event.
func DecodeStop(line []byte) Stop {
	var s Stop
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "reason":
			s.Reason = jsonread.Str(v)
		case "iterations":
			if v.Type == gjson.Number {
				s.Iterations = int(v.Int())
			}
		case "error":
			s.Error = jsonread.Str(v)
		}
	})
	return s
}

// Summary is the summary event of one request of a batch (run --batch):
// how it ended, written after its transcript.
type Summary struct {
	// Request is the request's id; "request" comes first, as on the
	// events of its transcript, so that sorting lines groups them.
	Request    string
	Reason     string
	Iterations int
	// Calls and DurationMS are set for a request that ran (not one
	// skipped as done, nor a line that is no request).
	Calls      *int
	DurationMS *int64
	File       string // its transcript, under --out
	Skipped    bool   // done already under --out, not run again
	Error      string
}

func (s *Summary) EventType() string { return TypeSummary }

func (s *Summary) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"request":`...)
	dst = jsonw.AppendString(dst, s.Request)
	dst = append(dst, `,"type":"summary","reason":`...)
	dst = jsonw.AppendString(dst, s.Reason)
	dst = append(dst, `,"iterations":`...)
	dst = strconv.AppendInt(dst, int64(s.Iterations), 10)
	if s.Calls != nil {
		dst = append(dst, `,"calls":`...)
		dst = strconv.AppendInt(dst, int64(*s.Calls), 10)
	}
	if s.DurationMS != nil {
		dst = append(dst, `,"duration_ms":`...)
		dst = strconv.AppendInt(dst, *s.DurationMS, 10)
	}
	dst = appendOptString(dst, `,"file":`, s.File)
	if s.Skipped {
		dst = append(dst, `,"skipped":true`...)
	}
	dst = appendOptString(dst, `,"error":`, s.Error)
	return append(dst, '}')
}

// DecodeSummary reads a summary event.
func DecodeSummary(line []byte) Summary {
	var s Summary
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "request":
			s.Request = jsonread.Str(v)
		case "reason":
			s.Reason = jsonread.Str(v)
		case "iterations":
			s.Iterations = int(v.Int())
		case "calls":
			s.Calls = nil
			if v.Type == gjson.Number {
				s.Calls = ptr(int(v.Int()))
			}
		case "duration_ms":
			s.DurationMS = nil
			if v.Type == gjson.Number {
				s.DurationMS = ptr(v.Int())
			}
		case "file":
			s.File = jsonread.Str(v)
		case "skipped":
			s.Skipped = v.Type == gjson.True
		case "error":
			s.Error = jsonread.Str(v)
		}
	})
	return s
}

// Batch is the last event of run --batch, or of run --replay DIR
// --check: the totals, as counts in the order they are written, then how
// long it all took.
type Batch struct {
	Counts []Count
	// Phases are the percentiles of the step events' timings, one per
	// phase in the order written (run --batch); none for a check.
	Phases     []Phase
	DurationMS int64
}

// Phase is what a batch says of one phase of its turns (a step event's
// model_ms, parse_ms, …): the median and the 95th percentile, in ms.
type Phase struct {
	Key      string
	P50, P95 int64
}

// Count is one total of a batch event: "requests", "final_answer", … for
// a batch of requests; "files", "ok", … for a check of recordings.
type Count struct {
	Key string
	N   int
}

func (b *Batch) EventType() string { return TypeBatch }

func (b *Batch) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"batch"`...)
	for _, c := range b.Counts {
		dst = append(dst, ',')
		dst = jsonw.AppendString(dst, c.Key)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(c.N), 10)
	}
	if len(b.Phases) > 0 {
		dst = append(dst, `,"phases":{`...)
		for i, p := range b.Phases {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonw.AppendString(dst, p.Key)
			dst = append(dst, `:{"p50":`...)
			dst = strconv.AppendInt(dst, p.P50, 10)
			dst = append(dst, `,"p95":`...)
			dst = strconv.AppendInt(dst, p.P95, 10)
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"duration_ms":`...)
	dst = strconv.AppendInt(dst, b.DurationMS, 10)
	return append(dst, '}')
}

// DecodeBatch reads a batch event: every number but duration_ms is a
// count, and "phases" holds the percentiles.
func DecodeBatch(line []byte) Batch {
	var b Batch
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch {
		case k == "duration_ms":
			b.DurationMS = v.Int()
		case k == "phases":
			b.Phases = nil
			v.ForEach(func(k, p gjson.Result) bool {
				if p.IsObject() {
					b.Phases = append(b.Phases, Phase{Key: k.Str, P50: p.Get("p50").Int(), P95: p.Get("p95").Int()})
				}
				return true
			})
		case v.Type == gjson.Number:
			b.Counts = append(b.Counts, Count{Key: k, N: int(v.Int())})
		}
	})
	return b
}

// Check is the event of one recording checked by run --replay DIR
// --check: its file, the status (ok, differs, error) and the first
// difference or the error.
type Check struct {
	File   string
	Status string
	// Ignored is what the check left out, as --ignore asked.
	Ignored    []string
	Difference string
	Error      string
}

func (c *Check) EventType() string { return TypeCheck }

func (c *Check) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"check","file":`...)
	dst = jsonw.AppendString(dst, c.File)
	dst = append(dst, `,"status":`...)
	dst = jsonw.AppendString(dst, c.Status)
	if len(c.Ignored) > 0 {
		dst = jsonw.AppendStrings(append(dst, `,"ignored":`...), c.Ignored)
	}
	dst = appendOptString(dst, `,"difference":`, c.Difference)
	dst = appendOptString(dst, `,"error":`, c.Error)
	return append(dst, '}')
}

// DecodeCheck reads a check event.
func DecodeCheck(line []byte) Check {
	var c Check
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "file":
			c.File = jsonread.Str(v)
		case "status":
			c.Status = jsonread.Str(v)
		case "ignored":
			c.Ignored = jsonread.Strings(v)
		case "difference":
			c.Difference = jsonread.Str(v)
		case "error":
			c.Error = jsonread.Str(v)
		}
	})
	return c
}

// The event types of run's ledger (README.md, Events).
const (
	TypeStep       = "step"       // run: one per turn, after its observations
	TypeReflection = "reflection" // run --reflect: one per turn with calls
)

// Step is the step event that closes each turn of run: the ledger of the
// turn. It says which calls the turn made and how each went, and where
// the turn's time went: waiting for the model, parsing its reply,
// checking the calls, running them. Its timings and tokens change from
// run to run, and a check ignores them (run.VolatileFields).
type Step struct {
	Iteration int
	Calls     []StepCall
	// ModelMS is the time the model server took, less the time spent
	// parsing what it sent as it arrived (ParseMS). ValidateMS is the time
	// from handing the calls over to the first tool starting (all of it
	// when none started): checks, before-call hooks, consent. ExecMS is
	// the rest of the executor's time: tools and after-call hooks.
	ModelMS, ParseMS, ValidateMS, ExecMS int64
	// Tokens are the server's own counts of the turn; nil when it
	// reported none.
	Tokens *Tokens
}

// StepCall is one call of a step: its id, its tool and the status of its
// observation (ok, partial, error, blocked).
type StepCall struct{ ID, Name, Status string }

// Tokens are what a model server counted of a turn: the prompt it read
// and the reply it wrote.
type Tokens struct{ Prompt, Completion int64 }

func (e *Step) EventType() string { return TypeStep }

func (e *Step) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"step","iteration":`...)
	dst = strconv.AppendInt(dst, int64(e.Iteration), 10)
	if len(e.Calls) > 0 {
		dst = append(dst, `,"calls":[`...)
		for i, c := range e.Calls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = openIDName(dst, c.ID, c.Name)
			dst = append(dst, `,"status":`...)
			dst = jsonw.AppendString(dst, c.Status)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"model_ms":`...)
	dst = strconv.AppendInt(dst, e.ModelMS, 10)
	dst = append(dst, `,"parse_ms":`...)
	dst = strconv.AppendInt(dst, e.ParseMS, 10)
	dst = append(dst, `,"validate_ms":`...)
	dst = strconv.AppendInt(dst, e.ValidateMS, 10)
	dst = append(dst, `,"exec_ms":`...)
	dst = strconv.AppendInt(dst, e.ExecMS, 10)
	if t := e.Tokens; t != nil {
		dst = append(dst, `,"tokens":{"prompt":`...)
		dst = strconv.AppendInt(dst, t.Prompt, 10)
		dst = append(dst, `,"completion":`...)
		dst = strconv.AppendInt(dst, t.Completion, 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// openIDName opens the object of a call in a list, as an assistant, step
// or reflection event writes it: {"id":…,"name":… with the rest to come.
func openIDName(dst []byte, id, name string) []byte {
	dst = append(dst, `{"id":`...)
	dst = jsonw.AppendString(dst, id)
	dst = append(dst, `,"name":`...)
	return jsonw.AppendString(dst, name)
}

// DecodeStep reads a step event.
func DecodeStep(line []byte) Step {
	var e Step
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "iteration":
			e.Iteration = int(v.Int())
		case "calls":
			e.Calls = nil
			v.ForEach(func(_, c gjson.Result) bool {
				e.Calls = append(e.Calls, StepCall{ID: jsonread.Str(c.Get("id")), Name: jsonread.Str(c.Get("name")), Status: jsonread.Str(c.Get("status"))})
				return true
			})
		case "model_ms":
			e.ModelMS = v.Int()
		case "parse_ms":
			e.ParseMS = v.Int()
		case "validate_ms":
			e.ValidateMS = v.Int()
		case "exec_ms":
			e.ExecMS = v.Int()
		case "tokens":
			e.Tokens = nil
			if v.IsObject() {
				e.Tokens = &Tokens{Prompt: v.Get("prompt").Int(), Completion: v.Get("completion").Int()}
			}
		}
	})
	return e
}

// Reflection is the reflection event of run --reflect: after a turn's
// observations, one finding and one next action per call, derived from
// the observations without asking the model. The next request carries
// it too, in the prompt style's syntax.
type Reflection struct {
	Iteration int
	Calls     []Finding
}

// Finding is what a reflection says of one call: how it went (Status, as
// its observation has it), what came of it (the first meaningful line of
// the output, or what to fix), and what to do next.
type Finding struct {
	ID, Name, Status string
	Finding          string
	NextAction       string
}

func (e *Reflection) EventType() string { return TypeReflection }

func (e *Reflection) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"reflection","iteration":`...)
	dst = strconv.AppendInt(dst, int64(e.Iteration), 10)
	return append(e.AppendCalls(append(dst, ',')), '}')
}

// AppendCalls appends the "calls" field of the event, as the note given
// back to the model also has it.
func (e *Reflection) AppendCalls(dst []byte) []byte {
	dst = append(dst, `"calls":[`...)
	for i, f := range e.Calls {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = openIDName(dst, f.ID, f.Name)
		dst = append(dst, `,"status":`...)
		dst = jsonw.AppendString(dst, f.Status)
		dst = append(dst, `,"finding":`...)
		dst = jsonw.AppendString(dst, f.Finding)
		dst = append(dst, `,"next_action":`...)
		dst = jsonw.AppendString(dst, f.NextAction)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// DecodeReflection reads a reflection event.
func DecodeReflection(line []byte) Reflection {
	var e Reflection
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "iteration":
			e.Iteration = int(v.Int())
		case "calls":
			e.Calls = nil
			v.ForEach(func(_, c gjson.Result) bool {
				e.Calls = append(e.Calls, Finding{ID: jsonread.Str(c.Get("id")), Name: jsonread.Str(c.Get("name")), Status: jsonread.Str(c.Get("status")),
					Finding: jsonread.Str(c.Get("finding")), NextAction: jsonread.Str(c.Get("next_action"))})
				return true
			})
		}
	})
	return e
}
