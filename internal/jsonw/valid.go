package jsonw

import "unicode/utf8"

// ValidString is s as AppendString writes it and a JSON reader gives it
// back: each byte that is not part of valid UTF-8 becomes U+FFFD, one for
// one (strings.ToValidUTF8 would make one of a whole run). A caller that
// hands an event over as a value, rather than as the line AppendString
// writes, uses it so that the value is the one a reader of the line gets.
func ValidString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}
