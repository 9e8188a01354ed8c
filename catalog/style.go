package catalog

import (
	"fmt"
	"strings"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// A Style is one prompt style, defined once: the instructions the prompt
// gives, and what a call and a result look like in the conversation. The
// prompt's examples and the history `toolcall run` gives back to the model
// are both written here, so the model sees in its own past turns exactly
// the syntax it was taught.
type Style struct {
	name string

	// The prompt's instructions that differ between the styles.
	how     string // how to call a tool and how to answer
	several string // one call per line or per block
	wait    string // where the results come back
	answer  string // answering without a tool
	noTools string // added when no tool is offered
	// hint says, after a reply that was neither a call nor an answer,
	// what to write instead.
	hint string

	// A call is {"name":…,"arguments":…} between callOpen and callClose,
	// a result {"id":…,"name":…,"content":…} between resultOpen and
	// resultClose. typed (jsonl) gives each object its "type" first, as
	// the protocol's events have it, and no wrapping.
	typed                   bool
	callOpen, callClose     string
	resultOpen, resultClose string

	// stops are stop sequences that end a turn where the model would
	// begin to invent a result.
	stops []string
}

var styles = map[string]*Style{
	StyleJSONL: {
		name: StyleJSONL,
		how: "To call a tool, write one line of JSON, and nothing else on that line:\n" +
			`{"type":"tool_call","name":"TOOL_NAME","arguments":{...}}` + "\n" +
			"TOOL_NAME is the name of one of the tools below, and \"arguments\" is a JSON object that matches its schema.\n" +
			"When you have the answer, write it as one line of JSON:\n" +
			`{"type":"final_answer","content":"YOUR ANSWER"}` + "\n",
		several: "- Write one JSON object per line. To make several calls that do not depend on each other, write one tool_call line for each.\n",
		wait:    "- After your calls, stop and wait. Each result comes back to you as a tool_observation line; read it before you go on.\n",
		answer:  "- If you can answer without a tool, write the final_answer line straight away.\n",
		noTools: "Write your answer as one line of JSON:\n" +
			`{"type":"final_answer","content":"YOUR ANSWER"}` + "\n",
		hint:      `Write one line of JSON: {"type":"tool_call","name":…,"arguments":{…}} or {"type":"final_answer","content":…}.`,
		typed:     true,
		callClose: "\n",
		stops:     []string{`{"type":"tool_observation"`, `{"type": "tool_observation"`},
	},
	StyleXML: {
		name: StyleXML,
		how: "To call a tool, write its name and arguments as one JSON object between <tool_call> and </tool_call> tags:\n" +
			"<tool_call>\n" +
			`{"name":"TOOL_NAME","arguments":{...}}` + "\n" +
			"</tool_call>\n" +
			"TOOL_NAME is the name of one of the tools below, and \"arguments\" is a JSON object that matches its schema.\n" +
			"When you have the answer, write it as plain text, with no <tool_call> tags.\n",
		several:     "- Put one call in each <tool_call> block. To make several calls that do not depend on each other, write one block for each.\n",
		wait:        "- After your calls, stop and wait. The results come back to you in the next message; read them before you go on.\n",
		answer:      "- If you can answer without a tool, answer straight away.\n",
		hint:        "Call a tool with a <tool_call> block, or answer in plain text.",
		callOpen:    "<tool_call>\n",
		callClose:   "\n</tool_call>\n",
		resultOpen:  "<tool_response>\n",
		resultClose: "\n</tool_response>",
		stops:       []string{"<tool_response>"},
	},
	StyleMarkdown: {
		name: StyleMarkdown,
		how: "To call a tool, write its name and arguments as one JSON object in a fenced code block marked json:\n" +
			"```json\n" +
			`{"name":"TOOL_NAME","arguments":{...}}` + "\n" +
			"```\n" +
			"TOOL_NAME is the name of one of the tools below, and \"arguments\" is a JSON object that matches its schema.\n" +
			"When you have the answer, write it as plain text, with no json code block.\n",
		several:     "- Put one call in each json code block. To make several calls that do not depend on each other, write one block for each.\n",
		wait:        "- After your calls, stop and wait. The results come back to you in the next message; read them before you go on.\n",
		answer:      "- If you can answer without a tool, answer straight away.\n",
		hint:        "Call a tool with a ```json block holding {\"name\": …, \"arguments\": {…}}, or answer in plain text.",
		callOpen:    "```json\n",
		callClose:   "\n```\n",
		resultOpen:  "```json\n",
		resultClose: "\n```",
	},
}

// PromptStyle is the style named name, one of Styles; "" is jsonl.
func PromptStyle(name string) (*Style, error) {
	if name == "" {
		name = StyleJSONL
	}
	s, ok := styles[name]
	if !ok {
		return nil, fmt.Errorf("unknown prompt style %q: use one of %s", name, strings.Join(Styles, ", "))
	}
	return s, nil
}

// Name is the style's name, one of Styles.
func (s *Style) Name() string { return s.name }

// Stops are stop sequences for a model taught this style: they end its
// turn where it would begin to write a result itself. Callers may append
// to the slice returned.
func (s *Style) Stops() []string { return s.stops[:len(s.stops):len(s.stops)] }

// Hint says what to write, for a model whose reply was neither a call nor
// an answer.
func (s *Style) Hint() string { return s.hint }

// AppendCall appends a call as the style writes it, ending with a newline.
// args go in as they are: the caller compacts them if it wants.
func (s *Style) AppendCall(b []byte, name string, args []byte) []byte {
	b = append(b, s.callOpen...)
	b = append(b, '{')
	if s.typed {
		b = append(b, `"type":"tool_call",`...)
	}
	b = append(b, `"name":`...)
	b = jsonw.AppendString(b, name)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	b = append(b, '}')
	return append(b, s.callClose...)
}

// AppendResult appends the result of a call as the style gives it back
// to the model, without a newline at the end.
func (s *Style) AppendResult(b []byte, id, name, content string, isError bool) []byte {
	b = append(b, s.resultOpen...)
	b = append(b, '{')
	if s.typed {
		b = append(b, `"type":"tool_observation",`...)
	}
	b = append(b, `"id":`...)
	b = jsonw.AppendString(b, id)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, name)
	b = append(b, `,"content":`...)
	b = jsonw.AppendString(b, content)
	if isError {
		b = append(b, `,"is_error":true`...)
	}
	b = append(b, '}')
	return append(b, s.resultClose...)
}
