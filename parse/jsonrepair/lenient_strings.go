package jsonrepair

// The repairer's strings: quoted in every form models write them (double,
// single, typographic, escaped once more as a whole payload), re-escaped
// as JSON wants.

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// strStart reads the string whose opening quote is at i.
func (p *repairer) strStart(dst []byte, i int) ([]byte, int, error) {
	q := p.src[i]
	if q == '\'' {
		if p.strict {
			return dst, i, p.fail(i, "single-quoted string; JSON strings use double quotes")
		}
		p.repairs |= SingleQuotes
	}
	dst = append(dst, '"')
	return p.str(dst, i+1, q, i)
}

// plainStrEnd returns the index just past the closing quote of the
// double-quoted string whose body starts at i, when nothing in the body needs
// a look from str (no escape, control character or non-ASCII byte); else -1.
// Such strings, most keys and values, are copied whole, quotes included,
// without str's checks byte by byte. It reads whole words only: a string
// within eight bytes of the end of src is left to str.
func plainStrEnd(src []byte, i int) int {
	for ; i+8 <= len(src); i += 8 {
		if m := dqMask(binary.LittleEndian.Uint64(src[i:])); m != 0 {
			if k := i + bits.TrailingZeros64(m)>>3; src[k] == '"' {
				return k + 1
			}
			return -1
		}
	}
	return -1
}

// str copies a string body from i (just past the opening quote q at open)
// through its closing quote, re-escaping it for JSON. Runs of bytes that
// need nothing are found eight at a time and copied in one append.
func (p *repairer) str(dst []byte, i int, q byte, open int) ([]byte, int, error) {
	src := p.src
	p.escCtl, p.escLit = -1, -1
	n := len(src)
	run := i
	// cont is just past the last line continuation (a backslash and a
	// newline, which write nothing): a string closed before the next key
	// ends there at the earliest, its newline not space to trim.
	cont := -1
	for {
		if q == '"' {
			for i+8 <= n {
				if m := dqMask(binary.LittleEndian.Uint64(src[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
				i += 8
			}
		} else {
			for i+8 <= n {
				if m := sqMask(binary.LittleEndian.Uint64(src[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
				i += 8
			}
		}
		for i < n && !strByteSpecial[src[i]] {
			i++
		}
		if i >= n {
			return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
		}
		c := src[i]
		switch {
		case c == q:
			// quoteEnds decides unless the usual ':', closer, or ',' (and
			// maybe a space) before a quote, bracket or number follows.
			if p.look && !(i+2 < n && (closesAfter[src[i+1]] || src[i+1] == ',' && (afterComma[src[i+2]] || src[i+2] == ' ' && i+3 < n && afterComma[src[i+3]]))) {
				switch quoteEnds(src, i, q) {
				case quoteInner:
					p.repairs |= UnescapedQuote
					dst = append(dst, src[run:i]...)
					if q == '"' {
						dst = append(dst, '\\')
					}
					run = i
					i++
					continue
				case quoteCloseBefore:
					p.repairs |= MissingClosingQuote
					k := max(closeBeforeKey(src, i), cont)
					dst = trimTranscoded(dst, src, k, run)
					if k > run {
						dst = append(dst, src[run:k]...)
					}
					return append(dst, '"'), k, nil
				case quoteMore:
					return dst, i, p.cut(open, "the JSON ends right after a quote inside a string, and only what follows could tell whether it closes the string: "+CutOffAdvice)
				}
			}
			dst = append(dst, src[run:i]...)
			return append(dst, '"'), i + 1, nil
		case c == '"': // inside single quotes
			dst = append(dst, src[run:i]...)
			dst = append(dst, '\\', '"')
			i++
			run = i
		case c == '\'': // inside double quotes: nothing to do
			i++
		case c == '\\':
			if i+1 < n && jsonEscape[src[i+1]] {
				if ctlEscape[src[i+1]] && !p.python {
					if err := p.ctlEscape(i); err != nil {
						return dst, i, err
					}
				}
				i += 2 // the common case, valid as it is
				continue
			}
			if i+1 >= n {
				return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
			}
			e := src[i+1]
			var err error
			if dst, i, run, err = p.escape(dst, i, run, q, open); err != nil {
				return dst, i, err
			}
			if e == '\n' || e == '\r' {
				cont = i
			}
		case c < 0x20:
			if p.strict {
				return dst, i, p.fail(i, "a raw control character ("+describeByte(src, i)+") in a string; write it as an escape such as \\n")
			}
			p.repairs |= ControlCharacter
			dst = append(dst, src[run:i]...)
			dst = jsonw.AppendControl(dst, c)
			i++
			run = i
		default: // not ASCII
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(src[i:]) {
					// A character cut by the end of the input.
					return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
				}
				if p.strict {
					return dst, i, p.fail(i, "invalid UTF-8 in a string")
				}
				p.repairs |= InvalidUTF8
				dst = append(dst, src[run:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				run = i
				continue
			}
			i += size
		}
	}
}

// trimTranscoded removes from dst the output of src[k:run], whitespace and
// a ',' already copied (control characters as two-byte escapes), so that a
// string can end at k.
func trimTranscoded(dst, src []byte, k, run int) []byte {
	for j := run - 1; j >= k; j-- {
		switch src[j] {
		case '\n', '\r', '\t':
			dst = dst[:len(dst)-2]
		default:
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// escape handles the backslash at i (src[i+1] exists) in a string quoted
// with q; run is where the pending uncopied bytes start. It returns the new
// i and run.
func (p *repairer) escape(dst []byte, i, run int, q byte, open int) ([]byte, int, int, error) {
	src := p.src
	n := len(src)
	e := src[i+1]
	switch e {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return dst, i + 2, run, nil // valid JSON (\" also within single quotes)
	case 'u':
		for k := i + 2; k < i+6; k++ {
			if k >= n {
				return dst, i, run, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
			}
			if !isHexByte(src[k]) {
				if p.strict {
					return dst, i, run, p.fail(i, "invalid escape: \\u must be followed by four hex digits; write a literal backslash as \\\\")
				}
				// \user, \u12: a backslash meant as itself, as for \d.
				if err := p.litEscape(i); err != nil {
					return dst, i, run, err
				}
				p.repairs |= InvalidEscape
				dst = append(dst, src[run:i]...)
				return append(dst, '\\', '\\'), i + 1, i + 1, nil
			}
		}
		return dst, i + 6, run, nil
	}
	if p.strict {
		return dst, i, run, p.fail(i, "invalid escape '\\"+escapeShown(e)+"' in a string; JSON allows only \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
	}
	p.repairs |= InvalidEscape
	dst = append(dst, src[run:i]...)
	switch {
	case e == '\'':
		return append(dst, '\''), i + 2, i + 2, nil
	case e == '\n':
		return dst, i + 2, i + 2, nil // line continuation
	case e == '\r':
		if i+2 < n && src[i+2] == '\n' {
			return dst, i + 3, i + 3, nil
		}
		return dst, i + 2, i + 2, nil
	case e == 'x':
		if i+3 >= n {
			return dst, i, run, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
		}
		if !isHexByte(src[i+2]) || !isHexByte(src[i+3]) {
			return dst, i, run, p.fail(i, "invalid escape: \\x must be followed by two hex digits; write a literal backslash as \\\\")
		}
		dst = appendRune(dst, rune(hexByteVal(src[i+2])<<4|hexByteVal(src[i+3])))
		return dst, i + 4, i + 4, nil
	case e == 'U' && p.python:
		var r rune
		for k := i + 2; k < i+10; k++ {
			if k >= n {
				return dst, i, run, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
			}
			if !isHexByte(src[k]) {
				return dst, i, run, p.fail(i, "invalid escape: \\U must be followed by eight hex digits; write a literal backslash as \\\\")
			}
			r = r<<4 | rune(hexByteVal(src[k]))
		}
		if !utf8.ValidRune(r) {
			return dst, i, run, p.fail(i, "invalid escape: \\U names no Unicode character")
		}
		return appendRune(dst, r), i + 10, i + 10, nil
	case e == 'a' || e == 'v' || e >= '0' && e <= '9' || e == 'N' && p.python:
		return dst, i, run, p.fail(i, "ambiguous escape '\\"+string(e)+"' in a string (Python and JSON read it differently); write a literal backslash as \\\\ or the character as \\uXXXX")
	}
	// Unknown escape: keep the backslash, as Python does. The next byte is
	// then handled as an ordinary string byte.
	if err := p.litEscape(i); err != nil {
		return dst, i, run, err
	}
	return append(dst, '\\', '\\'), i + 1, i + 1, nil
}

// ctlEscape and litEscape note, per string, a JSON escape of a control
// character (\n \t \r \b \f) and a backslash kept as itself (\d, \U).
// A string with both is refused: a model that wrote C:\Users\new left every
// backslash unescaped, so its \n is no newline either, while "\d+\n" may
// mean one; only the model can say. Python reads such strings one way, so
// python mode takes them.
func (p *repairer) ctlEscape(i int) error {
	if p.escLit >= 0 {
		return p.mixedEscapes(i, p.escLit)
	}
	if p.escCtl < 0 {
		p.escCtl = i
	}
	return nil
}

func (p *repairer) litEscape(i int) error {
	if p.python {
		return nil
	}
	if p.escCtl >= 0 {
		return p.mixedEscapes(p.escCtl, i)
	}
	if p.escLit < 0 {
		p.escLit = i
	}
	return nil
}

// mixedEscapes refuses the string with the JSON escape at ctl and the
// backslash kept as itself at lit.
func (p *repairer) mixedEscapes(ctl, lit int) error {
	c, l := escapeShown(p.src[ctl+1]), escapeShown(p.src[lit+1])
	return p.fail(ctl, "a string with both '\\"+c+"' and '\\"+l+"': the first is a JSON escape, the second a backslash that escapes nothing, so whether '\\"+c+"' was meant as one is unclear; write every literal backslash as \\\\")
}

// ctlEscape: the bytes after a backslash that make a JSON escape of a
// control character.
var ctlEscape = [256]bool{'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// curlyQuote reports whether a typographic double quote, “ or ”, is at
// src[i]: where a key or value belongs it opens a string, closed by the
// next one.
func curlyQuote(src []byte, i int) bool {
	return i+2 < len(src) && src[i] == 0xE2 && src[i+1] == 0x80 && (src[i+2] == 0x9C || src[i+2] == 0x9D)
}

// curlySingle reports whether a ‘ is at src[i]: where a key or value
// belongs it opens a string, closed by a ’ that quoteEnds says closes it,
// since ’ is also the apostrophe (‘it’s’).
func curlySingle(src []byte, i int) bool {
	return i+2 < len(src) && src[i] == 0xE2 && src[i+1] == 0x80 && src[i+2] == 0x98
}

// curlyStr reads a string opened by the typographic quote at open, through
// the next typographic double quote, re-escaping it for JSON as str does
// (a '"' inside is escaped; a backslash does not escape the closing quote).
func (p *repairer) curlyStr(dst []byte, open int) ([]byte, int, error) {
	src := p.src
	p.escCtl, p.escLit = -1, -1
	n := len(src)
	p.repairs |= TypographicQuote
	single := curlySingle(src, open)
	dst = append(dst, '"')
	i := open + 3
	run := i
	var err error
	for i < n {
		switch c := src[i]; {
		case c == 0xE2 && !single && curlyQuote(src, i):
			dst = append(dst, src[run:i]...)
			return append(dst, '"'), i + 3, nil
		case c == 0xE2 && single && i+2 < n && src[i+1] == 0x80 && src[i+2] == 0x99:
			switch quoteEnds(src, i+2, 0) {
			case quoteClose:
				dst = append(dst, src[run:i]...)
				return append(dst, '"'), i + 3, nil
			case quoteMore:
				return dst, i, p.cut(open, "the JSON ends right after a quote inside a string, and only what follows could tell whether it closes the string: "+CutOffAdvice)
			}
			i += 3 // an apostrophe
		case c == '"':
			dst = append(dst, src[run:i]...)
			dst = append(dst, '\\', '"')
			i++
			run = i
		case c == '\\':
			if i+1 >= n {
				i = n
				continue
			}
			if jsonEscape[src[i+1]] {
				if ctlEscape[src[i+1]] {
					if err := p.ctlEscape(i); err != nil {
						return dst, i, err
					}
				}
				i += 2
				continue
			}
			if dst, i, run, err = p.escape(dst, i, run, '"', open); err != nil {
				return dst, i, err
			}
		case c < 0x20:
			p.repairs |= ControlCharacter
			dst = append(dst, src[run:i]...)
			dst = jsonw.AppendControl(dst, c)
			i++
			run = i
		case c >= 0x80:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(src[i:]) {
					i = n
					continue
				}
				p.repairs |= InvalidUTF8
				dst = append(dst, src[run:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				run = i
				continue
			}
			i += size
		default:
			i++
		}
	}
	return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
}

// outerEscape reads the escape at src[i] (a backslash, src[i+1] exists) of
// a payload escaped once more: the byte it stands for and its length.
// \uXXXX stands for '"' or '\\' when it names them, else for a byte that is
// neither (the caller copies such escapes as they are); a backslash before
// anything else stands for itself.
func outerEscape(src []byte, i int) (b byte, w int) {
	switch e := src[i+1]; e {
	case '\\', '"', '/':
		return e, 2
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'u':
		if i+6 <= len(src) && isHexByte(src[i+2]) && isHexByte(src[i+3]) && isHexByte(src[i+4]) && isHexByte(src[i+5]) {
			if r := hexByteVal(src[i+2])<<4 | hexByteVal(src[i+3]); r == 0 {
				switch v := hexByteVal(src[i+4])<<4 | hexByteVal(src[i+5]); v {
				case '"', '\\':
					return v, 6
				}
			}
			return 'u', 6
		}
	}
	return '\\', 1
}

// escStr reads a string of a payload escaped once more as a whole
// ({\"a\": \"b\"}, as a model writes JSON it has seen inside a string): its
// quotes are \" and its text is string text escaped again. It undoes the
// outer escaping and reads the result as a string; the string ends at the
// quote that the inner text does not escape.
func (p *repairer) escStr(dst []byte, open int) ([]byte, int, error) {
	src := p.src
	n := len(src)
	body := p.escBuf[:0]
	defer func() { p.escBuf = body[:0] }()
	bs := 0 // backslashes just written to body
	for i := open + 2; i < n; {
		b, w := src[i], 1
		if b == '\\' {
			if i+1 >= n {
				break
			}
			b, w = outerEscape(src, i)
			if w == 6 && b == 'u' {
				b = 0 // neither a quote nor a backslash
			}
		}
		if b == '"' && bs%2 == 0 {
			body = append(body, '"')
			p.repairs |= EscapedPayload
			sub := repairer{src: body}
			out, _, err := sub.str(append(dst, '"'), 0, '"', 0)
			p.repairs |= sub.repairs
			if err != nil {
				var se *SyntaxError
				if errors.As(err, &se) {
					return dst, i, p.fail(open, "in a payload escaped once more (write it unescaped): "+se.Msg)
				}
				return dst, i, err
			}
			return out, i + w, nil
		}
		if b == '\\' {
			bs++
		} else {
			bs = 0
		}
		if w == 6 {
			if b == 0 {
				body = appendRune(body, rune(hexByteVal(src[i+2]))<<12|rune(hexByteVal(src[i+3]))<<8|rune(hexByteVal(src[i+4]))<<4|rune(hexByteVal(src[i+5])))
			} else {
				body = append(body, b)
			}
		} else {
			body = append(body, b)
		}
		i += w
	}
	return dst, open, p.cut(open, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
}
