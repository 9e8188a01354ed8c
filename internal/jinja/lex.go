package jinja

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The lexer cuts a template into text and tags, and a tag into tokens,
// applying the whitespace rules transformers sets: trim_blocks (a block
// or comment tag eats the newline after it) and lstrip_blocks (spaces
// and tabs before a block or comment tag on its line are dropped), "-"
// beside a delimiter trimming all whitespace on that side, "+" turning
// the two rules off for one tag.

type tokType uint8

const (
	tEOF tokType = iota
	tText
	tVarBegin
	tVarEnd
	tBlockBegin
	tBlockEnd
	tName
	tString
	tInt
	tFloat
	tOp
)

type token struct {
	typ  tokType
	s    string
	line int
}

type lexer struct {
	src   string
	pos   int
	line  int
	toks  []token
	depth int // brackets open in the tag
	// blocks counts the block tags open (if, for, …), so that a template
	// nested past the parser's bound fails as it is read, not after a
	// million tokens.
	blocks int
}

// blockOpeners are the tags that take an end tag (a set block aside).
var blockOpeners = map[string]bool{"if": true, "for": true, "macro": true, "call": true, "filter": true, "with": true, "generation": true, "block": true}

func lex(src string) ([]token, error) {
	lx := &lexer{src: src, line: 1, toks: make([]token, 0, len(src)/8+16)}
	if err := lx.run(); err != nil {
		return nil, err
	}
	return lx.toks, nil
}

func (lx *lexer) emit(t tokType, s string, line int) {
	lx.toks = append(lx.toks, token{t, s, line})
}

func (lx *lexer) errorf(format string, a ...any) error {
	return syntaxErrorf(lx.line, format, a...)
}

// nextTag is the position of the next "{{", "{%" or "{#" from i, or -1.
func nextTag(src string, i int) int {
	for {
		j := strings.IndexByte(src[i:], '{')
		if j < 0 {
			return -1
		}
		i += j
		if i+1 < len(src) {
			if c := src[i+1]; c == '{' || c == '%' || c == '#' {
				return i
			}
		}
		i++
	}
}

func (lx *lexer) run() error {
	src := lx.src
	lineStart := true // the text starts a line (Python's line_starting)
	for lx.pos < len(src) {
		start := nextTag(src, lx.pos)
		if start < 0 {
			lx.text(src[lx.pos:], false, false, lineStart)
			break
		}
		kind := src[start+1]
		sign := byte(0)
		if start+2 < len(src) && (src[start+2] == '-' || src[start+2] == '+') {
			sign = src[start+2]
		}
		text := src[lx.pos:start]
		lx.text(text, sign == '-', kind != '{' && sign != '+', lineStart)
		lx.pos = start + 2
		if sign != 0 {
			lx.pos++
		}
		var err error
		switch kind {
		case '#':
			err = lx.comment()
		case '{':
			err = lx.tag(tVarBegin, tVarEnd, "}}")
		default:
			if lx.isRaw() {
				err = lx.raw()
			} else {
				err = lx.tag(tBlockBegin, tBlockEnd, "%}")
			}
		}
		if err != nil {
			return err
		}
		lineStart = lx.pos > 0 && src[lx.pos-1] == '\n'
	}
	lx.emit(tEOF, "", lx.line)
	return nil
}

// text emits the text before a tag, trimmed as the tag asks: all trailing
// whitespace (trim), or spaces and tabs back to the line's start when
// nothing else is there (lstrip).
func (lx *lexer) text(s string, trim, lstrip, lineStart bool) {
	line := lx.line
	lx.line += strings.Count(s, "\n")
	switch {
	case trim:
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	case lstrip:
		l := strings.LastIndexByte(s, '\n') + 1
		if (l > 0 || lineStart) && strings.Trim(s[l:], " \t") == "" {
			s = s[:l]
		}
	}
	if s != "" {
		lx.emit(tText, s, line)
	}
}

// after handles what follows a closing delimiter: with "-" all
// whitespace is skipped, and a block's newline is eaten unless "+".
func (lx *lexer) after(sign byte, block bool) {
	switch {
	case sign == '-':
		for lx.pos < len(lx.src) {
			r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
			if !unicode.IsSpace(r) {
				break
			}
			if r == '\n' {
				lx.line++
			}
			lx.pos += n
		}
	case block && sign != '+' && lx.pos < len(lx.src) && lx.src[lx.pos] == '\n':
		lx.pos++
		lx.line++
	}
}

func (lx *lexer) comment() error {
	end := strings.Index(lx.src[lx.pos:], "#}")
	if end < 0 {
		return lx.errorf("a comment is not closed (missing #})")
	}
	body := lx.src[lx.pos : lx.pos+end]
	lx.line += strings.Count(body, "\n")
	lx.pos += end + 2
	sign := byte(0)
	if body != "" && (body[len(body)-1] == '-' || body[len(body)-1] == '+') {
		sign = body[len(body)-1]
	}
	lx.after(sign, true)
	return nil
}

// isRaw reports whether the block tag at lx.pos is {% raw %}.
func (lx *lexer) isRaw() bool {
	s := strings.TrimLeft(lx.src[lx.pos:], " \t\n")
	if !strings.HasPrefix(s, "raw") {
		return false
	}
	s = strings.TrimLeft(s[3:], " \t\n")
	// Jinja's raw tag takes no "+" at its end: {% raw +%} is an unknown tag.
	return strings.HasPrefix(s, "%}") || strings.HasPrefix(s, "-%}")
}

func (lx *lexer) raw() error {
	close := strings.Index(lx.src[lx.pos:], "%}")
	sign := lx.src[lx.pos+close-1]
	lx.pos += close + 2
	// Jinja's raw tag keeps the newline after it (trim_blocks does not
	// apply); "-" trims as elsewhere.
	lx.after(sign, false)
	for i := lx.pos; ; {
		j := nextTag(lx.src, i)
		if j < 0 {
			return lx.errorf("{%% raw %%} is not closed (missing {%% endraw %%})")
		}
		k := j + 2
		lead := byte(0)
		if k < len(lx.src) && (lx.src[k] == '-' || lx.src[k] == '+') {
			lead = lx.src[k]
			k++
		}
		rest := strings.TrimLeft(lx.src[k:], " \t\n")
		if lx.src[j+1] == '%' && strings.HasPrefix(rest, "endraw") {
			after := strings.TrimLeft(rest[6:], " \t\n")
			tail := byte(0)
			if after != "" && (after[0] == '-' || after[0] == '+') {
				tail, after = after[0], after[1:]
			}
			if strings.HasPrefix(after, "%}") {
				lx.text(lx.src[lx.pos:j], lead == '-', lead != '+', false)
				lx.pos = len(lx.src) - len(after) + 2
				lx.after(tail, true)
				return nil
			}
		}
		i = j + 2
	}
}

// tag emits the tokens of one tag up to its closing delimiter, which
// closes it only outside brackets ({{ {"a": {"b": 1}} }}).
func (lx *lexer) tag(begin, end tokType, closer string) error {
	lx.emit(begin, "", lx.line)
	lx.depth = 0
	src := lx.src
	for {
		for lx.pos < len(src) && (src[lx.pos] == ' ' || src[lx.pos] == '\t' || src[lx.pos] == '\n' || src[lx.pos] == '\r') {
			if src[lx.pos] == '\n' {
				lx.line++
			}
			lx.pos++
		}
		if lx.pos >= len(src) {
			return lx.errorf("a tag is not closed (missing %s)", closer)
		}
		if lx.depth == 0 {
			rest := src[lx.pos:]
			sign := byte(0)
			if len(rest) > 0 && (rest[0] == '-' || (rest[0] == '+' && end == tBlockEnd)) && strings.HasPrefix(rest[1:], closer) {
				sign = rest[0]
				rest = rest[1:]
			}
			if strings.HasPrefix(rest, closer) {
				lx.pos += len(closer)
				if sign != 0 {
					lx.pos++
				}
				lx.emit(end, "", lx.line)
				lx.after(sign, end == tBlockEnd)
				return nil
			}
		}
		if err := lx.token(); err != nil {
			return err
		}
	}
}

// operators, longest first.
var operators = []string{"**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "[", "]", "(", ")", "{", "}", "<", ">", "=", ".", ":", "|", ",", ";"}

func (lx *lexer) token() error {
	src, i := lx.src, lx.pos
	c := src[i]
	switch {
	case c == '"' || c == '\'':
		s, n, err := unquote(src[i:])
		if err != nil {
			return lx.errorf("%v", err)
		}
		lx.emit(tString, s, lx.line)
		lx.line += strings.Count(src[i:i+n], "\n")
		lx.pos += n
		return nil
	case c >= '0' && c <= '9':
		j := digitsEnd(src, i)
		typ := tInt
		if j+1 < len(src) && src[j] == '.' && src[j+1] >= '0' && src[j+1] <= '9' {
			j = digitsEnd(src, j+1)
			typ = tFloat
		}
		if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < len(src) && src[k] >= '0' && src[k] <= '9' {
				j = digitsEnd(src, k)
				typ = tFloat
			}
		}
		lx.emit(typ, strings.ReplaceAll(src[i:j], "_", ""), lx.line)
		lx.pos = j
		return nil
	case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)):
		j := i
		for j < len(src) {
			r, n := utf8.DecodeRuneInString(src[j:])
			if r != '_' && !unicode.IsLetter(r) && !(j > i && unicode.IsDigit(r)) {
				break
			}
			j += n
		}
		if j == i {
			r, _ := utf8.DecodeRuneInString(src[i:])
			return lx.errorf("unexpected char %q", r)
		}
		name := src[i:j]
		if n := len(lx.toks); n > 0 && lx.toks[n-1].typ == tBlockBegin {
			switch {
			case blockOpeners[name]:
				if lx.blocks++; lx.blocks > maxNesting {
					return &LimitError{Bound: BoundNesting, Max: maxNesting}
				}
			case strings.HasPrefix(name, "end") && blockOpeners[name[3:]]:
				lx.blocks--
			}
		}
		lx.emit(tName, name, lx.line)
		lx.pos = j
		return nil
	}
	for _, op := range operators {
		if strings.HasPrefix(src[i:], op) {
			switch op {
			case "(", "[", "{":
				lx.depth++
				if lx.depth > maxNesting {
					return &LimitError{Bound: BoundNesting, Max: maxNesting}
				}
			case ")", "]", "}":
				lx.depth--
			}
			lx.emit(tOp, op, lx.line)
			lx.pos += len(op)
			return nil
		}
	}
	r, _ := utf8.DecodeRuneInString(src[i:])
	return lx.errorf("unexpected char %q", r)
}

func digitsEnd(s string, i int) int {
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '_' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9') {
		i++
	}
	return i
}

// unquote reads the string literal at the start of s, with Python's
// escapes, and returns its value and length.
func unquote(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"':
			b.WriteByte(e)
		case '\n':
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+n > len(s) {
				return "", 0, errorString("a truncated \\" + string(e) + " escape in a string")
			}
			r, err := strconv.ParseUint(s[i:i+n], 16, 32)
			if err != nil || r > unicode.MaxRune {
				return "", 0, errorString("a bad \\" + string(e) + " escape in a string")
			}
			b.WriteRune(rune(r))
			i += n
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return "", 0, errorString("a string is not closed")
}

type errorString string

func (e errorString) Error() string { return string(e) }
