package jsonrepair

// The stream scanner of lenient JSON: where a value ends, found while its
// bytes still arrive, reading brackets and quotes as appendJSON does.

import (
	"bytes"
)

// Scanner finds where a lenient JSON value ends in a stream that arrives
// in pieces. It is resumable: call scan repeatedly with the same growing
// buffer (the value's bytes from its first byte, src[0] is '{' or '[', or '('
// when python), and it continues where it stopped, so total work is linear.
//
// It knows only what it needs to match brackets: strings in either quote
// (with backslash escapes), // /* */ # comments outside strings, and () as
// brackets when python. It reads quotes and mismatched closers as
// appendJSON reads them in lenient mode (quoteEnds, mismatchConsumes); where
// appendJSON succeeds without truncation on src[:end], the two agree on end.
type Scanner struct {
	off     int    // src[:off] is consumed; resume here
	depth   int    // open brackets
	open    []byte // the kinds of the open brackets (rpObject, rpArray) but python's
	quote   byte   // inside a string ending with this quote; 0 outside; 0xE2 typographic, '\\' escaped once more
	escBS   int    // in a string escaped once more: backslashes just read, unescaped
	comment byte   // inside a comment: '\n' for // and #, '*' for /* */
	python  bool
	done    bool
}

func (s *Scanner) Reset(python bool) {
	*s = Scanner{python: python, open: s.open[:0]}
}

// scan returns the length of the value (index just past its closing bracket) and
// true when the value is complete; false when more input is needed. A src
// that does not start with an opening bracket is reported as (0, true): no
// value here.
func (s *Scanner) Scan(src []byte) (end int, done bool) {
	if s.done {
		return s.off, true
	}
	i := s.off
	if i == 0 {
		if len(src) == 0 {
			return 0, false
		}
		if c := src[0]; c != '{' && c != '[' && !(c == '(' && s.python) {
			s.done = true
			return 0, true
		}
		s.depth = 1
		s.open = append(s.open[:0], bracketKind(src[0]))
		i = 1
	}
	n := len(src)
	for i < n {
		if s.quote == '\\' {
			j, closed := scanSkipEscaped(src, i, &s.escBS)
			i = j
			if !closed {
				break
			}
			s.quote = 0
			continue
		}
		if s.quote == 0xE1 {
			j, closed := scanSkipCurlySingle(src, i)
			i = j
			if !closed {
				break
			}
			s.quote = 0
			continue
		}
		if s.quote == 0xE2 {
			j, closed := scanSkipCurly(src, i)
			i = j
			if !closed {
				break
			}
			s.quote = 0
			continue
		}
		if s.quote != 0 {
			j, closed := scanSkipString(src, i, s.quote, !s.python)
			i = j
			if !closed {
				break
			}
			s.quote = 0
			continue
		}
		if s.comment != 0 {
			if s.comment == '\n' {
				j := bytes.IndexByte(src[i:], '\n')
				if j < 0 {
					i = n
					break
				}
				i += j + 1
			} else {
				j := bytes.Index(src[i:], []byte("*/"))
				if j < 0 {
					// A '*' at the very end may start the "*/": look at it again.
					if i < n-1 {
						i = n - 1
					}
					break
				}
				i += j + 2
			}
			s.comment = 0
			continue
		}
		// Outside strings: skip what cannot change the depth.
		for i < n && !scanSpecial[src[i]] {
			i++
		}
		if i >= n {
			break
		}
		c, w := src[i], 1
		if c >= 0x80 {
			// Typographic quotes and fullwidth brackets, as appendJSON
			// reads them in lenient mode.
			if s.python || n-i >= 3 && !curlyQuote(src, i) && !curlySingle(src, i) && fullwidthPunct(src, i) == 0 {
				i++
				continue
			}
			if n-i < 3 {
				s.off = i // the next bytes decide
				return 0, false
			}
			if curlyQuote(src, i) {
				s.quote = 0xE2
				i += 3
				continue
			}
			if curlySingle(src, i) {
				s.quote = 0xE1 // closed by ’, as quoteEnds decides
				i += 3
				continue
			}
			c, w = fullwidthPunct(src, i), 3
		}
		switch c {
		case '"', '\'':
			if c == '"' && !s.python && i > 0 && wordStrByte[src[i-1]] {
				// The end of a word that lost its opening quote, as
				// appendJSON reads it: no string starts here.
				yes, more := quoteAfterWord(src, i)
				if more {
					s.off = i
					return 0, false
				}
				if yes {
					i++
					continue
				}
			}
			s.quote = c
			i++
		case '\\':
			// \" outside a string opens one escaped once more.
			if s.python {
				i++
				continue
			}
			if i+1 >= n {
				s.off = i
				return 0, false
			}
			if src[i+1] == '"' {
				s.quote, s.escBS = '\\', 0
				i += 2
				continue
			}
			i++
		case '{', '[':
			s.depth++
			s.open = append(s.open, bracketKind(c))
			i += w
		case '}', ']':
			consume := true
			if !s.python && len(s.open) > 0 {
				if top := s.open[len(s.open)-1]; c != kindCloser(top) {
					consume = mismatchConsumes(c, s.open)
				}
				s.open = s.open[:len(s.open)-1]
			}
			s.depth--
			if consume {
				i += w
			}
			if s.depth == 0 {
				s.off, s.done = i, true
				return i, true
			}
		case '(', ')':
			if s.python {
				if c == '(' {
					s.depth++
				} else if s.depth--; s.depth == 0 {
					s.off, s.done = i+1, true
					return i + 1, true
				}
			} else if c == '(' {
				// A tuple inside a JSON-ish value, which appendJSON reads
				// as an array: its closers count as the others do.
				s.depth++
				s.open = append(s.open, rpTuple)
			} else if len(s.open) > 0 && s.open[len(s.open)-1] == rpTuple {
				s.depth--
				s.open = s.open[:len(s.open)-1]
			}
			i++
		case '#':
			s.comment = '\n'
			i++
		case '/':
			if i+1 >= n {
				// "/" or "//" or "/*": the next byte decides; wait for it.
				s.off = i
				return 0, false
			}
			switch src[i+1] {
			case '/':
				s.comment = '\n'
				i += 2
			case '*':
				s.comment = '*'
				i += 2
			default:
				i++
			}
		default: // a fullwidth ':' or ','
			i += w
		}
	}
	s.off = i
	return 0, false
}

func bracketKind(c byte) byte {
	if c == '{' {
		return rpObject
	}
	return rpArray
}

// scanSkipString returns the index just past the string's closing quote q,
// scanning from i (inside the string, not after a pending backslash), and
// true; or, when src ends first, where to resume and false. With look, the
// quotes are read as appendJSON reads them in lenient mode (quoteEnds); a
// string that lacked its closing quote ends where the next one starts,
// which is returned as the end: the caller then sees that quote open it.
func scanSkipString(src []byte, i int, q byte, look bool) (int, bool) {
	for {
		j := bytes.IndexByte(src[i:], q)
		if j < 0 {
			// Resume on a final backslash that still escapes what comes next.
			k := len(src)
			for k > i && src[k-1] == '\\' {
				k--
			}
			if (len(src)-k)%2 == 1 {
				return len(src) - 1, false
			}
			return len(src), false
		}
		k := i + j
		// The quote is escaped when an odd run of backslashes precedes it.
		b := k
		for b > i && src[b-1] == '\\' {
			b--
		}
		if (k-b)%2 == 0 {
			if !look {
				return k + 1, true
			}
			switch quoteEndsAt(src, k, q) {
			case quoteClose:
				return k + 1, true
			case quoteCloseBefore:
				return k, true
			case quoteMore:
				return k, false
			}
		}
		i = k + 1
	}
}

// scanSkipEscaped is scanSkipString for a string escaped once more, read
// as escStr reads it; bs carries its count of backslashes across calls.
func scanSkipEscaped(src []byte, i int, bs *int) (int, bool) {
	n := len(src)
	for i < n {
		b, w := src[i], 1
		if b == '\\' {
			if i+5 >= n && i+1 < n && src[i+1] == 'u' || i+1 >= n {
				return i, false // the next bytes decide
			}
			b, w = outerEscape(src, i)
			if w == 6 && b == 'u' {
				b = 0
			}
		}
		if b == '"' && *bs%2 == 0 {
			return i + w, true
		}
		if b == '\\' {
			*bs++
		} else {
			*bs = 0
		}
		i += w
	}
	return i, false
}

// scanSkipCurlySingle is scanSkipString for a string opened by ‘: it ends
// at a ’ that quoteEnds says ends it (the others are apostrophes).
func scanSkipCurlySingle(src []byte, i int) (int, bool) {
	for {
		j := bytes.Index(src[i:], []byte("\xe2\x80\x99"))
		if j < 0 {
			// Resume where a ’ cut by the end may start.
			k := max(i, len(src)-2)
			for k < len(src) && src[k] != 0xE2 {
				k++
			}
			return k, false
		}
		k := i + j
		switch quoteEnds(src, k+2, 0) {
		case quoteClose:
			return k + 3, true
		case quoteMore:
			return k, false
		}
		i = k + 3
	}
}

// scanSkipCurly is scanSkipString for a string opened by a typographic
// double quote: it ends at the next one, whatever precedes it.
func scanSkipCurly(src []byte, i int) (int, bool) {
	for {
		j := bytes.Index(src[i:], []byte("\xe2\x80"))
		if j < 0 {
			if len(src) > i && src[len(src)-1] == 0xE2 {
				return len(src) - 1, false
			}
			return len(src), false
		}
		k := i + j
		if k+2 >= len(src) {
			return k, false
		}
		if src[k+2] == 0x9C || src[k+2] == 0x9D {
			return k + 3, true
		}
		i = k + 2
	}
}

// scanSpecial marks the bytes the scanner must look at outside strings.
var scanSpecial = [256]bool{'"': true, '\'': true, '{': true, '[': true, '}': true, ']': true,
	'(': true, ')': true, '#': true, '/': true, 0xE2: true, 0xEF: true, '\\': true}
