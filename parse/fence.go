package parse

// Backticks: code fences and inline code are prose in which nothing is a
// call, except a fence whose body is JSON calls.

import "bytes"

// backtick handles code fences and inline code. A fence whose body is JSON
// tool calls is a call (json_fenced, or Command R's "Action: ```json");
// any other fence, and inline code, is prose in which nothing is a call.
func (p *Parser) backtick(i int, eof bool) (int, status, error) {
	n := i
	for n < len(p.buf) && p.buf[n] == '`' {
		n++
	}
	if n == len(p.buf) && !eof {
		return 0, needMore, nil
	}
	ticks := n - i
	action := false
	actionAt := i
	if ticks >= 3 && !p.atLineStart(i) {
		line := p.buf[p.lineStartOf(i):i]
		action = bytes.HasSuffix(bytes.TrimSpace(line), []byte("Action:"))
		if !action {
			return p.inlineCode(i, ticks, eof)
		}
		actionAt = i - len(line) + bytes.LastIndex(line, []byte("Action:"))
	}
	if ticks < 3 {
		return p.inlineCode(i, ticks, eof)
	}
	if !action {
		// Command R+'s template writes "Action:" on a line of its own
		// before the fence.
		action, actionAt = p.actionLine(i)
	}
	nl := bytes.IndexByte(p.buf[n:min(len(p.buf), n+128)], '\n')
	if nl < 0 {
		if !eof && len(p.buf)-n < 128 {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	lang := string(bytes.ToLower(bytes.TrimSpace(p.buf[n : n+nl])))
	body := n + nl + 1
	switch lang {
	case "xml", "tool_call", "tool_code", "tool_calls":
		// Markers inside are scanned as usual.
		return body, prose, nil
	case "", "json", "jsonl", "json5":
		k := p.skipSpace(body)
		if k >= len(p.buf) {
			return needOrNot(eof)
		}
		if c := p.buf[k]; c == '{' || c == '[' {
			if action {
				p.blockStart = actionAt // "Action:" belongs to the call
			}
			end, st, err := p.fencedJSON(i, k, eof, action)
			if st != noMatch || err != nil {
				return end, st, err
			}
		}
	}
	p.mode, p.fenceTicks = modeFence, ticks
	return body, prose, nil
}

// actionLine reports whether the line before the fence at buf[i], which
// starts its line, ends with Command R's "Action:", and where that starts.
func (p *Parser) actionLine(i int) (bool, int) {
	s := p.lineStartOf(i)
	if s == p.seg || s < 1 || p.buf[s-1] != '\n' {
		return false, i
	}
	prev := p.buf[p.lineStartOf(s-1) : s-1]
	if !bytes.HasSuffix(bytes.TrimSpace(prev), []byte("Action:")) {
		return false, i
	}
	return true, s - 1 - len(prev) + bytes.LastIndex(prev, []byte("Action:"))
}

// lineStartOf returns the start of the line holding buf[i].
func (p *Parser) lineStartOf(i int) int {
	s := bytes.LastIndexByte(p.buf[:i], '\n') + 1
	return max(s, p.seg)
}

// inlineCode skips `code` up to its closing backticks on the same line.
func (p *Parser) inlineCode(i, ticks int, eof bool) (int, status, error) {
	s := i + ticks
	limit := min(len(p.buf), s+4096)
	for k := s; k < limit; k++ {
		switch p.buf[k] {
		case '\n':
			return s, prose, nil
		case '`':
			e := k
			for e < len(p.buf) && p.buf[e] == '`' {
				e++
			}
			if e == len(p.buf) && !eof {
				// The run may go on in the next read, and a longer run
				// does not close the span.
				return 0, needMore, nil
			}
			if e-k == ticks {
				return e, prose, nil
			}
			k = e - 1
		}
	}
	if limit == len(p.buf) && !eof {
		return 0, needMore, nil
	}
	return s, prose, nil
}

// fencedJSON reads the JSON values in a fence from buf[k]; when they are
// all calls (or a final answer) they are emitted and the fence consumed.
func (p *Parser) fencedJSON(i, k int, eof, action bool) (int, status, error) {
	type value struct{ start, end int }
	var vals []value
	j := k
	for {
		j = p.skipSpace(j)
		if j >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			break
		}
		if ok, partial := p.hasPrefixAt(j, "```"); ok || partial && !eof {
			if partial {
				return 0, needMore, nil
			}
			break
		}
		if c := p.buf[j]; c != '{' && c != '[' {
			if len(vals) == 0 || !continuesJSON(p.buf[j:]) {
				return 0, noMatch, nil
			}
			// More of the last value: it runs to the closing fence.
			v := &vals[len(vals)-1]
			f := p.indexAt(j, "\n```")
			if f < 0 {
				if !eof {
					return 0, needMore, nil
				}
				f = len(p.buf)
			}
			if msg := p.readBody(v.start, f); msg != "" {
				return p.fenceError(i, v.start, f, action, msg)
			}
			v.end, j = f, f
			continue
		}
		end, complete := p.jsonEnd(j, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		end, msg := p.boundValue(j, end, complete, "```")
		if msg != "" {
			return p.fenceError(i, j, end, action, msg)
		}
		vals = append(vals, value{j, end})
		p.scanFrom = -1
		j = end
	}
	format := FormatJSONFenced
	if action {
		format = FormatCommandRAction
	}
	// Only a fence whose every value is a call is taken: a code sample
	// or a data object makes the whole fence prose.
	for _, v := range vals {
		out, _, err := p.decodeJSON(v.start, v.end)
		if err != nil {
			if looksLikeCall(p.buf[v.start:v.end]) {
				continue // reported below as a broken call
			}
			return 0, noMatch, nil
		}
		cands := p.candidates(parseJSON(out), false, format, nil)
		if len(cands) == 0 {
			return 0, noMatch, nil
		}
		for _, c := range cands {
			if !p.allowed(c.format) {
				return 0, noMatch, nil
			}
		}
	}
	for _, v := range vals {
		ok, err := p.jsonCalls(i, v.start, v.end, false, format)
		if err == nil && !ok {
			// A broken call beside calls: its own parse_error, never
			// dropped with the fence.
			msg := `this value is not a tool call: write it as {"name": ..., "arguments": {...}}`
			if _, _, derr := p.decodeJSON(v.start, v.end); derr != nil {
				msg = p.jsonErrorMessage(derr, v.start)
			}
			err = p.fail(v.start, v.end, format, msg)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	end := p.skipSpace(j)
	if ok, _ := p.hasPrefixAt(end, "```"); ok {
		end += 3
	} else {
		end = j
	}
	return end, matched, nil
}

// scanFence passes a code fence through as prose up to its closing fence.
func (p *Parser) scanFence(eof bool) (bool, error) {
	for {
		i := p.indexFrom('`', p.pos)
		if i < 0 {
			p.pos = len(p.buf)
			return false, p.splitLong(modeFence)
		}
		p.pos = i
		if err := p.splitLong(modeFence); err != nil {
			return false, err
		}
		ok, partial := p.hasPrefixAt(i, "```")
		if partial && !eof {
			return false, nil
		}
		if ok && p.atLineStart(i) {
			e := i + 3
			for e < len(p.buf) && p.buf[e] == '`' {
				e++
			}
			if e == len(p.buf) && !eof {
				return false, nil
			}
			if e-i >= p.fenceTicks {
				p.mode = modeProse
				p.pos = e
				return true, nil
			}
			p.pos = e
			continue
		}
		p.pos = i + 1
	}
}
