package redact

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxEscapeDepth is how many times over a secret may be JSON-escaped and
// still be found: once for a JSON document a tool printed, twice for a
// JSON document held in a string of another (a request body in a log
// entry, say).
const maxEscapeDepth = 2

// secretValue is a secret value to look for, raw and JSON-escaped.
//
// Escaped forms are many: each character may be written as itself, as a
// short escape (\" \\ \/ \n \r \t \b \f), or as \uXXXX in either case of
// hex (a surrogate pair beyond the BMP), and encoders choose differently
// (Go escapes & < > and keeps é; Python keeps & and escapes é; PHP
// escapes /). Rather than list the forms, the text is read as JSON string
// content, character by character, and compared with the secret's.
type secretValue struct {
	raw   string
	runes []rune // nil when raw is not valid UTF-8: then only raw is looked for
	// maxLen is the most bytes an escaped form can take (Copy keeps that
	// much for the next round): a character beyond the BMP is 12 bytes
	// escaped once, each of those 6 escaped again.
	maxLen int
	has    [256]bool // the bytes of raw
	// border[i] is the length of the longest proper prefix of raw[:i+1]
	// that it also ends with; runeAt[i] is the index of the character
	// raw[i] starts (or is in).
	border, runeAt []int32
}

func newSecretValue(raw string) secretValue {
	v := secretValue{raw: raw, maxLen: len(raw)}
	for i := 0; i < len(raw); i++ {
		v.has[raw[i]] = true
	}
	if !utf8.ValidString(raw) {
		return v
	}
	v.runes = []rune(raw)
	v.maxLen = max(v.maxLen, len(v.runes)*12*6)
	v.border = make([]int32, len(raw))
	for i, q := 1, int32(0); i < len(raw); i++ {
		for q > 0 && raw[q] != raw[i] {
			q = v.border[q-1]
		}
		if raw[q] == raw[i] {
			q++
		}
		v.border[i] = q
	}
	v.runeAt = make([]int32, len(raw))
	n := int32(-1)
	for i := 0; i < len(raw); i++ {
		if utf8.RuneStart(raw[i]) {
			n++
		}
		v.runeAt[i] = n
	}
	return v
}

// escapedSpans appends the spans of s that hold one of values escaped,
// in any mix of the forms, once or twice over. An escaped form that
// differs from the raw one holds a backslash, and before its first
// backslash a raw prefix of the secret: so only the few bytes before each
// backslash are looked at, and a text without backslashes costs nothing
// here.
func escapedSpans(values []secretValue, s string, sp []span) []span {
	var until []int // per value: the end of its last match, once there is one
	for i := 0; i < len(s); {
		b := strings.IndexByte(s[i:], '\\')
		if b < 0 {
			break
		}
		b += i
		// What the backslash starts, read once or twice unescaped: most
		// secrets go on with neither, and are not looked at further.
		var at [maxEscapeDepth + 1]rune
		for d := 1; d <= maxEscapeDepth; d++ {
			at[d] = -1
			if r, _, ok := escapedRune(s, b, d); ok {
				at[d] = r
			}
		}
		for j := range values {
			if until != nil && b < until[j] {
				continue // inside a match of the same secret
			}
			n := len(sp)
			if sp = values[j].spansAt(s, i, b, &at, sp); len(sp) > n {
				if until == nil {
					until = make([]int, len(values))
				}
				until[j] = sp[n].end
			}
		}
		i = b + 1
	}
	return sp
}

// spansAt appends the span of v whose first backslash is s[b], if there
// is one: it starts after the backslash before (i; a start before that one
// was tried with it), with a raw prefix of v running up to b. The
// prefixes are found as a string search finds its matches (the border
// table), so a long secret costs time in proportion to it, not to its
// square; the longest that leads to a match wins, the span covering the
// others' starts.
func (v *secretValue) spansAt(s string, i, b int, at *[maxEscapeDepth + 1]rune, sp []span) []span {
	if v.runes == nil {
		return sp
	}
	// The raw prefix is made of the secret's bytes: look back only over
	// those, which in ordinary text ends at the first blank or so.
	lo := b
	for lo > i && b-lo < len(v.raw)-1 && v.has[s[lo-1]] {
		lo--
	}
	// q: the longest prefix of raw that s[lo:b] ends with.
	q := 0
	for k := lo; k < b; k++ {
		c := s[k]
		for q > 0 && (q == len(v.raw) || v.raw[q] != c) {
			q = int(v.border[q-1])
		}
		if v.raw[q] == c {
			q++
		}
	}
	for {
		if q == len(v.raw) { // raw whole: strings.Index has it
			q = int(v.border[q-1])
			continue
		}
		if utf8.RuneStart(v.raw[q]) {
			nth := int(v.runeAt[q])
			if end, ok := v.matchEscaped(s, b, nth, at); ok {
				return append(sp, span{b - q, end})
			}
		}
		if q == 0 {
			return sp
		}
		q = int(v.border[q-1])
	}
}

// matchEscaped reports whether the secret's runes from the nth on start
// at s[i] escaped once or twice, and where they end; at is what s[i]
// starts at each depth.
func (v *secretValue) matchEscaped(s string, i, nth int, at *[maxEscapeDepth + 1]rune) (int, bool) {
depth:
	for depth := 1; depth <= maxEscapeDepth; depth++ {
		if at[depth] != v.runes[nth] {
			continue
		}
		j := i
		for k, want := range v.runes[nth:] {
			r, next, ok := escapedRune(s, j, depth)
			if !ok || r != want {
				if nth+k >= minSecretLen && strings.HasPrefix(s[j:], cutMark) {
					return j, true // cut short where toolcall quoted it
				}
				continue depth
			}
			j = next
		}
		return j, true
	}
	return 0, false
}

// cutMark ends a text toolcall cut short to quote it (an argument in a
// validation error). A secret's first characters before it, 6 or more,
// go as the whole secret would.
const cutMark = "…"

// cutSpans appends the spans of s that hold the raw start of one of
// values, cut short by cutMark; escapedSpans finds the escaped ones.
func cutSpans(values []secretValue, s string, sp []span) []span {
	for i := 0; ; {
		e := strings.Index(s[i:], cutMark)
		if e < 0 {
			return sp
		}
		e += i
		for j := range values {
			v := &values[j]
			for k := max(0, e-len(v.raw)+1); k <= e-minSecretLen; k++ {
				n := strings.IndexByte(s[k:e-minSecretLen+1], v.raw[0])
				if n < 0 {
					break
				}
				k += n
				if prefix := s[k:e]; strings.HasPrefix(v.raw, prefix) && utf8.RuneStart(v.raw[len(prefix)]) {
					sp = append(sp, span{k, e})
					break // the longest start: the shorter ones are inside it
				}
			}
		}
		i = e + len(cutMark)
	}
}

// escapedRune reads the character at s[i] of text JSON-escaped depth
// times (0: raw), returning it and where the next one starts. ok is false
// at the end of s and at a broken escape.
func escapedRune(s string, i, depth int) (r rune, next int, ok bool) {
	if i >= len(s) {
		return 0, i, false
	}
	if depth == 0 {
		if c := s[i]; c < utf8.RuneSelf {
			return rune(c), i + 1, true
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		return r, i + n, true
	}
	c, j, ok := escapedRune(s, i, depth-1)
	if !ok || c != '\\' {
		return c, j, ok
	}
	e, j, ok := escapedRune(s, j, depth-1)
	if !ok {
		return 0, i, false
	}
	switch e {
	case '"', '\\', '/':
		return e, j, true
	case 'b':
		return '\b', j, true
	case 'f':
		return '\f', j, true
	case 'n':
		return '\n', j, true
	case 'r':
		return '\r', j, true
	case 't':
		return '\t', j, true
	case 'u':
	default:
		return 0, i, false
	}
	u, j, ok := escapedHex4(s, j, depth-1)
	if !ok {
		return 0, i, false
	}
	if utf16.IsSurrogate(u) {
		// A pair: \uD83D\uDE00 is one character.
		if c, k, ok := escapedRune(s, j, depth-1); ok && c == '\\' {
			if c, k, ok := escapedRune(s, k, depth-1); ok && c == 'u' {
				if lo, k, ok := escapedHex4(s, k, depth-1); ok {
					if p := utf16.DecodeRune(u, lo); p != utf8.RuneError {
						return p, k, true
					}
				}
			}
		}
	}
	return u, j, true
}

// escapedHex4 reads four hex digits, of either case, each escaped depth times.
func escapedHex4(s string, i, depth int) (rune, int, bool) {
	var u rune
	for range 4 {
		c, j, ok := escapedRune(s, i, depth)
		if !ok {
			return 0, i, false
		}
		switch {
		case c >= '0' && c <= '9':
			u = u<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			u = u<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			u = u<<4 | (c - 'A' + 10)
		default:
			return 0, i, false
		}
		i = j
	}
	return u, i, true
}
