package jsonrepair

// The repairer's state machine: run reads one token a turn and hands it to
// the method of the state it is in (what the next token may be: see the rp
// constants). Each method moves the cursor (p.i), appends to dst, and says
// whether the value is complete.

import "bytes"

// cursor is where run is in the input and what it expects there. It lives
// in the repairer, not in run's locals, so that each state is a method of
// its own.
type cursor struct {
	i     int // the next byte of src to read
	depth int // how many brackets are open (p.open holds them)
	state int // an rp state: what the next token may be
	start int // where the value begins in dst
	// lastStr: the token just completed was a string (python
	// concatenation, the missing-comma rule).
	lastStr bool
	// gap and nl: whitespace or a comment came before the current token,
	// and a newline was among it (the missing-comma and -colon rules).
	gap, nl bool
	// loose: neither strict nor python, so the repairs only JSON-ish
	// text needs apply (mismatched closers, fullwidth punctuation, quotes
	// that the structure after them decides).
	loose bool
}

// run reads the value at the start of p.src and appends it to dst: each
// turn skips the space before a token and hands the token to its state's
// method, until a method says the value is complete or the input ends.
func (p *repairer) run(dst []byte) ([]byte, Result, error) {
	p.start = len(dst)
	p.state = rpValue
	if bytes.HasPrefix(p.src, []byte("\uFEFF")) {
		if p.strict {
			return dst, Result{}, p.fail(0, "a byte order mark (U+FEFF) before the JSON; remove it")
		}
		p.repairs |= BOM
		p.i = 3
	}
	p.loose = !p.strict && !p.python
	// Bytes that may start whitespace or a comment: space reads them.
	// Outside Python it also reads \n and U+00A0 (which strict mode
	// refuses there).
	spaceMask := spaceAlways
	if !p.python {
		spaceMask |= spaceNotPython
	}
	src := p.src
	for {
		// Most tokens follow the last at once: the call to skipSpace is
		// made only when a byte that starts space is there.
		p.gap, p.nl = false, false
		if p.i < len(src) && spaceStart[src[p.i]]&spaceMask != 0 {
			if err := p.skipSpace(spaceMask); err != nil {
				return dst, Result{}, err
			}
		}
		if p.i >= len(src) {
			if p.state == rpNext && p.lastStr && p.python {
				// Python would join a string that followed to this one.
				return dst, Result{}, p.cut(p.valOff, "the JSON ends right after a string, which Python would join to a string that follows: "+CutOffAdvice)
			}
			return p.eof(dst)
		}
		c, w := src[p.i], 1
		var err error
		if c >= 0xE2 && p.loose {
			if c, w, err = p.wide(c); err != nil {
				return dst, Result{}, err
			}
		}
		var done bool
		switch p.state {
		case rpNext:
			dst, done, err = p.next(dst, c, w)
		case rpColon:
			dst, done, err = p.colon(dst, c, w)
		case rpFirstKey, rpKey:
			dst, done, err = p.key(dst, c, w)
		default: // rpValue, rpFirstElem, rpElem
			dst, done, err = p.value(dst, c, w)
		}
		if err != nil {
			return dst, Result{}, err
		}
		if done {
			if p.lastStr && p.python {
				// A top-level python string goes on through adjacent
				// literals: f(a='x' 'y') passes 'xy'.
				return p.joinStrings(dst, p.i, p.start)
			}
			return dst, Result{N: p.i, Cut: len(dst) - p.start}, nil
		}
	}
}

// skipSpace skips the whitespace and comments before the next token (a
// byte at p.i starts them) and records in gap and nl what it skipped.
func (p *repairer) skipSpace(spaceMask uint8) error {
	src, i, n := p.src, p.i, len(p.src)
	// Plain whitespace, most often a line break and its indent, is
	// skipped here; comments and the rest are space's.
	j := i
	for ; j < n; j++ {
		if c := src[j]; c == '\n' {
			p.nl = true
		} else if c != ' ' && c != '\t' && c != '\r' {
			break
		}
	}
	p.gap, p.i = j > i, j
	if j < n && spaceStart[src[j]]&spaceMask != 0 {
		k, g, l, err := p.space(j)
		if err != nil {
			return err
		}
		p.i, p.gap, p.nl = k, p.gap || g, p.nl || l
	}
	return nil
}

// wide is the token at p.i, whose first byte c starts a character of
// three bytes or more, as the states read it, and how many bytes of src it
// takes: fullwidth punctuation reads as its ASCII form; anything else is
// the byte itself.
func (p *repairer) wide(c byte) (byte, int, error) {
	src, i, n := p.src, p.i, len(p.src)
	w := 1
	if c == 0xEF {
		// Fullwidth ｛ ｝ ［ ］ ： ， (CJK input methods) read as ASCII.
		if f := fullwidthPunct(src, i); f != 0 {
			p.repairs |= Fullwidth
			return f, 3, nil
		}
		if fullwidthPartial(src, i) {
			return c, w, p.cut(i, "the JSON ends inside a character: "+CutOffAdvice)
		}
	} else if c == 0xE2 && n-i < 3 && (n-i == 1 || src[i+1] == 0x80) {
		return c, w, p.cut(i, "the JSON ends inside a character: "+CutOffAdvice)
	}
	return c, w, nil
}

// comma takes the ',' at p.i (w bytes) after a value in a container: the
// next token is a key in an object, an element otherwise.
func (p *repairer) comma(dst []byte, w int) []byte {
	kind := p.open.at(p.depth - 1)
	if kind == rpTuple {
		p.open.set(p.depth-1, rpTupleComma)
	}
	dst = append(dst, ',')
	p.commaOff = p.i
	p.i = oneSpace(p.src, p.i+w)
	p.lastStr = false
	if kind == rpObject {
		if p.depth == 1 {
			p.last = len(dst) - p.start
		}
		p.state = rpKey
	} else {
		p.state = rpElem
	}
	return dst
}

// join reads, in python, a string right after the one just read as part
// of it ('a' 'b' is 'ab').
func (p *repairer) join(dst *[]byte) (joined bool, err error) {
	*dst, p.i, joined, err = p.joinNext(*dst, p.i)
	return joined, err
}

// closeOne appends the closer of the innermost bracket; the value is done
// when it was the outermost.
func (p *repairer) closeOne(dst []byte, kind byte) ([]byte, bool) {
	dst = append(dst, kindCloserOut(kind))
	p.depth--
	p.lastStr = false
	p.state = rpNext
	return dst, p.depth == 0
}

// next is rpNext: after a value in a container, a ',' or the closer; with
// repair, a closer of another bracket, or a missing comma.
func (p *repairer) next(dst []byte, c byte, w int) ([]byte, bool, error) {
	src, i := p.src, p.i
	kind := p.open.at(p.depth - 1)
	if c == ',' {
		return p.comma(dst, w), false, nil
	}
	if c == kindCloser(kind) {
		if kind == rpTuple {
			return dst, false, p.fail(i, "a value in parentheses with no comma is not a tuple in Python; write a list [...] or drop the parentheses")
		}
		p.i += w
		dst, done := p.closeOne(dst, kind)
		return dst, done, nil
	}
	if p.loose && (c == '}' || c == ']') {
		// A closer that is not the innermost bracket's.
		p.repairs |= MismatchedCloser
		if p.open.mismatchConsumes(c, p.depth) {
			p.i += w
		}
		dst, done := p.closeOne(dst, kind)
		return dst, done, nil
	}
	if p.python && p.lastStr {
		if joined, err := p.join(&dst); err != nil || joined {
			return dst, false, err
		}
	}
	// Values side by side with no space: }{ or ][ in an array, and a
	// quoted key right after a value in an object.
	adjacent := !p.gap && p.loose && (kind == rpObject && (c == '"' || c == '\'') ||
		kind == rpArray && (c == '{' || c == '[') && (dst[len(dst)-1] == '}' || dst[len(dst)-1] == ']'))
	if (p.gap || adjacent) && !p.strict && c != '-' && c != '+' {
		// A missing comma is inserted when whitespace separates two
		// values. In an object the next token must then be a key and a
		// ':' must follow it, which confirms the reading. In an array,
		// quoteEnds has already read a quote followed by text as part of
		// its string ("say "hi" now"); in python mode, where it does not,
		// a string next to another value on the same line takes a
		// newline. Never before a sign: [1 -2] is a subtraction in both
		// Python and JavaScript.
		if kind == rpObject {
			if c == '"' || c == '\'' || bareKeyByte[c] {
				p.repairs |= MissingComma
				dst = append(dst, ',')
				if p.depth == 1 {
					p.last = len(dst) - p.start
				}
				p.state = rpKey
				p.commaOff = -1
				p.lastStr = false
				return dst, false, nil
			}
		} else if startsValue(c, p.python) && (p.nl || adjacent || p.loose || (!p.lastStr && c != '"' && c != '\'')) {
			p.repairs |= MissingComma
			if kind == rpTuple {
				p.open.set(p.depth-1, rpTupleComma)
			}
			dst = append(dst, ',')
			p.state = rpElem
			p.commaOff = -1
			p.lastStr = false
			return dst, false, nil
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
	} else if p.gap && (c == '-' || c == '+') {
		msg += "; without a ',' the sign reads as arithmetic"
	} else if p.lastStr && !p.gap {
		msg += "; if the string before it was meant to contain a '\"', escape it as \\\""
	}
	return dst, false, p.fail(i, msg)
}

// colon is rpColon: after a key, its ':'; with repair, a missing one, and
// in python the ',' or '}' that makes a '{' a set.
func (p *repairer) colon(dst []byte, c byte, w int) ([]byte, bool, error) {
	if c == ':' {
		dst = append(dst, ':')
		p.i += w
		p.state = rpValue
		p.lastStr = false
		return dst, false, nil
	}
	if p.python && p.lastStr {
		if joined, err := p.join(&dst); err != nil || joined {
			return dst, false, err
		}
	}
	if p.python && (c == ',' || c == '}') && p.keyDst > 0 && dst[p.keyDst-1] == '{' && p.open.at(p.depth-1) == rpObject {
		// {'a', 'b'}: a set, the way Python writes one; LFM2's own
		// tooling reads it as a list.
		p.repairs |= PySet
		dst[p.keyDst-1] = '['
		p.open.set(p.depth-1, rpPySet)
		if p.depth == 1 {
			p.last = 0
		}
		p.state = rpNext
		return dst, false, nil
	}
	if !p.strict && p.gap && !p.lastStr && (c|0x20 >= 'a' && c|0x20 <= 'z') {
		// {invalid json}: a bare word, then another, is words in
		// braces, not a member: reading {"invalid":"json"} would take
		// three repairs to invent it.
		return dst, false, p.fail(p.i, "expected ':' after object key '"+string(bytes.TrimSpace(p.src[p.keyOff:p.i]))+"', found "+describeByte(p.src, p.i)+`; two bare words in braces are not a member: write {"key": "value"}`)
	}
	if !p.strict && p.gap && c != ',' && c != '}' && c != ']' && startsValue(c, p.python) {
		// {"a" 1}: a key, then a value; only a ':' can be meant.
		p.repairs |= MissingColon
		dst = append(dst, ':')
		p.state = rpValue
		p.lastStr = false
		return dst, false, nil
	}
	msg := "expected ':' after object key, found " + describeByte(p.src, p.i)
	if p.lastStr && !p.gap {
		msg += "; if the key was meant to contain a '\"', escape it as \\\""
	}
	return dst, false, p.fail(p.i, msg)
}

// key is rpFirstKey and rpKey: after '{' or a ',' in an object, a key or
// the '}'; with repair, extra commas, a ']' meant for the '{' or for the
// array around it, and keys quoted otherwise or not at all.
func (p *repairer) key(dst []byte, c byte, w int) ([]byte, bool, error) {
	src, i, n := p.src, p.i, len(p.src)
	var err error
	if (c == ',' || c == ']') && p.loose {
		if c == ',' {
			// A leading comma, or one more before the '}'.
			p.i, err = p.extraComma(i+w-1, p.state == rpFirstKey, '}')
			return dst, false, err
		}
		p.repairs |= MismatchedCloser
		if !p.open.mismatchConsumes(']', p.depth) {
			// The ']' closes the array around this object: close the
			// object first, and leave the ']' to rpNext.
			if p.state == rpKey {
				dst = dst[:len(dst)-1]
				p.last = 0
			}
			dst, _ = p.closeOne(dst, rpObject)
			return dst, false, nil
		}
		c = '}' // it can only be meant for the '{'
	}
	if c == '}' {
		if p.state == rpKey {
			if err := p.trailingComma(p.commaOff); err != nil {
				return dst, false, err
			}
			dst = dst[:len(dst)-1]
			p.last = 0 // the comma it pointed past is gone
		}
		p.i += w
		dst, done := p.closeOne(dst, rpObject)
		return dst, done, nil
	}
	p.keyOff = i
	p.keyDst = len(dst)
	var quoted bool
	if dst, i, quoted, err = p.quoted(dst, c, p.loose); err != nil {
		return dst, false, err
	}
	switch {
	case quoted:
		p.lastStr = true
	case bareKeyByte[c]:
		if dst, i, err = p.bareKey(dst, i); err != nil {
			return dst, false, err
		}
		p.lastStr = false
	case c == ',':
		return dst, false, p.fail(i, "expected an object key, found another ','; remove the extra comma or add the missing member")
	case c == '.' || c == 0xE2:
		if err := p.elided(i); err != nil {
			return dst, false, err
		}
		return dst, false, p.fail(i, "expected an object key (a string in double quotes), found "+describeByte(src, i)+quoteAdvice(src, i))
	default:
		if isCloseBracket(c) {
			return dst, false, p.fail(i, "expected an object key or '}', found "+describeByte(src, i)+"; the innermost open bracket is '{'")
		}
		return dst, false, p.fail(i, "expected an object key (a string in double quotes), found "+describeByte(src, i)+quoteAdvice(src, i))
	}
	p.state = rpColon
	if i < n && src[i] == ':' {
		// The ':' almost always follows the key at once: take it here,
		// as rpColon would, rather than on another turn.
		dst = append(dst, ':')
		i = oneSpace(src, i+1)
		p.state = rpValue
		p.lastStr = false
	}
	p.i = i
	return dst, false, nil
}

// bareKey reads the unquoted key at i ({a: 1}), or one that lost its
// opening quote ({a": 1}), and appends it quoted.
func (p *repairer) bareKey(dst []byte, i int) ([]byte, int, error) {
	src, n := p.src, len(p.src)
	j := i
	for j < n && bareKeyByte[src[j]] {
		j++
	}
	if j == n {
		return dst, i, p.cut(i, "the JSON ends inside an object key: "+CutOffAdvice)
	}
	if q := src[j]; (q == '"' || q == '\'') && pyStrPrefix(src[i:j]) {
		return dst, i, p.fail(i, "python string prefix '"+string(src[i:j])+"' is not supported; write a plain quoted string")
	}
	if p.strict {
		return dst, i, p.fail(i, "unquoted object key '"+string(src[i:j])+"'; JSON keys are strings in double quotes")
	}
	p.repairs |= UnquotedKey
	if src[j] == '"' && !p.python && skipWS(src, j+1, n) >= n {
		// c" at the end: a key that lost its opening quote, or a
		// string's start; only the next bytes can tell.
		return dst, i, p.cut(i, "the JSON ends inside an object key: "+CutOffAdvice)
	}
	if src[j] == '"' && !p.python && missingOpeningQuote(src, i, j, ':') {
		// c": the key lost its opening quote, not its closing one.
		p.repairs = p.repairs&^UnquotedKey | MissingOpeningQuote
		j++
	}
	dst = append(dst, '"')
	dst = append(dst, bytes.TrimSuffix(src[i:j], []byte{'"'})...)
	dst = append(dst, '"')
	return dst, j, nil
}

// quoted reads the string at p.i (c its first byte) when one starts
// there, in any of the forms models write: in '"' or '\”, in
// typographic quotes, escaped once more as a whole payload, or in python
// with a u prefix. inside: quoteEnds decides where a '"' string ends (its
// inner quotes may be unescaped). It returns where the string ends, or
// p.i and false when none starts there.
func (p *repairer) quoted(dst []byte, c byte, inside bool) ([]byte, int, bool, error) {
	src, i, n := p.src, p.i, len(p.src)
	var err error
	switch {
	case c == '"' || c == '\'':
		// Most strings need no re-escaping: they are copied whole. (Not
		// '...' ones: plainStrEnd would scan on to the next '"'.)
		if c == '"' {
			if e := plainStrEnd(src, i+1); e > 0 && (!inside || quoteEndsAt(src, e-1, '"') == quoteClose) {
				return append(dst, src[i:e]...), e, true, nil
			}
		}
		p.look = inside
		dst, i, err = p.strStart(dst, i)
	case p.python && (c == 'u' || c == 'U') && i+1 < n && (src[i+1] == '"' || src[i+1] == '\''):
		p.repairs |= StringPrefix
		dst, i, err = p.strStart(dst, i+1)
	case c == 0xE2 && p.loose && (curlyQuote(src, i) || curlySingle(src, i)):
		dst, i, err = p.curlyStr(dst, i)
	case c == '\\' && p.loose && i+1 < n && src[i+1] == '"':
		dst, i, err = p.escStr(dst, i)
	default:
		return dst, i, false, nil
	}
	return dst, i, true, err
}

// value is rpValue, rpFirstElem and rpElem: a value; in an array also the
// closer (or, with repair, extra commas and another bracket's closer).
func (p *repairer) value(dst []byte, c byte, w int) ([]byte, bool, error) {
	if p.state != rpValue && (isCloseBracket(c) || c == ',') {
		return p.elemEnd(dst, c, w)
	}
	src, i, n := p.src, p.i, len(p.src)
	var err error
	p.lastStr = false
	p.valOff = i
	switch {
	case c == '{':
		p.open.set(p.depth, rpObject)
		p.depth++
		dst = append(dst, '{')
		if p.depth == 1 {
			p.last = len(dst) - p.start
		}
		p.i += w
		p.state = rpFirstKey
		return dst, false, nil
	case c == '[':
		p.open.set(p.depth, rpArray)
		p.depth++
		dst = append(dst, '[')
		p.i += w
		p.state = rpFirstElem
		return dst, false, nil
	case c == '(' && (p.python || p.loose && p.depth > 0):
		// A Python tuple, in a pythonic call or inside a JSON-ish body
		// ({"point": (1, 2)}): an array is the one reading. Not at the
		// top of a JSON body, where a '(' is not the start of arguments.
		p.repairs |= Tuple
		p.open.set(p.depth, rpTuple)
		p.depth++
		dst = append(dst, '[')
		p.i++
		p.state = rpFirstElem
		return dst, false, nil
	}
	var quoted bool
	if dst, i, quoted, err = p.quoted(dst, c, p.loose && p.depth > 0); err != nil {
		return dst, false, err
	}
	switch {
	case quoted:
		p.lastStr = true
	case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
		if c == '.' {
			if err := p.elided(i); err != nil {
				return dst, false, err
			}
		}
		if dst, i, err = p.number(dst, i, p.depth > 0); err != nil {
			return dst, false, err
		}
	case bareWordByte[c]:
		if dst, i, err = p.word(dst, i, p.depth > 0); err != nil {
			return dst, false, err
		}
	default:
		if err := p.elided(i); err != nil {
			return dst, false, err
		}
		if p.state == rpValue && p.depth > 0 {
			return dst, false, p.fail(i, "expected a value after ':', found "+describeByte(src, i)+quoteAdvice(src, i))
		}
		return dst, false, p.fail(i, "expected a JSON value, found "+describeByte(src, i)+quoteAdvice(src, i))
	}
	p.i = i
	if p.depth == 0 {
		return dst, true, nil
	}
	p.state = rpNext
	if i < n && src[i] == ',' {
		// A ',' right after the value is the common case: take it here,
		// as rpNext does, rather than on another turn.
		dst = p.comma(dst, 1)
	}
	return dst, false, nil
}

// elemEnd is value's part for a closer or a ',' where an array element
// (or the first) may stand: the end of the array, or with repair a
// leading or repeated comma, or another bracket's closer.
func (p *repairer) elemEnd(dst []byte, c byte, w int) ([]byte, bool, error) {
	i := p.i
	kind := p.open.at(p.depth - 1)
	if c == ',' && p.loose && kind == rpArray {
		// A leading comma, or one more before the ']'.
		var err error
		p.i, err = p.extraComma(i+w-1, p.state == rpFirstElem, ']')
		return dst, false, err
	}
	consume := true
	if p.loose && (c == '}' || c == ']') && c != kindCloser(kind) {
		p.repairs |= MismatchedCloser
		consume = p.open.mismatchConsumes(c, p.depth)
		c = kindCloser(kind)
	}
	if c == ',' {
		if p.state == rpElem {
			return dst, false, p.fail(i, "two commas in a row (an empty element); remove the extra comma or add the missing value")
		}
		return dst, false, p.fail(i, "expected a value or '"+string(kindCloser(kind))+"', found ','")
	}
	if c != kindCloser(kind) {
		return dst, false, p.fail(i, "expected a value or '"+string(kindCloser(kind))+"', found "+describeByte(p.src, i)+"; the innermost open bracket is '"+string(kindOpener(kind))+"'")
	}
	if p.state == rpElem {
		if err := p.trailingComma(p.commaOff); err != nil {
			return dst, false, err
		}
		dst = dst[:len(dst)-1]
	}
	if consume {
		p.i += w
	}
	dst, done := p.closeOne(dst, kind)
	return dst, done, nil
}
