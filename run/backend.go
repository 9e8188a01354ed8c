package run

import (
	"context"
	"fmt"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
)

// Message is one message of the conversation, as a backend sends it.
type Message struct {
	Role    string // "system", "user", "assistant", or "tool" (native replies)
	Content string
	// ToolCalls are the calls of an assistant message (native backend).
	ToolCalls []tools.Call
	// ToolCallID and Name answer a call in a "tool" message (native).
	ToolCallID, Name string
}

// Request is one turn asked of a model.
type Request struct {
	Model       string
	Messages    []Message
	Stop        []string // stop sequences
	MaxTokens   int      // 0: the server's default
	Temperature *float64
	// Extra is a JSON object merged into the request body (--extra).
	Extra []byte
	// Tools is the OpenAI tools array for the native backend; ToolChoice
	// is "auto", "required", "none" or a tool's name ("" = not sent).
	Tools      []byte
	ToolChoice string
	// Schema, when set, is a JSON Schema the reply must follow, sent as
	// the server's schema-constrained decoding (--constrain).
	Schema []byte
}

// Response is what a backend learned about a turn besides its text:
// parse's Reply, which the HTTP backends get from parse's decoder as it
// is; the other backends fill in what they know (Model, Stopped).
type Response = parse.Reply

// Sink receives a turn as it arrives: parse's Receiver, the interface
// parse's decoder feeds, so that an HTTP backend hands the sink to the
// decoder and keeps only what is HTTP. b is valid only during the call;
// Text's stop = true asks the backend to stop reading at once and close
// the stream (the loop has what it needs, and the model must not go on
// inventing).
type Sink = parse.Receiver

// Backend asks a model for one turn.
type Backend interface {
	Complete(ctx context.Context, req *Request, sink Sink) (Response, error)
}

// ProviderError is a failure of the model server, after any retries.
type ProviderError struct {
	Status  int    // HTTP status; 0 when there was no response
	Message string // what the server or the connection said
	// Attempts is how many times the request was tried.
	Attempts int
	// Recorded, when set, is the whole message as a recording holds it,
	// so that a replayed failure reads exactly as the original did.
	Recorded string
}

func (e *ProviderError) Error() string {
	if e.Recorded != "" {
		return e.Recorded
	}
	if e.Status != 0 {
		return fmt.Sprintf("model server: HTTP %d: %s (after %d attempt%s)", e.Status, e.Message, e.Attempts, plural(e.Attempts))
	}
	return fmt.Sprintf("model server: %s (after %d attempt%s)", e.Message, e.Attempts, plural(e.Attempts))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
