package tools

import (
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// Event types: the value of the "type" key on every line of the stream
// (README.md, Events).
const (
	TypeTool            = "tool"
	TypeText            = "text"
	TypeReasoning       = "reasoning"
	TypeToolCall        = "tool_call"
	TypeFinalAnswer     = "final_answer"
	TypeParseError      = "parse_error"
	TypeToolObservation = "tool_observation"
	TypeSystem          = "system"
	TypeUser            = "user"
	TypeAssistant       = "assistant"
	TypeStop            = "stop"
)

// ErrorKind classifies what went wrong, in the same words in every stage, so
// that a model (or a script) can tell a bad call from a failing tool.
type ErrorKind string

// The error kinds every stage shares (README.md, Events). A cut output is
// status partial, not an error; a failing model server and a limit of the
// run end it with a stop event and its reason, not an observation.
const (
	KindDecode      ErrorKind = "decode"       // unparseable model output
	KindUnknownTool ErrorKind = "unknown_tool" // no tool of that name
	KindValidation  ErrorKind = "validation"   // arguments do not match the schema
	KindPermission  ErrorKind = "permission"   // denied by policy
	KindTimeout     ErrorKind = "timeout"      // the tool ran too long
	KindExecution   ErrorKind = "execution"    // the tool failed
	KindInterrupted ErrorKind = "interrupted"  // stopped by a signal while it ran
)

// Call is one normalized tool call: a name and an arguments object, whatever
// syntax the model used to write it.
type Call struct {
	// ID is the model's own id when it gave one, else call_1, call_2, ...
	// in stream order.
	ID   string
	Name string
	// Arguments is always a compact JSON object.
	Arguments []byte
	// Format names the syntax the call was written in (see parse.Formats).
	Format string
	// Repaired is true when lenient parsing changed the model's text to
	// make it valid JSON.
	Repaired bool
	// Repairs names the kinds of change the repair made (parse.RepairKinds,
	// docs/json-repair.md); written only with Repaired.
	Repairs []string
}

// AppendJSON appends the call as a tool_call event, without the trailing
// newline, keys in a fixed order.
func (c *Call) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"tool_call","id":`...)
	dst = jsonw.AppendString(dst, c.ID)
	dst = append(dst, `,"name":`...)
	dst = jsonw.AppendString(dst, c.Name)
	dst = append(dst, `,"arguments":`...)
	if len(c.Arguments) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = append(dst, c.Arguments...)
	}
	if c.Format != "" {
		dst = append(dst, `,"format":`...)
		dst = jsonw.AppendString(dst, c.Format)
	}
	if c.Repaired {
		dst = append(dst, `,"repaired":true`...)
		if len(c.Repairs) > 0 {
			dst = append(dst, `,"repairs":[`...)
			for i, r := range c.Repairs {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = jsonw.AppendString(dst, r)
			}
			dst = append(dst, ']')
		}
	}
	return append(dst, '}')
}

// DecodeCall reads a tool_call event into a Call: the decoder of the
// encoder above, which validate and exec read their input's calls with,
// and run's replay a recording's (FuzzCallCodec holds the two together). It takes only the fields a Call
// has; hasName says whether "name" was a string at all. The arguments are
// the raw JSON of "arguments", whatever it holds: the schema check says
// what is wrong with it. For a call c, DecodeCall(c.AppendJSON(nil)) is
// c as a reader of the line sees it: its strings as jsonw.ValidString
// gives them, "{}" for no arguments, no Repairs unless Repaired.
func DecodeCall(line []byte) (c Call, hasName bool) {
	gjson.ParseBytes(line).ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "id":
			if val.Type == gjson.String {
				c.ID = val.Str
			}
		case "name":
			if val.Type == gjson.String {
				c.Name, hasName = val.Str, true
			}
		case "arguments":
			c.Arguments = []byte(val.Raw)
		case "format":
			if val.Type == gjson.String {
				c.Format = val.Str
			}
		case "repaired":
			c.Repaired = val.Type == gjson.True
		case "repairs":
			c.Repairs = repairKinds(val)
		}
		return true
	})
	return c, hasName
}
