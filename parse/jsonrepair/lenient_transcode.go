package jsonrepair

// The transcoder of lenient JSON: repairer reads one value byte by byte and
// appends it as strict compact JSON, or refuses it with a SyntaxError.

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

type repairer struct {
	src    []byte
	strict bool
	python bool
	look   bool // the string being read is in a container: quoteEnds decides its quotes
	// In the string being read, where the first JSON escape of a control
	// character and the first backslash kept as itself are; -1 for none.
	escCtl, escLit int
	escBuf         []byte // escStr's unescaped text, reused within a value
	repairs        Set    // Result.Repairs
	exp            bool   // Result.Exp
	last           int    // Result.Last, relative to the start of the output
	// Where the current key, the last ',' and the last scalar value
	// start, for messages. Fields rather than run's locals: read only
	// when the input ends or fails, they need no register in its loop.
	keyOff, commaOff, valOff int
	// keyDst is where the key being read starts in the output: a python
	// '{' whose first key has no ':' after it is a set.
	keyDst int
	open   brackets
	cursor
}

// brackets hold the open brackets, one byte a level, outermost first;
// run keeps how many (the depth). The first 64 levels are held in the
// repairer itself, with no pointer to them, so it needs no allocation; run's
// loop then carries a depth rather than a slice, which spares it spills.
type brackets struct {
	buf  [64]byte
	more []byte // the levels past len(buf), and room for more
	// typo reads every closer that is not the innermost bracket's as a
	// mistyped one (it closes the innermost bracket): the second reading
	// parse tries when the first leaves text inside a call's markers.
	typo bool
}

// at is level k, 0 the outermost.
func (b *brackets) at(k int) byte {
	if k < len(b.buf) {
		return b.buf[k]
	}
	return b.more[k-len(b.buf)]
}

// set makes level k (at most one past the deepest) kind.
func (b *brackets) set(k int, kind byte) {
	if k < len(b.buf) {
		b.buf[k] = kind
		return
	}
	if k-len(b.buf) >= len(b.more) {
		// Grown by doubling, once in a while.
		b.more = append(b.more, make([]byte, max(len(b.more), len(b.buf)))...)
	}
	b.more[k-len(b.buf)] = kind
}

// mismatchConsumes is the function of that name for these brackets, depth
// of them open.
func (b *brackets) mismatchConsumes(c byte, depth int) bool {
	return b.typo || !(depth >= 2 && c == kindCloser(b.at(depth-2)))
}

// joinStrings appends to the top-level string that ends at i (dst ends with
// its closing quote) the string literals that follow it, python style.
func (p *repairer) joinStrings(dst []byte, i, start int) ([]byte, Result, error) {
	for {
		// Look past whitespace and comments without taking them: what
		// follows may be the caller's.
		repairs := p.repairs
		k, _, _, _ := p.space(i) // python is never strict: no error
		q := -1
		if k < len(p.src) {
			q = p.strAt(k)
		}
		if q < 0 {
			p.repairs = repairs
			break
		}
		p.repairs |= StringConcatenation
		var err error
		dst = dst[:len(dst)-1]
		if dst, i, err = p.str(dst, q+1, p.src[q], q); err != nil {
			return dst, Result{}, err
		}
	}
	return dst, Result{N: i, Cut: len(dst) - start}, nil
}

// eof ends the value at the end of the input: closes the open brackets when
// the input stopped between complete values (the envelope), refuses when it
// stopped inside or right after a key, ':' or ',' (the payload).
func (p *repairer) eof(dst []byte) ([]byte, Result, error) {
	n := len(p.src)
	switch p.state {
	case rpValue:
		if p.depth == 0 {
			return dst, Result{}, p.cut(n, "expected a JSON value, found the end of the input")
		}
		return dst, Result{}, p.cut(p.keyOff, "the JSON ends after the ':' of this member, before its value: "+CutOffAdvice)
	case rpColon:
		return dst, Result{}, p.cut(p.keyOff, "the JSON ends after an object key, before its ':' and value: "+CutOffAdvice)
	case rpElem, rpKey:
		off := p.commaOff
		if off < 0 {
			off = n
		}
		return dst, Result{}, p.cut(off, "the JSON ends after ',', before the next value: "+CutOffAdvice)
	case rpFirstKey:
		if p.python {
			// In Python a '{' opens a dict or a set: what came next
			// would have told.
			return dst, Result{}, p.cut(n, "the JSON ends right after a '{', which in Python may open a dict or a set: "+CutOffAdvice)
		}
	}
	if p.strict {
		top := p.open.at(p.depth - 1)
		return dst, Result{}, p.cut(n, "the JSON ends before the '"+string(kindCloser(top))+"' that closes the innermost open '"+string(kindOpener(top))+"': "+CutOffAdvice)
	}
	cut := len(dst) - p.start
	for k := p.depth - 1; k >= 0; k-- {
		dst = append(dst, kindCloserOut(p.open.at(k)))
	}
	p.repairs |= MissingCloser
	return dst, Result{N: n, Truncated: true, Cut: cut}, nil
}

// mismatchConsumes says how a closer c that does not match the innermost
// open bracket is read (lenient): when it matches the bracket around the
// innermost one, the innermost one's closer was left out, and c closes the
// next one after it ({"a": [1, 2} ); otherwise it was meant as the innermost
// one's closer ({"a": {"b": 1]} ) and is consumed by it.
func mismatchConsumes(c byte, stack []byte) bool {
	return !(len(stack) >= 2 && c == kindCloser(stack[len(stack)-2]))
}

// extraComma skips the ',' at i and any more after it, with whitespace,
// where only a closer may follow: a leading comma ([,1] or {,"a":1}) or
// repeated trailing commas ({"a":1,,}). A comma between two values ([1,,2])
// stands for a value left out, and is refused.
func (p *repairer) extraComma(i int, leading bool, closer byte) (int, error) {
	src := p.src
	j := i + 1
	for j < len(src) && (src[j] == ',' || src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
		j++
	}
	if j >= len(src) {
		return i, p.cut(i, "the JSON ends after ',', before the next value: "+CutOffAdvice)
	}
	if !leading && src[j] != '}' && src[j] != ']' {
		if closer == '}' {
			// An object has no empty members: the comma is repeated.
			if src[j] == '"' || src[j] == '\'' || bareKeyByte[src[j]] {
				p.repairs |= RepeatedComma
				return j, nil
			}
			return i, p.fail(i, "expected an object key, found another ','; remove the extra comma or add the missing member")
		}
		return i, p.fail(i, "two commas in a row in an array: a comma repeated or an element left out; write one comma between elements, and null where an element is meant to be empty ([1, 2] or [1, null, 2])")
	}
	if leading {
		p.repairs |= LeadingComma
	} else {
		p.repairs |= TrailingComma
	}
	return j, nil
}

// elided refuses "..." or "…" where a value or key belongs: the model left
// content out, and nothing can stand in for it.
func (p *repairer) elided(i int) error {
	src := p.src
	if bytes.HasPrefix(src[i:], []byte("...")) || bytes.HasPrefix(src[i:], []byte("…")) {
		return p.fail(i, "'"+string(src[i:i+3])+"' stands for content that was left out (elided); JSON cannot hold it and it is not guessed: send the whole value")
	}
	return nil
}

func (p *repairer) trailingComma(off int) error {
	if p.strict {
		return p.fail(off, "trailing comma before the closing bracket; JSON does not allow it")
	}
	p.repairs |= TrailingComma
	return nil
}

func (p *repairer) fail(off int, msg string) error {
	return &SyntaxError{Offset: off, Msg: msg}
}

func (p *repairer) cut(off int, msg string) error {
	return &SyntaxError{Offset: off, Msg: msg, Truncated: true}
}

// oneSpace skips the single space models write after ':' and ',' when a
// token follows it, as the loop in run would, but without calling space.
// Only where gap does not matter: before a key or a value.
func oneSpace(src []byte, i int) int {
	if i+1 < len(src) && src[i] == ' ' {
		if c := src[i+1]; c > ' ' && c != '/' && c != '#' {
			return i + 1
		}
	}
	return i
}

// space skips whitespace and comments from i. gap reports that anything was
// skipped, nl that it held a newline (for the missing-comma rule).
func (p *repairer) space(i int) (int, bool, bool, error) {
	src := p.src
	n := len(src)
	gap, nl := false, false
	for i < n {
		switch src[i] {
		case ' ', '\t', '\r':
			i++
			gap = true
		case '\n':
			i++
			gap, nl = true, true
		case '\\':
			// \n, \t, \r between tokens of a payload escaped once more.
			if p.strict || p.python {
				return i, gap, nl, nil
			}
			if i+1 >= n {
				return n, gap, nl, nil // maybe \" or \n, cut
			}
			switch src[i+1] {
			case 'n':
				nl = true
			case 't', 'r':
			default:
				return i, gap, nl, nil
			}
			p.repairs |= EscapedPayload
			i += 2
			gap = true
		case 0xC2:
			if i+1 >= n {
				if p.strict {
					return i, gap, nl, nil
				}
				return n, gap, nl, nil // maybe half a non-breaking space, cut
			}
			if src[i+1] != 0xA0 {
				return i, gap, nl, nil
			}
			if p.strict {
				return i, gap, nl, p.fail(i, "a non-breaking space (U+00A0) outside a string; JSON whitespace is space, tab and newline")
			}
			p.repairs |= NBSP
			i += 2
			gap = true
		case '/', '#':
			block := false
			if src[i] == '/' {
				if i+1 < n && src[i+1] != '/' && src[i+1] != '*' {
					return i, gap, nl, nil // not a comment: the caller reports the '/'
				}
				block = i+1 < n && src[i+1] == '*'
			}
			if p.strict {
				return i, gap, nl, p.fail(i, "comments are not allowed in JSON")
			}
			p.repairs |= Comment
			gap = true
			if block {
				j := bytes.Index(src[i+2:], []byte("*/"))
				if j < 0 {
					return n, gap, nl, nil // cut inside the comment: nothing of the payload lost
				}
				if bytes.IndexByte(src[i+2:i+2+j], '\n') >= 0 {
					nl = true
				}
				i += 2 + j + 2
				continue
			}
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return n, gap, nl, nil
			}
			i += j // the newline itself is counted above
		default:
			return i, gap, nl, nil
		}
	}
	return i, gap, nl, nil
}

// joinNext continues the string just written to dst with one that
// starts at i, as Python joins adjacent string literals ('a' 'b' is "ab").
// It also reports a u prefix cut off by the end of the input.
func (p *repairer) joinNext(dst []byte, i int) ([]byte, int, bool, error) {
	if p.uAtEnd(i) {
		return dst, i, false, p.cut(i, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
	}
	q := p.strAt(i)
	if q < 0 {
		return dst, i, false, nil
	}
	p.repairs |= StringConcatenation
	dst, i, err := p.str(dst[:len(dst)-1], q+1, p.src[q], q)
	return dst, i, true, err
}

func kindCloser(kind byte) byte {
	switch kind {
	case rpObject, rpPySet:
		return '}'
	case rpArray:
		return ']'
	}
	return ')'
}

func kindOpener(kind byte) byte {
	switch kind {
	case rpObject, rpPySet:
		return '{'
	case rpArray:
		return '['
	}
	return '('
}

// kindCloserOut is the closer written to the output: tuples become arrays.
func kindCloserOut(kind byte) byte {
	if kind == rpObject {
		return '}'
	}
	return ']'
}

func isCloseBracket(c byte) bool { return c == '}' || c == ']' || c == ')' }

func startsValue(c byte, python bool) bool {
	switch {
	case c == '{' || c == '[' || c == '"' || c == '\'' || c == '-' || c == '+' || c == '.':
		return true
	case c == '(':
		return python
	}
	return bareWordByte[c]
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func hexByteVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// appendRune appends the decoded escape r inside a JSON string.
func appendRune(dst []byte, r rune) []byte {
	switch {
	case r < 0x20:
		return append(dst, '\\', 'u', '0', '0', lenientHex[r>>4], lenientHex[r&0xF])
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	}
	return utf8.AppendRune(dst, r)
}

// fullwidthPunct returns the ASCII punctuation a fullwidth form at src[i]
// stands for (｛ ｝ ［ ］ ： ，), or 0.
func fullwidthPunct(src []byte, i int) byte {
	if i+2 >= len(src) || src[i] != 0xEF {
		return 0
	}
	switch b1, b2 := src[i+1], src[i+2]; {
	case b1 == 0xBD && b2 == 0x9B:
		return '{'
	case b1 == 0xBD && b2 == 0x9D:
		return '}'
	case b1 == 0xBC && b2 == 0xBB:
		return '['
	case b1 == 0xBC && b2 == 0xBD:
		return ']'
	case b1 == 0xBC && b2 == 0x9A:
		return ':'
	case b1 == 0xBC && b2 == 0x8C:
		return ','
	}
	return 0
}

// fullwidthPartial reports whether src ends at i with the start of what
// may be a fullwidth form.
func fullwidthPartial(src []byte, i int) bool {
	rest := src[i:]
	return len(rest) < 3 && (len(rest) == 1 || rest[1] == 0xBC || rest[1] == 0xBD)
}

// quoteAdvice explains a typographic quote where a string belongs: such
// quotes are refused, not read as JSON's.
func quoteAdvice(src []byte, i int) string {
	for _, q := range [...]string{"“", "”", "‘", "’", "„", "«"} {
		if bytes.HasPrefix(src[i:], []byte(q)) {
			return "; typographic quotes are not JSON's: write the string in straight double quotes"
		}
	}
	return ""
}

// escapeShown shows a byte in a message.
func escapeShown(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return string(c)
	}
	return fmt.Sprintf("\\x%02x", c)
}

// describeByte names what is at src[i] for a message: "'x'", "a newline", "the
// end of the input".
func describeByte(src []byte, i int) string {
	if i >= len(src) {
		return "the end of the input"
	}
	c := src[i]
	switch {
	case c == '\n':
		return "a newline"
	case c == '\'':
		return "a single quote"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("control character U+%04X", c)
	case c < utf8.RuneSelf:
		return "'" + string(c) + "'"
	}
	r, size := utf8.DecodeRune(src[i:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("byte 0x%02x (not UTF-8)", c)
	}
	return "'" + string(r) + "'"
}

// jsonEscape: the bytes after a backslash that make a JSON escape, but for u.
var jsonEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// spaceStart: the bytes space reads, spaceAlways or spaceNotPython.
const (
	spaceAlways uint8 = 1 << iota
	spaceNotPython
)

var spaceStart = func() (t [256]uint8) {
	for c := 0; c <= ' '; c++ {
		t[c] = spaceAlways
	}
	t['/'], t['#'] = spaceAlways, spaceAlways
	t['\\'], t[0xC2] = spaceNotPython, spaceNotPython
	return t
}()

// bareKeyByte: bytes of an unquoted key. bareWordByte: bytes of a bare word in value
// position (literals). strByteSpecial: string bytes that need a look.
var bareKeyByte, bareWordByte, strByteSpecial [256]bool

func init() {
	for c := 0; c < 256; c++ {
		b := byte(c)
		alnum := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
		bareWordByte[c] = alnum || b == '_' || b == '$'
		bareKeyByte[c] = bareWordByte[c] || b == '-'
		strByteSpecial[c] = b < 0x20 || b == '"' || b == '\'' || b == '\\' || b >= 0x80
	}
}

// missingOpeningQuote reports whether the word src[i:j], followed by the
// quote at src[j], lost its opening quote: it starts with a letter or '_'
// and what follows the quote is what follows a key (want ':') or a value
// (want ','; a closer too). Outside a string a quote never follows a word
// otherwise (outside python, whose u"" prefixes are words before a quote),
// and the stream scanner skips such a quote by the same test
// (quoteAfterWord), so the two agree on where a value ends.
func missingOpeningQuote(src []byte, i, j int, want byte) bool {
	if c := src[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	k := skipWS(src, j+1, len(src))
	if k >= len(src) {
		return false
	}
	switch c := src[k]; want {
	case ':':
		return c == ':'
	default:
		return c == ',' || c == '}' || c == ']'
	}
}

// quoteAfterWord reports whether the quote at src[i], outside any string,
// ends a word that lost its opening quote (missingOpeningQuote): the
// stream scanner's side of that repair. more is true when the input ends
// before that is known.
func quoteAfterWord(src []byte, i int) (yes, more bool) {
	s := i
	for s > 0 && wordStrByte[src[s-1]] {
		s--
	}
	if s == i {
		return false, false
	}
	if k := skipWS(src, i+1, len(src)); k >= len(src) {
		return false, true
	}
	return missingOpeningQuote(src, s, i, ':') || missingOpeningQuote(src, s, i, ','), false
}
