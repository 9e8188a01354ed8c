// Package parse turns raw model output, in any of the text formats real
// models use for tool calls, into normalized events: text, reasoning,
// tool_call, final_answer and parse_error.
//
// It streams: a Parser takes text as it arrives and emits each event the
// moment it is complete, holding back only a partial marker at a chunk
// boundary. Memory is bounded by the largest single event.
package parse
