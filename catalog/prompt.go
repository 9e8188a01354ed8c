package catalog

import (
	"bytes"
	"strings"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// The prompt format is the block of text that tells a model without native
// tool calling which tools it has and exactly how to call them. Each style
// asks for a syntax that `toolcall parse` reads back as tool_call events:
//
//   - jsonl (the project's own protocol): one line of JSON per call,
//     {"type":"tool_call","name":…,"arguments":{…}}, and the answer as
//     {"type":"final_answer","content":…} (parse format "jsonl");
//   - xml: each call as {"name":…,"arguments":{…}} inside
//     <tool_call></tool_call>, the Hermes form most open models were trained
//     on (parse format "hermes"); the answer is plain text;
//   - markdown: each call as {"name":…,"arguments":{…}} in a ```json fenced
//     block (parse format "json_fenced"); the answer is plain text.
//
// Then, for each tool: its name as a heading, its description, its schema
// as compact JSON, notes for a tool with side effects or without a schema,
// and its examples written as calls in the style's own syntax, so that the
// model sees the exact text it should produce.

// appendPrompt appends the prompt for picked in style st (see style.go).
func appendPrompt(b []byte, picked []Ranked, st *Style) []byte {
	start := len(b)
	b = append(b, "# Tools\n\n"...)
	if len(picked) == 0 {
		b = append(b, "No tools are available now, so answer the user directly.\n"...)
		b = append(b, st.noTools...)
		return b
	}
	b = append(b, "You can use the tools listed below. "...)
	b = append(b, st.how...)
	b = append(b, "\nRules:\n"...)
	b = append(b, "- Use only the tools listed here, with their names exactly as written.\n"...)
	b = append(b, "- Arguments must be valid JSON and match the tool's schema: use the property names it gives, include every required property, and give each value the type it asks for.\n"...)
	b = append(b, st.several...)
	b = append(b, st.wait...)
	b = append(b, "- If a result is an error, its message says what was wrong: correct the call and try again.\n"...)
	b = append(b, st.answer...)
	b = append(b, "\n## Available tools\n"...)
	for _, r := range picked {
		t := r.Tool
		b = append(b, "\n### "...)
		b = append(b, t.Name...)
		b = append(b, '\n')
		if d := strings.TrimSpace(t.Description); d != "" {
			b = append(b, strings.ReplaceAll(d, "\r\n", "\n")...)
		} else {
			b = append(b, "(no description)"...)
		}
		b = append(b, '\n')
		if !t.Safe {
			b = append(b, "This tool has side effects: call it only when the user asked for what it does.\n"...)
		}
		if len(t.InputSchema) > 0 {
			b = append(b, "Arguments (JSON Schema): "...)
			b = jsonw.AppendCompact(b, t.InputSchema)
			b = append(b, '\n')
		} else {
			b = append(b, "Arguments: a JSON object. This tool has no schema, so follow its description.\n"...)
			if t.NoSchemaMode == tools.NoSchemaHumanApproval {
				b = append(b, "A person must approve each call before it runs.\n"...)
			}
		}
		switch len(t.Examples) {
		case 0:
		case 1:
			b = append(b, "Example:\n"...)
		default:
			b = append(b, "Examples:\n"...)
		}
		for _, e := range t.Examples {
			b = st.AppendCall(b, t.Name, jsonw.AppendCompact(nil, e))
		}
	}
	return trimLines(b, start)
}

// trimLines removes white space at the ends of the lines of b[start:] (a
// description may have some), in place.
func trimLines(b []byte, start int) []byte {
	out := b[:start]
	rest := b[start:]
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		out = append(out, bytes.TrimRight(line, " \t\r\v\f")...)
		out = append(out, '\n')
	}
	return out
}
