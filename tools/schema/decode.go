package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonptr"
	"github.com/toolcall/toolcall/internal/jsonw"
)

// argDecoder parses an arguments object into the values the validator
// reads (map[string]any, []any, string, json.Number, bool, nil) and, in
// the same pass, writes its compact form in the original key order. Both
// come from one parse, so what is checked is exactly what is passed on.
type argDecoder struct {
	src  []byte
	pos  int
	out  []byte
	ptr  []byte // JSON pointer of the value being parsed
	fail *Error
	// strict rejects numbers too large to check; it is set whenever there
	// is a schema to check against. Duplicate property names are always
	// rejected: tools' JSON parsers disagree on which one wins, so neither
	// a schema nor a person approving the call can vouch for the value.
	strict bool
	// replace maps pointers to the JSON written (and checked) instead of
	// the value found there: applied coercions.
	replace map[string][]byte
	// refs, when set, sees every string value and may swap it (Refs).
	refs Refs
}

// Refs is the decoder's hook for string values that stand for other text,
// as a tool's refs ("ref:<id>") stand for saved outputs: the value checked
// is then the text the tool will get.
type Refs interface {
	// Swap is given every string value s (object keys are not values)
	// at the JSON pointer ptr, after it was written to the output as
	// written bytes; ptr is only valid during the call. When it returns
	// true, text takes s's place, in the value and in the output.
	Swap(ptr []byte, s string, written int) (text string, ok bool)
	// Room is how many bytes the output needs beyond the input's length,
	// so that it is allocated once.
	Room() int
}

// Decode parses obj, an arguments object as Normalize gives it, into the
// value a validator reads (map[string]any, []any, string, json.Number,
// bool, nil) and its compact text, in the original key order, each string
// offered to refs (which may be nil) on the way. A property given twice
// is an error, as in Check.
func Decode(obj []byte, refs Refs) (any, []byte, *Error) {
	d := argDecoder{src: obj, refs: refs}
	return d.decode()
}

// decode parses the whole of src as one object.
func (d *argDecoder) decode() (any, []byte, *Error) {
	room := 0
	if d.refs != nil {
		room = d.refs.Room()
	}
	d.out = make([]byte, 0, len(d.src)+room)
	d.skipSpace()
	v := d.value(0)
	if d.fail == nil && d.skipSpace() != len(d.src) {
		d.syntax("unexpected text after the object")
	}
	if d.fail != nil {
		return nil, nil, d.fail
	}
	return v, d.out, nil
}

// skipSpace moves past JSON whitespace and returns the new position.
func (d *argDecoder) skipSpace() int {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return d.pos
		}
	}
	return d.pos
}

// syntax records a JSON syntax error at the current position.
func (d *argDecoder) syntax(what string) {
	if d.fail != nil {
		return
	}
	got := clip.Head(string(d.src), maxGotLen)
	d.fail = &Error{
		Keyword:  "type",
		Expected: `"object"`,
		Got:      got,
		Message:  fmt.Sprintf("%s: the arguments are not valid JSON (%s at byte %d); pass a JSON object", jsonptr.Label(""), what, d.pos),
	}
}

func (d *argDecoder) value(depth int) any {
	if d.replace != nil {
		if rep, ok := d.replace[string(d.ptr)]; ok {
			d.skipValue(depth)
			sub := argDecoder{src: rep, strict: true}
			v, out, err := sub.decode()
			if err != nil {
				d.fail = err
				return nil
			}
			d.out = append(d.out, out...)
			return v
		}
	}
	if d.pos >= len(d.src) {
		d.syntax("unexpected end")
		return nil
	}
	if depth > maxArgDepth {
		d.syntax(fmt.Sprintf("nested deeper than %d levels", maxArgDepth))
		return nil
	}
	switch c := d.src[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		mark := len(d.out)
		s, ok := d.stringValue()
		if !ok {
			return nil
		}
		if d.refs != nil {
			if text, ok := d.refs.Swap(d.ptr, s, len(d.out)-mark); ok {
				d.out = jsonw.AppendString(d.out[:mark], text)
				return text
			}
		}
		return s
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return d.literal("true", true)
	case c == 'f':
		return d.literal("false", false)
	case c == 'n':
		return d.literal("null", nil)
	default:
		d.syntax(fmt.Sprintf("unexpected %q", rune(c)))
		return nil
	}
}

// skipValue parses a value only to move past it: its output is dropped.
func (d *argDecoder) skipValue(depth int) {
	mark, rep := len(d.out), d.replace
	d.replace = nil
	d.skipSpace()
	d.value(depth)
	d.replace = rep
	d.out = d.out[:mark]
}

func (d *argDecoder) literal(word string, v any) any {
	if !bytes.HasPrefix(d.src[d.pos:], []byte(word)) {
		d.syntax("unexpected " + strconv.Quote(string(d.src[d.pos:min(d.pos+len(word), len(d.src))])))
		return nil
	}
	d.pos += len(word)
	d.out = append(d.out, word...)
	return v
}

func (d *argDecoder) object(depth int) any {
	d.pos++
	d.out = append(d.out, '{')
	m := make(map[string]any, 8)
	if d.skipSpace() < len(d.src) && d.src[d.pos] == '}' {
		d.pos++
		d.out = append(d.out, '}')
		return m
	}
	for {
		if d.skipSpace() >= len(d.src) || d.src[d.pos] != '"' {
			d.syntax("expected a property name in double quotes")
			return nil
		}
		key, ok := d.stringValue()
		if !ok {
			return nil
		}
		if d.skipSpace() >= len(d.src) || d.src[d.pos] != ':' {
			d.syntax("expected ':' after a property name")
			return nil
		}
		d.pos++
		d.out = append(d.out, ':')
		mark := len(d.ptr)
		d.ptr = jsonptr.AppendToken(append(d.ptr, '/'), key)
		if _, dup := m[key]; dup {
			d.duplicate(key)
			return nil
		}
		d.skipSpace()
		v := d.value(depth + 1)
		if d.fail != nil {
			return nil
		}
		d.ptr = d.ptr[:mark]
		m[key] = v
		more, ok := d.separator('}', "a property value")
		if !ok {
			return nil
		}
		if !more {
			return m
		}
	}
}

func (d *argDecoder) array(depth int) any {
	d.pos++
	d.out = append(d.out, '[')
	a := make([]any, 0, 4)
	if d.skipSpace() < len(d.src) && d.src[d.pos] == ']' {
		d.pos++
		d.out = append(d.out, ']')
		return a
	}
	for i := 0; ; i++ {
		mark := len(d.ptr)
		d.ptr = strconv.AppendInt(append(d.ptr, '/'), int64(i), 10)
		d.skipSpace()
		v := d.value(depth + 1)
		if d.fail != nil {
			return nil
		}
		d.ptr = d.ptr[:mark]
		a = append(a, v)
		more, ok := d.separator(']', "an array item")
		if !ok {
			return nil
		}
		if !more {
			return a
		}
	}
}

// separator reads what follows a property value or an array item: a ','
// (more is true) or the closer (more is false). ok is false, with the
// syntax error recorded, when neither comes.
func (d *argDecoder) separator(closer byte, after string) (more, ok bool) {
	if d.skipSpace() >= len(d.src) {
		d.syntax("unexpected end")
		return false, false
	}
	switch d.src[d.pos] {
	case ',':
		d.pos++
		d.out = append(d.out, ',')
		return true, true
	case closer:
		d.pos++
		d.out = append(d.out, closer)
		return false, true
	}
	d.syntax("expected ',' or '" + string(closer) + "' after " + after)
	return false, false
}

// duplicate records a property given twice.
func (d *argDecoder) duplicate(key string) {
	p := string(d.ptr)
	d.fail = &Error{
		Pointer: p,
		Keyword: "duplicate",
		Message: fmt.Sprintf("%s: property %s is given more than once; give each property once", jsonptr.Label(p), jsonw.Quote(key)),
	}
}

// number scans a JSON number; its value is the text itself.
func (d *argDecoder) number() any {
	start := d.pos
	s := d.src
	i := d.pos
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		d.pos = i
		d.syntax("a number needs digits")
		return nil
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			d.pos = i
			d.syntax("a number needs digits after '.'")
			return nil
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		if digits() == 0 {
			d.pos = i
			d.syntax("a number needs digits in its exponent")
			return nil
		}
		for _, c := range s[j:i] {
			if exp <= maxExponent {
				exp = exp*10 + int(c-'0')
			}
		}
	}
	d.pos = i
	text := s[start:i]
	if d.strict && (len(text) > maxNumberLength || exp > maxExponent) {
		p := string(d.ptr)
		d.fail = &Error{
			Pointer: p,
			Keyword: "number",
			Got:     clip.Head(string(text), maxGotLen),
			Message: fmt.Sprintf("%s: the number %s is too long or too large to check; use at most %d digits and an exponent within ±%d", jsonptr.Label(p), clip.Head(string(text), maxGotLen), maxNumberLength, maxExponent),
		}
		return nil
	}
	d.out = append(d.out, text...)
	return json.Number(text)
}

// stringValue parses the JSON string at d.pos. Invalid UTF-8 becomes
// U+FFFD in both the value and the output, so the two never differ.
func (d *argDecoder) stringValue() (string, bool) {
	s := d.src
	start := d.pos
	i := start + 1
	high := false
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			raw := s[start+1 : i]
			if !high || utf8.Valid(raw) {
				d.pos = i + 1
				d.out = append(d.out, s[start:i+1]...)
				return string(raw), true
			}
			return d.slowString(start)
		case c == '\\':
			return d.slowString(start)
		case c < 0x20:
			d.pos = i
			d.syntax("control character in a string")
			return "", false
		case c >= utf8.RuneSelf:
			high = true
		}
		i++
	}
	d.pos = i
	d.syntax("unterminated string")
	return "", false
}

// slowString decodes a string with escapes or invalid UTF-8.
func (d *argDecoder) slowString(start int) (string, bool) {
	s := d.src
	var buf []byte
	i := start + 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			v := string(buf)
			if !utf8.ValidString(v) {
				v = strings.ToValidUTF8(v, "\uFFFD")
			}
			d.pos = i + 1
			d.out = jsonw.AppendString(d.out, v)
			return v, true
		case c < 0x20:
			d.pos = i
			d.syntax("control character in a string")
			return "", false
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(s, i)
			if !ok {
				d.pos = i
				d.syntax(`bad \u escape`)
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok = hex4(s, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.pos = i - 1
			d.syntax(fmt.Sprintf("bad escape \\%c", e))
			return "", false
		}
	}
	d.pos = i
	d.syntax("unterminated string")
	return "", false
}

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
