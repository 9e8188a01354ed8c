// Package event holds the events of the stream as values, their codec
// (one encoder and one decoder per type), and the sinks they go to at the
// edge of the library: inside it, parse, the executor and run's loop hand
// each other values, and only a sink writes a line (DESIGN.md §1).
package event

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonread"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// Event types: the value of the "type" key on every line of the stream
// (README.md, Events). TypeToolCall and TypeToolObservation are tools'
// own, for the stages there.
const (
	TypeTool            = "tool"
	TypeText            = "text"
	TypeReasoning       = "reasoning"
	TypeToolCall        = tools.TypeToolCall
	TypeFinalAnswer     = "final_answer"
	TypeParseError      = "parse_error"
	TypeToolObservation = tools.TypeToolObservation
	TypeSystem          = "system"
	TypeUser            = "user"
	TypeAssistant       = "assistant"
	TypeStop            = "stop"
	TypeSummary         = "summary" // run --batch: one per request, after its transcript
	TypeBatch           = "batch"   // run --batch and --check: the totals, last
	TypeCheck           = "check"   // run --replay DIR --check: one per recording
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
//	tool_call         tools.Call      parse (Call.AppendJSON, and CallEncoder for
//	                                  a stream of calls; DecodeCall)
//	tool_call +       tools.CallEvent validate, exec, run: what the check said
//	validated
//	tool_observation  tools.          validate, exec, run (Observation.AppendJSON)
//	                  Observation
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
// one that is not an event at all (tools.EventType).
//
// The codecs of tools.Call, tools.CallEvent and tools.Observation stay in
// package tools (callevent.go): validate and exec, there, read and write
// them, and this package imports tools for the values themselves.

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

// DecodeEvent reads one line into the value of its type; a type the codec
// does not own is an *OtherEvent holding the line. The error says why the
// line is not an event (EventType).
func DecodeEvent(line []byte) (Event, error) {
	typ, err := tools.EventType(line)
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
		e, _ := tools.DecodeCallEvent(line)
		return &e
	case TypeToolObservation:
		e := tools.DecodeObservation(line)
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
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "type":
			e.Type = jsonread.Str(v)
		case "content":
			e.Content = []byte(jsonread.Str(v))
		case "format":
			e.Format = jsonread.Str(v)
		case "file":
			e.File = jsonread.Str(v)
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
	jsonread.EachField(line, func(k string, v gjson.Result) {
		switch k {
		case "error":
			e.Error = jsonread.Str(v)
		case "raw":
			e.Raw = []byte(jsonread.Str(v))
		case "offset":
			if v.Type == gjson.Number {
				e.Offset = v.Int()
			}
		case "format":
			e.Format = jsonread.Str(v)
		case "file":
			e.File = jsonread.Str(v)
		}
	})
	return e
}

// appendOptString appends key and s as a JSON string when s is set: the
// string fields an event leaves out when they are empty.
func appendOptString(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return jsonw.AppendString(append(dst, key...), s)
}

// Valid reports whether line is one JSON value: of a line DecodeEvent
// refuses, whether it is JSON but no event, or no JSON at all.
func Valid(line []byte) bool { return gjson.ValidBytes(line) }

// Request is the "request" of a line of run --batch's stream, the id of
// the request whose transcript the event is part of, and whether the line
// has one (DecodeEvent leaves it out of the value).
func Request(line []byte) (string, bool) {
	r := gjson.GetBytes(line, "request")
	return r.String(), r.Exists()
}
