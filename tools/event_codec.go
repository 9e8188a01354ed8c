package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// The event codec: each event type of a transcript, and of run's batch
// and bulk check, as a value, with one
// encoder (AppendJSON, keys in a fixed order, no trailing newline) and
// one decoder (Decode...), here and nowhere else. Every stage that writes
// one of these events writes it with its encoder, and every reader of our
// own events (validate's and exec's call checks, run's loop, replay,
// batch, the golden check) reads it with its decoder. FuzzEventCodec
// holds each decoder to its encoder: Decode(e.AppendJSON(nil)) is e as a
// reader of the line sees it (strings as jsonw.ValidString gives them).
//
//	type              value           encoder / decoder
//	text, reasoning,  TextEvent       written by parse (final_answer also by run)
//	final_answer
//	parse_error       ParseError      parse; validate and exec for a line over --max-line
//	tool_call         Call            parse (Call.AppendJSON in event.go, DecodeCall)
//	tool_call +       CallEvent       validate, exec, run: what the check said
//	validated
//	tool_observation  Observation     validate, exec, run (Observation.AppendJSON)
//	system, user      Message         run
//	assistant         Assistant       run
//	stop              Stop            run
//	summary           Summary         run --batch, per request
//	batch             Batch           run --batch, run --replay DIR --check: the totals
//	check             Check           run --replay DIR --check, per recording
//	step              Step            run, at the end of each turn: the ledger
//	reflection        Reflection      run --reflect, after a turn's observations
//
// A decoder never fails on a field of the wrong JSON type: it reads what
// its encoder would have written and leaves the rest at its zero value,
// as DecodeCall does, so a hand-edited recording is read as far as it
// makes sense. DecodeEvent reads any line and says what is wrong with
// one that is not an event at all.

// Event is one line of the stream as a value.
type Event interface {
	// EventType is the line's "type".
	EventType() string
	// AppendJSON appends the line, without its newline.
	AppendJSON(dst []byte) []byte
}

// OtherEvent is an event of a type the codec does not own (catalog's
// tool, probe's events, a later stage's own): it is passed on as it is.
type OtherEvent struct {
	Type string
	Line []byte
}

func (e *OtherEvent) EventType() string            { return e.Type }
func (e *OtherEvent) AppendJSON(dst []byte) []byte { return append(dst, e.Line...) }

// EventType returns the "type" of an event line, or says why the line is
// not an event: not JSON, not an object, or no string "type".
func EventType(line []byte) (string, error) {
	if !gjson.ValidBytes(line) {
		var x any
		err := json.Unmarshal(line, &x)
		if err == nil { // gjson and encoding/json disagree: say something useful anyway
			err = errors.New("unreadable JSON")
		}
		return "", fmt.Errorf("not an event: the line is not valid JSON (%v)", err)
	}
	doc := gjson.ParseBytes(line)
	if !doc.IsObject() {
		return "", fmt.Errorf("not an event: the line is %s, not a JSON object", withArticle(jsonKind(doc)))
	}
	t := doc.Get("type")
	if t.Type != gjson.String {
		if !t.Exists() {
			return "", errors.New(`not an event: the object has no "type"`)
		}
		return "", fmt.Errorf(`not an event: "type" is %s, not a string`, withArticle(jsonKind(t)))
	}
	return t.Str, nil
}

// DecodeEvent reads one line into the value of its type; a type the codec
// does not own is an *OtherEvent holding the line. The error says why the
// line is not an event (EventType).
func DecodeEvent(line []byte) (Event, error) {
	typ, err := EventType(line)
	if err != nil {
		return nil, err
	}
	switch typ {
	case TypeText, TypeReasoning, TypeFinalAnswer:
		e := DecodeText(line)
		return &e, nil
	case TypeParseError:
		e := DecodeParseError(line)
		return &e, nil
	case TypeToolCall:
		e, _ := DecodeCallEvent(line)
		return &e, nil
	case TypeToolObservation:
		e := DecodeObservation(line)
		return &e, nil
	case TypeSystem, TypeUser:
		e := DecodeMessage(line)
		return &e, nil
	case TypeAssistant:
		e := DecodeAssistant(line)
		return &e, nil
	case TypeStop:
		e := DecodeStop(line)
		return &e, nil
	case TypeSummary:
		e := DecodeSummary(line)
		return &e, nil
	case TypeBatch:
		e := DecodeBatch(line)
		return &e, nil
	case TypeCheck:
		e := DecodeCheck(line)
		return &e, nil
	case TypeStep:
		e := DecodeStep(line)
		return &e, nil
	case TypeReflection:
		e := DecodeReflection(line)
		return &e, nil
	}
	return &OtherEvent{Type: typ, Line: line}, nil
}

// eachField calls fn with each top-level key and value of line, in order:
// of a key given twice, the last one read wins, as in most JSON readers.
func eachField(line []byte, fn func(k string, v gjson.Result)) {
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		fn(k.Str, v)
		return true
	})
}

// jsonStr is v's text when it is a JSON string, else "".
func jsonStr(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// jsonStrings is the strings of v when it is an array, the rest left out.
func jsonStrings(v gjson.Result) []string {
	var ss []string
	v.ForEach(func(_, s gjson.Result) bool {
		if s.Type == gjson.String {
			ss = append(ss, s.Str)
		}
		return true
	})
	return ss
}

// rawJSON is v as written, unless it is absent or null.
func rawJSON(v gjson.Result) []byte {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return []byte(v.Raw)
}

// TextEvent is a text, reasoning or final_answer event: prose outside any
// call, a reasoning block, the answer.
type TextEvent struct {
	Type    string // TypeText, TypeReasoning or TypeFinalAnswer
	Content []byte
	// Format is the syntax the event came from; empty for plain prose.
	Format string
	// File names the input it came from, when parse read several.
	File string
}

func (e *TextEvent) EventType() string { return e.Type }

func (e *TextEvent) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonw.AppendString(dst, e.Type)
	dst = append(dst, `,"content":`...)
	dst = jsonw.AppendBytes(dst, e.Content)
	return appendOrigin(dst, e.Format, e.File)
}

// appendOrigin closes a parse event with its format and file.
func appendOrigin(dst []byte, format, file string) []byte {
	if format != "" {
		dst = append(dst, `,"format":`...)
		dst = jsonw.AppendString(dst, format)
	}
	if file != "" {
		dst = append(dst, `,"file":`...)
		dst = jsonw.AppendString(dst, file)
	}
	return append(dst, '}')
}

// DecodeText reads a text, reasoning or final_answer event.
func DecodeText(line []byte) TextEvent {
	var e TextEvent
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "type":
			e.Type = jsonStr(v)
		case "content":
			e.Content = []byte(jsonStr(v))
		case "format":
			e.Format = jsonStr(v)
		case "file":
			e.File = jsonStr(v)
		}
	})
	return e
}

// ParseError is a parse_error event: what could not be read, in words a
// model can act on, the text that failed and its byte offset.
type ParseError struct {
	Error  string
	Raw    []byte
	Offset int64
	Format string
	File   string
}

func (e *ParseError) EventType() string { return TypeParseError }

func (e *ParseError) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"parse_error","error":`...)
	dst = jsonw.AppendString(dst, e.Error)
	dst = append(dst, `,"raw":`...)
	dst = jsonw.AppendBytes(dst, e.Raw)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, e.Offset, 10)
	return appendOrigin(dst, e.Format, e.File)
}

// DecodeParseError reads a parse_error event.
func DecodeParseError(line []byte) ParseError {
	var e ParseError
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "error":
			e.Error = jsonStr(v)
		case "raw":
			e.Raw = []byte(jsonStr(v))
		case "offset":
			if v.Type == gjson.Number {
				e.Offset = v.Int()
			}
		case "format":
			e.Format = jsonStr(v)
		case "file":
			e.File = jsonStr(v)
		}
	})
	return e
}

// CallEvent is a tool_call event with what a check said of it: validate,
// exec and run write every call they check so, passed or refused, so
// that a transcript shows what the model wrote before the observation
// that answers it.
type CallEvent struct {
	Call
	// Checked says the line carries "validated": a stage checked the
	// call. A call as parse writes it has not been.
	Checked bool
	// Validated is true when the arguments passed the tool's schema.
	// False with NoSchemaMode: the call passed, for a tool without a
	// schema. False without: the call was refused, and the
	// tool_observation after it says why.
	Validated    bool
	NoSchemaMode string
	// Coerced lists the values coercion changed (--coerce).
	Coerced []Coercion
	// Normalized lists what the sidecar's aliases changed (normalize.go).
	Normalized []Normalization
	// RewrittenBy names the before-call hooks that replaced the
	// arguments, in order (hooks.go).
	RewrittenBy []string
}

// Refused reports whether the event is a call a stage checked and
// refused: one already answered by the observation after it.
func (e *CallEvent) Refused() bool { return e.Checked && !e.Validated && e.NoSchemaMode == "" }

func (e *CallEvent) EventType() string { return TypeToolCall }

func (e *CallEvent) AppendJSON(dst []byte) []byte {
	dst = e.Call.AppendJSON(dst)
	if !e.Checked {
		return dst
	}
	dst = dst[:len(dst)-1] // reopen the object
	switch {
	case e.Validated:
		dst = append(dst, `,"validated":true`...)
	case e.NoSchemaMode != "":
		dst = append(dst, `,"validated":false,"no_schema_mode":`...)
		dst = jsonw.AppendString(dst, e.NoSchemaMode)
	default:
		dst = append(dst, `,"validated":false`...)
	}
	if len(e.Coerced) > 0 {
		dst = append(dst, `,"coerced":[`...)
		for i, co := range e.Coerced {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"pointer":`...)
			dst = jsonw.AppendString(dst, co.Pointer)
			dst = append(dst, `,"from":`...)
			dst = jsonw.AppendString(dst, co.From)
			dst = append(dst, `,"to":`...)
			dst = append(dst, co.To...)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = appendNormalized(dst, e.Normalized)
	if len(e.RewrittenBy) > 0 {
		dst = jsonw.AppendStrings(append(dst, `,"rewritten_by":`...), e.RewrittenBy)
	}
	return append(dst, '}')
}

// DecodeCallEvent reads a tool_call event: the call as DecodeCall reads
// it, and what a check said of it.
func DecodeCallEvent(line []byte) (e CallEvent, hasName bool) {
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "id":
			if v.Type == gjson.String {
				e.ID = v.Str
			}
		case "name":
			if v.Type == gjson.String {
				e.Name, hasName = v.Str, true
			}
		case "arguments":
			e.Arguments = []byte(v.Raw)
		case "format":
			if v.Type == gjson.String {
				e.Format = v.Str
			}
		case "repaired":
			e.Repaired = v.Type == gjson.True
		case "repairs":
			e.Repairs = repairKinds(v)
		case "validated":
			e.Checked, e.Validated = v.IsBool(), v.Type == gjson.True
		case "no_schema_mode":
			e.NoSchemaMode = jsonStr(v)
		case "coerced":
			e.Coerced = nil
			v.ForEach(func(_, c gjson.Result) bool {
				e.Coerced = append(e.Coerced, Coercion{Pointer: c.Get("pointer").Str, From: c.Get("from").Str, To: rawJSON(c.Get("to"))})
				return true
			})
		case "normalized":
			e.Normalized = nil
			v.ForEach(func(_, n gjson.Result) bool {
				if p := n.Get("pointer"); p.Exists() {
					e.Normalized = append(e.Normalized, Normalization{Pointer: jsonStr(p), From: jsonStr(n.Get("from")), To: string(rawJSON(n.Get("to")))})
				} else {
					e.Normalized = append(e.Normalized, Normalization{From: jsonStr(n.Get("from")), To: jsonStr(n.Get("to"))})
				}
				return true
			})
		case "rewritten_by":
			e.RewrittenBy = jsonStrings(v)
		}
	})
	if !e.Repaired {
		e.Repairs = nil // written only with repaired
	}
	return e, hasName
}

// repairKinds reads a tool_call's "repairs": the strings of an array, as
// parse wrote them; anything else in it is not carried over, as a "format"
// that is not a string is not.
func repairKinds(v gjson.Result) []string {
	if !v.IsArray() {
		return nil
	}
	var kinds []string
	v.ForEach(func(_, k gjson.Result) bool {
		if k.Type == gjson.String {
			kinds = append(kinds, k.Str)
		}
		return true
	})
	return kinds
}

// DecodeObservation reads a tool_observation event.
func DecodeObservation(line []byte) Observation {
	var o Observation
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "id":
			o.ID = jsonStr(v)
		case "name":
			o.Name = jsonStr(v)
		case "content":
			o.Content = jsonStr(v)
		case "is_error":
			o.IsError = v.Type == gjson.True
		case "status":
			o.Status = jsonStr(v)
		case "error":
			if !v.IsObject() {
				o.Error = nil
				break
			}
			o.Error = &ToolError{Kind: ErrorKind(v.Get("kind").Str), Message: v.Get("message").Str, Details: rawJSON(v.Get("details"))}
		case "parts":
			o.Parts = rawJSON(v)
		case "structured_content":
			o.Structured = rawJSON(v)
		case "exit_code":
			o.ExitCode = nil
			if v.Type == gjson.Number {
				o.ExitCode = ptr(int(v.Int()))
			}
		case "signal":
			o.Signal = jsonStr(v)
		case "duration_ms":
			o.DurationMS = nil
			if v.Type == gjson.Number {
				o.DurationMS = ptr(v.Int())
			}
		case "truncated":
			o.Truncated = v.Type == gjson.True
		case "ref":
			o.Ref = jsonStr(v)
		case "attempts":
			o.Attempts = nil
			v.ForEach(func(_, a gjson.Result) bool {
				at := Attempt{Status: jsonStr(a.Get("status")), Kind: ErrorKind(jsonStr(a.Get("kind"))), Signal: jsonStr(a.Get("signal"))}
				if c := a.Get("exit_code"); c.Type == gjson.Number {
					at.ExitCode = ptr(int(c.Int()))
				}
				o.Attempts = append(o.Attempts, at)
				return true
			})
		case "rewritten_by":
			o.RewrittenBy = jsonStrings(v)
		}
	})
	return o
}

func (o *Observation) EventType() string { return TypeToolObservation }

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
	if m.API != "" {
		dst = append(dst, `,"api":`...)
		dst = jsonw.AppendString(dst, m.API)
	}
	return append(dst, '}')
}

// DecodeMessage reads a system or user event.
func DecodeMessage(line []byte) Message {
	var m Message
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "type":
			m.Type = jsonStr(v)
		case "content":
			m.Content = jsonStr(v)
		case "api":
			m.API = jsonStr(v)
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
	ToolCalls []Call
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
	if a.Model != "" {
		dst = append(dst, `,"model":`...)
		dst = jsonw.AppendString(dst, a.Model)
	}
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
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "content":
			a.Content = jsonStr(v)
		case "tool_calls":
			a.ToolCalls = nil
			v.ForEach(func(_, c gjson.Result) bool {
				a.ToolCalls = append(a.ToolCalls, Call{ID: c.Get("id").Str, Name: c.Get("name").Str, Arguments: []byte(c.Get("arguments").Str)})
				return true
			})
		case "model":
			a.Model = jsonStr(v)
		case "usage":
			a.Usage = rawJSON(v)
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
	if s.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = jsonw.AppendString(dst, s.Error)
	}
	return append(dst, '}')
}

// DecodeStop reads a stop event.
func DecodeStop(line []byte) Stop {
	var s Stop
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "reason":
			s.Reason = jsonStr(v)
		case "iterations":
			if v.Type == gjson.Number {
				s.Iterations = int(v.Int())
			}
		case "error":
			s.Error = jsonStr(v)
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
	if s.File != "" {
		dst = append(dst, `,"file":`...)
		dst = jsonw.AppendString(dst, s.File)
	}
	if s.Skipped {
		dst = append(dst, `,"skipped":true`...)
	}
	if s.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = jsonw.AppendString(dst, s.Error)
	}
	return append(dst, '}')
}

// DecodeSummary reads a summary event.
func DecodeSummary(line []byte) Summary {
	var s Summary
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "request":
			s.Request = jsonStr(v)
		case "reason":
			s.Reason = jsonStr(v)
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
			s.File = jsonStr(v)
		case "skipped":
			s.Skipped = v.Type == gjson.True
		case "error":
			s.Error = jsonStr(v)
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
	eachField(line, func(k string, v gjson.Result) {
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
	if c.Difference != "" {
		dst = append(dst, `,"difference":`...)
		dst = jsonw.AppendString(dst, c.Difference)
	}
	if c.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = jsonw.AppendString(dst, c.Error)
	}
	return append(dst, '}')
}

// DecodeCheck reads a check event.
func DecodeCheck(line []byte) Check {
	var c Check
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "file":
			c.File = jsonStr(v)
		case "status":
			c.Status = jsonStr(v)
		case "ignored":
			c.Ignored = jsonStrings(v)
		case "difference":
			c.Difference = jsonStr(v)
		case "error":
			c.Error = jsonStr(v)
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
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "iteration":
			e.Iteration = int(v.Int())
		case "calls":
			e.Calls = nil
			v.ForEach(func(_, c gjson.Result) bool {
				e.Calls = append(e.Calls, StepCall{ID: jsonStr(c.Get("id")), Name: jsonStr(c.Get("name")), Status: jsonStr(c.Get("status"))})
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
	eachField(line, func(k string, v gjson.Result) {
		switch k {
		case "iteration":
			e.Iteration = int(v.Int())
		case "calls":
			e.Calls = nil
			v.ForEach(func(_, c gjson.Result) bool {
				e.Calls = append(e.Calls, Finding{ID: jsonStr(c.Get("id")), Name: jsonStr(c.Get("name")), Status: jsonStr(c.Get("status")),
					Finding: jsonStr(c.Get("finding")), NextAction: jsonStr(c.Get("next_action"))})
				return true
			})
		}
	})
	return e
}
