package parse

import (
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
// without the trailing newline: with the encoder of its type in tools'
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
