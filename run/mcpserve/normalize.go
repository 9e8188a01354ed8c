package mcpserve

import (
	"encoding/json"

	"github.com/toolcall/toolcall/tools"
)

// MetaNormalized is the key, in a tools/call result's _meta, of what the
// tool's sidecar aliases changed in the call's arguments: the same list
// as a validated tool_call's "normalized", so a client can see that the
// call ran under other names than it gave.
const MetaNormalized = "io.github.toolcall/normalized"

// normalizedMeta is ns as the tool_call event writes it.
func normalizedMeta(ns []tools.Normalization) []map[string]any {
	out := make([]map[string]any, len(ns))
	for i, n := range ns {
		if n.Pointer == "" {
			out[i] = map[string]any{"from": n.From, "to": n.To}
		} else {
			out[i] = map[string]any{"pointer": n.Pointer, "from": n.From, "to": json.RawMessage(n.To)}
		}
	}
	return out
}
