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
//   - a trailing comma before '}' , ']' or ')';
//   - single-quoted strings and keys ('it\'s'; a '"' inside is escaped);
//   - unquoted keys made of letters, digits, '_', '$' and '-' ({a: 1});
//   - True, False, None (Python) → true, false, null;
//   - comments: // line, /* block */ and # line, outside strings;
//   - raw control characters in strings (newline, tab, ...) → escapes;
//   - invalid UTF-8 in strings → U+FFFD;
//   - escapes JSON lacks: \' → ', \xHH → U+00HH, a backslash-newline line
//     continuation is dropped, any other unknown escape keeps its backslash
//     (\d → \\d, C:\Users → C:\\Users), as Python reads it: in model output
//     such escapes are regexes and Windows paths far more often than JS's
//     "drop the backslash" intent;
//   - a missing comma where whitespace separates two values, except where
//     that could be one string with a stray quote or arithmetic (see rpNext);
//   - numbers: +1 → 1, .5 → 0.5, 1. → 1.0, 07 → 7 (vLLM sees month=07);
//   - missing closing brackets at the end of the input (truncated, cut);
//   - python: tuples (1, 2) → [1,2], u'' strings, adjacent strings
//     concatenated ('a' 'b' → "ab"), as Python itself reads them.
//
// What is refused, because any reading would be a guess:
//   - a cut payload: the input ends inside a string, number, key or literal,
//     or right after a key, ':' or ',' (Truncated error, never completed);
//   - empty elements: [1,,2], [,1], {,} (a dropped value or a stray comma?);
//   - unquoted string values, NaN, Infinity, undefined (no JSON value);
//   - hex, octal, 1_000, 1j numbers; r'', b'', f'' strings;
//   - escapes whose meaning differs between Python and JavaScript (\a, \v,
//     \0-\9) or that are malformed (\u12, \xZ);
//   - (x) in python: a parenthesized value, not a tuple;
//   - a '"' inside a string that ends it early: the text after it then fails
//     to parse, and the error says to escape the quote; smart quotes are not
//     treated as quotes.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/toolcall/toolcall/tools"
)

// jsonScanner finds where a lenient JSON value ends in a stream that arrives
// in pieces. It is resumable: call scan repeatedly with the same growing
// buffer (the value's bytes from its first byte, src[0] is '{' or '[', or '('
// when python), and it continues where it stopped, so total work is linear.
//
// It knows only what it needs to match brackets: strings in either quote
// (with backslash escapes), // /* */ # comments outside strings, and () as
// brackets when python. Bracket kinds are not matched against each other:
// appendJSON reports such mistakes; where appendJSON succeeds without
// truncation on src[:end], the two agree on end.
type jsonScanner struct {
	off     int  // src[:off] is consumed; resume here
	depth   int  // open brackets
	quote   byte // inside a string ending with this quote; 0 outside
	comment byte // inside a comment: '\n' for // and #, '*' for /* */
	python  bool
	done    bool
}

func (s *jsonScanner) reset(python bool) { *s = jsonScanner{python: python} }

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
		i = 1
	}
	n := len(src)
	for i < n {
		if s.quote != 0 {
			j, closed := scanSkipString(src, i, s.quote)
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
		switch c := src[i]; c {
		case '"', '\'':
			s.quote = c
			i++
		case '{', '[':
			s.depth++
			i++
		case '}', ']':
			s.depth--
			i++
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
		}
	}
	s.off = i
	return 0, false
}

// scanSkipString returns the index just past the string's closing quote q,
// scanning from i (inside the string, not after a pending backslash), and
// true; or, when src ends first, where to resume and false.
func scanSkipString(src []byte, i int, q byte) (int, bool) {
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
			return k + 1, true
		}
		i = k + 1
	}
}

// scanSpecial marks the bytes the scanner must look at outside strings.
var scanSpecial = [256]bool{'"': true, '\'': true, '{': true, '[': true, '}': true, ']': true,
	'(': true, ')': true, '#': true, '/': true}

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
	src      []byte
	strict   bool
	python   bool
	repaired bool
	last     int // repairResult.last, relative to the start of the output
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
	lastStr := false // the token just completed was a string (python concatenation, missing-comma rule)
	keyOff := 0      // where the current key starts
	commaOff := 0    // where the last ',' is
	valOff := 0      // where the last scalar value starts
	var err error
	for {
		gap, nl := false, false
		if i < n {
			if c := src[i]; c <= ' ' || c == '/' || c == '#' {
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
		c := src[i]
		switch state {
		case rpNext:
			kind := stack[len(stack)-1]
			if c == ',' {
				if kind == rpTuple {
					stack[len(stack)-1] = rpTupleComma
				}
				dst = append(dst, ',')
				commaOff = i
				i = oneSpace(src, i+1)
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
				i++
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
			if gap && !p.strict && c != '-' && c != '+' {
				// A missing comma is inserted when whitespace separates two
				// values. In an object the next token must then be a key and a
				// ':' must follow it, which confirms the reading. In an array a
				// string next to another value on the same line may instead be
				// one string with an unescaped quote ("say "hi" now"), so
				// there it takes a newline. Never before a sign: [1 -2] is a
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
				} else if startsValue(c, p.python) && (nl || (!lastStr && c != '"' && c != '\'')) {
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
				i++
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
				i++
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
				if e := plainStrEnd(src, i+1); c == '"' && e > 0 {
					dst, i = append(dst, src[i:e]...), e
				} else if dst, i, err = p.strStart(dst, i); err != nil {
					return dst, repairResult{}, err
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
			default:
				if isCloseBracket(c) {
					return dst, repairResult{}, p.fail(i, "expected an object key or '}', found "+describeByte(src, i)+"; the innermost open bracket is '{'")
				}
				return dst, repairResult{}, p.fail(i, "expected an object key (a string in double quotes), found "+describeByte(src, i))
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
				i++
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
				i++
				state = rpFirstKey
				continue
			case c == '[':
				stack = append(stack, rpArray)
				dst = append(dst, '[')
				i++
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
				if e := plainStrEnd(src, i+1); c == '"' && e > 0 {
					dst, i = append(dst, src[i:e]...), e // as for keys
				} else if dst, i, err = p.strStart(dst, i); err != nil {
					return dst, repairResult{}, err
				}
				lastStr = true
			case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
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
				if dst, i, err = p.word(dst, i); err != nil {
					return dst, repairResult{}, err
				}
			default:
				if state == rpValue && len(stack) > 0 {
					return dst, repairResult{}, p.fail(i, "expected a value after ':', found "+describeByte(src, i))
				}
				return dst, repairResult{}, p.fail(i, "expected a JSON value, found "+describeByte(src, i))
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
			dst = tools.AppendControl(dst, c)
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
				return dst, i, run, p.fail(i, "invalid escape: \\u must be followed by four hex digits; write a literal backslash as \\\\")
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
	return append(dst, '\\', '\\'), i + 1, i + 1, nil
}

// number copies a number starting at i, fixing the forms JSON lacks. A
// number that runs to the end of the input inside a container may have been
// cut, so it is refused there.
func (p *repairer) number(dst []byte, i int, inContainer bool) ([]byte, int, error) {
	src := p.src
	n := len(src)
	start := i
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
		if nonFiniteWord(src[i:j]) {
			return dst, i, p.fail(start, "'"+string(src[start:j])+"' is not representable in JSON; use a number or null")
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
	case bareWordByte[c] || c == '.' || c == '+' || c == '-':
		return dst, i, p.fail(start, "unexpected "+describeByte(src, i)+" after a number")
	}
	return dst, i, nil
}

// word reads a bare word in value position: a JSON or Python literal, or an
// error saying why the word is not a value.
func (p *repairer) word(dst []byte, i int) ([]byte, int, error) {
	src := p.src
	j := i
	for j < len(src) && bareWordByte[src[j]] {
		j++
	}
	w := src[i:j]
	var lit string
	switch string(w) {
	case "true", "false", "null":
		return append(dst, w...), j, nil
	case "True":
		lit = "true"
	case "False":
		lit = "false"
	case "None":
		lit = "null"
	default:
		return dst, i, p.wordError(i, w, j)
	}
	if p.strict {
		return dst, i, p.fail(i, "'"+string(w)+"' is Python; JSON writes it "+lit)
	}
	p.repaired = true
	return append(dst, lit...), j, nil
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
	switch string(w) {
	case "NaN", "nan", "Infinity", "infinity", "Inf", "inf":
		return true
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

// compactNumEnd returns the index past the JSON number at i, or -1. The
// caller then needs ',' or a closer there, which refuses 01, 1e5x and the
// like.
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
		j := i + 1
		if j < n && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if k := digits(j); k > j {
			i = k
		} else {
			return -1
		}
	}
	return i
}
