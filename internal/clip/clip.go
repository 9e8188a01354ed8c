// Package clip cuts text short for a message, a diff or a terminal: the
// one place that knows where a cut may fall, so that no message ends in
// half a character and every cut is marked the same way.
package clip

import "unicode/utf8"

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Boundary is where s may be cut to at most n bytes: the largest i <= n
// that does not split a character. When s is no longer than n it is
// len(s). Bytes that are not UTF-8 are cut anywhere: it backs off at most
// utf8.UTFMax-1 bytes, so a run of stray continuation bytes is not cut
// to nothing.
func Boundary[T string | []byte](s T, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// Head is s cut to at most n bytes at a Boundary, and Ellipsis after it
// when it was cut.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:Boundary(s, n)] + Ellipsis
}

// Runes is s cut to at most n characters, and Ellipsis after it when it
// was cut: for a terminal, where a character takes a column whatever its
// bytes.
func Runes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i] + Ellipsis
		}
		n--
	}
	return s
}

// Prefix is s cut to at most n bytes at a Boundary, unmarked: for a
// quote whose length the caller states, or whose cut it marks itself.
func Prefix[T string | []byte](s T, n int) T {
	return s[:Boundary(s, n)]
}
