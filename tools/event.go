package tools

import (
	"github.com/toolcall/toolcall/internal/jsonw"
)

// The types of the events tools' own stages write (callevent.go); every
// type of the stream is in package event (tools/event), these among them.
const (
	TypeToolCall        = "tool_call"
	TypeToolObservation = "tool_observation"
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
	return c.appendJSON(dst, nil)
}

// CallEncoder appends tool_call events byte for byte as Call.AppendJSON
// does, for a stream of calls: it keeps the name and format of the last
// call encoded, and copies them while the calls repeat them, as the
// calls of one stream mostly do. The zero CallEncoder is ready to use.
type CallEncoder struct {
	name, format string
	// The JSON between the id and the arguments, `,"name":NAME,"arguments":`,
	// and after them, `,"format":FORMAT`: one copy each per call.
	nameJSON, formatJSON []byte
}

// AppendJSON appends c as c.AppendJSON does.
func (e *CallEncoder) AppendJSON(dst []byte, c *Call) []byte {
	return c.appendJSON(dst, e)
}

// appendJSON is AppendJSON, with the name and format from e when e is
// not nil.
func (c *Call) appendJSON(dst []byte, e *CallEncoder) []byte {
	dst = append(dst, `{"type":"tool_call","id":`...)
	dst = jsonw.AppendString(dst, c.ID)
	if e == nil {
		dst = append(dst, `,"name":`...)
		dst = jsonw.AppendString(dst, c.Name)
		dst = append(dst, `,"arguments":`...)
	} else {
		if e.nameJSON == nil || c.Name != e.name {
			e.name, e.nameJSON = c.Name, appendMember(e.nameJSON[:0], `,"name":`, c.Name, `,"arguments":`)
		}
		dst = append(dst, e.nameJSON...)
	}
	if len(c.Arguments) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = append(dst, c.Arguments...)
	}
	if c.Format != "" {
		if e == nil {
			dst = append(dst, `,"format":`...)
			dst = jsonw.AppendString(dst, c.Format)
		} else {
			if e.formatJSON == nil || c.Format != e.format {
				e.format, e.formatJSON = c.Format, appendMember(e.formatJSON[:0], `,"format":`, c.Format, "")
			}
			dst = append(dst, e.formatJSON...)
		}
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

// appendMember appends key, s as a JSON string and after: what
// CallEncoder keeps of the name and the format. (The test whether it has
// them is left to appendJSON, to be made there without a call.)
func appendMember(dst []byte, key, s, after string) []byte {
	return append(jsonw.AppendString(append(dst, key...), s), after...)
}

// DecodeCall reads a tool_call event into a Call: the decoder of the
// encoder above, which validate and exec read their input's calls with,
// and run's replay a recording's (FuzzCallCodec holds the two together). It takes only the fields a Call
// has; hasName says whether "name" was a string at all. The arguments are
// the raw JSON of "arguments", whatever it holds: the schema check says
// what is wrong with it. For a call c, DecodeCall(c.AppendJSON(nil)) is
// c as a reader of the line sees it: its strings as jsonw.ValidString
// gives them, "{}" for no arguments, no Repairs unless Repaired.
// DecodeCallEvent (callevent.go) also reads what a check said of it.
func DecodeCall(line []byte) (c Call, hasName bool) {
	e, hasName := DecodeCallEvent(line)
	return e.Call, hasName
}
