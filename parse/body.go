package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/parse/jsonrepair"
)

// Everything between a call's start and end markers belongs to the call.
// The JSON reader finds where a value ends from its brackets alone, and a
// model that closed a bracket with the wrong closer, or once too often,
// makes it end early: what is left before the end marker (",\"c\":2}}") is
// arguments the call would silently lose. bodyEnd finds such leftovers,
// and readBody reads the whole body again as one value, with the end
// marker as its end: a reading that accounts for every byte is taken, and
// when there is none, or more than one, the call is a parse_error.
//
// Nothing after the end marker belongs to the call either. A repair may
// end a value late (a stray quote opens a string that runs through the
// marker and into the next call): unless the value is strict JSON, which
// holds the marker only inside a string, the body ends at the first end
// marker (closerWithin) and is read alone (readBounded).

// leftoverWindow bounds how far past a call's JSON its end marker is
// looked for when the text after the JSON reads as prose ("Done."): a
// call whose marker was never closed is followed by prose, and holding
// that prose back to the end of the output to know would stall a stream.
// Text that continues the JSON (a ',' or a closer) waits up to maxBlock.
const leftoverWindow = 4 << 10

// bodyEnd decides where the JSON body of a call that starts at buf[k] and
// whose value jsonEnd read up to end must end, given the end marker closer
// of its format ("" for formats without one). It returns the end of the
// body (end, unless text is left over before the marker) and the end of
// the block (past the marker when it is there). st is needMore while the
// input so far cannot tell.
func (p *Parser) bodyEnd(end int, closer string, eof bool) (body, after int, st status) {
	n := p.skipSpace(end)
	if n >= len(p.buf) {
		if eof {
			return end, end, matched
		}
		return 0, 0, needMore
	}
	if closer != "" {
		ok, partial := p.hasPrefixAt(n, closer)
		if ok {
			return end, n + len(closer), matched
		}
		if partial && !eof {
			p.waitForPrefix(closer, n)
			return 0, 0, needMore
		}
		if e := p.closerUnclosed(n, closer, eof); e > 0 {
			return end, e, matched
		}
		if partial {
			return end, end, matched
		}
	}
	c := p.buf[n]
	if closer == "" && !eof && (c == ',' && len(bytes.TrimSpace(p.buf[n+1:])) == 0 || c == ']' && bytes.IndexByte(p.buf[n:], '\n') < 0) {
		// What follows decides: another value after the comma, or more
		// closers on the line of a ']' (closesOuter).
		return 0, 0, needMore
	}
	cont := continuesJSON(p.buf[n:])
	switch {
	case c == '{' || c == '[':
		// Another value: several calls in one block, read one by one.
		return end, end, matched
	case c == '<' && !cont:
		yes, undecided := p.markerAt(n, eof)
		if undecided {
			return 0, 0, needMore
		}
		if yes {
			return end, end, matched // the next call, or the section's end
		}
	}
	if closer == "" {
		if !cont || closesOuter(p.buf[end:n], p.buf[n:]) {
			return end, end, matched // prose after the call
		}
		// No marker ends the call: the line the JSON went on in does.
		nl := bytes.IndexByte(p.buf[n:], '\n')
		if nl < 0 {
			if !eof && len(p.buf)-n < maxBlock {
				return 0, 0, needMore
			}
			return len(p.buf), len(p.buf), matched
		}
		return n + nl, n + nl, matched
	}
	limit := leftoverWindow
	if cont {
		limit = maxBlock
	}
	m := p.indexWithin(n, closer, limit)
	if m < 0 {
		if !eof && len(p.buf)-n < limit {
			return 0, 0, needMore
		}
		if cont && eof {
			return len(p.buf), len(p.buf), matched
		}
		return end, end, matched // the marker never came: prose follows the call
	}
	return m, m + len(closer), matched
}

// closerUnclosed reads, at buf[n] after a complete JSON body, the
// call's end marker written without its final '>' ("</tool_call" then
// the end of the output, a space or the next tag): one reading only, so
// the call stands, marked tag_spelling (emitCall takes p.closerRepairs;
// with --no-repair the call is a parse_error).
// It returns where the marker ends, or 0.
func (p *Parser) closerUnclosed(n int, closer string, eof bool) int {
	if len(closer) < 3 || closer[len(closer)-1] != '>' {
		return 0
	}
	t := closer[:len(closer)-1]
	if ok, _ := p.hasPrefixAt(n, t); !ok {
		return 0
	}
	e := n + len(t)
	if e == len(p.buf) && !eof {
		return 0
	}
	if e < len(p.buf) {
		if c := p.buf[e]; c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '<' {
			return 0
		}
	}
	p.closerRepairs = repairTagSpelling
	return e
}

// bodyOf is bodyEnd and readBody for the value jsonEnd read from buf[k]
// to end (complete as it says): the end of the call's body and of its
// block, and what to tell the model when the body does not read as one
// value.
func (p *Parser) bodyOf(k, end int, complete, eof bool, closer string) (body, after int, msg string, st status) {
	// The call's own end marker ends the call unless strict JSON holds it
	// in a string: a value that never closed before it, one whose repair
	// read the marker as a bare word, or one a stray quote made a string
	// run through it (and through the calls after it) is read up to the
	// marker alone, and the text after the marker is parsed as usual.
	// Most calls hold no byte a marker starts with: one IndexByte pass
	// tells, far cheaper than looking for the whole marker.
	if closer != "" && bytes.IndexByte(p.buf[k:end], closer[0]) >= 0 {
		if c, after, marker := p.closerWithin(k, end, complete, closer); c >= 0 {
			if complete {
				n, st := p.secondCloser(c+len(marker), end, marker, eof)
				if st == needMore {
					return 0, 0, "", needMore
				}
				if n >= 0 {
					if after > c {
						n += len(marker) // the call's own, not its section's
					}
					p.decoded = decoded{}
					return n, n, fmt.Sprintf("its JSON arguments hold %s, which ends the call, at byte %d: only strict JSON may hold it, in a string; write them as one strict JSON object", marker, p.base+int64(c)), matched
				}
			}
			return c, after, p.readBounded(k, c, marker), matched
		}
	}
	if !complete {
		return end, end, "", matched
	}
	body, after, st = p.bodyEnd(end, closer, eof)
	switch {
	case st != matched:
	case body != end:
		msg = p.readBody(k, body)
	case after > end && !p.readAt(k, end) && p.readStray(k, after-len(closer)):
		// Only the stream scanner ended the value, before the marker:
		// the repairer read a stray quote's string on through it.
		body = after - len(closer)
	}
	return body, after, msg, st
}

// secondCloser looks at a value that a reading took on past the call's
// end marker, from just past that marker (after) to the value's end: when
// the end marker comes right after the value and no marker parse knows
// stands between (no next call), the model wrote one call whose arguments
// hold the marker outside strict JSON, and n is where that second marker
// starts, which the call takes in so that no text holds it; -1 otherwise.
func (p *Parser) secondCloser(after, end int, closer string, eof bool) (n int, st status) {
	n = p.skipSpace(end)
	ok, partial := p.hasPrefixAt(n, closer)
	if !ok {
		if partial && !eof {
			return 0, needMore
		}
		return -1, matched
	}
	for j := after; ; {
		i := bytes.IndexByte(p.buf[j:end], '<')
		if i < 0 {
			return n, matched
		}
		if yes, _ := p.markerAt(j+i, true); yes {
			return -1, matched
		}
		j += i + 1
	}
}

// boundValue is bodyOf's bounding for a block that reads its values
// itself (a fence): the value jsonEnd read at buf[k:end] ends at the
// block's end marker closer when it holds it (as closerWithin says), or
// when only the stream scanner ended it right before the marker and it
// reads there without a stray quote (readStray). e is where the value
// ends; msg, when not "", why it does not read as one.
func (p *Parser) boundValue(k, end int, complete bool, closer string) (e int, msg string) {
	if c, _, marker := p.closerWithin(k, end, complete, closer); c >= 0 {
		return c, p.readBounded(k, c, marker)
	}
	if complete && !p.readAt(k, end) {
		n := p.skipSpace(end)
		if ok, _ := p.hasPrefixAt(n, closer); ok && p.readStray(k, n) {
			return n, ""
		}
	}
	return end, ""
}

// fenceError ends a JSON fence whose value at buf[v:f] does not read: a
// parse_error through the closing fence when the value is a call's, prose
// otherwise (a code sample).
func (p *Parser) fenceError(i, v, f int, action bool, msg string) (int, status, error) {
	if !looksLikeCall(p.buf[v:f]) && !p.knownCallAt(v, f) {
		return 0, noMatch, nil
	}
	end := p.skipSpace(f)
	if ok, _ := p.hasPrefixAt(end, "```"); ok {
		end += 3
	}
	format := FormatJSONFenced
	if action {
		format = FormatCommandRAction
	}
	return end, matched, p.fail(i, end, format, msg)
}

// continuesJSON reports whether b, the first text after a JSON value,
// reads as more of it: a closer, or a ',' before a key (a ',' before a
// value is a separator between calls).
func continuesJSON(b []byte) bool {
	switch b[0] {
	case '}', ']', ':':
		return true
	case ',':
		for _, c := range b[1:] {
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{', '[':
				return false
			}
			return true
		}
		return true
	}
	return false
}

// closerWithin returns where the end marker closer first occurs in the
// JSON value jsonEnd read at buf[k:end] (complete as it says), and where
// the call's block goes on after it; c is -1 when the marker does not
// occur, or when the value is strict JSON, which can hold the marker only
// inside a string (a tool writing HTML). The marker in any other value is
// where the call ends, whatever a repair reads around it. A fence (```)
// counts where it starts a line. In markup, the end of the section or
// wrapper the call is in (sectionEnds) ends a call that left its own end
// marker out; the block goes on at it, for the section to end.
func (p *Parser) closerWithin(k, end int, complete bool, closer string) (c, after int, marker string) {
	b := p.buf[k:end]
	// Most calls hold no byte a marker starts with: one IndexByte pass
	// tells, far cheaper than looking for the whole marker.
	if closer == "" || bytes.IndexByte(b, closer[0]) < 0 || complete && p.strictAt(k, end) {
		return -1, -1, ""
	}
	at := []byte(closer)
	if closer == "```" {
		at = []byte("\n```") // a fence closes only at a line's start
	}
	c, after, marker = -1, -1, closer
	if i := bytes.Index(b, at); i >= 0 {
		c = k + i + len(at) - len(closer)
		after, b = c+len(closer), p.buf[k:c]
	}
	if closer[0] == '<' {
		for _, s := range sectionEnds {
			if i := bytes.Index(b, []byte(s)); i >= 0 && s != closer {
				c, after, marker, b = k+i, k+i, s, b[:i]
			}
		}
	}
	return c, after, marker
}

// sectionEnds end the sections and wrappers that calls with a JSON body
// and an end marker of their own stand in: Hermes' </tool_call>, which
// wraps Qwen3-Coder's calls, the section ends of the families read by
// their spec and of those that say so (endsInSection, register), and
// every marker the dispatch table has end a call section (sectionEnd in
// dispatch.go), in the order the families register.
var sectionEnds = []string{"</tool_call>"}

// strictAt reports whether buf[k:end] is one strict JSON value, as the
// reading jsonEnd kept for it says when it is there.
func (p *Parser) strictAt(k, end int) bool {
	if d := &p.decoded; d.out != nil && d.start == k && d.end == end && !d.python && !d.body {
		return d.res.Repairs == 0 && !d.res.Truncated
	}
	return json.Valid(p.buf[k:end])
}

// readBounded reads buf[k:c], a call's JSON body that its end marker
// closer at buf[c] bounds, as one value (readBody): a reading that keeps
// every byte is left in p.decoded and readBounded returns "", otherwise
// what to tell the model. A quote that opens a string with nothing but
// closers after it up to the marker ({"b": true"}) is a stray one: the
// body read without it is taken when it reads.
func (p *Parser) readBounded(k, c int, closer string) string {
	src := bytes.TrimRight(p.buf[k:c], " \t\r\n")
	if len(src) == 0 {
		return fmt.Sprintf("its JSON arguments are not complete where %s ends the call; write them as one complete JSON object", closer)
	}
	msg := p.readBody(k, c)
	if msg == "" && !p.decoded.res.Truncated {
		return ""
	}
	if p.readStray(k, c) {
		return ""
	}
	_, _, err := appendJSON(nil, src, p.opts.NoRepair, false)
	var se *syntaxError
	errors.As(err, &se)
	if msg != "" && (se == nil || !se.Truncated) {
		if se != nil && p.opts.NoRepair {
			return p.jsonErrorMessage(err, k)
		}
		return msg // text after the value, or JSON no repair reads
	}
	// Cut off before the marker: a string left open, closers missing.
	p.decoded = decoded{}
	if se != nil && openString(src, se.Offset) {
		return fmt.Sprintf("its JSON arguments are not complete where %s ends the call: the string that opens at byte %d has no closing quote; write them as one complete JSON object (strict JSON, if a string holds %s)", closer, p.base+int64(k+se.Offset), closer)
	}
	return fmt.Sprintf("its JSON arguments are not complete where %s ends the call; write them as one complete JSON object", closer)
}

// readAt reports whether jsonEnd's reading of the value at buf[k:end] is
// at hand: the repairer read it whole, not just the stream scanner.
func (p *Parser) readAt(k, end int) bool {
	d := &p.decoded
	return d.out != nil && d.start == k && d.end == end
}

// readStray reads buf[k:c], a call's body up to its end marker at buf[c],
// without the stray quote a reading cut off in a string ended at, when
// nothing but closers follows that quote ({"b": true"}). It reports
// whether that reading keeps every other byte; it is then in p.decoded.
func (p *Parser) readStray(k, c int) bool {
	if p.opts.NoRepair {
		return false
	}
	src := bytes.TrimRight(p.buf[k:c], " \t\r\n")
	_, _, err := appendJSON(nil, src, false, false)
	var se *syntaxError
	if !errors.As(err, &se) || !se.Truncated {
		return false
	}
	q := strayQuote(src, se.Offset)
	if q < 0 {
		return false
	}
	out, res, err := appendJSON(nil, dropBytes(src, []int{q}), false, false)
	if err != nil || res.N != len(src)-1 || res.Truncated {
		return false
	}
	res.N = c - k
	res.Repairs |= jsonrepair.UnescapedQuote
	p.decoded = decoded{start: k, end: c, out: out, res: res, body: true}
	return true
}

// openString reports whether the quote at src[o], where a reading of src
// found it cut off, opens a string that src ends inside: src does not end
// with an unescaped quote that may close it.
func openString(src []byte, o int) bool {
	n := len(src) - 1
	if o > n || src[o] != '"' {
		return false
	}
	if o == n || src[n] != '"' {
		return true
	}
	bs := 0
	for j := n - 1; j > o && src[j] == '\\'; j-- {
		bs++
	}
	return bs%2 == 1
}

// strayQuote returns q when src[q] is a '"' with nothing but closers and
// whitespace after it, the quote a cut-off reading of src ended in; -1
// otherwise.
func strayQuote(src []byte, q int) int {
	if q < 0 || q >= len(src) || src[q] != '"' {
		return -1
	}
	if len(bytes.Trim(src[q+1:], "}] \t\r\n")) != 0 {
		return -1
	}
	return q
}

// closesOuter reports whether the text after a complete bare JSON value,
// gap being the whitespace before it, is a line of ']' alone: it closes an
// array opened before the value (a list of calls begun in prose), not the
// value, and adds nothing to it.
func closesOuter(gap, rest []byte) bool {
	if bytes.IndexByte(gap, '\n') < 0 {
		return false
	}
	line := rest
	if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
		line = rest[:nl]
	}
	return len(bytes.Trim(bytes.TrimSpace(line), "]")) == 0
}

// markerAt reports whether a marker parse knows (a call, a section's end,
// a think tag) starts at buf[n], which is '<'; undecided while the input
// so far ends inside what may be one.
func (p *Parser) markerAt(n int, eof bool) (yes, undecided bool) {
	rest := p.buf[n:]
	if len(rest) < 2 {
		return false, !eof
	}
	for _, m := range angleIndex[rest[1]] {
		ok, partial := p.hasPrefixAt(n, m.tok)
		if ok {
			return true, false
		}
		undecided = undecided || partial && !eof
	}
	if p.extra != nil {
		// A format file's markers are markers too.
		for _, m := range p.extra[rest[1]] {
			ok, partial := p.hasPrefixAt(n, m.tok)
			if ok {
				return true, false
			}
			undecided = undecided || partial && !eof
		}
	}
	return false, undecided
}

// readBody reads buf[k:e], a call's JSON body with text left over after
// the value the first reading found, as one value that fills it. It tries
// the readings that account for every byte with the fewest changes: a
// closer read as mistyped (the innermost bracket's), then closers dropped
// where the first reading ended. When exactly one result comes out, it is
// left in p.decoded for the decodeJSON that follows and readBody returns
// ""; otherwise it returns what to tell the model.
func (p *Parser) readBody(k, e int) string {
	src := bytes.TrimRight(p.buf[k:e], " \t\r\n")
	var found [][]byte
	var foundRes repairResult
	var firstErr error
	try := func(src []byte, typo bool, extra repairSet) (n int) {
		out, res, err := appendJSONTypo(nil, src, typo)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			// Closers once too often inside an array of calls end an
			// entry early, and the rest fails where a key stands in
			// the array: the closers before the ',' before it are the
			// ones to look at.
			var se *syntaxError
			if errors.As(err, &se) && !se.Truncated && se.Offset <= len(src) {
				if q := bytes.LastIndexByte(src[:se.Offset], ','); q > 0 {
					return q
				}
			}
			return -1
		}
		if res.N < len(src) {
			return res.N
		}
		for _, f := range found {
			if bytes.Equal(f, out) {
				return res.N
			}
		}
		found = append(found, out)
		res.Repairs |= extra
		foundRes = res
		return res.N
	}
	ends := make([]int, 0, 2)
	if !p.opts.NoRepair {
		for _, typo := range []bool{false, true} {
			if n := try(src, typo, 0); n >= 0 && n < len(src) {
				ends = append(ends, n)
			}
		}
		if len(found) == 0 {
			// Closers once too often: the reading ended at the last of a
			// run of closers with text after it. The closers at the end of
			// the body say how deep that text is, so the extra ones are
			// the first of that run.
			for _, n := range ends {
				run := closerRun(src, n)
				for d := 1; d < len(run); d++ {
					cut := dropBytes(src, run[:d])
					try(cut, false, repairExtraCloser)
					try(cut, true, repairExtraCloser)
				}
			}
		}
	}
	switch len(found) {
	case 1:
		foundRes.N = e - k
		p.decoded = decoded{start: k, end: e, out: found[0], res: foundRes, body: true}
		return ""
	case 0:
		if len(ends) == 0 && firstErr != nil {
			return p.jsonErrorMessage(firstErr, k)
		}
		n := len(src)
		if len(ends) > 0 {
			n = ends[0]
		}
		if p.opts.NoRepair {
			return fmt.Sprintf("the JSON ends at byte %d, before the end of the call, and %q follows it; write the call as one JSON object with each bracket closed once", p.base+int64(k+n), clip.Prefix(bytes.TrimSpace(src[n:]), 64))
		}
		return fmt.Sprintf("the JSON ends at byte %d, before the end of the call, and %q after it does not continue it; write the call as one JSON object with each bracket closed once", p.base+int64(k+n), clip.Prefix(bytes.TrimSpace(src[n:]), 64))
	}
	return fmt.Sprintf("the brackets of the call can be read in %d ways (%s or %s); write the call as one JSON object with each bracket closed once", len(found), clip.Prefix(found[0], 96), clip.Prefix(found[1], 96))
}

// closerRun returns the positions of the closers that end src[:n], the
// last bytes of a value, with the whitespace between them, first first.
func closerRun(src []byte, n int) []int {
	var run []int
	for j := n - 1; j >= 0; j-- {
		switch src[j] {
		case '}', ']':
			run = append(run, j)
			continue
		case ' ', '\t', '\r', '\n':
			continue
		}
		break
	}
	for a, b := 0, len(run)-1; a < b; a, b = a+1, b-1 {
		run[a], run[b] = run[b], run[a]
	}
	return run
}

// dropBytes returns a copy of src without the bytes at the given
// positions, which are in increasing order.
func dropBytes(src []byte, at []int) []byte {
	out := make([]byte, 0, len(src))
	from := 0
	for _, a := range at {
		out = append(out, src[from:a]...)
		from = a + 1
	}
	return append(out, src[from:]...)
}

// holdsSpecialToken reports whether a tool name holds a special token's
// brackets (<|, |>, or DeepSeek's fullwidth <｜). Names are short and
// rarely hold either bar, which one IndexByte each rules out.
func holdsSpecialToken(name string) bool {
	if strings.IndexByte(name, '|') < 0 && strings.IndexByte(name, "｜"[0]) < 0 {
		return false
	}
	return strings.Contains(name, "<|") || strings.Contains(name, "|>") || strings.Contains(name, "<｜")
}
