package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
	"github.com/toolcall/toolcall/tools/schema"
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
//	tool_call         Call            parse (Call.AppendJSON in event.go, and CallEncoder for
//	                                  a stream of calls; DecodeCall)
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
		return "", fmt.Errorf("not an event: the line is %s, not a JSON object", phrase.Article(phrase.Kind(doc)))
	}
	t := doc.Get("type")
	if t.Type != gjson.String {
		if !t.Exists() {
			return "", errors.New(`not an event: the object has no "type"`)
		}
		return "", fmt.Errorf(`not an event: "type" is %s, not a string`, phrase.Article(phrase.Kind(t)))
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
	if e := decodeOwned(typ, line); e != nil {
		return e, nil
	}
	return &OtherEvent{Type: typ, Line: line}, nil
}

// decodeOwned reads line, of type typ, into the value of its type; nil
// for a type the codec does not own. (A switch, not a map: nothing to
// build at start-up.)
func decodeOwned(typ string, line []byte) Event {
	switch typ {
	case TypeText, TypeReasoning, TypeFinalAnswer:
		e := DecodeText(line)
		return &e
	case TypeParseError:
		e := DecodeParseError(line)
		return &e
	case TypeToolCall:
		e, _ := DecodeCallEvent(line)
		return &e
	case TypeToolObservation:
		e := DecodeObservation(line)
		return &e
	case TypeSystem, TypeUser:
		e := DecodeMessage(line)
		return &e
	case TypeAssistant:
		e := DecodeAssistant(line)
		return &e
	case TypeStop:
		e := DecodeStop(line)
		return &e
	case TypeSummary:
		e := DecodeSummary(line)
		return &e
	case TypeBatch:
		e := DecodeBatch(line)
		return &e
	case TypeCheck:
		e := DecodeCheck(line)
		return &e
	case TypeStep:
		e := DecodeStep(line)
		return &e
	case TypeReflection:
		e := DecodeReflection(line)
		return &e
	}
	return nil
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
	dst = appendOptString(dst, `,"format":`, format)
	dst = appendOptString(dst, `,"file":`, file)
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
	Coerced []schema.Coercion
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
				e.Coerced = append(e.Coerced, schema.Coercion{Pointer: c.Get("pointer").Str, From: c.Get("from").Str, To: rawJSON(c.Get("to"))})
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

// appendOptString appends key and s as a JSON string when s is set: the
// string fields an event leaves out when they are empty.
func appendOptString(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return jsonw.AppendString(append(dst, key...), s)
}
