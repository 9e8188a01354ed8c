package parse

// JSON with no marker before it: a call at the start of a line or in an
// open call section, and the JSONL protocol's one-line messages.

import (
	"bytes"
	"errors"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// bareJSON handles a JSON value with no marker before it: at the start of a
// line (Llama 3 JSON, the JSONL protocol, envelopes, xLAM arrays) or inside
// an open call section. A value that is not a call is prose, and is
// skipped whole so the objects inside it are not mistaken for calls.
func (p *Parser) bareJSON(i int, eof bool) (int, status, error) {
	end, complete := p.jsonEnd(i, false)
	line := false
	// Most values end on the line they start on: only the others need
	// a look at whether they are a protocol line.
	if p.section == "" && !(complete && (p.readLeanly(i, end) || bytes.IndexByte(p.buf[i:end], '\n') < 0)) && opensProtocolCall(p.buf[i:]) {
		end, complete, line = p.protocolLine(i, end, complete, eof)
	}
	if !complete {
		if !eof {
			return 0, needMore, nil
		}
		if !looksLikeCall(p.buf[i:end]) {
			return 0, noMatch, nil
		}
	}
	// A closer or ",\"key\"" after the value is more of it, unless it is
	// a protocol line and its line has ended. One that ends the input so
	// far waits for the end of its line like any value: taking it there
	// would read it differently from the same text in one piece.
	if complete && !line && !p.endsProtocolLine(i, end) {
		// A closer or ",\"key\"" after the value on its line is more of
		// it: the line is the call, read whole or refused.
		body, _, st := p.bodyEnd(end, "", eof)
		if st == needMore {
			return 0, needMore, nil
		}
		if body != end {
			if msg := p.readBody(i, body); msg != "" {
				if !looksLikeCall(p.buf[i:body]) && !p.knownCallAt(i, body) {
					return body, prose, nil
				}
				return body, matched, p.fail(i, body, "", msg)
			}
			end = body
		}
	}
	format := ""
	inMarker := false
	// Bare JSON counts when it starts the output; after prose only when
	// nothing but more calls follows it: a JSON line amid prose is prose. The JSONL
	// protocol and the envelopes name themselves, and count anywhere.
	p.explicitOnly = false
	p.outputStart = !p.prose && onlyComments(p.buf[p.seg:i])
	if p.section == "" && !p.outputStart {
		k := p.skipSpace(end)
		switch {
		case k == len(p.buf) && !eof && !line && !p.endsProtocolLine(i, end):
			// What follows decides; a protocol line counts whatever
			// follows, so it waits only for its line to end.
			return 0, needMore, nil
		case k == len(p.buf)-1 && p.buf[k] == '/' && !eof:
			return 0, needMore, nil // a comment, or prose?
		case k < len(p.buf) && !bytes.ContainsRune([]byte("{[<;`"), rune(p.buf[k])) && !onlyComments(p.buf[k:p.lineEnd(k)]):
			p.explicitOnly = true
		}
	}
	switch p.section {
	case "":
		if p.buf[i] == '[' {
			format = FormatXLAM
		}
	default:
		// A JSON call, or a list of them, inside another family's call
		// section (Solar Open's <|tool_calls|>[{…}]): the section says
		// it is calls, whichever syntax the model wrote in it.
		if !p.allowed(p.section) {
			return 0, noMatch, nil
		}
		format, inMarker = p.section, true
	}
	ok, err := p.jsonCalls(i, i, end, inMarker, format)
	p.explicitOnly, p.outputStart = false, false
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return end, prose, nil
	}
	return end, matched, nil
}

// namesItself reports whether a JSON object says it is a call or a final
// answer of the JSONL protocol, which counts wherever it stands.
func namesItself(obj []byte) bool {
	v := gjson.ParseBytes(obj)
	switch v.Get("type").Str {
	case tools.TypeToolCall:
		return true
	case event.TypeFinalAnswer:
		return v.Get("content").Exists()
	}
	return false
}

// endsProtocolLine reports whether buf[i:end] is a message of the JSONL
// protocol whose line has ended: one line each, nothing after it is part
// of it.
func (p *Parser) endsProtocolLine(i, end int) bool {
	if !lineEnded(p.buf[end:]) {
		return false
	}
	if p.readLeanly(i, end) && bytes.HasPrefix(p.buf[i:end], []byte(`{"type":"tool_call",`)) {
		return true // strict JSON already, and written as toolcall writes it
	}
	return bytes.Contains(p.buf[i:end], []byte(`type`)) && wholeProtocolLine(p.buf[i:end])
}

// readLeanly reports whether jsonEnd read buf[i:end] with leanObject and
// found no whitespace in it (decoded.lean): strict JSON on one line.
func (p *Parser) readLeanly(i, end int) bool {
	d := &p.decoded
	return d.lean && d.start == i && d.end == end
}

// lineEnded reports whether b starts with the end of a line, after spaces.
func lineEnded(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			return true
		}
		return false
	}
	return false
}

// wholeProtocolLine reports whether obj is a message of the JSONL
// protocol written as strict JSON.
func wholeProtocolLine(obj []byte) bool {
	return namesItself(obj) && gjson.ValidBytes(obj)
}

// protocolLine bounds a value that opens as a call of the JSONL protocol,
// whose calls are one line each. A call written over several lines that
// decodes is taken whole (end and complete as jsonEnd found them). One that
// does not decode, or runs into the end of the output unclosed, is its
// first line only, with line set: that line becomes the call or its
// parse_error, and the lines after it are parsed on their own rather than
// swallowed into its error.
func (p *Parser) protocolLine(i, end int, complete, eof bool) (int, bool, bool) {
	nl := bytes.IndexByte(p.buf[i:], '\n')
	if nl < 0 {
		return end, complete, false // the line has not ended yet
	}
	lineEnd := i + nl
	// A fresh buffer: p.scratch may hold the decoded value (p.decoded).
	_, res, err := appendJSON(nil, p.buf[i:lineEnd], p.opts.NoRepair, false)
	var se *syntaxError
	switch {
	case err != nil && !(errors.As(err, &se) && se.Truncated):
		return lineEnd, true, true // broken on its own line: no need to read on
	case err == nil && !res.Truncated:
		return lineEnd, true, true
	case complete:
		if d := p.decoded; d.out != nil && d.start == i && d.end == end {
			return end, complete, false // written over several lines, and valid
		}
		if _, _, err := appendJSON(nil, p.buf[i:end], p.opts.NoRepair, false); err == nil {
			return end, complete, false
		}
		return lineEnd, true, true
	case eof:
		return lineEnd, true, true
	}
	return end, complete, false // the rest of the call may yet come
}

// onlyComments reports whether b is whitespace and // comment lines
// only: a bare JSON body with comments around it is still the whole
// output ("// the call" above it, "// done" after it). A '#' line is
// not one: in model output it is a Markdown heading, prose.
func onlyComments(b []byte) bool {
	for {
		for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
			b = b[1:]
		}
		if len(b) == 0 {
			return true
		}
		if !bytes.HasPrefix(b, []byte("//")) {
			return false
		}
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return true
		}
		b = b[nl+1:]
	}
}

// lineEnd returns the end of the line holding buf[k], or of the buffer.
func (p *Parser) lineEnd(k int) int {
	if nl := bytes.IndexByte(p.buf[k:], '\n'); nl >= 0 {
		return k + nl
	}
	return len(p.buf)
}
