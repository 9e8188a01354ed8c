package parse

import (
	"bytes"
	"fmt"
	"strings"
)

// Markup no family claims, read when Options.KnownTool names the
// caller's tools (DESIGN.md §4a, docs/parse-rules.md): a tag naming a
// known tool (<invoke name="f">, <function=f>, a call tag then f), or a
// call tag then JSON naming one, followed by one of the shapes the
// generic readers read (generic.go). The markers are found by the words
// of the tags, whatever their spelling (generic_tag.go); each call says
// which shape it was read as (FormatGeneric…).
//
// It is reached from three places only, all with known tools and no
// --format: dispatch (orGeneric), where a '<', '[' or '‹' starts no
// family's marker (or the family's reader let it be prose); tagBlock
// (genericFor), where a <tool_call> block holds a body no family reads;
// and fail (genericInstead), where a family's reader could not read its
// own markup: the generic reading then stands in for the parse_error
// when it reads the whole of it.

// maxWrap bounds the wrappers read around calls (<calls><call>…).
const maxWrap = 3

// genericAt reads the markup at buf[i] as calls to known tools, and
// emits them. noMatch leaves the byte to prose.
func (p *Parser) genericAt(i int, eof bool) (int, status, error) {
	calls, end, st := p.readGeneric(p.buf[i:], eof, false)
	if st != matched {
		return 0, st, nil
	}
	return i + end, matched, p.emitGeneric(i, calls)
}

// genericFor is a family's fallback for a block it knows the marker of
// but not the body (tagBlock's <tool_call> around new tags): the block
// read generically from buf[i], waiting for more input as any reader
// does. ok is false when it does not read so; the family decides.
func (p *Parser) genericFor(i int, eof bool) (int, status, error, bool) {
	if p.opts.KnownTool == nil || p.opts.Format != "" {
		return 0, noMatch, nil, false
	}
	calls, end, st := p.readGeneric(p.buf[i:], eof, false)
	switch st {
	case needMore:
		return 0, needMore, nil, true
	case matched:
		return i + end, matched, p.emitGeneric(i, calls), true
	}
	return 0, noMatch, nil, false
}

// genericInstead is fail's fallback: when buf[start:end], markup a
// family could not read, reads whole as calls to known tools, they are
// emitted in place of the parse_error.
func (p *Parser) genericInstead(start, end int) (bool, error) {
	if p.inGeneric || p.opts.Format != "" || start < 0 || end > len(p.buf) || start >= end {
		return false, nil
	}
	b := p.buf[start:end]
	calls, n, st := p.readGeneric(b, true, true)
	if st != matched || len(bytes.TrimSpace(b[n:])) > 0 {
		return false, nil
	}
	for _, c := range calls {
		if c.msg != "" {
			return false, nil
		}
	}
	return true, p.emitGeneric(start, calls)
}

// emitGeneric emits the calls read in the block at buf[at:].
func (p *Parser) emitGeneric(at int, calls []gcall) error {
	p.inGeneric = true
	defer func() { p.inGeneric = false }()
	for _, c := range calls {
		s, e := at+c.start, at+c.end
		if c.msg != "" {
			if err := p.fail(s, e, c.format, c.msg); err != nil {
				return err
			}
			continue
		}
		if err := p.emitCall("", c.name, c.args, c.format, c.repairs, p.base+int64(s), p.buf[s:e]); err != nil {
			return err
		}
	}
	return nil
}

// readGeneric reads calls at the start of b: up to maxWrap wrappers,
// then a call with the closers that follow it, and with all, the calls
// and closers after it until something else. noMatch unless a call to a
// known tool starts there. Without all, the block ends after the first
// call, so that each call comes out as soon as it is complete, however
// many a wrapper holds: the next is read as a block of its own, and a
// closer that comes later is dropped after it (strayGenericCloser).
func (p *Parser) readGeneric(b []byte, eof, all bool) ([]gcall, int, status) {
	var calls []gcall
	var outer []string // the words of the wrappers' tags
	pos, end := 0, 0
	for {
		if pos == len(b) {
			if !eof && len(calls) > 0 && all {
				return nil, 0, needMore // a closer or another call may follow
			}
			break
		}
		if len(calls) > 0 && !all {
			// Only the closers already here: what comes later is read
			// on its own, with the same events.
			t, st := lexTag(b, pos, true)
			if st != matched || !t.closing || !closesAny(t.word, outer) && !callWord(t.word) || !eof && t.end == len(b) {
				break
			}
			end = t.end
			pos = skipWS(b, end)
			continue
		}
		t, st := lexTag(b, pos, eof)
		if st == needMore {
			return nil, 0, needMore
		}
		if st != matched {
			break
		}
		if t.closing {
			if len(calls) == 0 {
				return nil, 0, noMatch
			}
			if !closesAny(t.word, outer) && !callWord(t.word) {
				break
			}
			end = t.end
			pos = skipWS(b, end)
			continue
		}
		cs, next, st := p.genericCall(b, &t, outer, eof)
		if st == needMore {
			return nil, 0, needMore
		}
		if st == matched {
			calls = append(calls, cs...)
			end = next
			pos = skipWS(b, next)
			continue
		}
		if callWord(t.word) && !t.hasAttr && len(outer) < maxWrap {
			j := skipWS(b, t.end)
			if j == len(b) && !eof {
				return nil, 0, needMore
			}
			if tagStart(b, j) {
				outer = append(outer, t.word)
				pos = j
				continue
			}
		}
		break
	}
	if len(calls) == 0 {
		return nil, 0, noMatch
	}
	return calls, end, matched
}

func closesAny(w string, words []string) bool {
	for _, o := range words {
		if o == w {
			return true
		}
	}
	return false
}

// genericCall reads the call that the opening tag t starts, if t names
// a known tool or is a call tag followed by one's name or a JSON call.
func (p *Parser) genericCall(b []byte, t *gtag, outer []string, eof bool) ([]gcall, int, status) {
	known := p.opts.KnownTool
	var name string
	var k int
	if t.hasAttr {
		name = strings.TrimPrefix(t.attr, "functions.")
		if !nameAttr(t) || !known(name) {
			return nil, 0, noMatch
		}
		k = t.end
	} else {
		if !callWord(t.word) {
			return nil, 0, noMatch
		}
		j := skipWS(b, t.end)
		if j >= len(b) {
			return nil, 0, needOrNotStatus(eof)
		}
		if b[j] == '{' || b[j] == '[' {
			calls, end, st, ok := readJSONCalls(b, j, eof, known, p.opts.NoRepair)
			if st == needMore {
				return nil, 0, needMore
			}
			if !ok {
				return nil, 0, noMatch
			}
			calls[0].start = t.start
			return calls, end, matched
		}
		n := j
		for n < len(b) && n-j <= 128 && nameByte(b[n]) {
			n++
		}
		if n == len(b) && !eof {
			return nil, 0, needMore
		}
		name = cleanName(b[j:n])
		if name == "" || !known(name) {
			return nil, 0, noMatch
		}
		k = n
	}
	c := gcall{name: name, start: t.start}
	ctx := &readCtx{tool: name, ptype: p.opts.ParamType, noRepair: p.opts.NoRepair}
	ends := closerSpellings(b, k, append([]string{t.word}, outer...))
	j := skipWS(b, k)
	// A separator after the name (Hunyuan's <tool_sep>) is layout.
	if u, st := lexTag(b, j, eof); st == needMore {
		return nil, 0, needMore
	} else if st == matched && !u.closing && !u.hasAttr && strings.Contains(u.word, "sep") {
		j = skipWS(b, u.end)
	}
	if j >= len(b) {
		if !eof {
			return nil, 0, needMore
		}
		c.end, c.format = len(b), FormatGenericParams
		c.msg = fmt.Sprintf("call to %q was cut off after its name; send the whole call again", name)
		return []gcall{c}, len(b), matched
	}
	var a argsBuilder
	a.reset()
	stop, st, msg := 0, matched, ""
	switch {
	case b[j] == '{':
		c.format = FormatGenericNameJSON
		var args []byte
		var rep repairSet
		args, stop, rep, st, msg = readNameJSON(b, j, eof, ctx)
		a.buf, a.repairs = args, rep
	case tagStart(b, j):
		u, ust := lexTag(b, j, eof)
		if ust == needMore {
			return nil, 0, needMore
		}
		after := skipWS(b, u.end)
		if ust == matched && after == len(b) && !eof {
			return nil, 0, needMore
		}
		switch {
		case ust != matched:
			c.format, stop, msg = FormatGenericParams, j, fmt.Sprintf("call to %q: its arguments do not read as tags or JSON", name)
		case u.closing:
			c.format, stop = FormatGenericParams, j
			a.buf = append(a.buf, '}')
		case !u.hasAttr && after < len(b) && b[after] == '{':
			// A separator before the JSON arguments (<|tool_call_argument_begin|>).
			c.format = FormatGenericNameJSON
			var args []byte
			var rep repairSet
			args, stop, rep, st, msg = readNameJSON(b, after, eof, ctx)
			a.buf, a.repairs = args, rep
		case strings.Contains(u.word, "key"):
			c.format = FormatGenericKV
			m, ok := kvMarkers(b, &u)
			if !ok {
				if !eof && len(b)-u.end < maxTag {
					return nil, 0, needMore
				}
				stop, msg = j, fmt.Sprintf("call to %q: an argument name has no end tag", name)
				break
			}
			stop, st, msg = readKV(b, j, eof, m, ends, ctx, &a)
			if msg == "" && st == matched {
				a.buf = append(a.buf, '}')
			}
		case !u.hasAttr && (markupWord(u.word) || !identWord(u.name)):
			// Neither a parameter nor a key tag: markup this reader
			// does not know, inside a call to a known tool.
			c.format, stop, msg = FormatGenericParams, j, fmt.Sprintf("call to %q: tag %q where its arguments belong; write them as parameter tags or one JSON object", name, b[u.start:u.end])
		default:
			c.format = FormatGenericParams
			m := paramMarkers(b, &u)
			stop, st, msg = readParams(b, j, eof, m, ends, ctx, &a)
			if msg == "" && st == matched {
				a.buf = append(a.buf, '}')
			}
		}
	default:
		if !t.hasAttr {
			return nil, 0, noMatch // <tool_call>search for it</tool_call>: prose
		}
		c.format, stop, msg = FormatGenericParams, j, fmt.Sprintf("call to %q: text where its arguments belong; write them as tags or one JSON object", name)
	}
	if st == needMore {
		return nil, 0, needMore
	}
	words := append([]string{t.word}, outer...)
	if msg != "" {
		c.msg = msg
		return failSpan(b, c, max(stop, j), words, eof)
	}
	// The call's end marker, or what shows it was left out.
	e := skipWS(b, stop)
	if e < len(b) && !tagStart(b, e) {
		c.msg = fmt.Sprintf("call to %q: text %q after its arguments, before its end marker; write only the call between its markers", name, firstChar(b[e:]))
		return failSpan(b, c, e, words, eof)
	}
	if e == len(b) && !eof {
		return nil, 0, needMore
	}
	if e < len(b) && !hasAny(b[e:], ends) && c.format != FormatGenericNameJSON {
		// JSON arguments end where their value does, and what follows
		// (an end-of-turn token, <|call|>) is not the call's. Tags end
		// at the call's end marker: only the next call may follow a call whose end marker was
		// left out; other markup inside its markers is the call's.
		u, _ := lexTag(b, e, eof)
		if _, _, st := p.genericCall(b, &u, outer, eof); st == needMore {
			return nil, 0, needMore
		} else if st != matched && !u.closing {
			c.msg = fmt.Sprintf("call to %q: markup %q inside the call that is not an argument; write each argument as the call's other arguments are written", name, clipTag(b[e:]))
			return failSpan(b, c, e, words, eof)
		}
	}
	if !hasAny(b[e:], ends) && c.format != FormatGenericNameJSON {
		if p.opts.NoRepair {
			c.end, c.msg = stop, fmt.Sprintf("call to %q has no end marker", name)
			return []gcall{c}, stop, matched
		}
		a.repairs |= repairMissingClosingTag
	}
	c.args, c.repairs, c.end = a.buf, a.repairs, stop
	u, ust := lexTag(b, e, eof)
	if ust == needMore {
		return nil, 0, needMore // the end marker decides the span and the repairs
	}
	if ust == matched && u.closing && (u.word == t.word || closesAny(u.word, outer)) {
		if u.residue || t.residue {
			if p.opts.NoRepair {
				c.msg = fmt.Sprintf("call to %q: its tags hold tokenizer residue (%q)", name, clipTag(b[u.start:]))
			}
			c.repairs |= repairTagSpelling
		}
		c.end = u.end
	}
	return []gcall{c}, c.end, matched
}

// nameByte reports whether c may be part of a tool's name as a call tag
// writes it (functions.get_weather:0, call:get_weather, 获取天气): not
// punctuation of U+2000 on (‹, ▁) nor a fullwidth form (｜).
func nameByte(c byte) bool {
	return isIdentByte(c, false) || c == '.' || c == '-' || c == ':' || c >= 0x80 && c != 0xEF && c != 0xE2
}

// cleanName is the tool's name in what a call tag wrote before its
// arguments: without a "functions." or "call:" prefix or a ":0" index.
func cleanName(raw []byte) string {
	s := string(raw)
	for _, pre := range [...]string{"functions.", "function.", "call:", "tool:", "functions:"} {
		s = strings.TrimPrefix(s, pre)
	}
	if c := strings.LastIndexByte(s, ':'); c > 0 {
		if isDigits(s[c+1:]) {
			s = s[:c]
		}
	}
	return strings.TrimRight(s, ":.")
}

func isDigits(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] < '0' || s[k] > '9' {
			return false
		}
	}
	return s != ""
}

// closerSpellings finds, from b[k], how the closing tags of words are
// spelled (</invoke>, </ifm|tool_call>, <|tool_call_end|>): the first
// of each, as written, for the readers' end markers.
func closerSpellings(b []byte, k int, words []string) []string {
	var out []string
	seen := map[string]bool{}
	for q := k; q < len(b) && q-k < maxBlock; {
		x := nextTagStart(b[q:])
		if x < 0 {
			break
		}
		q += x
		t, st := lexTag(b, q, true)
		if st == matched && t.closing && closesAny(t.word, words) {
			s := string(b[t.start:t.end])
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
			if len(out) == len(words) {
				break
			}
		}
		q++
	}
	return out
}

// failSpan ends the call c that does not read, from where reading it
// stopped: at the first closing tag of its own or its wrappers' words
// within leftoverWindow, since everything inside a call's markers is the
// call's; else where it stopped. Undecided until that closer, the end
// of the input or the window has come, so how the input is cut cannot
// change the span.
func failSpan(b []byte, c gcall, from int, words []string, eof bool) ([]gcall, int, status) {
	c.end = from
	if from < len(b) {
		win := b[:min(len(b), from+leftoverWindow)]
		if t := findTag(win, from, func(t *gtag) bool { return t.closing && closesAny(t.word, words) }); t != nil {
			c.end = t.end
		} else if !eof && len(b)-from < leftoverWindow {
			return nil, 0, needMore
		}
	}
	return []gcall{c}, c.end, matched
}

// paramMarkers are the markers of the parameter tag u as written:
// <parameter name="k">…</parameter>, <parameter=k>…, or <k>…</k>.
func paramMarkers(b []byte, u *gtag) paramTags {
	raw := b[u.start:u.end]
	if !u.hasAttr {
		return paramTags{Open: "<", keyIsTag: true}
	}
	eq := bytes.IndexByte(raw, '=')
	open := raw[:eq+1]
	rest := raw[eq+1:]
	tagEnd := string(closeBracket(raw))
	m := paramTags{Close: closeOf(b, u)}
	if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
		m.Open, m.KeyEnd, m.TagEnd = string(raw[:eq+2]), string(rest[:1]), tagEnd
	} else {
		m.Open, m.KeyEnd = string(open), tagEnd
	}
	return m
}

// kvMarkers are the markers of the key tag u's pairs, as written: the
// key's end tag, and the value tag after it (a type tag between skipped).
func kvMarkers(b []byte, u *gtag) (kvTags, bool) {
	m := kvTags{Key: string(b[u.start:u.end])}
	ke := findTag(b, u.end, func(t *gtag) bool { return t.closing && t.word == u.word })
	if ke == nil {
		return m, false
	}
	m.KeyEnd = string(b[ke.start:ke.end])
	v := skipWS(b, ke.end)
	vt, st := lexTag(b, v, true)
	if st == matched && !vt.closing && strings.Contains(vt.word, "type") {
		m.Type = string(b[vt.start:vt.end])
		te := findTag(b, vt.end, func(t *gtag) bool { return t.closing && t.word == vt.word })
		if te == nil {
			return m, false
		}
		m.TypeEnd = string(b[te.start:te.end])
		v = skipWS(b, te.end)
		vt, st = lexTag(b, v, true)
	}
	if st != matched || vt.closing {
		return m, false
	}
	m.Value = string(b[vt.start:vt.end])
	m.ValueEnd = closeOf(b, &vt)
	return m, true
}

// closeOf is how the end tag of the opening tag u is spelled: as the
// first one that follows, else as u's own spelling would have it.
func closeOf(b []byte, u *gtag) string {
	if t := findTag(b, u.end, func(t *gtag) bool { return t.closing && t.word == u.word }); t != nil {
		return string(b[t.start:t.end])
	}
	raw := b[u.start:u.end]
	open := 1
	if bytes.HasPrefix(raw, []byte("<|")) {
		open = 2
	}
	inner := raw[open : len(raw)-len(closeBracket(raw))]
	if eq := bytes.IndexAny(inner, " ="); eq >= 0 {
		inner = inner[:eq]
	}
	return string(raw[:open]) + "/" + string(inner) + string(closeBracket(raw))
}

// closeBracket is what ends the tag raw: "|>", "｜>", ">", "]" or "›".
func closeBracket(raw []byte) []byte {
	for _, c := range [...]string{"|>", "｜>", ">", "]", "›"} {
		if bytes.HasSuffix(raw, []byte(c)) {
			return []byte(c)
		}
	}
	return nil
}

// findTag returns the first tag at or after k, within maxBlock, that ok
// accepts.
func findTag(b []byte, k int, ok func(*gtag) bool) *gtag {
	for q := k; q < len(b) && q-k < maxBlock; {
		x := nextTagStart(b[q:])
		if x < 0 {
			return nil
		}
		q += x
		if t, st := lexTag(b, q, true); st == matched && ok(&t) {
			return &t
		}
		q++
	}
	return nil
}

// orGeneric is dispatch's hook: where the marker at buf[i] is no
// family's (noMatch) or its reader left it prose, and the caller's
// tools are known, the markup may still be a call in a shape the
// generic readers know. Anything else stands as the family decided.
func (p *Parser) orGeneric(i int, eof bool, end int, st status, err error) (int, status, error) {
	if err != nil || st != noMatch && st != prose || p.opts.KnownTool == nil || p.opts.Format != "" {
		return end, st, err
	}
	if !mayBeCallTag(p.buf, i) {
		return end, st, err
	}
	if e, ok := p.strayGenericCloser(i, eof); ok {
		return e, matched, nil
	}
	if gend, gst, gerr := p.genericAt(i, eof); gst != noMatch || gerr != nil {
		return gend, gst, gerr
	}
	return end, st, err
}

// identWord reports whether s can be a parameter's name as a tag's name
// (<city>Paris</city>): an identifier.
func identWord(s string) bool {
	if s == "" || !isIdentByte(s[0], true) {
		return false
	}
	for k := 1; k < len(s); k++ {
		if !isIdentByte(s[k], false) && s[k] != '-' {
			return false
		}
	}
	return true
}

// clipTag is the tag at the start of b, for a message.
func clipTag(b []byte) string {
	if e := bytes.IndexAny(b[:min(len(b), maxTag)], ">]"); e >= 0 {
		return string(b[:e+1])
	}
	return firstChar(b)
}

// nextTagStart is where the first tag may start in b ('<', '[', '‹'), or -1.
func nextTagStart(b []byte) int {
	x := bytes.IndexAny(b, "<[")
	if y := bytes.Index(b, angleQ); y >= 0 && (x < 0 || y < x) {
		return y
	}
	return x
}

// strayGenericCloser drops a call's closing tag that follows the call
// with only whitespace between, where the family that read the call has
// no such end marker (<|tool_call|>{…}<|/tool_call|>): it is the call's,
// never prose. The closer handler in dispatch does so for known ones.
func (p *Parser) strayGenericCloser(i int, eof bool) (int, bool) {
	if p.afterCall < 0 || p.afterCall != p.lineAt || len(bytes.TrimSpace(p.buf[p.lineAt:i])) > 0 {
		return 0, false
	}
	t, st := lexTag(p.buf, i, eof)
	if st != matched || !t.closing || !callWord(t.word) {
		return 0, false
	}
	p.afterCall = t.end
	return t.end, true
}

// mayBeCallTag is orGeneric's first look, which keeps prose cheap: the
// tag at b[i] can start a generic call or end one only when its text
// holds a call's word (tool, call, func, invoke, action, plugin) or an
// attribute. <b>, [sic] and ’ are prose after this look alone, one pass
// over the tag. A tag whose end has not come yet is left to the reader,
// which waits.
func mayBeCallTag(b []byte, i int) bool {
	rest := b[i:min(len(b), i+maxTag)]
	var close byte
	switch {
	case rest[0] == '<':
		close = '>'
	case rest[0] == '[':
		close = ']'
	case bytes.HasPrefix(rest, angleQ):
		// '›' ends it: its last byte, 0xBA, is in no ASCII word.
		close = 0xBA
	case len(rest) < len(angleQ) && bytes.HasPrefix(angleQ, rest):
		return true
	default:
		return false
	}
	for k := 1; k < len(rest); k++ {
		c := rest[k]
		switch {
		case c == close:
			return false
		case c == '=':
			return true
		case callWordStart[c]:
			w := rest[k:]
			for _, kw := range [...]string{"tool", "call", "func", "invoke", "action", "plugin"} {
				if len(w) >= len(kw) && asciiFoldPrefix(w, kw) {
					return true
				}
			}
		}
	}
	return true // no end within maxTag yet, or ever: the reader decides
}

// callWordStart marks the first letters of the words mayBeCallTag
// looks for, in either case.
var callWordStart = func() (t [256]bool) {
	for _, c := range "tcfiap" {
		t[c], t[c-32] = true, true
	}
	return t
}()

// asciiFoldPrefix reports whether b starts with the lower-case word w,
// in any case.
func asciiFoldPrefix(b []byte, w string) bool {
	for k := 0; k < len(w); k++ {
		if b[k]|0x20 != w[k] {
			return false
		}
	}
	return true
}
