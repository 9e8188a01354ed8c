package jsonw

import (
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string literal. It escapes only what JSON
// requires (quote, backslash, control characters) and replaces invalid UTF-8
// with U+FFFD, so every line toolcall writes is valid JSON and valid UTF-8.
// Unlike encoding/json it leaves <, > and & alone: the stream is not HTML.
//
// It is on the hot path of every text event, so it looks at eight bytes at a
// time and copies runs that need no escaping in one append.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	i := 0
	for i < len(s) {
		// Skip eight plain ASCII bytes at a time; on a word that holds
		// something to escape, jump straight to its first such byte.
		if i+8 <= len(s) {
			m := escapeMask(load64(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				start = i + 1
			case r == '\u2028' || r == '\u2029':
				// Valid JSON, but they end lines in JavaScript; encoding/json
				// escapes them too.
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\u202`...)
				dst = append(dst, hexDigits[r&0xF])
				start = i + size
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		if c == '"' || c == '\\' {
			dst = append(dst, '\\', c)
		} else {
			dst = AppendControl(dst, c)
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendControl appends the JSON escape of a control character (below
// 0x20): the short form where JSON has one, else \u00XX.
func AppendControl(dst []byte, c byte) []byte {
	switch c {
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// AppendBytes is AppendString for a byte slice, without copying it. The
// module's one other view of bytes as a string besides internal/unsafestr:
// a leaf imports nothing of the module's, not even another leaf.
func AppendBytes(dst []byte, b []byte) []byte {
	return AppendString(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}

// AppendStrings appends ss as a JSON array of strings ([] when empty).
func AppendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

// load64 reads eight bytes little-endian; the compiler merges it into one load.
func load64(s string, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// escapeMask has the high bit set in each byte of w that is a control
// character, a quote, a backslash or not ASCII. The tests are exact per byte
// (no carries cross bytes), so the lowest set bit finds the first one.
func escapeMask(w uint64) uint64 {
	const low7 = 0x7f * lsb
	ctl := ^((w & low7) + (0x80-0x20)*lsb | w)
	q := w ^ ('"' * lsb)
	quote := ^((q & low7) + low7 | q)
	b := w ^ ('\\' * lsb)
	bslash := ^((b & low7) + low7 | b)
	return (ctl | quote | bslash | w) & msb
}
