// Package unsafestr views a byte slice as a string, and a string as a byte
// slice, without copying. The hot paths (the parser's scanners, the JSON
// writer, redaction, ranking) hand bytes they read to APIs that take
// strings (gjson, the string writer); a copy there would cost an
// allocation per value for nothing.
//
// Both views share memory with their argument, so they are safe only
// while nobody writes to it: the bytes behind a String result must not
// change while the string is in use (a string must never change), and the
// bytes of a Bytes result must never be written to at all (a string's
// memory may be read-only).
package unsafestr

import "unsafe"

// String returns b's bytes as a string, without copying. b must not be
// modified while the string is in use.
func String(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Bytes returns s's bytes as a slice, without copying. The slice must
// not be written to.
func Bytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
