package parse

// The arguments of a call as the model wrote them, made an object every
// consumer can read: decoded when encoded as a string, and refused when a
// number overflows, they nest too deep, or a string holds half a
// surrogate pair (repaired to U+FFFD).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// argumentsObject turns the model's arguments value into a JSON object:
// missing or null is {}, a JSON-encoded string is decoded (twice at most,
// for double-encoded arguments), anything else that is not an object is an
// error.
func (p *Parser) argumentsObject(args []byte) ([]byte, repairSet, error) {
	var repairs repairSet
	for level := range 3 {
		if level == 2 {
			// A string that held a string: encoded twice.
			if p.opts.NoRepair {
				return nil, 0, fmt.Errorf("arguments are a JSON string encoded twice; write them as a JSON object")
			}
			repairs |= repairDoubleEncoded
		}
		args = bytes.TrimSpace(args)
		if len(args) == 0 || string(args) == "null" {
			return []byte("{}"), repairs, nil
		}
		switch args[0] {
		case '{':
			return args, repairs, nil
		case '"':
			var s string
			if err := json.Unmarshal(args, &s); err != nil {
				return nil, 0, fmt.Errorf("arguments string is not a valid JSON string: %v", err)
			}
			s2 := []byte(s)
			if len(bytes.TrimSpace(s2)) == 0 {
				return []byte("{}"), repairs, nil
			}
			out, res, err := appendJSON(nil, s2, p.opts.NoRepair, false)
			if err != nil {
				return nil, 0, fmt.Errorf("arguments string does not hold a JSON object: %v", err)
			}
			if res.Truncated || res.N < len(bytes.TrimRight(s2, " \t\r\n")) {
				return nil, 0, fmt.Errorf("arguments string does not hold one complete JSON object")
			}
			repairs |= res.Repairs
			args = out
		default:
			return nil, 0, fmt.Errorf("arguments must be a JSON object, got %s", describeJSON(args))
		}
	}
	return nil, 0, fmt.Errorf("arguments are encoded as a string more than twice")
}

func outOfRangeUnless(skip bool, b []byte) []byte {
	if skip {
		return nil
	}
	return outOfRange(b)
}

// outOfRange returns the first number in the JSON value b that a float64
// cannot hold (1e999), or nil. Only an exponent can take a number there
// (big integers keep their digits), so b is scanned in full only when it
// has an 'e' or 'E' right after a digit.
func outOfRange(b []byte) []byte {
	if !exponentAfterDigit(b, 'e') && !exponentAfterDigit(b, 'E') {
		return nil
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case c == '-' || c-'0' < 10:
			s := i
			for i < len(b) && (b[i]-'0' < 10 || b[i] == '.' || b[i]|0x20 == 'e' || b[i] == '+' || b[i] == '-') {
				i++
			}
			num := b[s:i]
			i--
			if bytes.ContainsAny(num, "eE") {
				if _, err := strconv.ParseFloat(string(num), 64); errors.Is(err, strconv.ErrRange) {
					return num
				}
			}
		}
	}
	return nil
}

// exponentAfterDigit reports whether e follows a digit somewhere in b.
func exponentAfterDigit(b []byte, e byte) bool {
	for k := 0; ; {
		n := bytes.IndexByte(b[k:], e)
		if n < 0 {
			return false
		}
		k += n
		if k > 0 && b[k-1]-'0' < 10 {
			return true
		}
		k++
	}
}

// describeJSON names the kind of a JSON value for error messages.
func describeJSON(v []byte) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '[':
		return "an array"
	case v[0] == '"':
		return "a string"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// maxArgDepth bounds how deeply a call's arguments nest, as tools bounds
// the arguments it validates.
const maxArgDepth = 1000

// argsTooDeep reports whether the JSON value b nests deeper than
// maxArgDepth. Most arguments have fewer brackets than that in all, which
// two counts tell without a walk.
func argsTooDeep(b []byte) bool {
	// Each level takes an opener and a closer: short arguments cannot
	// nest that deep, and most need no look at all.
	if len(b) <= 2*maxArgDepth || bytes.Count(b, []byte("{"))+bytes.Count(b, []byte("[")) <= maxArgDepth {
		return false
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > maxArgDepth {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// fixLoneSurrogates returns b, strict JSON, with each \u escape of a
// surrogate that is not half of a pair replaced by \ufffd, and whether
// there was one. JSON allows such escapes, but they are no character, and
// readers such as jq refuse them.
func fixLoneSurrogates(b []byte) ([]byte, bool) {
	// Most arguments hold no escape at all: one fast search tells.
	if bytes.IndexByte(b, '\\') < 0 || !bytes.Contains(b, []byte(`\u`)) {
		return b, false
	}
	var out []byte
	from := 0
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] != 'u' || i+6 > len(b) {
			i++ // \\, \n, …: the byte after the backslash is escaped
			continue
		}
		r := hexRune(b[i+2 : i+6])
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if lo := hexRune(b[i+8 : i+12]); lo >= 0xDC00 && lo < 0xE000 {
					i += 11 // a pair
					continue
				}
			}
		case r >= 0xDC00 && r < 0xE000:
		default:
			i += 5
			continue
		}
		out = append(append(out, b[from:i]...), `\ufffd`...)
		from = i + 6
		i += 5
	}
	if out == nil {
		return b, false
	}
	return append(out, b[from:]...), true
}

// hexRune reads four hex digits; -1 when they are not.
func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			r = r<<4 | rune(c|0x20-'a'+10)
		default:
			return -1
		}
	}
	return r
}
