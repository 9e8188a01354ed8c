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

// promptStyle holds what differs between the styles.
type promptStyle struct {
	how     string // how to call a tool and how to answer
	several string // rules that differ
	wait    string
	answer  string
	call    func(b []byte, name string, args []byte) []byte
}

var promptStyles = map[string]promptStyle{
	StyleJSONL: {
		how: "To call a tool, write one line of JSON, and nothing else on that line:\n" +
			`{"type":"tool_call","name":"TOOL_NAME","arguments":{...}}` + "\n" +
			"TOOL_NAME is the name of one of the tools below, and \"arguments\" is a JSON object that matches its schema.\n" +
			"When you have the answer, write it as one line of JSON:\n" +
			`{"type":"final_answer","content":"YOUR ANSWER"}` + "\n",
		several: "- Write one JSON object per line. To make several calls that do not depend on each other, write one tool_call line for each.\n",
		wait:    "- After your calls, stop and wait. Each result comes back to you as a tool_observation line; read it before you go on.\n",
		answer:  "- If you can answer without a tool, write the final_answer line straight away.\n",
		call: func(b []byte, name string, args []byte) []byte {
			b = append(b, `{"type":"tool_call","name":`...)
			b = jsonw.AppendString(b, name)
			b = append(b, `,"arguments":`...)
			b = jsonw.AppendCompact(b, args)
			return append(b, "}\n"...)
		},
	},
	StyleXML: {
		how: "To call a tool, write its name and arguments as one JSON object between <tool_call> and </tool_call> tags:\n" +
			"<tool_call>\n" +
			`{"name":"TOOL_NAME","arguments":{...}}` + "\n" +
			"</tool_call>\n" +
			"TOOL_NAME is the name of one of the tools below, and \"arguments\" is a JSON object that matches its schema.\n" +
			"When you have the answer, write it as plain text, with no <tool_call> tags.\n",
		several: "- Put one call in each <tool_call> block. To make several calls that do not depend on each other, write one block for each.\n",
		wait:    "- After your calls, stop and wait. The results come back to you in the next message; read them before you go on.\n",
		answer:  "- If you can answer without a tool, answer straight away.\n",
		call: func(b []byte, name string, args []byte) []byte {
			b = append(b, "<tool_call>\n"...)
			b = appendNameArgs(b, name, args)
			return append(b, "\n</tool_call>\n"...)
		},
	},
	StyleMarkdown: {
		how: "To call a tool, write its name and arguments as one JSON object in a fenced code block marked json:\n" +
			"```json\n" +
			`{"name":"TOOL_NAME","arguments":{...}}` + "\n" +
			"```\n" +
			"TOOL_NAME is the name of one of the tools below, and \"arguments\" is a JSON object that matches its schema.\n" +
			"When you have the answer, write it as plain text, with no json code block.\n",
		several: "- Put one call in each json code block. To make several calls that do not depend on each other, write one block for each.\n",
		wait:    "- After your calls, stop and wait. The results come back to you in the next message; read them before you go on.\n",
		answer:  "- If you can answer without a tool, answer straight away.\n",
		call: func(b []byte, name string, args []byte) []byte {
			b = append(b, "```json\n"...)
			b = appendNameArgs(b, name, args)
			return append(b, "\n```\n"...)
		},
	},
}

func appendNameArgs(b []byte, name string, args []byte) []byte {
	b = append(b, `{"name":`...)
	b = jsonw.AppendString(b, name)
	b = append(b, `,"arguments":`...)
	b = jsonw.AppendCompact(b, args)
	return append(b, '}')
}

// appendPrompt appends the prompt for picked in style (one of Styles).
func appendPrompt(b []byte, picked []Ranked, style string) []byte {
	st := promptStyles[style]
	start := len(b)
	b = append(b, "# Tools\n\n"...)
	if len(picked) == 0 {
		b = append(b, "No tools are available now, so answer the user directly.\n"...)
		if style == StyleJSONL {
			b = append(b, "Write your answer as one line of JSON:\n"...)
			b = append(b, `{"type":"final_answer","content":"YOUR ANSWER"}`+"\n"...)
		}
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
			b = st.call(b, t.Name, e)
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
