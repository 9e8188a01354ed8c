package jsonrepair

// The repairer's numbers and bare words: JSON's, Python's and
// JavaScript's spellings of numbers and literals, and unquoted words read
// as strings where one reading remains.

import "bytes"

// number copies a number starting at i, fixing the forms JSON lacks. A
// number that runs to the end of the input inside a container may have been
// cut, so it is refused there.
func (p *repairer) number(dst []byte, i int, inContainer bool) ([]byte, int, error) {
	src := p.src
	n := len(src)
	start := i
	mark := len(dst)
	cutNum := func() error {
		return p.cut(start, "the JSON ends inside a number: "+CutOffAdvice)
	}
	if src[i] == '-' {
		dst = append(dst, '-')
		i++
	} else if src[i] == '+' {
		if p.strict {
			return dst, i, p.fail(i, "'+' before a number is not allowed in JSON")
		}
		p.repairs |= NumberForm
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
			p.repairs |= NonFinite
			return append(dst[:mark], "null"...), j, nil
		}
		return dst, i, p.fail(start, "expected digits after '"+string(src[start])+"', found "+describeByte(src, i))
	}
	if intLen > 1 && src[d] == '0' {
		if p.strict {
			return dst, i, p.fail(start, "leading zero in a number; JSON does not allow it")
		}
		p.repairs |= NumberForm
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
			p.repairs |= NumberForm
			dst = append(dst, '0')
		}
		dst = append(dst, '.')
		if i == f {
			if p.strict {
				return dst, i, p.fail(start, "a JSON number needs a digit after '.'")
			}
			p.repairs |= NumberForm
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
		if err := p.wordError(i, w, j); err.(*SyntaxError).Truncated {
			return dst, i, err
		}
		return dst, i, p.cut(i, "the JSON ends inside a word: "+CutOffAdvice)
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
		p.repairs |= NonFinite
	} else {
		p.repairs |= Literal
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
			return dst, i, false, p.cut(i, "the JSON ends after unquoted text, before what would tell whether it is a string: "+CutOffAdvice)
		}
		if missingOpeningQuote(src, i, j, ',') {
			// get_weather", : a word that lost its opening quote.
			p.repairs |= MissingOpeningQuote
			dst = append(dst, '"')
			dst = append(dst, src[i:j]...)
			return append(dst, '"'), j + 1, true, nil
		}
	}
	k := skipWS(src, j, n)
	if k >= n {
		return dst, i, false, p.cut(i, "the JSON ends after unquoted text, before what would tell whether it is a string: "+CutOffAdvice)
	}
	switch src[k] {
	case ',', '}', ']':
		p.repairs |= BareWord
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
			return p.cut(off, "the JSON ends inside a string, before its closing quote: "+CutOffAdvice)
		}
		for _, lit := range [...]string{"true", "false", "null", "True", "False", "None"} {
			if len(w) < len(lit) && string(w) == lit[:len(w)] {
				return p.cut(off, "the JSON ends inside the literal '"+lit+"': "+CutOffAdvice)
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
