package run

import (
	"bytes"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/jsonw"
)

// protocolSchema is the JSON Schema of one line of the jsonl protocol for
// the picked tools: a tool_call of one of them with arguments that follow
// its schema, or a final_answer. Sent for schema-constrained decoding, it
// leaves even a weak model only valid lines to write. A tool schema with a
// $ref is given as any object, since its references point into its own
// document; validate checks the arguments all the same.
func protocolSchema(picked []catalog.Ranked) []byte {
	b := []byte(`{"anyOf":[`)
	for _, r := range picked {
		t := r.Tool
		b = append(b, `{"type":"object","properties":{"type":{"const":"tool_call"},"name":{"const":`...)
		b = jsonw.AppendString(b, t.Name)
		b = append(b, `},"arguments":`...)
		if len(t.InputSchema) == 0 || bytes.Contains(t.InputSchema, []byte(`"$ref"`)) {
			b = append(b, `{"type":"object"}`...)
		} else {
			b = append(b, t.InputSchema...)
		}
		b = append(b, `},"required":["type","name","arguments"]},`...)
	}
	return append(b, `{"type":"object","properties":{"type":{"const":"final_answer"},"content":{"type":"string"}},"required":["type","content"]}]}`...)
}
