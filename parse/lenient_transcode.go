package parse

// The transcoder of lenient JSON: repairer reads one value byte by byte and
// appends it as strict compact JSON, or refuses it with a syntaxError.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/jsonw"
)

type repairer struct {
	src    []byte
	strict bool
	python bool
	look   bool // the string being read is in a container: quoteEnds decides its quotes
	// In the string being read, where the first JSON escape of a control
	// character and the first backslash kept as itself are; -1 for none.
	escCtl, escLit int
	escBuf         []byte    // escStr's unescaped text, reused within a value
	repairs        repairSet // repairResult.repairs
	exp            bool      // repairResult.exp
	last           int       // repairResult.last, relative to the start of the output
	// Where the current key, the last ',' and the last scalar value
	// start, for messages. Fields rather than run's locals: read only
	// when the input ends or fails, they need no register in its loop.
	keyOff, commaOff, valOff int
	// keyDst is where the key being read starts in the output: a python
	// '{' whose first key has no ':' after it is a set.
	keyDst int
	open   brackets
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
	// readBody tries when the first leaves text inside a call's markers.
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

func (p *repairer) run(dst []byte) ([]byte, repairResult, error) {
	src := p.src
	n := len(src)
	start := len(dst)
	depth := 0 // of p.open: a local, so that the loop keeps it in a register
	state := rpValue
	i := 0
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		if p.strict {
			return dst, repairResult{}, p.fail(0, "a byte order mark (U+FEFF) before the JSON; remove it")
		}
		p.repairs |= repairBOM
		i = 3
	}
	lastStr := false // the token just completed was a string (python concatenation, missing-comma rule)
	look := !p.strict && !p.python
	// Bytes that may start whitespace or a comment: space reads them.
	// Outside Python it also reads \n and U+00A0 (which strict mode
	// refuses there).
	spaceMask := spaceAlways
	if !p.python {
		spaceMask |= spaceNotPython
	}
	var err error
	for {
		gap, nl := false, false
		if i < n && spaceStart[src[i]]&spaceMask != 0 {
			// Plain whitespace, most often a line break and its indent,
			// is skipped here; comments and the rest are space's.
			j := i
			for ; j < n; j++ {
				if c := src[j]; c == '\n' {
					nl = true
				} else if c != ' ' && c != '\t' && c != '\r' {
					break
				}
			}
			gap, i = j > i, j
			if i < n && spaceStart[src[i]]&spaceMask != 0 {
				var g, l bool
				if i, g, l, err = p.space(i); err != nil {
					return dst, repairResult{}, err
				}
				gap, nl = gap || g, nl || l
			}
		}
		if i >= n {
			if state == rpNext && lastStr && p.python {
				// Python would join a string that followed to this one.
				return dst, repairResult{}, p.cut(p.valOff, "the JSON ends right after a string, which Python would join to a string that follows: "+cutOffAdvice)
			}
			return p.eof(dst, start, state, depth)
		}
		c, w := src[i], 1
		if c >= 0xE2 && look {
			if c == 0xEF {
				// Fullwidth ｛ ｝ ［ ］ ： ， (CJK input methods) read as ASCII.
				if f := fullwidthPunct(src, i); f != 0 {
					c, w = f, 3
					p.repairs |= repairFullwidth
				} else if fullwidthPartial(src, i) {
					return dst, repairResult{}, p.cut(i, "the JSON ends inside a character: "+cutOffAdvice)
				}
			} else if c == 0xE2 && n-i < 3 && (n-i == 1 || src[i+1] == 0x80) {
				return dst, repairResult{}, p.cut(i, "the JSON ends inside a character: "+cutOffAdvice)
			}
		}
		switch state {
		case rpNext:
			kind := p.open.at(depth - 1)
			if c == ',' {
				if kind == rpTuple {
					p.open.set(depth-1, rpTupleComma)
				}
				dst = append(dst, ',')
				p.commaOff = i
				i = oneSpace(src, i+w)
				lastStr = false
				if kind == rpObject {
					if depth == 1 {
						p.last = len(dst) - start
					}
					state = rpKey
				} else {
					state = rpElem
				}
				continue
			}
			if c == kindCloser(kind) {
				if kind == rpTuple {
					return dst, repairResult{}, p.fail(i, "a value in parentheses with no comma is not a tuple in Python; write a list [...] or drop the parentheses")
				}
				dst = append(dst, kindCloserOut(kind))
				depth--
				i += w
				lastStr = false
				if depth == 0 {
					return dst, repairResult{n: i, cut: len(dst) - start}, nil
				}
				continue
			}
			if look && (c == '}' || c == ']') {
				// A closer that is not the innermost bracket's.
				p.repairs |= repairMismatchedCloser
				consume := p.open.mismatchConsumes(c, depth)
				dst = append(dst, kindCloserOut(kind))
				depth--
				if consume {
					i += w
				}
				lastStr = false
				if depth == 0 {
					return dst, repairResult{n: i, cut: len(dst) - start}, nil
				}
				continue
			}
			if p.python && lastStr {
				var joined bool
				if dst, i, joined, err = p.joinNext(dst, i); err != nil {
					return dst, repairResult{}, err
				}
				if joined {
					continue
				}
			}
			// Values side by side with no space: }{ or ][ in an array, and
			// a quoted key right after a value in an object.
			adjacent := !gap && look && (kind == rpObject && (c == '"' || c == '\'') ||
				kind == rpArray && (c == '{' || c == '[') && (dst[len(dst)-1] == '}' || dst[len(dst)-1] == ']'))
			if (gap || adjacent) && !p.strict && c != '-' && c != '+' {
				// A missing comma is inserted when whitespace separates two
				// values. In an object the next token must then be a key and a
				// ':' must follow it, which confirms the reading. In an array,
				// quoteEnds has already read a quote followed by text as part
				// of its string ("say "hi" now"); in python mode, where it
				// does not, a string next to another value on the same line
				// takes a newline. Never before a sign: [1 -2] is a
				// subtraction in both Python and JavaScript.
				if kind == rpObject {
					if c == '"' || c == '\'' || bareKeyByte[c] {
						p.repairs |= repairMissingComma
						dst = append(dst, ',')
						if depth == 1 {
							p.last = len(dst) - start
						}
						state = rpKey
						p.commaOff = -1
						lastStr = false
						continue
					}
				} else if startsValue(c, p.python) && (nl || adjacent || look || (!lastStr && c != '"' && c != '\'')) {
					p.repairs |= repairMissingComma
					if kind == rpTuple {
						p.open.set(depth-1, rpTupleComma)
					}
					dst = append(dst, ',')
					state = rpElem
					p.commaOff = -1
					lastStr = false
					continue
				}
			}
			what := "array element"
			if kind == rpObject {
				what = "object member"
			} else if kind != rpArray {
				what = "tuple element"
			}
			msg := "expected ',' or '" + string(kindCloser(kind)) + "' after " + what + ", found " + describeByte(src, i)
			if isCloseBracket(c) {
				msg += "; the innermost open bracket is '" + string(kindOpener(kind)) + "'"
			} else if gap && (c == '-' || c == '+') {
				msg += "; without a ',' the sign reads as arithmetic"
			} else if lastStr && !gap {
				msg += "; if the string before it was meant to contain a '\"', escape it as \\\""
			}
			return dst, repairResult{}, p.fail(i, msg)

		case rpColon:
			if c == ':' {
				dst = append(dst, ':')
				i += w
				state = rpValue
				lastStr = false
				continue
			}
			if p.python && lastStr {
				var joined bool
				if dst, i, joined, err = p.joinNext(dst, i); err != nil {
					return dst, repairResult{}, err
				}
				if joined {
					continue
				}
			}
			if p.python && (c == ',' || c == '}') && p.keyDst > 0 && dst[p.keyDst-1] == '{' && p.open.at(depth-1) == rpObject {
				// {'a', 'b'}: a set, the way Python writes one; LFM2's
				// own tooling reads it as a list.
				p.repairs |= repairPySet
				dst[p.keyDst-1] = '['
				p.open.set(depth-1, rpPySet)
				if depth == 1 {
					p.last = 0
				}
				state = rpNext
				continue
			}
			if !p.strict && gap && c != ',' && c != '}' && c != ']' && startsValue(c, p.python) {
				// {"a" 1}: a key, then a value; only a ':' can be meant.
				p.repairs |= repairMissingColon
				dst = append(dst, ':')
				state = rpValue
				lastStr = false
				continue
			}
			msg := "expected ':' after object key, found " + describeByte(src, i)
			if lastStr && !gap {
				msg += "; if the key was meant to contain a '\"', escape it as \\\""
			}
			return dst, repairResult{}, p.fail(i, msg)

		case rpFirstKey, rpKey:
			if (c == ',' || c == ']') && look {
				if c == ',' {
					// A leading comma, or one more before the '}'.
					if i, err = p.extraComma(i+w-1, state == rpFirstKey, '}'); err != nil {
						return dst, repairResult{}, err
					}
					continue
				}
				p.repairs |= repairMismatchedCloser
				if !p.open.mismatchConsumes(']', depth) {
					// The ']' closes the array around this object: close
					// the object first.
					if state == rpKey {
						dst = dst[:len(dst)-1]
						p.last = 0
					}
					dst = append(dst, '}')
					depth--
					state = rpNext
					lastStr = false
					continue
				}
				c = '}' // it can only be meant for the '{'
			}
			if c == '}' {
				if state == rpKey {
					if err := p.trailingComma(p.commaOff); err != nil {
						return dst, repairResult{}, err
					}
					dst = dst[:len(dst)-1]
					p.last = 0 // the comma it pointed past is gone
				}
				dst = append(dst, '}')
				depth--
				i += w
				if depth == 0 {
					return dst, repairResult{n: i, cut: len(dst) - start}, nil
				}
				state = rpNext
				lastStr = false
				continue
			}
			p.keyOff = i
			p.keyDst = len(dst)
			switch {
			case c == '"' || c == '\'':
				// Most keys need no re-escaping: they are copied whole.
				e := -1
				if c == '"' {
					e = plainStrEnd(src, i+1)
				}
				if e > 0 && (!look || quoteEndsAt(src, e-1, '"') == quoteClose) {
					dst, i = append(dst, src[i:e]...), e
				} else {
					p.look = look
					if dst, i, err = p.strStart(dst, i); err != nil {
						return dst, repairResult{}, err
					}
				}
				lastStr = true
			case p.python && (c == 'u' || c == 'U') && i+1 < n && (src[i+1] == '"' || src[i+1] == '\''):
				p.repairs |= repairStringPrefix
				if dst, i, err = p.strStart(dst, i+1); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case bareKeyByte[c]:
				j := i
				for j < n && bareKeyByte[src[j]] {
					j++
				}
				if j == n {
					return dst, repairResult{}, p.cut(i, "the JSON ends inside an object key: "+cutOffAdvice)
				}
				if q := src[j]; (q == '"' || q == '\'') && pyStrPrefix(src[i:j]) {
					return dst, repairResult{}, p.fail(i, "python string prefix '"+string(src[i:j])+"' is not supported; write a plain quoted string")
				}
				if p.strict {
					return dst, repairResult{}, p.fail(i, "unquoted object key '"+string(src[i:j])+"'; JSON keys are strings in double quotes")
				}
				p.repairs |= repairUnquotedKey
				if src[j] == '"' && !p.python && skipWS(src, j+1, n) >= n {
					// c" at the end: a key that lost its opening quote, or
					// a string's start; only the next bytes can tell.
					return dst, repairResult{}, p.cut(i, "the JSON ends inside an object key: "+cutOffAdvice)
				}
				if src[j] == '"' && !p.python && missingOpeningQuote(src, i, j, ':') {
					// c": the key lost its opening quote, not its closing one.
					p.repairs = p.repairs&^repairUnquotedKey | repairMissingOpeningQuote
					j++
				}
				dst = append(dst, '"')
				dst = append(dst, bytes.TrimSuffix(src[i:j], []byte{'"'})...)
				dst = append(dst, '"')
				i = j
				lastStr = false
			case c == ',':
				return dst, repairResult{}, p.fail(i, "expected an object key, found another ','; remove the extra comma or add the missing member")
			case c == 0xE2 && look && (curlyQuote(src, i) || curlySingle(src, i)):
				if dst, i, err = p.curlyStr(dst, i); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case c == '\\' && look && i+1 < n && src[i+1] == '"':
				if dst, i, err = p.escStr(dst, i); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case c == '.' || c == 0xE2:
				if err := p.elided(i); err != nil {
					return dst, repairResult{}, err
				}
				return dst, repairResult{}, p.fail(i, "expected an object key (a string in double quotes), found "+describeByte(src, i)+quoteAdvice(src, i))
			default:
				if isCloseBracket(c) {
					return dst, repairResult{}, p.fail(i, "expected an object key or '}', found "+describeByte(src, i)+"; the innermost open bracket is '{'")
				}
				return dst, repairResult{}, p.fail(i, "expected an object key (a string in double quotes), found "+describeByte(src, i)+quoteAdvice(src, i))
			}
			state = rpColon
			if i < n && src[i] == ':' {
				// The ':' almost always follows the key at once: take it
				// here, as rpColon would, rather than on another turn.
				dst = append(dst, ':')
				i = oneSpace(src, i+1)
				state = rpValue
				lastStr = false
			}

		default: // rpValue, rpFirstElem, rpElem
			if state != rpValue && (isCloseBracket(c) || c == ',') {
				kind := p.open.at(depth - 1)
				if c == ',' && look && kind == rpArray {
					// A leading comma, or one more before the ']'.
					if i, err = p.extraComma(i+w-1, state == rpFirstElem, ']'); err != nil {
						return dst, repairResult{}, err
					}
					continue
				}
				consume := true
				if look && (c == '}' || c == ']') && c != kindCloser(kind) {
					p.repairs |= repairMismatchedCloser
					consume = p.open.mismatchConsumes(c, depth)
					c = kindCloser(kind)
				}
				if c == ',' {
					if state == rpElem {
						return dst, repairResult{}, p.fail(i, "two commas in a row (an empty element); remove the extra comma or add the missing value")
					}
					return dst, repairResult{}, p.fail(i, "expected a value or '"+string(kindCloser(kind))+"', found ','")
				}
				if c != kindCloser(kind) {
					return dst, repairResult{}, p.fail(i, "expected a value or '"+string(kindCloser(kind))+"', found "+describeByte(src, i)+"; the innermost open bracket is '"+string(kindOpener(kind))+"'")
				}
				if state == rpElem {
					if err := p.trailingComma(p.commaOff); err != nil {
						return dst, repairResult{}, err
					}
					dst = dst[:len(dst)-1]
				}
				dst = append(dst, kindCloserOut(kind))
				depth--
				if consume {
					i += w
				}
				lastStr = false
				if depth == 0 {
					return dst, repairResult{n: i, cut: len(dst) - start}, nil
				}
				state = rpNext
				continue
			}
			lastStr = false
			p.valOff = i
			switch {
			case c == '{':
				p.open.set(depth, rpObject)
				depth++
				dst = append(dst, '{')
				if depth == 1 {
					p.last = len(dst) - start
				}
				i += w
				state = rpFirstKey
				continue
			case c == '[':
				p.open.set(depth, rpArray)
				depth++
				dst = append(dst, '[')
				i += w
				state = rpFirstElem
				continue
			case c == '(' && p.python:
				p.repairs |= repairTuple
				p.open.set(depth, rpTuple)
				depth++
				dst = append(dst, '[')
				i++
				state = rpFirstElem
				continue
			case c == '"' || c == '\'':
				inside := look && depth > 0
				e := -1
				if c == '"' {
					e = plainStrEnd(src, i+1) // not for '...': it would scan on to the next '"'
				}
				if e > 0 && (!inside || quoteEndsAt(src, e-1, '"') == quoteClose) {
					dst, i = append(dst, src[i:e]...), e // as for keys
				} else {
					p.look = inside
					if dst, i, err = p.strStart(dst, i); err != nil {
						return dst, repairResult{}, err
					}
				}
				lastStr = true
			case c == 0xE2 && look && (curlyQuote(src, i) || curlySingle(src, i)):
				if dst, i, err = p.curlyStr(dst, i); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case c == '\\' && look && i+1 < n && src[i+1] == '"':
				if dst, i, err = p.escStr(dst, i); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
				if c == '.' {
					if err := p.elided(i); err != nil {
						return dst, repairResult{}, err
					}
				}
				if dst, i, err = p.number(dst, i, depth > 0); err != nil {
					return dst, repairResult{}, err
				}
			case p.python && (c == 'u' || c == 'U') && i+1 < n && (src[i+1] == '"' || src[i+1] == '\''):
				p.repairs |= repairStringPrefix
				if dst, i, err = p.strStart(dst, i+1); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case bareWordByte[c]:
				if dst, i, err = p.word(dst, i, depth > 0); err != nil {
					return dst, repairResult{}, err
				}
			default:
				if err := p.elided(i); err != nil {
					return dst, repairResult{}, err
				}
				if state == rpValue && depth > 0 {
					return dst, repairResult{}, p.fail(i, "expected a value after ':', found "+describeByte(src, i)+quoteAdvice(src, i))
				}
				return dst, repairResult{}, p.fail(i, "expected a JSON value, found "+describeByte(src, i)+quoteAdvice(src, i))
			}
			if depth == 0 {
				if lastStr && p.python {
					// A top-level python string goes on through adjacent
					// literals: f(a='x' 'y') passes 'xy'.
					return p.joinStrings(dst, i, start)
				}
				return dst, repairResult{n: i, cut: len(dst) - start}, nil
			}
			state = rpNext
			if i < n && src[i] == ',' {
				// A ',' right after the value is the common case: take it
				// here, as rpNext does, rather than on another turn. (A
				// copy of rpNext's, kept in step with it: a goto to the
				// switch cost 2% more instructions and 3-4% of the speed
				// on repair-heavy input, one method for both places 5%.)
				kind := p.open.at(depth - 1)
				if kind == rpTuple {
					p.open.set(depth-1, rpTupleComma)
				}
				dst = append(dst, ',')
				p.commaOff = i
				i = oneSpace(src, i+1)
				lastStr = false
				if kind == rpObject {
					if depth == 1 {
						p.last = len(dst) - start
					}
					state = rpKey
				} else {
					state = rpElem
				}
			}
		}
	}
}

// joinStrings appends to the top-level string that ends at i (dst ends with
// its closing quote) the string literals that follow it, python style.
func (p *repairer) joinStrings(dst []byte, i, start int) ([]byte, repairResult, error) {
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
		p.repairs |= repairStringConcatenation
		var err error
		dst = dst[:len(dst)-1]
		if dst, i, err = p.str(dst, q+1, p.src[q], q); err != nil {
			return dst, repairResult{}, err
		}
	}
	return dst, repairResult{n: i, cut: len(dst) - start}, nil
}

// eof ends the value at the end of the input: closes the open brackets when
// the input stopped between complete values (the envelope), refuses when it
// stopped inside or right after a key, ':' or ',' (the payload).
func (p *repairer) eof(dst []byte, start int, state, depth int) ([]byte, repairResult, error) {
	n := len(p.src)
	switch state {
	case rpValue:
		if depth == 0 {
			return dst, repairResult{}, p.cut(n, "expected a JSON value, found the end of the input")
		}
		return dst, repairResult{}, p.cut(p.keyOff, "the JSON ends after the ':' of this member, before its value: "+cutOffAdvice)
	case rpColon:
		return dst, repairResult{}, p.cut(p.keyOff, "the JSON ends after an object key, before its ':' and value: "+cutOffAdvice)
	case rpElem, rpKey:
		off := p.commaOff
		if off < 0 {
			off = n
		}
		return dst, repairResult{}, p.cut(off, "the JSON ends after ',', before the next value: "+cutOffAdvice)
	case rpFirstKey:
		if p.python {
			// In Python a '{' opens a dict or a set: what came next
			// would have told.
			return dst, repairResult{}, p.cut(n, "the JSON ends right after a '{', which in Python may open a dict or a set: "+cutOffAdvice)
		}
	}
	if p.strict {
		top := p.open.at(depth - 1)
		return dst, repairResult{}, p.cut(n, "the JSON ends before the '"+string(kindCloser(top))+"' that closes the innermost open '"+string(kindOpener(top))+"': "+cutOffAdvice)
	}
	cut := len(dst) - start
	for k := depth - 1; k >= 0; k-- {
		dst = append(dst, kindCloserOut(p.open.at(k)))
	}
	p.repairs |= repairMissingCloser
	return dst, repairResult{n: n, truncated: true, cut: cut}, nil
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
		return i, p.cut(i, "the JSON ends after ',', before the next value: "+cutOffAdvice)
	}
	if !leading && src[j] != '}' && src[j] != ']' {
		if closer == '}' {
			// An object has no empty members: the comma is repeated.
			if src[j] == '"' || src[j] == '\'' || bareKeyByte[src[j]] {
				p.repairs |= repairRepeatedComma
				return j, nil
			}
			return i, p.fail(i, "expected an object key, found another ','; remove the extra comma or add the missing member")
		}
		return i, p.fail(i, "two commas in a row in an array: a comma repeated or an element left out; write one comma between elements, and null where an element is meant to be empty ([1, 2] or [1, null, 2])")
	}
	if leading {
		p.repairs |= repairLeadingComma
	} else {
		p.repairs |= repairTrailingComma
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
	p.repairs |= repairTrailingComma
	return nil
}

func (p *repairer) fail(off int, msg string) error {
	return &syntaxError{Offset: off, Msg: msg}
}

func (p *repairer) cut(off int, msg string) error {
	return &syntaxError{Offset: off, Msg: msg, Truncated: true}
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
			p.repairs |= repairEscapedPayload
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
			p.repairs |= repairNBSP
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
			p.repairs |= repairComment
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
		return dst, i, false, p.cut(i, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
	}
	q := p.strAt(i)
	if q < 0 {
		return dst, i, false, nil
	}
	p.repairs |= repairStringConcatenation
	dst, i, err := p.str(dst[:len(dst)-1], q+1, p.src[q], q)
	return dst, i, true, err
}

// strStart reads the string whose opening quote is at i.
func (p *repairer) strStart(dst []byte, i int) ([]byte, int, error) {
	q := p.src[i]
	if q == '\'' {
		if p.strict {
			return dst, i, p.fail(i, "single-quoted string; JSON strings use double quotes")
		}
		p.repairs |= repairSingleQuotes
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
			return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
		}
		c := src[i]
		switch {
		case c == q:
			// quoteEnds decides unless the usual ':', closer, or ',' (and
			// maybe a space) before a quote, bracket or number follows.
			if p.look && !(i+2 < n && (closesAfter[src[i+1]] || src[i+1] == ',' && (afterComma[src[i+2]] || src[i+2] == ' ' && i+3 < n && afterComma[src[i+3]]))) {
				switch quoteEnds(src, i, q) {
				case quoteInner:
					p.repairs |= repairUnescapedQuote
					dst = append(dst, src[run:i]...)
					if q == '"' {
						dst = append(dst, '\\')
					}
					run = i
					i++
					continue
				case quoteCloseBefore:
					p.repairs |= repairMissingClosingQuote
					k := closeBeforeKey(src, i)
					dst = trimTranscoded(dst, src, k, run)
					if k > run {
						dst = append(dst, src[run:k]...)
					}
					return append(dst, '"'), k, nil
				case quoteMore:
					return dst, i, p.cut(open, "the JSON ends right after a quote inside a string, and only what follows could tell whether it closes the string: "+cutOffAdvice)
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
				return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
			}
			var err error
			if dst, i, run, err = p.escape(dst, i, run, q, open); err != nil {
				return dst, i, err
			}
		case c < 0x20:
			if p.strict {
				return dst, i, p.fail(i, "a raw control character ("+describeByte(src, i)+") in a string; write it as an escape such as \\n")
			}
			p.repairs |= repairControlCharacter
			dst = append(dst, src[run:i]...)
			dst = jsonw.AppendControl(dst, c)
			i++
			run = i
		default: // not ASCII
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(src[i:]) {
					// A character cut by the end of the input.
					return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
				}
				if p.strict {
					return dst, i, p.fail(i, "invalid UTF-8 in a string")
				}
				p.repairs |= repairInvalidUTF8
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
				return dst, i, run, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
			}
			if !isHexByte(src[k]) {
				if p.strict {
					return dst, i, run, p.fail(i, "invalid escape: \\u must be followed by four hex digits; write a literal backslash as \\\\")
				}
				// \user, \u12: a backslash meant as itself, as for \d.
				if err := p.litEscape(i); err != nil {
					return dst, i, run, err
				}
				p.repairs |= repairInvalidEscape
				dst = append(dst, src[run:i]...)
				return append(dst, '\\', '\\'), i + 1, i + 1, nil
			}
		}
		return dst, i + 6, run, nil
	}
	if p.strict {
		return dst, i, run, p.fail(i, "invalid escape '\\"+escapeShown(e)+"' in a string; JSON allows only \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
	}
	p.repairs |= repairInvalidEscape
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
			return dst, i, run, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
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
				return dst, i, run, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
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

// number copies a number starting at i, fixing the forms JSON lacks. A
// number that runs to the end of the input inside a container may have been
// cut, so it is refused there.
func (p *repairer) number(dst []byte, i int, inContainer bool) ([]byte, int, error) {
	src := p.src
	n := len(src)
	start := i
	mark := len(dst)
	cutNum := func() error {
		return p.cut(start, "the JSON ends inside a number: "+cutOffAdvice)
	}
	if src[i] == '-' {
		dst = append(dst, '-')
		i++
	} else if src[i] == '+' {
		if p.strict {
			return dst, i, p.fail(i, "'+' before a number is not allowed in JSON")
		}
		p.repairs |= repairNumberForm
		i++
	}
	d := i
	for i < n && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	intLen := i - d
	if intLen == 0 && i < n && bareWordByte[src[i]] {
		j := i
		for j < n && bareWordByte[src[j]] {
			j++
		}
		if j == n && inContainer {
			return dst, i, cutNum() // -Inf may go on as -Infinity
		}
		if nonFiniteWord(src[i:j]) {
			if p.strict {
				return dst, i, p.fail(start, "'"+string(src[start:j])+"' is not representable in JSON; use a number or null")
			}
			// -Infinity, as Python's json writes it: JSON has no such
			// number, and null is what JavaScript's JSON.stringify writes.
			p.repairs |= repairNonFinite
			return append(dst[:mark], "null"...), j, nil
		}
		return dst, i, p.fail(start, "expected digits after '"+string(src[start])+"', found "+describeByte(src, i))
	}
	if intLen > 1 && src[d] == '0' {
		if p.strict {
			return dst, i, p.fail(start, "leading zero in a number; JSON does not allow it")
		}
		p.repairs |= repairNumberForm
		for d < i-1 && src[d] == '0' {
			d++
		}
	}
	if intLen == 0 {
		if i == n {
			return dst, i, cutNum()
		}
		if src[i] != '.' {
			return dst, i, p.fail(start, "expected digits after '"+string(src[start])+"', found "+describeByte(src, i))
		}
	}
	dst = append(dst, src[d:i]...)
	if i < n && src[i] == '.' {
		i++
		f := i
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		if i == f && i == n && (inContainer || intLen == 0) {
			return dst, i, cutNum()
		}
		if intLen == 0 {
			if i == f {
				return dst, i, p.fail(start, "expected a number, found '.' with no digits")
			}
			if p.strict {
				return dst, i, p.fail(start, "a JSON number needs a digit before '.'")
			}
			p.repairs |= repairNumberForm
			dst = append(dst, '0')
		}
		dst = append(dst, '.')
		if i == f {
			if p.strict {
				return dst, i, p.fail(start, "a JSON number needs a digit after '.'")
			}
			p.repairs |= repairNumberForm
			dst = append(dst, '0')
		} else {
			dst = append(dst, src[f:i]...)
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		e := i
		p.exp = true
		i++
		if i < n && (src[i] == '+' || src[i] == '-') {
			i++
		}
		x := i
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		if i == x {
			if i == n {
				return dst, i, cutNum()
			}
			return dst, i, p.fail(e, "expected digits in the exponent of a number, found "+describeByte(src, i))
		}
		dst = append(dst, src[e:i]...)
	}
	if i == n {
		if inContainer {
			return dst, i, cutNum()
		}
		return dst, i, nil
	}
	switch c := src[i]; {
	case (c == 'x' || c == 'X' || c == 'o' || c == 'O' || c == 'b' || c == 'B') && i == d+1 && src[d] == '0':
		return dst, i, p.fail(start, "hexadecimal, octal and binary numbers are not allowed in JSON; write the number in decimal")
	case c == '_':
		return dst, i, p.fail(start, "'_' in a number is not allowed in JSON; write the digits without it")
	case bareWordByte[c] && inContainer && !p.strict && !p.python:
		// 30s, 2h, 1080p: a word that starts with digits.
		out, k, ok, err := p.bareString(dst[:mark], start)
		if ok || err != nil {
			return out, k, err
		}
		return dst, i, p.fail(start, "unexpected "+describeByte(src, i)+" after a number")
	case c == '.':
		// 1.2.3: a version or a typo; either reading is a guess.
		return dst, i, p.fail(start, "a number with a second '.' ("+string(src[start:min(n, i+8)])+"…): write a version or other dotted text as a string in double quotes (\"1.2.3\"), or the number with one '.'")
	case bareWordByte[c] || c == '+' || c == '-':
		return dst, i, p.fail(start, "unexpected "+describeByte(src, i)+" after a number")
	}
	return dst, i, nil
}

// word reads a bare word in value position: a JSON, Python or JavaScript
// literal, a word standing for a string, or an error saying why the word is
// not a value.
func (p *repairer) word(dst []byte, i int, inContainer bool) ([]byte, int, error) {
	src := p.src
	j := i
	for j < len(src) && bareWordByte[src[j]] {
		j++
	}
	w := src[i:j]
	if j == len(src) && inContainer && !p.strict {
		// A word may go on: "trueish" would be a string.
		if err := p.wordError(i, w, j); err.(*syntaxError).Truncated {
			return dst, i, err
		}
		return dst, i, p.cut(i, "the JSON ends inside a word: "+cutOffAdvice)
	}
	switch string(w) {
	case "true", "false", "null":
		return append(dst, w...), j, nil
	}
	lit, ok := literalWord(w)
	if !ok {
		if !p.strict && !p.python && inContainer {
			out, k, ok, err := p.bareString(dst, i)
			if ok || err != nil {
				return out, k, err
			}
		}
		return dst, i, p.wordError(i, w, j)
	}
	if p.strict {
		if s := string(w); s == "True" || s == "False" || s == "None" {
			return dst, i, p.fail(i, "'"+s+"' is Python; JSON writes it "+lit)
		}
		return dst, i, p.wordError(i, w, j)
	}
	if lit == "null" && (len(w) == 3 || len(w) == 8) {
		// NaN, inf, Infinity: literalWord's other nulls are 4 or 9 long.
		p.repairs |= repairNonFinite
	} else {
		p.repairs |= repairLiteral
	}
	return append(dst, lit...), j, nil
}

// literalWord is the JSON literal a bare word stands for: Python's True,
// False, None, other spellings of true, false and null, and the values JSON
// cannot hold (NaN, Infinity, undefined), which become null.
func literalWord(w []byte) (string, bool) {
	switch string(w) {
	case "true", "True", "TRUE":
		return "true", true
	case "false", "False", "FALSE":
		return "false", true
	case "null", "None", "NULL", "Null", "NONE", "undefined":
		return "null", true
	}
	switch len(w) {
	case 3, 8:
		if nonFiniteWord(w) {
			return "null", true
		}
	case 4:
		switch {
		case bytes.EqualFold(w, []byte("true")):
			return "true", true
		case bytes.EqualFold(w, []byte("null")), bytes.EqualFold(w, []byte("none")):
			return "null", true
		}
	case 5:
		if bytes.EqualFold(w, []byte("false")) {
			return "false", true
		}
	}
	return "", false
}

// wordStrByte: bytes of an unquoted word read as a string.
var wordStrByte = func() (t [256]bool) {
	for c := range 256 {
		b := byte(c)
		t[c] = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '$' || b == '-' || b == '.'
	}
	return t
}()

// bareString reads the unquoted word at src[i] as a string when a ',' or a
// closer follows it, the only reading there: "timeout": 30s is "30s". ok is
// false when something else follows (the caller reports the word).
func (p *repairer) bareString(dst []byte, i int) (out []byte, end int, ok bool, err error) {
	src := p.src
	n := len(src)
	j := i
	for j < n && wordStrByte[src[j]] {
		j++
	}
	if j < n && src[j] == '"' && !p.python {
		if k := skipWS(src, j+1, n); k >= n {
			return dst, i, false, p.cut(i, "the JSON ends after unquoted text, before what would tell whether it is a string: "+cutOffAdvice)
		}
		if missingOpeningQuote(src, i, j, ',') {
			// get_weather", : a word that lost its opening quote.
			p.repairs |= repairMissingOpeningQuote
			dst = append(dst, '"')
			dst = append(dst, src[i:j]...)
			return append(dst, '"'), j + 1, true, nil
		}
	}
	k := skipWS(src, j, n)
	if k >= n {
		return dst, i, false, p.cut(i, "the JSON ends after unquoted text, before what would tell whether it is a string: "+cutOffAdvice)
	}
	switch src[k] {
	case ',', '}', ']':
		p.repairs |= repairBareWord
		dst = append(dst, '"')
		dst = append(dst, src[i:j]...)
		return append(dst, '"'), j, true, nil
	}
	return dst, i, false, nil
}

// wordError explains why the word w (starting at off, ending at end) is no
// value.
func (p *repairer) wordError(off int, w []byte, end int) error {
	src := p.src
	if end == len(src) {
		if p.python && len(w) == 1 && (w[0] == 'u' || w[0] == 'U') {
			return p.cut(off, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
		}
		for _, lit := range [...]string{"true", "false", "null", "True", "False", "None"} {
			if len(w) < len(lit) && string(w) == lit[:len(w)] {
				return p.cut(off, "the JSON ends inside the literal '"+lit+"': "+cutOffAdvice)
			}
		}
	}
	s := string(w)
	if nonFiniteWord(w) {
		return p.fail(off, "'"+s+"' is not representable in JSON; use a number or null")
	}
	if s == "undefined" {
		return p.fail(off, "'undefined' is not a JSON value; use null or leave the member out")
	}
	if _, ok := literalWord(w); ok {
		return p.fail(off, "'"+s+"' is not JSON; write true, false or null")
	}
	if end < len(src) && (src[end] == '"' || src[end] == '\'') && pyStrPrefix(w) {
		return p.fail(off, "python string prefix '"+s+"' is not supported; write a plain quoted string")
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return p.fail(off, "expected a value, found unquoted text '"+s+"'; strings must be in double quotes")
}

// nonFiniteWord reports whether w names a float JSON cannot hold.
func nonFiniteWord(w []byte) bool {
	for _, l := range [...]string{"nan", "infinity", "inf"} {
		if bytes.EqualFold(w, []byte(l)) {
			return true
		}
	}
	return false
}

// strAt returns where the quote is when a string starts at i (python: after
// an optional u prefix), else -1.
func (p *repairer) strAt(i int) int {
	src := p.src
	switch c := src[i]; {
	case c == '"' || c == '\'':
		return i
	case p.python && (c == 'u' || c == 'U') && i+1 < len(src) && (src[i+1] == '"' || src[i+1] == '\''):
		return i + 1
	}
	return -1
}

// uAtEnd reports whether src[i] is a u that ends the input: maybe the
// prefix of a string cut off.
func (p *repairer) uAtEnd(i int) bool {
	return i == len(p.src)-1 && (p.src[i] == 'u' || p.src[i] == 'U')
}

// pyStrPrefix reports whether w is a Python string prefix other than u.
func pyStrPrefix(w []byte) bool {
	if len(w) == 0 || len(w) > 2 {
		return false
	}
	for _, c := range w {
		switch c | 0x20 {
		case 'r', 'b', 'f':
		default:
			return false
		}
	}
	return true
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
	p.repairs |= repairTypographicQuote
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
				return dst, i, p.cut(open, "the JSON ends right after a quote inside a string, and only what follows could tell whether it closes the string: "+cutOffAdvice)
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
			p.repairs |= repairControlCharacter
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
				p.repairs |= repairInvalidUTF8
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
	return dst, i, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
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
			p.repairs |= repairEscapedPayload
			sub := repairer{src: body}
			out, _, err := sub.str(append(dst, '"'), 0, '"', 0)
			p.repairs |= sub.repairs
			if err != nil {
				var se *syntaxError
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
	return dst, open, p.cut(open, "the JSON ends inside a string, before its closing quote: "+cutOffAdvice)
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
