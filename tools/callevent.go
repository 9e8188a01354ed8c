package tools

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonread"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
	"github.com/toolcall/toolcall/tools/schema"
)

// The codec of the events tools' own stages read and write (validate,
// exec, and the executor run hands its calls to): the tool_call event
// with what a check said of it, the tool_observation, and the "type" of
// any line. They stay beside Call and Observation, not in package event
// with the rest of the stream, because event imports tools for those
// values: the stages here could not use them from there. Package event
// (tools/event) holds every other event and DecodeEvent, which reads
// these with the decoders below.

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
	jsonread.EachField(line, func(k string, v gjson.Result) {
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
			e.NoSchemaMode = jsonread.Str(v)
		case "coerced":
			e.Coerced = nil
			v.ForEach(func(_, c gjson.Result) bool {
				e.Coerced = append(e.Coerced, schema.Coercion{Pointer: c.Get("pointer").Str, From: c.Get("from").Str, To: jsonread.Raw(c.Get("to"))})
				return true
			})
		case "normalized":
			e.Normalized = nil
			v.ForEach(func(_, n gjson.Result) bool {
				if p := n.Get("pointer"); p.Exists() {
					e.Normalized = append(e.Normalized, Normalization{Pointer: jsonread.Str(p), From: jsonread.Str(n.Get("from")), To: string(jsonread.Raw(n.Get("to")))})
				} else {
					e.Normalized = append(e.Normalized, Normalization{From: jsonread.Str(n.Get("from")), To: jsonread.Str(n.Get("to"))})
				}
				return true
			})
		case "rewritten_by":
			e.RewrittenBy = jsonread.Strings(v)
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
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "id":
			o.ID = jsonread.Str(v)
		case "name":
			o.Name = jsonread.Str(v)
		case "content":
			o.Content = jsonread.Str(v)
		case "is_error":
			o.IsError = v.Type == gjson.True
		case "status":
			o.Status = jsonread.Str(v)
		case "error":
			if !v.IsObject() {
				o.Error = nil
				break
			}
			o.Error = &ToolError{Kind: ErrorKind(v.Get("kind").Str), Message: v.Get("message").Str, Details: jsonread.Raw(v.Get("details"))}
		case "parts":
			o.Parts = jsonread.Raw(v)
		case "structured_content":
			o.Structured = jsonread.Raw(v)
		case "exit_code":
			o.ExitCode = nil
			if v.Type == gjson.Number {
				o.ExitCode = ptr(int(v.Int()))
			}
		case "signal":
			o.Signal = jsonread.Str(v)
		case "duration_ms":
			o.DurationMS = nil
			if v.Type == gjson.Number {
				o.DurationMS = ptr(v.Int())
			}
		case "truncated":
			o.Truncated = v.Type == gjson.True
		case "ref":
			o.Ref = jsonread.Str(v)
		case "attempts":
			o.Attempts = nil
			v.ForEach(func(_, a gjson.Result) bool {
				at := Attempt{Status: jsonread.Str(a.Get("status")), Kind: ErrorKind(jsonread.Str(a.Get("kind"))), Signal: jsonread.Str(a.Get("signal"))}
				if c := a.Get("exit_code"); c.Type == gjson.Number {
					at.ExitCode = ptr(int(c.Int()))
				}
				o.Attempts = append(o.Attempts, at)
				return true
			})
		case "rewritten_by":
			o.RewrittenBy = jsonread.Strings(v)
		}
	})
	return o
}

func (o *Observation) EventType() string { return TypeToolObservation }
