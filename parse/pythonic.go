package parse

import (
	"bytes"
	"fmt"
	"strings"
)

// Pythonic calls: [get_weather(city="Paris"), f(a=1)] (Llama 3.2/4,
// ToolACE, LFM2), one call per line (Olmo 3), and Llama 3.1's built-in
// brave_search.call(query="x"). Arguments are keyword arguments with Python
// or JSON literal values (True/None as well as true/null).

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c >= '0' && c <= '9' || c == '.' || c == '-')
}

// pyError is a pythonic call that cannot be read.
type pyError struct {
	at  int
	msg string
	cut bool // the input ended inside the call
}

// pyCall parses NAME(key=value, …) at buf[k]. ok is false (with a nil
// error) when the text there is not a call at all.
func (p *Parser) pyCall(k int, eof bool, a *argsBuilder) (name []byte, end int, st status, perr *pyError) {
	j := k
	for j < len(p.buf) && isIdentByte(p.buf[j], j == k) {
		j++
	}
	if j == len(p.buf) && !eof {
		return nil, 0, needMore, nil
	}
	if j == k {
		return nil, 0, noMatch, nil
	}
	if j >= len(p.buf) {
		if eof {
			return nil, 0, noMatch, nil
		}
		return nil, 0, needMore, nil
	}
	if p.buf[j] != '(' {
		return nil, 0, noMatch, nil
	}
	name = p.buf[k:j]
	a.reset()
	j++
	for n := 0; ; n++ {
		j = p.skipSpace(j)
		if j >= len(p.buf) {
			return p.pyCut(eof, name, k)
		}
		if p.buf[j] == ')' {
			return name, j + 1, matched, nil
		}
		if n > 0 {
			if p.buf[j] != ',' {
				return name, 0, matched, &pyError{at: j, msg: fmt.Sprintf("expected ',' or ')' in the call to %s, found %q", name, firstChar(p.buf[j:]))}
			}
			j = p.skipSpace(j + 1)
			if j >= len(p.buf) {
				return p.pyCut(eof, name, k)
			}
			if p.buf[j] == ')' {
				return name, j + 1, matched, nil
			}
		}
		ks := j
		for j < len(p.buf) && isIdentByte(p.buf[j], j == ks) && p.buf[j] != '.' && p.buf[j] != '-' {
			j++
		}
		key := p.buf[ks:j]
		j = p.skipSpace(j)
		if j >= len(p.buf) {
			return p.pyCut(eof, name, k)
		}
		if len(key) == 0 || p.buf[j] != '=' {
			return name, 0, matched, &pyError{at: ks, msg: fmt.Sprintf("the call to %s has a positional argument; pass every argument by name, as key=value", name)}
		}
		j = p.skipSpace(j + 1)
		if j >= len(p.buf) {
			return p.pyCut(eof, name, k)
		}
		ve, st := p.pyValueEnd(j, eof)
		if st == needMore {
			return nil, 0, needMore, nil
		}
		if st != matched {
			return p.pyCut(true, name, k)
		}
		a.key(key)
		// Python literal syntax is this format's own, so --no-repair does
		// not apply to it.
		out, res, err := appendJSON(a.buf, p.buf[j:ve], false, true)
		if err != nil || res.Truncated || res.N != len(bytes.TrimRight(p.buf[j:ve], " \t\r\n")) {
			msg := fmt.Sprintf("the value of %s in the call to %s is not a literal", key, name)
			if err != nil {
				msg = fmt.Sprintf("%s: %v", msg, err)
			}
			return name, 0, matched, &pyError{at: j, msg: msg}
		}
		// Python literals (True, 'x', (1, 2)) are this syntax, not a
		// repair.
		a.buf = out
		j = ve
	}
}

func (p *Parser) pyCut(eof bool, name []byte, k int) ([]byte, int, status, *pyError) {
	if !eof {
		return nil, 0, needMore, nil
	}
	return name, 0, matched, &pyError{at: k, cut: true, msg: fmt.Sprintf("the call to %s was cut off before its closing ')'; send the whole call again", name)}
}

// pyValueEnd finds the end of a Python literal at buf[j]: a string, a
// bracketed value, or a bare word or number running to ',' or ')'.
func (p *Parser) pyValueEnd(j int, eof bool) (int, status) {
	switch c := p.buf[j]; c {
	case '"', '\'':
		for k := j + 1; k < len(p.buf); k++ {
			switch p.buf[k] {
			case '\\':
				k++
			case c:
				return k + 1, matched
			}
		}
	case '[', '{', '(':
		end, complete := p.jsonEnd(j, true)
		if complete {
			return end, matched
		}
	default:
		for k := j; k < len(p.buf); k++ {
			if c := p.buf[k]; c == ',' || c == ')' {
				return k, matched
			}
		}
	}
	if eof {
		return 0, noMatch
	}
	return 0, needMore
}

// pyList parses [call, call, …] at buf[k] ('[').
func (p *Parser) pyList(i, k int, eof bool, format string, wantLineEnd bool) (int, status, error) {
	var calls []pyCallOut
	var a argsBuilder
	j := k + 1
	for n := 0; ; n++ {
		j = p.skipSpace(j)
		if j >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			if n == 0 {
				return 0, noMatch, nil
			}
			break // a complete call list missing its ']': the envelope
		}
		if p.buf[j] == ']' && n > 0 {
			j++
			break
		}
		if n > 0 {
			if p.buf[j] != ',' {
				if n == 0 {
					return 0, noMatch, nil
				}
				return j, matched, p.fail(i, j, format, fmt.Sprintf("expected ',' or ']' after a call in the list, found %q", firstChar(p.buf[j:])))
			}
			j = p.skipSpace(j + 1)
		}
		name, end, st, perr := p.pyCall(j, eof, &a)
		switch {
		case st == needMore:
			return 0, needMore, nil
		case st == noMatch:
			return 0, noMatch, nil
		case perr != nil && !perr.cut:
			// One bad entry is its own parse_error; the calls beside it
			// stand. (A bare [..] with no good call at all is prose: a
			// markdown link like [len(obj)](https://…), checked below.)
			e, ok := p.pyEntryEnd(j, "]")
			if !ok && !eof {
				return 0, needMore, nil
			}
			if ok {
				calls = append(calls, pyCallOut{bad: perr.msg, start: j, end: e})
				j = e
				continue
			}
			fallthrough
		case perr != nil:
			stop := len(p.buf)
			if !perr.cut {
				// Skip the rest of the list, so it is not read as prose.
				e, complete := p.jsonEnd(k, true)
				switch {
				case complete:
					stop = e
				case !eof:
					return 0, needMore, nil
				default:
					stop = perr.at
				}
			}
			if err := p.emitPyCalls(i, format, calls); err != nil {
				return 0, 0, err
			}
			return stop, matched, p.fail(i, stop, format, perr.msg)
		}
		calls = append(calls, pyCallOut{name: name, args: append([]byte(nil), a.done()...), rep: a.repairs})
		j = end
	}
	if wantLineEnd && !hasGoodCall(calls) {
		return 0, noMatch, nil
	}
	if wantLineEnd {
		e := j
		for e < len(p.buf) && (p.buf[e] == ' ' || p.buf[e] == '\t' || p.buf[e] == '\r') {
			e++
		}
		if e < len(p.buf) && p.buf[e] != '\n' {
			// An end-of-turn token ends the line as well ([f(a=1)]<|eot_id|>).
			tok, partial := p.endOfTurnAt(e)
			if partial && !eof {
				return 0, needMore, nil
			}
			if tok == "" {
				return 0, noMatch, nil
			}
		}
		if e == len(p.buf) && !eof {
			return 0, needMore, nil
		}
	}
	return j, matched, p.emitPyCalls(i, format, calls)
}

// pyCallOut is a parsed pythonic call waiting to be emitted, or an entry
// of the list that is not one (bad says why; start and end are its text).
type pyCallOut struct {
	name, args []byte
	rep        repairSet
	bad        string
	start, end int
}

func hasGoodCall(calls []pyCallOut) bool {
	for _, c := range calls {
		if c.bad == "" {
			return true
		}
	}
	return false
}

func (p *Parser) emitPyCalls(i int, format string, calls []pyCallOut) error {
	for _, c := range calls {
		var err error
		if c.bad != "" {
			err = p.fail(c.start, c.end, format, c.bad)
		} else {
			err = p.emitCall("", string(c.name), c.args, format, c.rep, p.base+int64(i), nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pyEntryEnd returns where the list entry starting at buf[j] ends: at the
// first ',' or stop byte outside brackets and strings. ok is false when
// the input ends first.
func (p *Parser) pyEntryEnd(j int, stops string) (int, bool) {
	depth := 0
	for k := j; k < len(p.buf); k++ {
		switch c := p.buf[k]; c {
		case '"', '\'':
			for k++; k < len(p.buf) && p.buf[k] != c; k++ {
				if p.buf[k] == '\\' {
					k++
				}
			}
			if k >= len(p.buf) {
				return 0, false
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
				continue
			}
			if strings.IndexByte(stops, c) >= 0 {
				return k, true
			}
		default:
			if depth == 0 && (c == ',' || strings.IndexByte(stops, c) >= 0) {
				return k, true
			}
		}
	}
	return 0, false
}

// pythonicBlock handles markers around pythonic calls: Llama 4's
// <|python_start|>, LFM2's <|tool_call_start|> (also with a JSON array
// inside) and Olmo 3's <function_calls> with one call per line.
func pythonicBlock(closer, format string) handler { return pythonicReader(closer, format, false) }

// fencedPython reads a fenced pythonic body (Spec.Fenced): a block
// that holds no fence is another family's (LFM2's, whose markers
// MiniCPM3 shares), and its marker is tried next.
func fencedPython(closer, format string) handler { return pythonicReader(closer, format, true) }

// pythonicCall reads the one call, NAME(…), right after the start marker
// of a pythonic family that writes no end marker (Llama 3's built-in
// tools' <|python_tag|>brave_search.call(query="x")): the call ends at
// its ')', and suffix is dropped from its name when there. Anything
// else after the marker (JSON, a list) is not this family's.
func pythonicCall(format, suffix string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k >= len(p.buf) {
			return needOrNot(eof)
		}
		if !isIdentByte(p.buf[k], true) {
			return 0, noMatch, nil
		}
		var a argsBuilder
		name, end, st, perr := p.pyCall(k, eof, &a)
		switch {
		case st != matched:
			return 0, st, nil
		case perr != nil:
			stop := perr.at
			if perr.cut {
				stop = len(p.buf)
			}
			return stop, matched, p.fail(i, stop, format, perr.msg)
		}
		name = bytes.TrimSuffix(name, []byte(suffix))
		return end, matched, p.emitCall("", string(name), a.done(), format, a.repairs, p.base+int64(i), p.buf[i:end])
	}
}

func pythonicReader(closer, format string, fenced bool) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			return 0, noMatch, nil
		}
		if fenced {
			ok, partial := p.hasPrefixAt(k, "```")
			if partial && !eof {
				return 0, needMore, nil
			}
			if !ok || !p.allowed(format) {
				return 0, noMatch, nil
			}
			return p.fencedPyLines(i, k, eof, closer, format)
		}
		var end int
		var st status
		var err error
		switch {
		case p.buf[k] == '{' && format == FormatPythonic:
			// Llama 4 writes a JSON call here as well.
			if !p.allowed(FormatLlama3JSON) {
				return 0, noMatch, nil
			}
			e, complete := p.jsonEnd(k, false)
			if !complete && !eof {
				return 0, needMore, nil
			}
			return p.markedJSON(i, k, e, complete, eof, closer, FormatLlama3JSON)
		case p.buf[k] == '[':
			if b := p.skipSpace(k + 1); b < len(p.buf) && p.buf[b] == '{' || b >= len(p.buf) && !eof {
				if b >= len(p.buf) {
					return 0, needMore, nil
				}
				e, complete := p.jsonEnd(k, false)
				if !complete && !eof {
					return 0, needMore, nil
				}
				return p.markedJSON(i, k, e, complete, eof, closer, format)
			}
			end, st, err = p.pyList(i, k, eof, format, false)
		case isIdentByte(p.buf[k], true):
			end, st, err = p.pyLines(i, k, eof, format, closer)
		default:
			return 0, noMatch, nil
		}
		if st != matched || err != nil {
			return end, st, err
		}
		return p.closeBlock(end, closer), matched, nil
	}
}

// llama4Block handles Llama 4's <|python_start|>: calls up to
// <|python_end|>, or, when none start there, a token of layout. Meta's
// template writes an assistant's content in the block and its calls, as
// JSON, after <|python_end|>.
func llama4Block(p *Parser, i, j int, eof bool) (int, status, error) {
	end, st, err := pythonicBlock("<|python_end|>", FormatPythonic)(p, i, j, eof)
	if st != noMatch || err != nil {
		return end, st, err
	}
	if err := p.flushText(i); err != nil {
		return 0, 0, err
	}
	return j, matched, nil
}

// pyLines parses calls separated by newlines or commas up to closer.
func (p *Parser) pyLines(i, k int, eof bool, format, closer string) (int, status, error) {
	var a argsBuilder
	var calls []pyCallOut
	j := k
	for {
		j = p.skipSpace(j)
		for j < len(p.buf) && p.buf[j] == ',' {
			j = p.skipSpace(j + 1)
		}
		if j >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			break
		}
		if ok, partial := p.hasPrefixAt(j, closer); ok || partial && !eof {
			if partial {
				return 0, needMore, nil
			}
			break
		}
		name, end, st, perr := p.pyCall(j, eof, &a)
		if st == needMore {
			return 0, needMore, nil
		}
		if perr != nil && !perr.cut {
			if e, ok := p.pyEntryEnd(j, "\n"); ok {
				calls = append(calls, pyCallOut{bad: perr.msg, start: j, end: e})
				j = e
				continue
			} else if !eof {
				return 0, needMore, nil
			}
		}
		if st == noMatch || perr != nil {
			if len(calls) == 0 && perr == nil {
				return 0, noMatch, nil
			}
			if err := p.emitPyCalls(i, format, calls); err != nil {
				return 0, 0, err
			}
			stop := j
			msg := fmt.Sprintf("expected a call like name(key=value) in the %s block, found %q", format, firstChar(p.buf[j:]))
			if perr != nil {
				msg, stop = perr.msg, perr.at
				if perr.cut {
					stop = len(p.buf)
				}
			}
			return stop, matched, p.fail(i, stop, format, msg)
		}
		calls = append(calls, pyCallOut{name: name, args: append([]byte(nil), a.done()...), rep: a.repairs})
		j = end
	}
	return j, matched, p.emitPyCalls(i, format, calls)
}

// endOfTurnTokens end a model's turn; servers that do not skip special
// tokens leave them in the text.
var endOfTurnTokens = []string{"<|eot_id|>", "<|eom_id|>", "<|eot|>", "<|eom|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "</s>"}

// endOfTurnAt returns the end-of-turn token at buf[e], or ""; partial when
// the input so far ends inside one.
func (p *Parser) endOfTurnAt(e int) (tok string, partial bool) {
	for _, t := range endOfTurnTokens {
		ok, part := p.hasPrefixAt(e, t)
		if ok {
			return t, false
		}
		partial = partial || part
	}
	return "", partial
}

// fencedPyLines reads MiniCPM3's <|tool_call_start|>```python\n calls
// ```<|tool_call_end|>: pythonic calls, one a line, in a code fence.
func (p *Parser) fencedPyLines(i, k int, eof bool, closer, format string) (int, status, error) {
	nl := p.indexWithin(k, "\n", lookAhead)
	if nl < 0 {
		_, miss := p.ahead(k, eof)
		return 0, miss, nil
	}
	if lang := bytes.TrimSpace(p.buf[k+3 : nl]); len(lang) > 0 && string(lang) != "python" && string(lang) != "py" {
		return 0, noMatch, nil
	}
	end, st, err := p.pyLines(i, nl+1, eof, format, "```")
	if st != matched || err != nil {
		return end, st, err
	}
	return p.closeBlock(p.closeBlock(end, "```"), closer), matched, nil
}
