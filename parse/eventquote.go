package parse

import (
	"bytes"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// quotedEvents are the event types a model may quote in prose, a
// tool_observation line it was given above all, that are never a call:
// an object that says it is one of them is text, complete or broken, even
// when it names a tool (issue 41).
var quotedEvents = []string{
	tools.TypeToolObservation, event.TypeParseError, event.TypeText, event.TypeReasoning,
	event.TypeSystem, event.TypeUser, event.TypeAssistant, event.TypeStop,
	event.TypeSummary, event.TypeBatch, event.TypeCheck, event.TypeStep, event.TypeReflection,
}

// isQuotedEvent reports whether typ, an object's "type", is one of
// quotedEvents.
func isQuotedEvent(typ string) bool {
	for _, t := range quotedEvents {
		if typ == t {
			return true
		}
	}
	return false
}

// opensQuotedEvent reports whether b begins as an event of quotedEvents,
// {"type": "tool_observation", …, so that a broken one is left as text
// rather than reported as a broken call.
func opensQuotedEvent(b []byte) bool {
	rest, ok := bytes.CutPrefix(b, []byte("{"))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if rest, ok = bytes.CutPrefix(rest, []byte(`"type"`)); !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if rest, ok = bytes.CutPrefix(rest, []byte(":")); !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return false
	}
	end := bytes.IndexByte(rest[1:], '"')
	return end >= 0 && isQuotedEvent(string(rest[1:1+end]))
}
