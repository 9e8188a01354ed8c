package parse

import (
	"bytes"
	"slices"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// Event is one item of parse's output. Content and Raw may point into the
// parser's buffer: an emit function that keeps them must copy them.
type Event struct {
	Type string // event.TypeText, TypeReasoning, TypeToolCall, TypeFinalAnswer, TypeParseError

	Content []byte     // text, reasoning, final_answer
	Call    tools.Call // tool_call

	// parse_error: what went wrong, in words a model can act on; the text
	// that failed; and its byte offset in the model's output.
	Error  string
	Raw    []byte
	Offset int64

	// Format is the syntax the event came from; empty for plain prose.
	Format string
	// File names the input a parse_error came from; see Options.File.
	File string
}

// AppendJSON appends e as one JSON object with its keys in a fixed order,
// without the trailing newline: with the encoder of its type in the
// event codec (event.TextEvent, event.ParseError, tools.Call).
func (e *Event) AppendJSON(dst []byte) []byte {
	switch e.Type {
	case tools.TypeToolCall:
		return e.Call.AppendJSON(dst)
	case event.TypeParseError:
		pe := event.ParseError{Error: e.Error, Raw: e.Raw, Offset: e.Offset, Format: e.Format, File: e.File}
		return pe.AppendJSON(dst)
	}
	te := event.TextEvent{Type: e.Type, Content: e.Content, Format: e.Format, File: e.File}
	return te.AppendJSON(dst)
}

// Value is e as a value of the event codec, its bytes copied (they may
// point into the parser's buffer): a *tools.CallEvent for a call (not
// checked yet), an *event.ParseError, else an *event.TextEvent. Its
// AppendJSON writes what e's does. It is how a receiver inside the
// library (run's turn) keeps parse's events, without a line between.
func (e *Event) Value() event.Event {
	switch e.Type {
	case tools.TypeToolCall:
		c := e.Call
		c.Arguments, c.Repairs = bytes.Clone(c.Arguments), slices.Clone(c.Repairs)
		return &tools.CallEvent{Call: c}
	case event.TypeParseError:
		return &event.ParseError{Error: e.Error, Raw: bytes.Clone(e.Raw), Offset: e.Offset, Format: e.Format, File: e.File}
	}
	return &event.TextEvent{Type: e.Type, Content: bytes.Clone(e.Content), Format: e.Format, File: e.File}
}
