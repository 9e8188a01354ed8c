// Package tools is the vocabulary every toolcall stage shares, and the
// work done on tools themselves:
//
//   - the event types of the JSONL stream: calls, observations, error
//     kinds, and how each is written as one line;
//   - a tool as its sidecar describes it (ParseSidecar, the dialects,
//     lists of definitions) and its JSON Schema, compiled and checked;
//   - checking a call (Validate: schema, policy, refs) and running it
//     (Exec: the launcher in internal/launch, limits, redaction, scratch
//     outputs, MCP results), with the lifecycle hooks around it
//     (hooks.go) and retries of safe tools (retry.go).
//
// It imports nothing of toolcall's but the internal leaves (the JSON
// writer in internal/jsonw, the launcher), so parse, catalog and run can
// all depend on it without depending on each other.
package tools
