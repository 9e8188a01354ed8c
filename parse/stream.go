package parse

import (
	"context"
	"io"
)

// Options tune a Parser. The zero value detects every format and repairs
// lenient JSON.
type Options struct {
	// Format forces one syntax (an ID from Formats); empty detects all.
	Format string
	// NoRepair rejects JSON that is not strictly valid instead of
	// repairing it.
	NoRepair bool
	// FirstID numbers calls the model gave no id from call_<FirstID+1>, so
	// several inputs can share one sequence.
	FirstID int
	// ParamType, when set, returns the JSON Schema type ("string",
	// "integer", ...) of a tool's parameter, or "" when unknown. Formats
	// that write argument values as bare text (Qwen3-Coder, GLM, MiniMax)
	// use it to keep "007" a string where the schema asks for one.
	ParamType func(tool, param string) string
}

// Stats counts what a Stream wrote.
type Stats struct {
	Events int
	Calls  int // tool_call events
	Errors int // parse_error events
}

// Stream reads model output from r — raw text, an OpenAI or Ollama response
// JSON, or a server-sent-events stream as curl -N prints it — and writes one
// JSON event per line to w, each as soon as it is complete.
func Stream(ctx context.Context, r io.Reader, w io.Writer, opts Options) (Stats, error) {
	panic("not implemented")
}
