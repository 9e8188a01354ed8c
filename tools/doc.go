// Package tools is the vocabulary every toolcall stage shares: the event
// types of the JSONL stream, tool calls, observations and error kinds, and
// the wire encoding that writes them one compact line at a time.
//
// It imports nothing else of toolcall's, so parse, catalog and run can all
// depend on it without depending on each other.
package tools
