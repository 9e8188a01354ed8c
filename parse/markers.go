package parse

// Markers that open calls in a syntax of their own: '[',
// Functionary's >>> and GigaChat's.

import "github.com/toolcall/toolcall/internal/jsonw"

// needOrNot is what a handler returns when the buffer ends early: wait for
// more input, or at the end of input decide it was not a marker.
func needOrNot(eof bool) (int, status, error) {
	if eof {
		return 0, noMatch, nil
	}
	return 0, needMore, nil
}

// bracket handles a '[' that is not [TOOL_CALLS] or [THINK]: Phi-4 and
// FireFunction's functools[…], a JSON array in a call section, an xLAM
// array of calls or a pythonic list on a line of its own.
func (p *Parser) bracket(i int, eof bool) (int, status, error) {
	if end, st, err, ok := p.wordAt(i, eof); ok {
		return end, st, err
	}
	if p.section != "" {
		// Inside a family's call section a list is calls, Python-style
		// or JSON, whichever the model wrote there.
		k := p.skipSpace(i + 1)
		if k >= len(p.buf) {
			return needOrNot(eof)
		}
		if isIdentByte(p.buf[k], true) && p.allowed(p.section) {
			return p.pyList(i, i, eof, p.section, false)
		}
		return p.bareJSON(i, eof)
	}
	if !p.atLineStart(i) {
		if p.opts.KnownTool != nil && p.allowed(FormatPythonic) {
			return p.knownPyList(i, eof)
		}
		return 0, noMatch, nil
	}
	k := p.skipSpace(i + 1)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	switch {
	case p.buf[k] == '{':
		return p.bareJSON(i, eof)
	case isIdentByte(p.buf[k], true):
		if !p.allowed(FormatPythonic) {
			return 0, noMatch, nil
		}
		end, st, err := p.pyList(i, i, eof, FormatPythonic, true)
		if st == noMatch && p.opts.KnownTool != nil {
			// Prose after it on its line: with the tools known, a whole
			// list of calls to them counts there as inside a line.
			return p.knownPyList(i, eof)
		}
		return end, st, err
	}
	return 0, noMatch, nil
}

// functionary handles Functionary v3.2's >>>NAME\n{…}; >>>all\n is prose
// and >>>python\n is code for a python tool.
func (p *Parser) functionary(i int, eof bool) (int, status, error) {
	ok, partial := p.hasPrefixAt(i, ">>>")
	if !ok {
		if partial && !eof {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	if !p.allowed(FormatFunctionary) {
		return 0, noMatch, nil
	}
	k := i + 3
	n := k
	for n < len(p.buf) && isIdentByte(p.buf[n], n == k) {
		n++
	}
	if n >= len(p.buf) || n == k {
		if n >= len(p.buf) && !eof && n-k < 128 {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	if p.buf[n] != '\n' {
		return 0, noMatch, nil
	}
	name := string(p.buf[k:n])
	switch name {
	case "all":
		return n + 1, matched, nil
	case "python":
		e := p.indexAt(n+1, ">>>")
		if e < 0 {
			if !eof {
				return 0, needMore, nil
			}
			e = len(p.buf)
		}
		var a argsBuilder
		a.reset()
		a.key([]byte("code"))
		a.buf = jsonw.AppendBytes(a.buf, p.buf[n+1:e])
		return e, matched, p.emitCall("", name, a.done(), FormatFunctionary, 0, p.base+int64(i), p.buf[i:e])
	}
	return p.namedArgs(i, n+1, eof, name, FormatFunctionary, "")
}

// functionaryStart handles the first call of a Functionary v3.2 output:
// its template ends the prompt with ">>>", so the output starts with the
// name line. Only "all" and a name followed by a JSON object count.
func (p *Parser) functionaryStart(eof bool) (int, status, error) {
	if !p.allowed(FormatFunctionary) || p.base != 0 {
		return 0, noMatch, nil
	}
	s := p.pos // past a byte order mark
	n := s
	for n < len(p.buf) && n-s < 64 && isIdentByte(p.buf[n], n == s) {
		n++
	}
	if n == len(p.buf) && n-s < 64 && !eof {
		return 0, needMore, nil
	}
	if n == s || n >= len(p.buf) || p.buf[n] != '\n' {
		return 0, noMatch, nil
	}
	name := p.buf[s:n]
	forced := p.opts.Format == FormatFunctionary
	if string(name) == "all" {
		if !forced {
			return 0, noMatch, nil
		}
		return n + 1, matched, nil
	}
	// Unless forced, only a snake_case tool name counts: a first line of
	// "Sure" or "assistant" before some JSON is prose.
	if !forced && !snakeCase(name) {
		return 0, noMatch, nil
	}
	if b := p.skipSpace(n + 1); b >= len(p.buf) {
		return needOrNot(eof)
	} else if p.buf[b] != '{' {
		return 0, noMatch, nil
	}
	p.blockStart = s
	return p.namedArgs(s, n+1, eof, string(name), FormatFunctionary, "")
}

// snakeCase reports whether name looks like a tool name: lower case words
// joined by underscores.
func snakeCase(name []byte) bool {
	under := false
	for _, c := range name {
		switch {
		case c == '_':
			under = true
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return under && name[0] != '_'
}

// gigaChat handles "function call<|role_sep|>\n{…}".
func (p *Parser) gigaChat(i, j int, eof bool) (int, status, error) {
	const prefix = "function call"
	start := i - len(prefix)
	if start < p.seg || string(p.buf[start:i]) != prefix {
		return 0, noMatch, nil
	}
	k := p.skipSpace(j)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	if p.buf[k] != '{' {
		return 0, noMatch, nil
	}
	return p.prefixedJSON(start, k, eof, "", FormatGigaChat3)
}

// prefixedJSON reads the JSON calls at buf[k] of a block whose marker
// starts at buf[start], before the trigger byte the block was found at
// (functools[, "function call<|role_sep|>", "-> tool/function_call"): the
// text from start is the call's, never prose.
func (p *Parser) prefixedJSON(start, k int, eof bool, closer, format string) (int, status, error) {
	end, complete := p.jsonEnd(k, false)
	if !complete && !eof {
		return 0, needMore, nil
	}
	trigger := p.blockStart
	p.blockStart = start
	e, st, err := p.markedJSON(start, k, end, complete, eof, closer, format)
	if st == noMatch {
		p.blockStart = trigger
	}
	return e, st, err
}
