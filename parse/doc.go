// Package parse turns raw model output, in any of the text formats real
// models use for tool calls, into normalized events: text, reasoning,
// tool_call, final_answer and parse_error.
//
// It streams: a Parser takes text as it arrives and emits each event the
// moment it is complete, holding back only a partial marker at a chunk
// boundary. Memory is bounded by the largest single event.
//
// Stream reads model output as toolcall parse gets it: raw text, or a
// server's response JSON or event stream. DecodeReply is the same decoder
// for a response body that must be one of the latter (toolcall run's HTTP
// backends): one SSE reader, one response-shape decoder, one place where
// streamed native calls are put together.
package parse
