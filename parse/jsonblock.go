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
		return p.markedJSONAt(i, k, eof, closer, format)
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

// markedJSONAt reads the JSON value at buf[k] that a marker at buf[i]
// began, once it has arrived whole (or the output has ended): markedJSON.
func (p *Parser) markedJSONAt(i, k int, eof bool, closer, format string) (int, status, error) {
	end, complete := p.jsonEnd(k, false)
	if !complete && !eof {
		p.waitFor(jsonEnders, max(k, len(p.buf)-jsonEndBack))
		return 0, needMore, nil
	}
	return p.markedJSON(i, k, end, complete, eof, closer, format)
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

// A <tool_call>-style tag is read by the specs of the families that
// open a call with it (Hermes' JSON, GLM's pairs, Hunyuan's, Laguna's
// name and JSON), tried in their declared order (Spec.try,
// buildMarkers), and by the readings below, which are no family of
// their own but what models write in the tag: they go first. A body
// none of them reads is left to the tag's fallback (sharedFallback).

// tagReadings are those readings, for each tag that has them, and
// tagClosers the tags' ends as those readings' formats drop them.
var tagReadings, tagClosers = func() (rs, cs []marker) {
	for _, t := range []struct {
		tok, end string
		json     bool
	}{
		{"<tool_call>", "</tool_call>", false},
		// LongCat's tag also holds Hermes' JSON, which names hermes.
		{"<longcat_tool_call>", "</longcat_tool_call>", true},
	} {
		r := inTag(t.tok, t.end, t.json)
		rs, cs = append(rs, r[:len(r)-1]...), append(cs, r[len(r)-1])
	}
	return rs, cs
}()

// tagFallbacks say, for the tags whose fallback's parse_error does not
// name the first family that reads the tag or show its call, which
// format it names, how it says to write a call, and under which
// --format it is on (where not under each of the tag's readings').
var tagFallbacks = map[string]struct {
	format, howTo string
	on            []string
}{
	"<tool_call>":         {FormatHermes, hermesHowTo, []string{FormatHermes, FormatQwen3Coder, FormatGLM45, FormatGLM47, FormatGranite, FormatPythonic, FormatHarmony, FormatHunyuan, FormatLaguna}},
	"<longcat_tool_call>": {FormatHermes, hermesHowTo, []string{FormatHermes, FormatLongCat}},
}

// inTag are the readings of a tag tok whose calls closer ends: pythonic
// calls (Llama and Granite models prompted with a Hermes template), a
// JSON array of calls (Granite's) or, with json, a JSON call (Hermes'),
// Qwen3-Coder's <function=…> block, MiniMax M3's section without its
// namespace token, and a gpt-oss header.
func inTag(tok, end string, json bool) []marker {
	jsonFormats := []string{FormatGranite}
	if json {
		jsonFormats = append(jsonFormats, FormatHermes)
	}
	ms := []marker{
		// On under --format hermes too: the models prompted with a
		// Hermes template that write them.
		{tok, pythonicInTag(end), []string{FormatPythonic, FormatHermes}},
		{tok, jsonInTag(end, json), jsonFormats},
		{tok, qwenInTag(end), []string{FormatQwen3Coder, FormatFunctionTag}},
		{tok, m3InTag, []string{FormatMiniMaxM3}},
		{tok, func(p *Parser, i, j int, eof bool) (int, status, error) {
			k := p.skipSpace(j)
			if k < len(p.buf) && p.buf[k] == '<' {
				return 0, noMatch, nil // a tag, which no header begins with
			}
			return p.harmonyInTag(i, k, eof, end)
		}, []string{FormatHarmony}},
	}
	var fs []string
	for _, m := range ms {
		fs = append(fs, m.formats...)
	}
	return append(ms, closer(end, fs...))
}

// pythonicInTag reads [f(a=1)] or f(a=1) in a tag.
func pythonicInTag(closer string) handler {
	read := pythonicBlock(closer, FormatPythonic)
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		if !p.pythonicAt(p.skipSpace(j), eof) {
			return 0, noMatch, nil
		}
		return read(p, i, j, eof)
	}
}

// jsonInTag reads a JSON array of calls in a tag as Granite's, and
// with hermes a JSON call as Hermes'.
func jsonInTag(closer string, hermes bool) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			return needOrNot(eof)
		}
		f := FormatGranite
		switch {
		case p.buf[k] == '{' && hermes:
			f = FormatHermes
		case p.buf[k] != '[':
			return 0, noMatch, nil
		}
		if !p.allowed(f) {
			return 0, noMatch, nil
		}
		return p.markedJSONAt(i, k, eof, closer, f)
	}
}

// qwenInTag reads a Qwen3-Coder <function=…> block in a tag (a JSON
// body in it is Functionary's), and the tag's end after it.
func qwenInTag(closer string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		return p.functionInTag(i, p.skipSpace(j), eof, FormatQwen3Coder, closer)
	}
}

func (p *Parser) functionInTag(i, k int, eof bool, format, closer string) (int, status, error) {
	if k == len(p.buf) {
		return needOrNot(eof)
	}
	ok, partial := p.hasPrefixAt(k, "<function=")
	if partial && !eof {
		p.waitForPrefix("<function=", k)
		return 0, needMore, nil
	}
	if !ok {
		return 0, noMatch, nil
	}
	end, st, err := p.qwenFunction(i, k+len("<function="), eof, format, closer)
	if st != matched || err != nil {
		return end, st, err
	}
	return p.closeBlock(end, closer), matched, nil
}

// m3InTag opens MiniMax M3's section at a tag whose namespace token it
// left off, as it sometimes does on the section's opening tag only.
func m3InTag(p *Parser, i, j int, eof bool) (int, status, error) {
	k := p.skipSpace(j)
	ok, partial := p.hasPrefixAt(k, m3NS)
	if partial && !eof || k == len(p.buf) && !eof {
		return 0, needMore, nil
	}
	if !ok || !p.allowed(FormatMiniMaxM3) {
		return 0, noMatch, nil
	}
	if err := p.flushText(i); err != nil {
		return 0, 0, err
	}
	p.section = FormatMiniMaxM3
	return k, matched, nil
}

// seedTag reads ByteDance Seed-OSS's tag: a <function=…> block, or a
// JSON call, both named seed_oss; then the fallback.
func seedTag(closer string) handler {
	fallback := sharedFallback(closer, FormatSeedOSS, hermesHowTo, nil, fallbackCut{FormatSeedOSS, hermesHowTo})
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			return fallback(p, i, j, eof)
		}
		if c := p.buf[k]; c == '{' || c == '[' {
			return p.markedJSONAt(i, k, eof, closer, FormatSeedOSS)
		}
		end, st, err := p.functionInTag(i, k, eof, FormatSeedOSS, closer)
		if st != noMatch || err != nil {
			return end, st, err
		}
		return fallback(p, i, j, eof)
	}
}

// fallbackCut is the family a shared marker's fallback names when the
// output ends in a call's header, and the call written whole.
type fallbackCut struct{ format, howTo string }

// hermesHowTo is how a <tool_call> block's fallback says to write a call.
const hermesHowTo = `<tool_call>{"name": "TOOL", "arguments": {…}}</tool_call>`

// sharedFallback reads a block at a marker several readings share when
// none of them read it (buildMarkers puts it after them): prose, unless
// it looks like a call (callLikeBody); then, with known tools, a body in
// a shape no family writes (a new release's tags) may still read
// (generic_block.go); else it is a parse_error in format's name that
// says to write the call as howTo, or, under a --format that forced
// holds, in that family's name showing its call.
func sharedFallback(closer, format, howTo string, forced map[string]string, cut fallbackCut) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		format, howTo := format, howTo
		if h, ok := forced[p.opts.Format]; ok {
			format, howTo = p.opts.Format, h
			cut = fallbackCut{format, h}
		}
		if eof && p.headerMiss(j, "", eof) == cutHeader && (closer == "" || !bytes.Contains(p.buf[j:], []byte(closer))) {
			// The output ended in the call's header, a name and no
			// more, as a lone spec's header is told.
			return len(p.buf), matched, p.fail(i, len(p.buf), cut.format, "tool call cut off in its header: write "+cut.howTo)
		}
		if yes, undecided := p.callLikeBody(j, closer, eof); undecided {
			return 0, needMore, nil
		} else if !yes {
			return 0, noMatch, nil
		}
		if gend, gst, gerr, ok := p.genericFor(i, eof); ok {
			return gend, gst, gerr
		}
		return p.failThrough(i, j, closer, eof, format, "a "+string(p.buf[i:j])+" block that no call syntax reads: write it as "+howTo+", or in the syntax your prompt shows")
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
