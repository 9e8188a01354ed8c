package parse

// Calls in a block that a marker opens: a marker then JSON, or a
// <tool_call>-style tag whose body may be written in one of several syntaxes.

import (
	"bytes"
	"fmt"
)

// jsonBlock handles a marker followed by a JSON object or array of calls
// (Granite, Nemotron, Apertus, Command R7B, InternLM2, granite-20b). The
// closing token is optional: the JSON's own end ends the block.
func jsonBlock(closer, format string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			// A marker the output ends on, with nothing call-like after
			// it, is prose (headerMiss).
			return needOrNot(eof)
		}
		if c := p.buf[k]; c != '{' && c != '[' {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(k, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		return p.markedJSON(i, k, end, complete, eof, closer, format)
	}
}

// jsonLines handles a marker followed by call objects one a line up to
// closer (Spec.Lines: MiniMax M1). The calls are read once the block has
// come whole, or the output has ended, so none is emitted twice while
// the block is read again; a call whose line is not followed by another
// object or closer ends the block, the text after it read as usual. A
// block that does not start with an object is another family's.
func jsonLines(closer, format string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			return needOrNot(eof)
		}
		if p.buf[k] != '{' {
			return 0, noMatch, nil
		}
		var starts []int
		last := "" // closer, when it follows the last call
		for {
			starts = append(starts, k)
			end, complete := p.jsonEnd(k, false)
			if !complete {
				if !eof {
					return 0, needMore, nil
				}
				break // cut off: markedJSON says so
			}
			n := p.skipSpace(end)
			ok, partial := p.hasPrefixAt(n, closer)
			switch {
			case ok:
				last = closer
			case !eof && (partial || n == len(p.buf) || p.buf[n] != '{'):
				return 0, needMore, nil // what follows decides
			case n < len(p.buf) && p.buf[n] == '{':
				k = n
				continue
			}
			break
		}
		after := j
		for x, k := range starts {
			end, complete := p.jsonEnd(k, false)
			c, from := "", k
			if x == len(starts)-1 {
				c = last
			}
			if x == 0 {
				from = i // the marker is the first call's
			}
			e, st, err := p.markedJSON(from, k, end, complete, eof, c, format)
			if err != nil {
				return 0, 0, err
			}
			if st != matched {
				if x == 0 {
					return 0, st, nil
				}
				break // not a call: the text from here is read as usual
			}
			after = e
		}
		return after, matched, nil
	}
}

// markedJSON emits the calls in the JSON value at buf[k:end] that a
// marker at buf[i] began and closer (if any) ends; complete is jsonEnd's.
// Text left between the value and the end marker is read as part of it
// (readBody), or the block is a parse_error: a call never goes out
// without what the model wrote inside its markers.
func (p *Parser) markedJSON(i, k, end int, complete, eof bool, closer, format string) (int, status, error) {
	body, after, msg, st := p.bodyOf(k, end, complete, eof, closer)
	if st == needMore {
		return 0, needMore, nil
	}
	if msg != "" {
		// The model is told which of its calls to write again.
		if name := callName(p.buf[k:min(after, k+lookAhead)]); name != "" {
			msg = fmt.Sprintf("call to %q: %s", name, msg)
		}
		return after, matched, p.fail(i, after, format, msg)
	}
	ok, err := p.jsonCalls(i, k, body, true, format)
	if !ok || err != nil {
		return 0, noMatch, err
	}
	if after == end {
		after = p.closeBlock(end, closer)
	}
	return after, matched, nil
}

// closeBlock consumes an optional closing token after a block when it is
// already in the buffer; a closer that arrives later is dropped as a stray
// token, so the call is emitted without waiting for it.
func (p *Parser) closeBlock(end int, closer string) int {
	if closer == "" {
		return end
	}
	k := p.skipSpace(end)
	if ok, _ := p.hasPrefixAt(k, closer); ok {
		return k + len(closer)
	}
	return end
}

// tagBlock handles <tool_call>-style markers, whose body is a JSON call
// (Hermes), a Qwen3-Coder <function=…> block, a GLM name with
// <arg_key>/<arg_value> pairs, or a Granite JSON array. A body none of
// them reads is a call gone wrong when it looks like one (callLikeBody).
func tagBlock(closer, format string) handler {
	read := tagBody(closer, format)
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		end, st, err := read(p, i, j, eof)
		if st != noMatch || err != nil {
			return end, st, err
		}
		if yes, undecided := p.callLikeBody(j, closer, eof); undecided {
			return 0, needMore, nil
		} else if !yes {
			return end, st, err
		}
		// With known tools, a body in a shape no family writes (a new
		// release's tags) may still read (generic_block.go).
		if gend, gst, gerr, ok := p.genericFor(i, eof); ok {
			return gend, gst, gerr
		}
		return p.failThrough(i, j, closer, eof, format, "a "+string(p.buf[i:j])+" block that no call syntax reads: write it as <tool_call>{\"name\": \"TOOL\", \"arguments\": {…}}</tool_call>, or in the syntax your prompt shows")
	}
}

func tagBody(closer, format string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			if eof {
				return 0, noMatch, nil
			}
			return 0, needMore, nil
		}
		if format == FormatHermes && p.pythonicAt(k, eof) {
			// [f(a=1)] or f(a=1) in <tool_call>: Llama and Granite models
			// prompted with a Hermes template.
			return pythonicBlock(closer, FormatPythonic)(p, i, j, eof)
		}
		switch p.buf[k] {
		case '{', '[':
			f := format
			if p.buf[k] == '[' && format == FormatHermes {
				f = FormatGranite
			}
			if !p.allowed(f) {
				return 0, noMatch, nil
			}
			end, complete := p.jsonEnd(k, false)
			if !complete && !eof {
				p.waitFor(jsonEnders, max(k, len(p.buf)-jsonEndBack))
				return 0, needMore, nil
			}
			return p.markedJSON(i, k, end, complete, eof, closer, f)
		case '<':
			ok, partial := p.hasPrefixAt(k, "<function=")
			if partial && !eof {
				p.waitForPrefix("<function=", k)
				return 0, needMore, nil
			}
			if !ok {
				return 0, noMatch, nil
			}
			f := FormatQwen3Coder
			if format == FormatSeedOSS {
				f = FormatSeedOSS
			}
			end, st, err := p.qwenFunction(i, k+len("<function="), eof, f, closer)
			if st != matched || err != nil {
				return end, st, err
			}
			return p.closeBlock(end, closer), matched, nil
		}
		if ok, partial := p.hasPrefixAt(k, m3NS); (ok || partial) && format == FormatHermes {
			// MiniMax M3 sometimes leaves the namespace token off the
			// section's opening tag only.
			if partial && !eof {
				return 0, needMore, nil
			}
			if ok && p.allowed(FormatMiniMaxM3) {
				if err := p.flushText(i); err != nil {
					return 0, 0, err
				}
				p.section = FormatMiniMaxM3
				return k, matched, nil
			}
		}
		if format != FormatHermes {
			return 0, noMatch, nil
		}
		if end, st, err := p.harmonyInTag(i, k, eof, closer); st != noMatch || err != nil {
			return end, st, err
		}
		// GLM writes the name right after the tag; some of its chat
		// templates put space before it.
		tags := glmPlain
		if closer == "</longcat_tool_call>" {
			tags = longcatTags
		}
		return p.glmCall(i, k, eof, closer, tags)
	}
}

// pythonicAt reports whether buf[k] starts a pythonic call, f( or [f(,
// with the input so far; it waits (false) at the end of a short buffer
// only as long as the callers' other readings do.
func (p *Parser) pythonicAt(k int, eof bool) bool {
	if k < len(p.buf) && p.buf[k] == '[' {
		k = p.skipSpace(k + 1)
	}
	j := k
	for j < len(p.buf) && isIdentByte(p.buf[j], j == k) {
		j++
	}
	return j > k && j < len(p.buf) && p.buf[j] == '('
}

// harmonyInTag handles a gpt-oss message header inside <tool_call>, as
// gpt-oss writes it when served with a Hermes template:
// <tool_call>assistant to=functions.NAME json\n{…}</tool_call>.
func (p *Parser) harmonyInTag(i, k int, eof bool, closer string) (int, status, error) {
	win, miss := p.ahead(k, eof)
	nl := bytes.IndexAny(win, "{\n")
	if nl < 0 {
		if bytes.Contains(win, []byte("to=")) {
			return 0, miss, nil
		}
		return 0, noMatch, nil
	}
	head := win[:nl]
	t := bytes.Index(head, []byte("to="))
	if t < 0 || len(bytes.Fields(head[:t])) > 2 {
		return 0, noMatch, nil // "assistant", "commentary" or nothing before it
	}
	name := head[t+len("to="):]
	if e := bytes.IndexAny(name, " <\t"); e >= 0 {
		name = name[:e]
	}
	name = bytes.TrimPrefix(name, []byte("functions."))
	if len(name) == 0 || !p.allowed(FormatHarmony) {
		return 0, noMatch, nil
	}
	b := p.skipSpace(k + nl)
	if b >= len(p.buf) {
		return needOrNot(eof)
	}
	if p.buf[b] != '{' {
		return 0, noMatch, nil
	}
	end, complete := p.jsonEnd(b, false)
	if !complete && !eof {
		return 0, needMore, nil
	}
	return p.namedJSON(i, b, end, complete, eof, string(name), FormatHarmony, closer)
}
