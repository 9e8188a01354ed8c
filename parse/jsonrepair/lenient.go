// Package jsonrepair is the JSON repair of toolcall parse (docs/parse-rules.md:
// lenient, never inventive), a leaf: it knows lenient JSON and
// nothing of calls, formats or events. Repair reads one whole value;
// Append reads one from the start of its input and says where it ended,
// for the formats that put text or more calls after it; Scanner finds
// where a value ends as its bytes arrive, for the streaming reader.
//
// Models write arguments that are almost JSON: trailing commas, single
// quotes, Python literals, raw newlines in strings, a missing closing brace
// at the end of the output. appendJSON transcodes such text to strict,
// compact JSON in one pass, and refuses, with an error a model can act on,
// whatever it cannot read without guessing. Everything here is linear in the
// input, nesting included: an explicit stack replaces recursion, so 10,000
// levels cost what 10,000 bytes cost.
//
// What is repaired (lenient mode; each adds its kind to Result.Repairs,
// kinds.go):
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
//   - tuples (1, 2) → [1,2], in python and inside a JSON value (not at
//     its top, where a '(' starts no arguments);
//   - python: u” strings, adjacent strings
//     concatenated ('a' 'b' → "ab"), as Python itself reads them, and
//     sets {'a', 'b'} → ["a","b"];
//   - a missing ':' between a key and its value ({"a" 1});
//   - a key or a word value that lost its opening quote ({c": 1},
//     "name": get_weather"): a quote right after a word, outside any
//     string, followed by what follows a key or a value;
//   - a word and ':' after a quote inside a string read as the next key
//     unless a '/' follows the ':' (href="https://x" is a URL).
//
// What is refused, because any reading would be a guess:
//   - a cut payload: the input ends inside a string, number, word, key or
//     literal, right after a key, ':' or ',', or right after a string's
//     closing quote inside a container (it could be a quote left
//     unescaped: only what follows could tell) (Truncated error, never
//     completed);
//   - elisions: ... or … where a value or key belongs;
//   - an empty element between values of an array: [1,,2] ([1,2] or
//     [1,null,2]?); in an object, which has no empty members, the comma
//     is repeated and dropped;
//   - a number with a second '.': 1.2.3, a version to quote or a typo;
//   - two words in a row as a value, hex, octal, 1_000, 1j numbers;
//     r”, b”, f” strings;
//   - escapes whose meaning differs between Python and JavaScript (\a, \v,
//     \0-\9) or that are malformed (\xZ), and a string that mixes a JSON
//     escape of a control character (\n, \b) with a backslash that escapes
//     nothing (C:\users\bob), outside python mode;
//   - (x) in python: a parenthesized value, not a tuple;
//   - quotes left unescaped where quoteEnds reads the text after them as a
//     next key (word:), which then fails to parse.
package jsonrepair

import (
	"bytes"
	"fmt"
)

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
			// A string, bracket, number or comment may follow a ','; so
			// may a second ',' (a comma repeated, which the reader
			// repairs or refuses); any other byte cannot.
			if startsValue(c, false) || c == '}' || c == ']' || c == '/' || c == '#' || c == '"' || c == '\'' || c == ',' {
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
		if src[k] == '"' && q == '"' && missingOpeningQuote(src[:limit], j, k, ':') {
			return quoteClose // , c": the next key, which lost its opening quote
		}
		k = skipWS(src, k, limit)
		if k >= limit {
			return quoteMoreOrClose(k, n)
		}
		// A key (word:) or a word read as a string value (word, or word]).
		colon, more := colonAt(src, k, limit)
		if more >= 0 {
			return more
		}
		if d := src[k]; d == ',' || d == '}' || d == ']' || colon {
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
			colon, more := colonAt(src, k, limit)
			if more >= 0 {
				return more
			}
			if colon && j == i+1 && stringEndsBeforeKey(src, i) {
				return quoteCloseBefore
			}
			return quoteInner
		}
		w := src[j:k]
		k = skipWS(src, k, limit)
		if k >= limit {
			return quoteMoreOrClose(k, n)
		}
		colon, more := colonAt(src, k, limit)
		if more >= 0 {
			return more
		}
		if colon && src[k] == ':' {
			// word:/ is a URL (href="https://x"), not the next key.
			if k+1 >= limit {
				return quoteMoreOrClose(k+1, n)
			}
			if src[k+1] == '/' {
				return quoteInner
			}
		}
		if colon {
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

// colonAt reads src[k] (k < limit) as a key's colon: yes for ':' or a
// fullwidth '：'; more (quoteMore or, past the window, quoteClose) when
// the bytes of a fullwidth character run past limit, so that only the
// bytes after them can tell.
func colonAt(src []byte, k, limit int) (colon bool, more int) {
	if src[k] == ':' {
		return true, -1
	}
	if src[k] != 0xEF {
		return false, -1
	}
	if k+3 > limit {
		return false, quoteMoreOrClose(limit, len(src))
	}
	return fullwidthPunct(src, k) == ':', -1
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

type Result struct {
	N       int // bytes of src consumed (just past the value)
	Repairs Set // the kinds of repair applied; empty when the output is a strict reading of the input
	// truncated: src ended (atEOF) before the value closed; closers were
	// appended to dst so it is valid JSON. cut is the length of the produced
	// JSON (relative to the start of the appended part) before the first
	// added closer, so a caller can tell whether a sub-value it cares about
	// lies wholly before the cut. When not truncated, cut is the length of
	// the whole produced JSON.
	//
	// An input that ends inside a scalar (string, number, literal, key) or
	// right after a key, ':' or ',' is never completed: appendJSON returns a
	// *SyntaxError with Truncated set instead.
	Truncated bool
	Cut       int
	// last is where the last member of a top-level object starts in the
	// produced JSON (just past its '{' or its last ','), so that a caller
	// reading the members knows the last value ends before the final '}'
	// without scanning it; 0 when unknown or the value is not an object.
	Last int
	// exp: a number was written with an exponent, the only way one can be
	// beyond a float64's range; without it a caller need not look.
	Exp bool
}

// SyntaxError says what was expected and what was found, in words a model
// can act on. Msg holds no byte offsets (the caller places Offset in the
// whole output, where offsets relative to src would mislead).
type SyntaxError struct {
	Offset    int // byte offset in src where the problem is
	Msg       string
	Truncated bool // the input ended early (payload cut), as opposed to bad syntax
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s (at byte %d)", e.Msg, e.Offset)
}

// CutOffAdvice ends the message of a *SyntaxError whose input was cut off.
const CutOffAdvice = "the output was cut off — send the whole call again"

// Repair is the lenient JSON repair toolcall uses: it appends src, one JSON
// value written leniently (single quotes, trailing commas, comments, Python
// literals, missing closing brackets, ...), to dst as strict compact JSON,
// and says which kinds of repair it made. It fails rather than guess: on
// text it cannot read unambiguously, on a payload cut inside a string,
// number or key, and on anything but whitespace or comments after the
// value. On error it returns dst unchanged and a *SyntaxError.
func Repair(dst, src []byte) ([]byte, Set, error) {
	out, res, err := appendJSON(dst, src, false, false)
	if err != nil {
		return dst, 0, err
	}
	p := repairer{src: src}
	i, _, _, err := p.space(res.N)
	// Extra closers after the value: the model closed once too often.
	for err == nil && i < len(src) && (src[i] == '}' || src[i] == ']') {
		i, _, _, err = p.space(i + 1)
	}
	if err == nil && i < len(src) {
		err = p.fail(i, "unexpected "+describeByte(src, i)+" after the JSON value")
	}
	if err != nil {
		return dst, 0, err
	}
	return out, res.Repairs, nil
}

// Space skips the whitespace and comments at src[i:], as Append reads
// them, and returns where what follows starts.
func Space(src []byte, i int) (int, error) {
	p := repairer{src: src}
	j, _, _, err := p.space(i)
	return j, err
}

// Options choose how Append reads.
type Options struct {
	// Strict (the user's --no-repair) refuses anything that needs
	// repair, with the same error positions, but still reports a cut-off
	// input as truncated.
	Strict bool
	// Python also reads Python literal syntax: 'strings', True, None,
	// tuples, sets, adjacent strings joined.
	Python bool
	// Typo reads every closer that is not the innermost bracket's as a
	// mistyped one (it closes the innermost bracket): the second reading
	// a caller tries when the first leaves text inside a call's markers.
	// Lenient JSON only: not with Strict or Python.
	Typo bool
}

// Append reads one lenient JSON value from the start of src (leading
// whitespace allowed) and appends it to dst as strict, compact JSON; what
// follows the value is the caller's (Result.N says where it starts). The
// end of src is the end of the input: a value still open there is closed
// (Result.Truncated) if it ended cleanly between values, else refused. On
// error it returns dst unchanged and a *SyntaxError.
func Append(dst, src []byte, o Options) ([]byte, Result, error) {
	if !o.Typo {
		return appendJSON(dst, src, o.Strict, o.Python)
	}
	p := repairer{src: src}
	p.open.typo = true
	out, res, err := p.run(dst)
	if err != nil {
		return dst, Result{}, err
	}
	res.Repairs, res.Exp, res.Last = p.repairs, p.exp, p.last
	return out, res, nil
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
	rpPySet      // python '{' whose first entry had no ':': a set, written as an array
)

// appendJSON reads one lenient JSON value from the start of src (leading
// whitespace allowed) and appends it to dst as strict, compact JSON (no
// insignificant whitespace, numbers and strings kept as written where
// already valid; strings re-escaped minimally: only ", \, control chars;
// valid \uXXXX escapes kept). strict=true (the user's --no-repair) rejects
// anything that needs repair, with the same error positions, but still
// reports a cut-off input as Truncated. python=true also accepts Python
// literal syntax. On error it returns dst unchanged and a *SyntaxError.
//
// The end of src is the end of the input: a value still open there is
// closed (truncated) if it ended cleanly, else refused.
func appendJSON(dst, src []byte, strict, python bool) ([]byte, Result, error) {
	// Most values (JSONL lines, call objects) are already strict compact
	// JSON, which run would copy byte for byte: copy them whole.
	if out, res, ok := copyCompact(dst, src, nil); ok {
		return out, res, nil
	}
	// Python syntax is all repair: strict mode reads plain JSON.
	p := repairer{src: src, strict: strict, python: python && !strict}
	start := len(dst)
	out, res, err := p.run(dst)
	if err != nil {
		return dst[:start], Result{}, err
	}
	res.Repairs = p.repairs
	res.Exp = p.exp
	res.Last = p.last
	return out, res, nil
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
