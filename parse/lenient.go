package parse

// Lenient JSON: the JSON repair of toolcall parse (README.md, How it
// decides: lenient, never inventive).
//
// Models write arguments that are almost JSON: trailing commas, single
// quotes, Python literals, raw newlines in strings, a missing closing brace
// at the end of the output. appendJSON transcodes such text to strict,
// compact JSON in one pass, and refuses, with an error a model can act on,
// whatever it cannot read without guessing. Everything here is linear in the
// input, nesting included: an explicit stack replaces recursion, so 10,000
// levels cost what 10,000 bytes cost.
//
// What is repaired (lenient mode; each sets repairResult.repaired):
//   - trailing commas before '}' , ']' or ')', a leading comma ([,1]) and
//     repeated ones before a closer ({"a":1,,});
//   - single-quoted strings and keys ('it\'s'; a '"' inside is escaped);
//   - unquoted keys made of letters, digits, '_', '$' and '-' ({a: 1});
//   - True, False, None (Python), other spellings of true/false/null
//     (TRUE, Null), undefined, NaN and Infinity in any case (→ null);
//   - a bare word before ',' or a closer: a string ("timeout": 30s);
//   - quotes left unescaped inside a string: a quote ends a string only
//     where quoteEnds says so; a string missing its closing quote before
//     the next key ends before the ", ";
//   - comments: // line, /* block */ and # line, outside strings;
//   - raw control characters in strings (newline, tab, ...) → escapes;
//   - invalid UTF-8 in strings → U+FFFD;
//   - escapes JSON lacks: \' → ', \xHH → U+00HH, a backslash-newline line
//     continuation is dropped, any other unknown escape or a \u without
//     four hex digits keeps its backslash (\d → \\d, C:\Users →
//     C:\\Users), as Python reads it: in model output such escapes are
//     regexes and Windows paths far more often than JS's "drop the
//     backslash" intent;
//   - a payload escaped once more as a whole ({\"a\": 1});
//   - a missing comma where whitespace separates two values, or between
//     }{ and ][ in an array and before a quoted key in an object, except
//     before a sign (arithmetic);
//   - a closer that is not the innermost bracket's (mismatchConsumes);
//   - a byte order mark, non-breaking spaces, typographic quotes (“ ” and
//     ‘ ’, where ’ closes only as quoteEnds says: it is the apostrophe too)
//     and fullwidth ｛ ｝ ［ ］ ： ， used as JSON's;
//   - numbers: +1 → 1, .5 → 0.5, 1. → 1.0, 07 → 7 (vLLM sees month=07);
//   - missing closing brackets at the end of the input (truncated, cut);
//   - python: tuples (1, 2) → [1,2], u'' strings, adjacent strings
//     concatenated ('a' 'b' → "ab"), as Python itself reads them.
//
// What is refused, because any reading would be a guess:
//   - a cut payload: the input ends inside a string, number, word, key or
//     literal, right after a key, ':' or ',', or right after a string's
//     closing quote inside a container (it could be a quote left
//     unescaped: only what follows could tell) (Truncated error, never
//     completed);
//   - elisions: ... or … where a value or key belongs;
//   - an empty element between values: [1,,2], {"a":1,,"b":2};
//   - two words in a row as a value, hex, octal, 1_000, 1j numbers;
//     r'', b'', f'' strings;
//   - escapes whose meaning differs between Python and JavaScript (\a, \v,
//     \0-\9) or that are malformed (\xZ), and a string that mixes a JSON
//     escape of a control character (\n, \b) with a backslash that escapes
//     nothing (C:\users\bob), outside python mode;
//   - (x) in python: a parenthesized value, not a tuple;
//   - quotes left unescaped where quoteEnds reads the text after them as a
//     next key (word:), which then fails to parse.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// jsonScanner finds where a lenient JSON value ends in a stream that arrives
// in pieces. It is resumable: call scan repeatedly with the same growing
// buffer (the value's bytes from its first byte, src[0] is '{' or '[', or '('
// when python), and it continues where it stopped, so total work is linear.
//
// It knows only what it needs to match brackets: strings in either quote
// (with backslash escapes), // /* */ # comments outside strings, and () as
// brackets when python. It reads quotes and mismatched closers as
// appendJSON reads them in lenient mode (quoteEnds, mismatchConsumes); where
// appendJSON succeeds without truncation on src[:end], the two agree on end.
type jsonScanner struct {
	off     int    // src[:off] is consumed; resume here
	depth   int    // open brackets
	open    []byte // the kinds of the open brackets (rpObject, rpArray) but python's
	quote   byte   // inside a string ending with this quote; 0 outside; 0xE2 typographic, '\\' escaped once more
	escBS   int    // in a string escaped once more: backslashes just read, unescaped
	comment byte   // inside a comment: '\n' for // and #, '*' for /* */
	python  bool
	done    bool
}

func (s *jsonScanner) reset(python bool) {
	*s = jsonScanner{python: python, open: s.open[:0]}
}

// scan returns the length of the value (index just past its closing bracket) and
// true when the value is complete; false when more input is needed. A src
// that does not start with an opening bracket is reported as (0, true): no
// value here.
func (s *jsonScanner) scan(src []byte) (end int, done bool) {
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

// What a quote inside a string of a container means, read from the bytes
// after it (quoteEnds). Strict JSON never needs anything but quoteClose.
const (
	quoteClose       = iota // it ends the string
	quoteInner              // it is part of the string: the model forgot the backslash
	quoteCloseBefore        // a key starts at it: the string lacked its closing quote before the ", "
	quoteMore               // the input ends before the bytes that decide
)

// quoteWindow bounds how far quoteEnds looks: past it, the quote closes
// the string, as it always did. It keeps the scan linear, and the stream
// scanner's resume point within this distance of what it has seen.
const quoteWindow = 64

// quoteEnds decides whether the quote q at src[i], found unescaped inside a
// string that is inside a container, ends the string. Models forget to
// escape quotes in text ("a 24" screen") and shell commands (grep "x" f);
// such a quote is read as part of the string when what follows it could not
// follow a string: a closing quote is followed by ':', a closer, a ','
// before a key or a value, or a missing comma's next key or value. The
// decision depends only on the bytes after the quote, so that the scanner
// that finds where a value ends makes it the same way as appendJSON.
func quoteEnds(src []byte, i int, q byte) int {
	n := len(src)
	if i+3 < n && src[i+1] == ',' && (afterComma[src[i+2]] || src[i+2] == ' ' && afterComma[src[i+3]]) {
		return quoteClose // the next key or value, or a trailing comma
	}
	limit := min(n, i+quoteWindow)
	j := skipWS(src, i+1, limit)
	if j >= limit {
		return quoteMoreOrClose(j, n)
	}
	c := src[j]
	if c == 0xEF {
		if j+3 > limit {
			return quoteMoreOrClose(limit, n)
		}
		if f := fullwidthPunct(src, j); f != 0 {
			c = f
			if c == ',' {
				j += 2 // the ',' case reads past it
			}
		}
	}
	if c == q && j == i+1 {
		// Two quotes: the first inner when the second closes the string
		// before a ',' or a closer ("name = "bob""}).
		k := skipWS(src, j+1, limit)
		if k >= limit {
			return quoteMoreOrClose(k, n)
		}
		if d := src[k]; d == ',' || d == '}' || d == ']' {
			return quoteInner
		}
		return quoteClose
	}
	switch {
	case c == ':' || c == '}' || c == ']' || c == '"' || c == '\'' || c == '{' || c == '[' || c == '/' || c == '#' || c >= '0' && c <= '9':
		// A value after a missing comma, or a mistake the reader reports.
		return quoteClose
	case c == ',':
		j = skipWS(src, j+1, limit)
		if j >= limit {
			return quoteMoreOrClose(j, n)
		}
		c = src[j]
		if c == 0xEF || c == 0xE2 {
			if j+3 > limit {
				return quoteMoreOrClose(limit, n)
			}
			if f := fullwidthPunct(src, j); f != 0 {
				c = f
			} else if curlyQuote(src, j) || curlySingle(src, j) || bytes.HasPrefix(src[j:], []byte("…")) {
				return quoteClose // the next string, or an elision reported as such
			}
		}
		if !bareKeyByte[c] || c >= '0' && c <= '9' || c == '-' {
			// A string, bracket, number or comment may follow a ','; any
			// other byte cannot.
			if startsValue(c, false) || c == '}' || c == ']' || c == '/' || c == '#' || c == '"' || c == '\'' {
				return quoteClose
			}
			return quoteInner
		}
		// A word after the ',': a literal, an unquoted key, or a word read
		// as a string (bareString).
		k := j
		for k < limit && wordStrByte[src[k]] {
			k++
		}
		if k >= limit {
			return quoteMoreOrClose(k, n)
		}
		w := src[j:k]
		k = skipWS(src, k, limit)
		if k >= limit {
			return quoteMoreOrClose(k, n)
		}
		// A key (word:) or a word read as a string value (word, or word]).
		if d := src[k]; d == ',' || d == '}' || d == ']' || isColon(src, k, limit) {
			return quoteClose
		}
		if _, ok := literalWord(w); ok {
			return quoteClose
		}
		return quoteInner
	case bareKeyByte[c]:
		// A word after the quote: the next key after a missing comma
		// (word:), the next key after a missing closing quote (word":),
		// or text inside the string.
		k := j
		for k < limit && bareKeyByte[src[k]] {
			k++
		}
		if k >= limit {
			return quoteMoreOrClose(k, n)
		}
		if src[k] == q {
			k = skipWS(src, k+1, limit)
			if k >= limit {
				return quoteMoreOrClose(k, n)
			}
			if isColon(src, k, limit) && j == i+1 && stringEndsBeforeKey(src, i) {
				return quoteCloseBefore
			}
			return quoteInner
		}
		w := src[j:k]
		k = skipWS(src, k, limit)
		if k >= limit {
			return quoteMoreOrClose(k, n)
		}
		if isColon(src, k, limit) {
			return quoteClose
		}
		// A literal before ',' or a closer: a value after a missing comma.
		if d := src[k]; d == ',' || d == '}' || d == ']' {
			if _, ok := literalWord(w); ok {
				return quoteClose
			}
		}
		return quoteInner
	}
	return quoteInner
}

// isColon reports whether a ':' or a fullwidth '：' is at src[k]; half of
// one at limit counts as one (the caller has checked k < limit, and looks
// no further).
func isColon(src []byte, k, limit int) bool {
	return src[k] == ':' || src[k] == 0xEF && (k+3 > limit || fullwidthPunct(src, k) == ':')
}

// quoteEndsAt is quoteEnds with the common case first, small enough to be
// inlined where every string ends: a ':' or a closer right after.
func quoteEndsAt(src []byte, i int, q byte) int {
	if i+1 < len(src) && closesAfter[src[i+1]] {
		return quoteClose
	}
	return quoteEnds(src, i, q)
}

// afterComma marks bytes that, after a quote and a ',', start a key, a
// value (not a word: it may be text), a comment or a closer.
var afterComma = func() (t [256]bool) {
	for _, c := range `"'{}[]/#-0123456789` {
		t[c] = true
	}
	return t
}()

// closesAfter marks the bytes after which a quote always ends its string.
var closesAfter = [256]bool{':': true, '}': true, ']': true}

func quoteMoreOrClose(j, n int) int {
	if j >= n {
		return quoteMore
	}
	return quoteClose
}

// stringEndsBeforeKey reports whether the string text before the quote at
// src[i] ends with ", " or a line break, as a member does before the next
// key: then "a": "x, "b": 1 lacks the quote after x.
func stringEndsBeforeKey(src []byte, i int) bool {
	k := i
	nl := false
	for k > 0 && (src[k-1] == ' ' || src[k-1] == '\t' || src[k-1] == '\n' || src[k-1] == '\r') {
		k--
		nl = nl || src[k] == '\n'
	}
	return nl || k < i && k > 0 && src[k-1] == ','
}

// closeBeforeKey is where the string ends when quoteEnds says
// quoteCloseBefore for the quote at i: before the ',' and whitespace.
func closeBeforeKey(src []byte, i int) int {
	k := i
	for k > 0 && (src[k-1] == ' ' || src[k-1] == '\t' || src[k-1] == '\n' || src[k-1] == '\r') {
		k--
	}
	if k > 0 && src[k-1] == ',' {
		k--
	}
	return k
}

// skipWS skips whitespace, non-breaking spaces included, from j to at most
// limit; half a non-breaking space at limit counts as reaching it.
func skipWS(src []byte, j, limit int) int {
	for j < limit {
		switch src[j] {
		case ' ', '\t', '\n', '\r':
			j++
			continue
		case 0xC2:
			if j+1 >= limit {
				return limit
			}
			if src[j+1] == 0xA0 {
				j += 2
				continue
			}
		}
		break
	}
	return j
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

type repairResult struct {
	n        int  // bytes of src consumed (just past the value)
	repaired bool // output differs from a strict reading of the input (any repair applied)
	// truncated: src ended (atEOF) before the value closed; closers were
	// appended to dst so it is valid JSON. cut is the length of the produced
	// JSON (relative to the start of the appended part) before the first
	// added closer, so a caller can tell whether a sub-value it cares about
	// lies wholly before the cut. When not truncated, cut is the length of
	// the whole produced JSON.
	//
	// An input that ends inside a scalar (string, number, literal, key) or
	// right after a key, ':' or ',' is never completed: appendJSON returns a
	// *syntaxError with Truncated set instead.
	truncated bool
	cut       int
	// last is where the last member of a top-level object starts in the
	// produced JSON (just past its '{' or its last ','), so that a caller
	// reading the members knows the last value ends before the final '}'
	// without scanning it; 0 when unknown or the value is not an object.
	last int
	// exp: a number was written with an exponent, the only way one can be
	// beyond a float64's range; without it a caller need not look.
	exp bool
}

// syntaxError says what was expected and what was found, in words a model
// can act on. Msg holds no byte offsets (the caller places Offset in the
// whole output, where offsets relative to src would mislead).
type syntaxError struct {
	Offset    int // byte offset in src where the problem is
	Msg       string
	Truncated bool // the input ended early (payload cut), as opposed to bad syntax
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s (at byte %d)", e.Msg, e.Offset)
}

const cutOffAdvice = "the output was cut off — send the whole call again"

// RepairJSON is the lenient JSON repair toolcall uses: it appends src, one
// JSON value written leniently (single quotes, trailing commas, comments,
// Python literals, missing closing brackets, ...), to dst as strict compact
// JSON. It fails rather than guess: on text it cannot read unambiguously, on
// a payload cut inside a string, number or key, and on anything but
// whitespace or comments after the value.
func RepairJSON(dst, src []byte) ([]byte, error) {
	out, res, err := appendJSON(dst, src, false, false)
	if err != nil {
		return dst, err
	}
	p := repairer{src: src}
	i, _, _, err := p.space(res.n)
	// Extra closers after the value: the model closed once too often.
	for err == nil && i < len(src) && (src[i] == '}' || src[i] == ']') {
		i, _, _, err = p.space(i + 1)
	}
	if err == nil && i < len(src) {
		err = p.fail(i, "unexpected "+describeByte(src, i)+" after the JSON value")
	}
	if err != nil {
		return dst, err
	}
	return out, nil
}

// Parser states: what the next token may be.
const (
	rpValue     = iota // a value: at the top, or after ':'
	rpFirstElem        // after '[' or '(': a value or the closer
	rpElem             // after ',' in an array: a value (or the closer: trailing comma)
	rpFirstKey         // after '{': a key or '}'
	rpKey              // after ',' in an object: a key (or '}': trailing comma)
	rpColon            // after a key: ':'
	rpNext             // after a value in a container: ',' or the closer
)

// Stack entries: what each open bracket opened.
const (
	rpObject = iota
	rpArray
	rpTuple      // python '(' with no ',' yet: "(x)" is not a tuple
	rpTupleComma // python '(' after a ','
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
	repaired       bool
	exp            bool // repairResult.exp
	last           int  // repairResult.last, relative to the start of the output
}

// appendJSON reads one lenient JSON value from the start of src (leading
// whitespace allowed) and appends it to dst as strict, compact JSON (no
// insignificant whitespace, numbers and strings kept as written where
// already valid; strings re-escaped minimally: only ", \, control chars;
// valid \uXXXX escapes kept). strict=true (the user's --no-repair) rejects
// anything that needs repair, with the same error positions, but still
// reports a cut-off input as Truncated. python=true also accepts Python
// literal syntax. On error it returns dst unchanged and a *syntaxError.
//
// The end of src is the end of the input: a value still open there is
// closed (truncated) if it ended cleanly, else refused.
func appendJSON(dst, src []byte, strict, python bool) ([]byte, repairResult, error) {
	// Most values (JSONL lines, call objects) are already strict compact
	// JSON, which run would copy byte for byte: copy them whole.
	if out, res, ok := copyCompact(dst, src); ok {
		return out, res, nil
	}
	// Python syntax is all repair: strict mode reads plain JSON.
	p := repairer{src: src, strict: strict, python: python && !strict}
	start := len(dst)
	out, res, err := p.run(dst)
	if err != nil {
		return dst[:start], repairResult{}, err
	}
	res.repaired = p.repaired
	res.exp = p.exp
	res.last = p.last
	return out, res, nil
}

func (p *repairer) run(dst []byte) ([]byte, repairResult, error) {
	src := p.src
	n := len(src)
	start := len(dst)
	// One byte a level; the first 64 levels live on the Go stack.
	var stackBuf [64]byte
	stack := stackBuf[:0]
	state := rpValue
	i := 0
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		if p.strict {
			return dst, repairResult{}, p.fail(0, "a byte order mark (U+FEFF) before the JSON; remove it")
		}
		p.repaired = true
		i = 3
	}
	lastStr := false // the token just completed was a string (python concatenation, missing-comma rule)
	keyOff := 0      // where the current key starts
	commaOff := 0    // where the last ',' is
	valOff := 0      // where the last scalar value starts
	look := !p.strict && !p.python
	notPython := !p.python // space reads \n and U+00A0 (strict mode refuses them there)
	var err error
	for {
		gap, nl := false, false
		if i < n {
			if c := src[i]; c <= ' ' || c == '/' || c == '#' || (c == '\\' || c == 0xC2) && notPython {
				if i, gap, nl, err = p.space(i); err != nil {
					return dst, repairResult{}, err
				}
			}
		}
		if i >= n {
			if state == rpNext && lastStr && p.python {
				// Python would join a string that followed to this one.
				return dst, repairResult{}, p.cut(valOff, "the JSON ends right after a string, which Python would join to a string that follows: "+cutOffAdvice)
			}
			return p.eof(dst, start, stack, state, keyOff, commaOff)
		}
		c, w := src[i], 1
		if c >= 0xE2 && look {
			if c == 0xEF {
				// Fullwidth ｛ ｝ ［ ］ ： ， (CJK input methods) read as ASCII.
				if f := fullwidthPunct(src, i); f != 0 {
					c, w = f, 3
					p.repaired = true
				} else if fullwidthPartial(src, i) {
					return dst, repairResult{}, p.cut(i, "the JSON ends inside a character: "+cutOffAdvice)
				}
			} else if c == 0xE2 && n-i < 3 && (n-i == 1 || src[i+1] == 0x80) {
				return dst, repairResult{}, p.cut(i, "the JSON ends inside a character: "+cutOffAdvice)
			}
		}
		switch state {
		case rpNext:
			kind := stack[len(stack)-1]
			if c == ',' {
				if kind == rpTuple {
					stack[len(stack)-1] = rpTupleComma
				}
				dst = append(dst, ',')
				commaOff = i
				i = oneSpace(src, i+w)
				lastStr = false
				if kind == rpObject {
					if len(stack) == 1 {
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
				stack = stack[:len(stack)-1]
				i += w
				lastStr = false
				if len(stack) == 0 {
					return dst, repairResult{n: i, cut: len(dst) - start}, nil
				}
				continue
			}
			if look && (c == '}' || c == ']') {
				// A closer that is not the innermost bracket's.
				p.repaired = true
				consume := mismatchConsumes(c, stack)
				dst = append(dst, kindCloserOut(kind))
				stack = stack[:len(stack)-1]
				if consume {
					i += w
				}
				lastStr = false
				if len(stack) == 0 {
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
						p.repaired = true
						dst = append(dst, ',')
						if len(stack) == 1 {
							p.last = len(dst) - start
						}
						state = rpKey
						commaOff = -1
						lastStr = false
						continue
					}
				} else if startsValue(c, p.python) && (nl || adjacent || look || (!lastStr && c != '"' && c != '\'')) {
					p.repaired = true
					if kind == rpTuple {
						stack[len(stack)-1] = rpTupleComma
					}
					dst = append(dst, ',')
					state = rpElem
					commaOff = -1
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
				p.repaired = true
				if !mismatchConsumes(']', stack) {
					// The ']' closes the array around this object: close
					// the object first.
					if state == rpKey {
						dst = dst[:len(dst)-1]
						p.last = 0
					}
					dst = append(dst, '}')
					stack = stack[:len(stack)-1]
					state = rpNext
					lastStr = false
					continue
				}
				c = '}' // it can only be meant for the '{'
			}
			if c == '}' {
				if state == rpKey {
					if err := p.trailingComma(commaOff); err != nil {
						return dst, repairResult{}, err
					}
					dst = dst[:len(dst)-1]
					p.last = 0 // the comma it pointed past is gone
				}
				dst = append(dst, '}')
				stack = stack[:len(stack)-1]
				i += w
				if len(stack) == 0 {
					return dst, repairResult{n: i, cut: len(dst) - start}, nil
				}
				state = rpNext
				lastStr = false
				continue
			}
			keyOff = i
			switch {
			case c == '"' || c == '\'':
				// Most keys need no re-escaping: they are copied whole.
				if e := plainStrEnd(src, i+1); c == '"' && e > 0 && (!look || quoteEndsAt(src, e-1, '"') == quoteClose) {
					dst, i = append(dst, src[i:e]...), e
				} else {
					p.look = look
					if dst, i, err = p.strStart(dst, i); err != nil {
						return dst, repairResult{}, err
					}
				}
				lastStr = true
			case p.python && (c == 'u' || c == 'U') && i+1 < n && (src[i+1] == '"' || src[i+1] == '\''):
				p.repaired = true
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
				p.repaired = true
				dst = append(dst, '"')
				dst = append(dst, src[i:j]...)
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
				kind := stack[len(stack)-1]
				if c == ',' && look && kind == rpArray {
					// A leading comma, or one more before the ']'.
					if i, err = p.extraComma(i+w-1, state == rpFirstElem, ']'); err != nil {
						return dst, repairResult{}, err
					}
					continue
				}
				consume := true
				if look && (c == '}' || c == ']') && c != kindCloser(kind) {
					p.repaired = true
					consume = mismatchConsumes(c, stack)
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
					if err := p.trailingComma(commaOff); err != nil {
						return dst, repairResult{}, err
					}
					dst = dst[:len(dst)-1]
				}
				dst = append(dst, kindCloserOut(kind))
				stack = stack[:len(stack)-1]
				if consume {
					i += w
				}
				lastStr = false
				if len(stack) == 0 {
					return dst, repairResult{n: i, cut: len(dst) - start}, nil
				}
				state = rpNext
				continue
			}
			lastStr = false
			valOff = i
			switch {
			case c == '{':
				stack = append(stack, rpObject)
				dst = append(dst, '{')
				if len(stack) == 1 {
					p.last = len(dst) - start
				}
				i += w
				state = rpFirstKey
				continue
			case c == '[':
				stack = append(stack, rpArray)
				dst = append(dst, '[')
				i += w
				state = rpFirstElem
				continue
			case c == '(' && p.python:
				p.repaired = true
				stack = append(stack, rpTuple)
				dst = append(dst, '[')
				i++
				state = rpFirstElem
				continue
			case c == '"' || c == '\'':
				inside := look && len(stack) > 0
				if e := plainStrEnd(src, i+1); c == '"' && e > 0 && (!inside || quoteEndsAt(src, e-1, '"') == quoteClose) {
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
				if dst, i, err = p.number(dst, i, len(stack) > 0); err != nil {
					return dst, repairResult{}, err
				}
			case p.python && (c == 'u' || c == 'U') && i+1 < n && (src[i+1] == '"' || src[i+1] == '\''):
				p.repaired = true
				if dst, i, err = p.strStart(dst, i+1); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case bareWordByte[c]:
				if dst, i, err = p.word(dst, i, len(stack) > 0); err != nil {
					return dst, repairResult{}, err
				}
			default:
				if err := p.elided(i); err != nil {
					return dst, repairResult{}, err
				}
				if state == rpValue && len(stack) > 0 {
					return dst, repairResult{}, p.fail(i, "expected a value after ':', found "+describeByte(src, i)+quoteAdvice(src, i))
				}
				return dst, repairResult{}, p.fail(i, "expected a JSON value, found "+describeByte(src, i)+quoteAdvice(src, i))
			}
			if len(stack) == 0 {
				if lastStr && p.python {
					// A top-level python string goes on through adjacent
					// literals: f(a='x' 'y') passes 'xy'.
					return p.joinStrings(dst, i, start)
				}
				return dst, repairResult{n: i, cut: len(dst) - start}, nil
			}
			state = rpNext
		}
	}
}

// joinStrings appends to the top-level string that ends at i (dst ends with
// its closing quote) the string literals that follow it, python style.
func (p *repairer) joinStrings(dst []byte, i, start int) ([]byte, repairResult, error) {
	for {
		// Look past whitespace and comments without taking them: what
		// follows may be the caller's.
		repaired := p.repaired
		k, _, _, _ := p.space(i) // python is never strict: no error
		q := -1
		if k < len(p.src) {
			q = p.strAt(k)
		}
		if q < 0 {
			p.repaired = repaired
			break
		}
		p.repaired = true
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
func (p *repairer) eof(dst []byte, start int, stack []byte, state, keyOff, commaOff int) ([]byte, repairResult, error) {
	n := len(p.src)
	switch state {
	case rpValue:
		if len(stack) == 0 {
			return dst, repairResult{}, p.cut(n, "expected a JSON value, found the end of the input")
		}
		return dst, repairResult{}, p.cut(keyOff, "the JSON ends after the ':' of this member, before its value: "+cutOffAdvice)
	case rpColon:
		return dst, repairResult{}, p.cut(keyOff, "the JSON ends after an object key, before its ':' and value: "+cutOffAdvice)
	case rpElem, rpKey:
		off := commaOff
		if off < 0 {
			off = n
		}
		return dst, repairResult{}, p.cut(off, "the JSON ends after ',', before the next value: "+cutOffAdvice)
	}
	if p.strict {
		top := stack[len(stack)-1]
		return dst, repairResult{}, p.cut(n, "the JSON ends before the '"+string(kindCloser(top))+"' that closes the innermost open '"+string(kindOpener(top))+"': "+cutOffAdvice)
	}
	cut := len(dst) - start
	for k := len(stack) - 1; k >= 0; k-- {
		dst = append(dst, kindCloserOut(stack[k]))
	}
	p.repaired = true
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
			return i, p.fail(i, "expected an object key, found another ','; remove the extra comma or add the missing member")
		}
		return i, p.fail(i, "two commas in a row (an empty element); remove the extra comma or add the missing value")
	}
	p.repaired = true
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
	p.repaired = true
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
			p.repaired = true
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
			p.repaired = true
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
			p.repaired = true
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
	p.repaired = true
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
		p.repaired = true
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
			// quoteEnds decides unless the usual ':', closer, or ',' before
			// a quote, bracket or number follows.
			if p.look && !(i+2 < n && (closesAfter[src[i+1]] || src[i+1] == ',' && afterComma[src[i+2]])) {
				switch quoteEnds(src, i, q) {
				case quoteInner:
					p.repaired = true
					dst = append(dst, src[run:i]...)
					if q == '"' {
						dst = append(dst, '\\')
					}
					run = i
					i++
					continue
				case quoteCloseBefore:
					p.repaired = true
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
			p.repaired = true
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
				p.repaired = true
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
				p.repaired = true
				dst = append(dst, src[run:i]...)
				return append(dst, '\\', '\\'), i + 1, i + 1, nil
			}
		}
		return dst, i + 6, run, nil
	}
	if p.strict {
		return dst, i, run, p.fail(i, "invalid escape '\\"+escapeShown(e)+"' in a string; JSON allows only \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
	}
	p.repaired = true
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
		p.repaired = true
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
			p.repaired = true
			return append(dst[:mark], "null"...), j, nil
		}
		return dst, i, p.fail(start, "expected digits after '"+string(src[start])+"', found "+describeByte(src, i))
	}
	if intLen > 1 && src[d] == '0' {
		if p.strict {
			return dst, i, p.fail(start, "leading zero in a number; JSON does not allow it")
		}
		p.repaired = true
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
			p.repaired = true
			dst = append(dst, '0')
		}
		dst = append(dst, '.')
		if i == f {
			if p.strict {
				return dst, i, p.fail(start, "a JSON number needs a digit after '.'")
			}
			p.repaired = true
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
	case bareWordByte[c] || c == '.' || c == '+' || c == '-':
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
	p.repaired = true
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
	k := skipWS(src, j, n)
	if k >= n {
		return dst, i, false, p.cut(i, "the JSON ends after unquoted text, before what would tell whether it is a string: "+cutOffAdvice)
	}
	switch src[k] {
	case ',', '}', ']':
		p.repaired = true
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
	case rpObject:
		return '}'
	case rpArray:
		return ']'
	}
	return ')'
}

func kindOpener(kind byte) byte {
	switch kind {
	case rpObject:
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
	p.repaired = true
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
			p.repaired = true
			sub := repairer{src: body}
			out, _, err := sub.str(append(dst, '"'), 0, '"', 0)
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

const (
	lsb8  = 0x0101010101010101
	msb8  = 0x8080808080808080
	low78 = 0x7f * lsb8
)

// dqMask has the high bit set in each byte of w that is a control
// character, a '"', a backslash or not ASCII: the bytes a double-quoted
// string body cannot copy as they are. The tests are exact per byte (no
// carries cross bytes), so the lowest set bit finds the first one.
func dqMask(w uint64) uint64 {
	ctl := ^((w & low78) + (0x80-0x20)*lsb8 | w)
	dq := w ^ ('"' * lsb8)
	b := w ^ ('\\' * lsb8)
	return (ctl | ^((dq & low78) + low78 | dq) | ^((b & low78) + low78 | b) | w) & msb8
}

// sqMask is dqMask for single-quoted strings: it also finds the '\”.
func sqMask(w uint64) uint64 {
	sq := w ^ ('\'' * lsb8)
	return dqMask(w) | ^((sq&low78)+low78|sq)&msb8
}

const lenientHex = "0123456789abcdef"

// noFastPath turns the fast path off, for tests comparing it with run.
var noFastPath bool

// copyCompact is appendJSON's fast path: see compactEnd.
func copyCompact(dst, src []byte) ([]byte, repairResult, bool) {
	if n, last, ok := compactEnd(src); ok && !noFastPath {
		return append(dst, src[:n]...), repairResult{n: n, cut: n, last: last}, true
	}
	return dst, repairResult{}, false
}

// compactEnd reports whether src starts with an object or array that
// repairer.run would copy unchanged, in any mode, and if so its length and
// repairResult.last. It accepts only strict JSON with no whitespace at all
// (the transcoder drops it), strings with only JSON escapes (kept as
// written, \u surrogates included) and valid UTF-8 (else U+FFFD), numbers
// in JSON form (else fixed), and at most 64 levels; anything else, a value
// cut by the end of src included, is left to run. Only a
// container: a top-level scalar may be followed by what changes its
// reading (python string joining, a number's suffix). Python mode reads
// such JSON as plain mode does: joining needs a string where ',' or a closer
// stands. What follows the closing bracket is the caller's, as there.
func compactEnd(src []byte) (end, last int, ok bool) {
	n := len(src)
	if n == 0 || src[0] != '{' && src[0] != '[' {
		return 0, 0, false
	}
	var objs uint64 // bit k set: the container k levels out from the innermost is an object
	depth, i := 0, 0
	for {
		// A value at i.
		if i >= n {
			return 0, 0, false
		}
		switch c := src[i]; {
		case c == '{' || c == '[':
			if depth == 64 {
				return 0, 0, false
			}
			objs = objs<<1 | uint64(c>>5&1) // '{' is 0x7b, '[' is 0x5b
			depth++
			i++
			if c == '{' && depth == 1 {
				last = i
			}
			if i < n && src[i] == c+2 { // empty: '}' is '{'+2, ']' is '['+2
				i++
				depth--
				objs >>= 1
				break
			}
			if c == '[' {
				continue
			}
			if i = compactKey(src, i); i < 0 {
				return 0, 0, false
			}
			continue
		case c == '"':
			if i = compactStrEnd(src, i+1); i < 0 {
				return 0, 0, false
			}
		case c == '-' || c >= '0' && c <= '9':
			if i = compactNumEnd(src, i); i < 0 {
				return 0, 0, false
			}
		case c == 't' && i+4 <= n && string(src[i:i+4]) == "true",
			c == 'n' && i+4 <= n && string(src[i:i+4]) == "null":
			i += 4
		case c == 'f' && i+5 <= n && string(src[i:i+5]) == "false":
			i += 5
		default:
			return 0, 0, false
		}
		// After a value: closers, then a ',' or the end.
		for {
			if depth == 0 {
				return i, last, true
			}
			if i >= n {
				return 0, 0, false
			}
			c := src[i]
			if c == '}' && objs&1 == 1 || c == ']' && objs&1 == 0 {
				i++
				depth--
				objs >>= 1
				continue
			}
			if c != ',' {
				return 0, 0, false
			}
			i++
			if objs&1 == 1 {
				if depth == 1 {
					last = i
				}
				if i = compactKey(src, i); i < 0 {
					return 0, 0, false
				}
			}
			break
		}
	}
}

// compactKey returns the index past the ':' of the key at i, or -1.
func compactKey(src []byte, i int) int {
	if i >= len(src) || src[i] != '"' {
		return -1
	}
	if i = compactStrEnd(src, i+1); i < 0 || i >= len(src) || src[i] != ':' {
		return -1
	}
	return i + 1
}

// compactStrEnd returns the index past the closing quote of the string whose
// body starts at i when str would copy it unchanged, else -1.
func compactStrEnd(src []byte, i int) int {
	n := len(src)
	for {
		for ; i+8 <= n; i += 8 {
			if m := dqMask(binary.LittleEndian.Uint64(src[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
		}
		for i < n && !strByteSpecial[src[i]] {
			i++
		}
		if i >= n {
			return -1
		}
		switch c := src[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 < n && jsonEscape[src[i+1]] {
				i += 2
			} else if i+6 <= n && src[i+1] == 'u' && isHexByte(src[i+2]) && isHexByte(src[i+3]) &&
				isHexByte(src[i+4]) && isHexByte(src[i+5]) {
				i += 6
			} else {
				return -1
			}
		case c == '\'':
			i++
		case c < 0x20:
			return -1
		default: // not ASCII: str replaces what DecodeRune refuses
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				return -1
			}
			i += size
		}
	}
}

// compactNumEnd returns the index past the JSON number at i, or -1 (also
// for a number with an exponent, left to the transcoder). The caller then
// needs ',' or a closer there, which refuses 01 and the like.
func compactNumEnd(src []byte, i int) int {
	n := len(src)
	digits := func(i int) int {
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		return i
	}
	if src[i] == '-' {
		i++
	}
	if i < n && src[i] == '0' {
		i++
	} else if j := digits(i); j > i {
		i = j
	} else {
		return -1
	}
	if i < n && src[i] == '.' {
		if j := digits(i + 1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		// An exponent may take the number beyond a float64: the
		// transcoder reads it and says so (repairResult.exp).
		return -1
	}
	return i
}
