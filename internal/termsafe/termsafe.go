// Package termsafe makes text that comes from outside toolcall (a model
// server's error, a tool's stderr, a model's arguments, an MCP server's
// message) safe to print on a terminal: a terminal obeys control bytes,
// so raw text could set the window title, write the clipboard (OSC 52),
// clear the screen, hide what follows, or start a line that reads like
// one of toolcall's own ("toolcall: ..."). Each such byte or character is
// shown as an escape instead (ESC as \x1b), and nothing else changes. It
// imports nothing of toolcall's.
package termsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Line returns s for printing within one line: every control byte,
// newlines and tabs included, is escaped, so s cannot end the line it is
// printed in or start another.
func Line(s string) string { return escape(s, false) }

// Text returns s for printing as lines of its own: newlines and tabs are
// kept, every other control byte is escaped. The caller makes sure that
// a line of s cannot pass for one of toolcall's (a prefix, an indent).
func Text(s string) string { return escape(s, true) }

// escape does Line's and Text's work. Most text needs nothing, and is
// returned as it is, without a copy.
func escape(s string, keepLines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || keepLines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError && !hidden(r) {
				i += n
				continue
			}
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f, keepLines && (c == '\n' || c == '\t'):
			b.WriteByte(c)
			i++
		case c == '\n':
			b.WriteString(`\n`)
			i++
		case c == '\r':
			b.WriteString(`\r`)
			i++
		case c == '\t':
			b.WriteString(`\t`)
			i++
		case c < utf8.RuneSelf:
			writeHex(&b, c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n <= 1:
				writeHex(&b, c) // not UTF-8: the byte itself
			case hidden(r):
				b.WriteString(`\u`)
				h := strconv.FormatInt(int64(r), 16)
				b.WriteString(strings.Repeat("0", 4-len(h)))
				b.WriteString(h)
			default:
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
	return b.String()
}

func writeHex(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&15])
}

// hidden reports whether a terminal would act on r, or draw it so that
// the text around it reads other than it is: the C1 controls (U+009B is
// a one-character CSI), the line and paragraph separators, and the
// invisible format characters that reorder or hide text (bidirectional
// overrides and isolates, zero-width characters, the byte order mark).
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}
