package parse

import (
	"bytes"
	"fmt"
)

// With Options.KnownTool, a bare call to one of the caller's tools counts
// wherever it starts ("Sure, {"name": "get_weather", …}"). Only a complete
// call whose every name is a known tool does: prose that shows some JSON
// or a bracketed aside stays prose.

// callKeys are the keys a bare call object starts with.
var callKeys = []string{`"name"`, `"function"`, `"tool_name"`, `"type"`, `'name'`}

// startsLikeCall reports whether the object at buf[i] ('{') opens with a
// call's key; undecided when the input so far ends before that is known.
func (p *Parser) startsLikeCall(i int, eof bool) (yes, undecided bool) {
	rest := bytes.TrimLeft(p.buf[i+1:], " \t\r\n")
	for _, k := range callKeys {
		if bytes.HasPrefix(rest, []byte(k)) {
			return true, false
		}
		if !eof && len(rest) < len(k) && bytes.HasPrefix([]byte(k), rest) {
			undecided = true
		}
	}
	return false, undecided
}

// knownJSONCall handles a '{' anywhere when the caller's tools are known:
// a complete JSON call to known tools is emitted; anything else is left to
// the other rules.
func (p *Parser) knownJSONCall(i int, eof bool) (int, status, error) {
	yes, undecided := p.startsLikeCall(i, eof)
	if undecided {
		return 0, needMore, nil
	}
	if !yes || opensQuotedEvent(p.buf[i:]) {
		return 0, noMatch, nil
	}
	end, complete := p.jsonEnd(i, false)
	if !complete {
		if !eof {
			return 0, needMore, nil
		}
		// At a line start bareJSON reads it, with the protocol's messages.
		if p.knownCallAt(i, end) && !p.atLineStart(i) {
			return end, matched, p.fail(i, end, "", fmt.Sprintf("call to %q was cut off: its arguments end before they are complete; send the whole call again", callName(p.buf[i:min(end, i+lookAhead)])))
		}
		return 0, noMatch, nil
	}
	if p.atLineStart(i) && namesItself(p.buf[i:end]) {
		return 0, noMatch, nil // a protocol line: bareJSON's
	}
	body, _, st := p.bodyEnd(end, "", eof)
	if st == needMore {
		return 0, needMore, nil
	}
	if body != end {
		if msg := p.readBody(i, body); msg != "" {
			if p.knownCallAt(i, body) && !p.atLineStart(i) {
				return body, matched, p.fail(i, body, "", msg)
			}
			return 0, noMatch, nil
		}
		end = body
	}
	out, _, err := p.decodeJSON(i, end)
	if err != nil {
		if p.knownCallAt(i, end) && !p.atLineStart(i) {
			return end, matched, p.fail(i, end, "", fmt.Sprintf("call to %q: %s", callName(p.buf[i:min(end, i+lookAhead)]), p.jsonErrorMessage(err, i)))
		}
		return 0, noMatch, nil
	}
	p.explicitOnly, p.outputStart = false, false
	cands := p.candidates(parseJSON(out), false, "", p.cands[:0])
	p.cands = cands[:0]
	if len(cands) == 0 {
		return 0, noMatch, nil
	}
	for k := range cands {
		if c := &cands[k]; c.final || c.bad != "" || !p.opts.KnownTool(c.name) {
			return 0, noMatch, nil
		}
	}
	ok, err := p.jsonCalls(i, i, end, false, "")
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return 0, noMatch, nil
	}
	return end, matched, nil
}

// knownPyList handles a '[' inside a line of prose when the caller's tools
// are known: a complete pythonic list of calls to known tools is emitted.
func (p *Parser) knownPyList(i int, eof bool) (int, status, error) {
	k := p.skipSpace(i + 1)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	if !isIdentByte(p.buf[k], true) {
		return 0, noMatch, nil
	}
	// Read the names first, without emitting: every one must be known.
	var a argsBuilder
	j := k
	for {
		name, end, st, perr := p.pyCall(j, eof, &a)
		if st == needMore {
			return 0, needMore, nil
		}
		if st != matched || perr != nil || !p.opts.KnownTool(string(name)) {
			return 0, noMatch, nil
		}
		j = p.skipSpace(end)
		if j >= len(p.buf) {
			return needOrNot(eof)
		}
		switch p.buf[j] {
		case ',':
			j = p.skipSpace(j + 1)
			if j >= len(p.buf) {
				return needOrNot(eof)
			}
			continue
		case ']':
		default:
			return 0, noMatch, nil
		}
		break
	}
	return p.pyList(i, i, eof, FormatPythonic, false)
}

// knownCallAt reports whether buf[i:e], text that failed to read as a
// call, names one of the caller's tools as a call does: then it is a
// broken call, and a parse_error asks the model again, where prose would
// end a run loop as if it were the answer.
func (p *Parser) knownCallAt(i, e int) bool {
	if p.opts.KnownTool == nil {
		return false
	}
	name := callName(p.buf[i:min(e, i+lookAhead)])
	return name != "" && p.opts.KnownTool(name)
}

// callName returns the string value of the first name key ("name",
// 'name', name, "tool_name", "function") in b, the start of a call object
// written leniently or broken; "" when there is none.
func callName(b []byte) string {
	for k := 0; k < len(b); k++ {
		var key string
		for _, w := range []string{"name", "tool_name", "function"} {
			if bytes.HasPrefix(b[k:], []byte(w)) && (k == 0 || !isIdentByte(b[k-1], false)) {
				key = w
				break
			}
		}
		if key == "" {
			continue
		}
		j := k + len(key)
		if j < len(b) && (b[j] == '"' || b[j] == '\'') {
			j++
		}
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		if j >= len(b) || b[j] != ':' {
			continue
		}
		j++
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j++
		}
		if j >= len(b) || b[j] != '"' && b[j] != '\'' {
			continue
		}
		q := b[j]
		if e := bytes.IndexByte(b[j+1:], q); e > 0 {
			return string(b[j+1 : j+1+e])
		}
		return ""
	}
	return ""
}

// knownPyCall handles a '(' after the name of a known tool that starts a
// line: a bare pythonic call, as Granite writes one
// (get_weather(location="San Francisco")). It counts when the call is the
// whole line; a broken one is a parse_error, since its name says it is a
// call.
func (p *Parser) knownPyCall(i int, eof bool) (int, status, error) {
	s := i
	for s > p.seg && isIdentByte(p.buf[s-1], false) {
		s--
	}
	if s == i || !isIdentByte(p.buf[s], true) || !p.atLineStart(s) || !p.opts.KnownTool(string(p.buf[s:i])) {
		return 0, noMatch, nil
	}
	var a argsBuilder
	name, end, st, perr := p.pyCall(s, eof, &a)
	if st != matched {
		return 0, st, nil
	}
	if perr != nil {
		stop := perr.at
		if perr.cut {
			stop = len(p.buf)
		} else {
			// The broken call is its whole line.
			stop = p.lineEnd(stop)
			if stop == len(p.buf) && !eof {
				return 0, needMore, nil
			}
		}
		p.blockStart = s
		return stop, matched, p.fail(s, stop, FormatPythonic, perr.msg)
	}
	e := end
	for e < len(p.buf) && (p.buf[e] == ' ' || p.buf[e] == '\t' || p.buf[e] == '\r') {
		e++
	}
	if e == len(p.buf) && !eof {
		return 0, needMore, nil
	}
	if e < len(p.buf) && p.buf[e] != '\n' {
		tok, partial := p.endOfTurnAt(e)
		if partial && !eof {
			return 0, needMore, nil
		}
		if tok == "" {
			return 0, noMatch, nil // "get_weather(city) returns …": prose about it
		}
	}
	p.blockStart = s
	return end, matched, p.emitCall("", string(name), a.done(), FormatPythonic, a.repairs, p.base+int64(s), p.buf[s:end])
}

// callMarkup are the tags a call's body is written in by the families
// that use <tool_call> blocks.
var callMarkup = [][]byte{[]byte("<function"), []byte("<invoke"), []byte("<parameter"), []byte("<arg_key>"), []byte("<arg_value>")}

// callLikeBody reports whether the body of a <tool_call>-style block
// starting at buf[j], up to its closer, is a call's though no syntax read
// it: it starts with a JSON value, holds a family's call markup, or starts
// with the name of one of the caller's tools. Such a block is a
// parse_error, so the model is asked again, never prose; tags quoted in
// prose stay prose. Undecided until the closer, the end of the input or
// leftoverWindow bytes have come, so how the input is cut up cannot
// change the answer.
func (p *Parser) callLikeBody(j int, closer string, eof bool) (yes, undecided bool) {
	end := p.indexWithin(j, closer, leftoverWindow)
	if end < 0 {
		if !eof && len(p.buf)-j < leftoverWindow {
			return false, true
		}
		end = min(len(p.buf), j+leftoverWindow)
	}
	body := bytes.TrimLeft(p.buf[j:end], " \t\r\n")
	if len(body) == 0 {
		return false, false
	}
	if body[0] == '{' || body[0] == '[' {
		return true, false
	}
	for _, m := range callMarkup {
		if bytes.Contains(body, m) {
			return true, false
		}
	}
	if p.opts.KnownTool == nil {
		return false, false
	}
	n := 0
	for n < len(body) && isIdentByte(body[n], n == 0) {
		n++
	}
	return n > 0 && p.opts.KnownTool(string(body[:n])), false
}
