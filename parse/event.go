package parse

import (
	"strconv"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// Event is one item of parse's output. Content and Raw may point into the
// parser's buffer: an emit function that keeps them must copy them.
type Event struct {
	Type string // tools.TypeText, TypeReasoning, TypeToolCall, TypeFinalAnswer, TypeParseError

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
// without the trailing newline.
func (e *Event) AppendJSON(dst []byte) []byte {
	if e.Type == tools.TypeToolCall {
		return e.Call.AppendJSON(dst)
	}
	dst = append(dst, `{"type":`...)
	dst = jsonw.AppendString(dst, e.Type)
	if e.Type == tools.TypeParseError {
		dst = append(dst, `,"error":`...)
		dst = jsonw.AppendString(dst, e.Error)
		dst = append(dst, `,"raw":`...)
		dst = jsonw.AppendBytes(dst, e.Raw)
		dst = append(dst, `,"offset":`...)
		dst = strconv.AppendInt(dst, e.Offset, 10)
	} else {
		dst = append(dst, `,"content":`...)
		dst = jsonw.AppendBytes(dst, e.Content)
	}
	if e.Format != "" {
		dst = append(dst, `,"format":`...)
		dst = jsonw.AppendString(dst, e.Format)
	}
	if e.File != "" {
		dst = append(dst, `,"file":`...)
		dst = jsonw.AppendString(dst, e.File)
	}
	return append(dst, '}')
}
