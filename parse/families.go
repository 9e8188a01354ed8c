package parse

import (
	"bytes"
	"fmt"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// Families whose calls are a name in one marker and JSON arguments in
// another, read from their published chat templates and parsers.

// PLaMo 3's tags: not special tokens, so a server never drops them.
const (
	plamoNameOpen  = "<|plamo:begin_tool_name:plamo|>"
	plamoNameClose = "<|plamo:end_tool_name:plamo|>"
	plamoArgsOpen  = "<|plamo:begin_tool_arguments:plamo|>"
	plamoArgsClose = "<|plamo:end_tool_arguments:plamo|>"
)

// plamoCall handles PLaMo 3's <|plamo:begin_tool_request:plamo|>, then the
// name and the JSON arguments, each between its tags.
func (p *Parser) plamoCall(i, j int, eof bool) (int, status, error) {
	k := p.skipSpace(j)
	ok, partial := p.hasPrefixAt(k, plamoNameOpen)
	if !ok {
		if partial || k >= len(p.buf) {
			return needOrNot(eof)
		}
		return 0, noMatch, nil
	}
	k += len(plamoNameOpen)
	e := p.indexWithin(k, plamoNameClose, lookAhead)
	if e < 0 {
		if _, miss := p.ahead(k, eof); miss == needMore {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	name := string(bytes.TrimSpace(p.buf[k:e]))
	b := p.skipSpace(e + len(plamoNameClose))
	ok, partial = p.hasPrefixAt(b, plamoArgsOpen)
	if !ok {
		if partial || b >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
		}
		return b, matched, p.fail(i, b, FormatPlamo3, fmt.Sprintf("call to %q has no arguments: write %s{…}%s after its name", name, plamoArgsOpen, plamoArgsClose))
	}
	return p.namedArgs(i, b+len(plamoArgsOpen), eof, name, FormatPlamo3, plamoArgsClose)
}

// cwmCall handles Meta CWM's <tool: LABEL>\nNAME ARGS\n</tool>: the first
// word of the body names the tool; the rest is its arguments, a JSON
// object, or else the text of a command, {"command": text}, as the
// model's tools take it.
func (p *Parser) cwmCall(i, j int, eof bool) (int, status, error) {
	win, miss := p.ahead(j, eof)
	gt := bytes.IndexByte(win, '>')
	if gt < 0 {
		return 0, miss, nil
	}
	if label := bytes.TrimSpace(win[:gt]); len(label) == 0 || bytes.ContainsAny(label, " \n<") {
		return 0, noMatch, nil
	}
	b := j + gt + 1
	const closeTag = "</tool>"
	e := p.indexAt(b, closeTag)
	if e < 0 {
		if !eof {
			return 0, needMore, nil
		}
		return len(p.buf), matched, p.fail(i, len(p.buf), FormatCWM, "tool call cut off before </tool>: its arguments may be incomplete; send the whole call again")
	}
	end := e + len(closeTag)
	body := bytes.TrimSpace(p.buf[b:e])
	n := bytes.IndexAny(body, " \t\r\n")
	if n < 0 {
		n = len(body)
	}
	name, rest := string(body[:n]), bytes.TrimSpace(body[n:])
	if name == "" {
		return end, matched, p.fail(i, end, FormatCWM, "tool call without a name: write the tool's name first in the <tool: …> block")
	}
	if len(rest) > 0 && rest[0] == '{' {
		// JSON arguments, which must read whole: broken ones are never
		// passed on as a command's text.
		out, res, err := appendJSON(nil, rest, p.opts.NoRepair, false)
		switch {
		case err != nil:
			return end, matched, p.fail(i, end, FormatCWM, fmt.Sprintf("call to %q: %s", name, p.jsonErrorMessage(err, b+bytes.Index(p.buf[b:e], rest))))
		case res.truncated || res.n != len(rest):
			return end, matched, p.fail(i, end, FormatCWM, fmt.Sprintf("call to %q: its JSON arguments do not fill the block up to </tool>; write one JSON object", name))
		}
		p.noExp = !res.exp
		return end, matched, p.emitCall("", name, out, FormatCWM, res.repairs, p.base+int64(i), p.buf[i:end])
	}
	var a argsBuilder
	a.reset()
	a.key([]byte("command"))
	a.buf = jsonw.AppendBytes(a.buf, rest)
	return end, matched, p.emitCall("", name, a.done(), FormatCWM, 0, p.base+int64(i), p.buf[i:end])
}
