package run

import (
	"strings"
	"unicode"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// Reflection notes (run --reflect): after a turn's observations, one
// compact note of what happened, for the model's next request and for the
// transcript (a reflection event). It is derived from the observations
// alone, without asking the model: per call the status its observation
// has, a finding, and the next action that status and error kind call
// for. The rules, in order:
//
//	partial            the first meaningful line; pass the ref to read the
//	                   rest (or narrow the call when nothing was saved)
//	ok                 the first meaningful line; use it
//	validation         the first schema error; fix the argument at its
//	                   pointer and call again
//	unknown_tool       the error; call the tool it suggests, or one offered
//	permission         the error; the tool is not allowed: answer without it
//	timeout            the error; ask for less, or answer without it
//	execution          the first meaningful line of what the tool said;
//	                   change the arguments, or answer without it
//	interrupted        the error; call it again if it is still needed
//	decode             the error; write the call again as the prompt shows
//	blocked, no error  (a dry run) nothing ran: answer without its result
//
// The words are fixed, so a replayed run gives the same notes.

// findingMax bounds a finding, in bytes: a line, not the output.
const findingMax = 160

// reflectOn is the finding of one call, from its observation.
func reflectOn(o *tools.Observation) event.Finding {
	f := event.Finding{ID: jsonw.ValidString(o.ID), Name: jsonw.ValidString(o.Name), Status: stepStatus(o)}
	name := quoteName(f.Name)
	var kind tools.ErrorKind
	message := ""
	if o.Error != nil {
		kind, message = o.Error.Kind, firstLine(o.Error.Message)
	}
	switch {
	case f.Status == tools.StatusPartial || o.Truncated && !o.IsError:
		f.Finding = firstLine(o.Content)
		if o.Ref != "" {
			f.NextAction = "the output was cut: pass \"" + jsonw.ValidString(o.Ref) + "\" as an argument to read the rest, or answer from what you have"
		} else {
			f.NextAction = "the output was cut: call " + name + " again asking for less, or answer from what you have"
		}
	case !o.IsError && f.Status == tools.StatusBlocked:
		f.Finding = firstLine(o.Content)
		f.NextAction = "nothing was run (a dry run): answer without its result"
	case !o.IsError:
		f.Finding = firstLine(o.Content)
		if f.Finding == "" {
			f.Finding = "the call succeeded and printed nothing"
		}
		f.NextAction = "use this result: answer if it is enough, or make the next call it leads to"
	case kind == tools.KindValidation:
		f.Finding, f.NextAction = validationFix(o.Error, message, name)
	case kind == tools.KindUnknownTool:
		f.Finding = message
		if s := gjson.GetBytes(o.Error.Details, "suggestions.0"); s.Type == gjson.String {
			f.NextAction = "call " + quoteName(s.Str) + " instead, or answer without a tool"
		} else {
			f.NextAction = "call one of the tools offered, or answer without a tool"
		}
	case kind == tools.KindPermission:
		f.Finding = message
		f.NextAction = "the tool is not allowed: answer without it"
	case kind == tools.KindTimeout:
		f.Finding = message
		f.NextAction = "the tool ran out of time: call " + name + " again asking for less, or answer without it"
	case kind == tools.KindInterrupted:
		f.Finding = message
		f.NextAction = "the call was interrupted: call " + name + " again if you still need it"
	case kind == tools.KindDecode:
		f.Finding = message
		f.NextAction = "the call could not be read: write it again exactly as the prompt shows"
	default: // execution, or a kind this version does not know
		f.Finding = firstLine(o.Content)
		if f.Finding == "" {
			f.Finding = message
		}
		f.NextAction = "the tool failed: change what the error names and call " + name + " again, or answer without it"
	}
	if f.Finding == "" {
		f.Finding = firstLine(o.Content)
	}
	return f
}

// validationFix is the finding and next action of a call whose arguments
// failed the schema: the first error, and the argument to fix.
func validationFix(e *tools.ToolError, message, name string) (finding, next string) {
	first := gjson.GetBytes(e.Details, "0")
	finding = clip.Head(strings.TrimSpace(first.Get("message").Str), findingMax)
	if finding == "" {
		finding = message
	}
	if p := first.Get("pointer"); p.Type == gjson.String && p.Str != "" {
		return finding, "fix the argument at " + clip.Head(p.Str, findingMax) + " and call " + name + " again"
	}
	return finding, "fix the arguments and call " + name + " again"
}

// quoteName is a tool's name as a note says it.
func quoteName(name string) string {
	if name == "" {
		return "the tool"
	}
	return clip.Head(name, findingMax)
}

// firstLine is the first meaningful line of s: the first with a letter or
// a digit (not a lone brace or a rule), trimmed and cut to findingMax.
func firstLine(s string) string {
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		line = strings.TrimSpace(line)
		if strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return clip.Head(line, findingMax)
		}
	}
	return ""
}

// appendNote appends the reflection as the model is given it in style:
// a {"type":"reflection","calls":[…]} object, on its own line in the jsonl
// style, in a <tool_reflection> block in the xml style, in a json code
// block in the markdown style (as each gives back a result).
func appendNote(b []byte, style *catalog.Style, r *event.Reflection) []byte {
	var open, close string
	switch style.Name() {
	case catalog.StyleXML:
		open, close = "<tool_reflection>\n", "\n</tool_reflection>"
	case catalog.StyleMarkdown:
		open, close = "```json\n", "\n```"
	}
	b = append(b, open...)
	b = append(b, `{"type":"reflection",`...)
	b = append(r.AppendCalls(b), '}')
	return append(b, close...)
}
