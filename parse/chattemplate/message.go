package chattemplate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A template's own text reaches messages: raise_exception's argument, and
// the engine's errors, which quote the template around the fault. From a
// server, that text is chosen by someone else; printed as it comes, an
// escape sequence in it would rewrite the terminal (window title, OSC 52
// clipboard writes, clearing the screen) and a newline would forge a line
// of toolcall's own. Such text is shown escaped.

// printable returns s with control characters, invalid UTF-8 and the
// Unicode controls that reorder or break lines written as Go escapes
// (\x1b, \n, \u202e), so that it shows as one line of plain text.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && needsEscape(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune) bool {
	switch {
	case r == utf8.RuneError:
		return true // invalid UTF-8 (or U+FFFD itself, shown escaped too)
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// printableErr is an error whose message is shown escaped (printable);
// errors.Is and As still see what it wraps.
type printableErr struct{ err error }

func (e printableErr) Error() string { return printable(e.err.Error()) }
func (e printableErr) Unwrap() error { return e.err }

// withoutSource is the engine's message with any quote of the template's
// whole source left out: it can be tens of kilobytes, and from a server
// it may hold what the server chose to put there (the API key it was
// sent, say).
func withoutSource(msg, src string) string {
	if len(src) < 16 {
		return msg
	}
	return strings.ReplaceAll(msg, src, "…")
}
