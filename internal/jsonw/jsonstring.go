package jsonw

import (
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// kernelMin is the shortest rest of a string AppendString hands to the
// assembly kernel: below it, the call costs more than the Go loop saves.
const kernelMin = 128

// Quote is s as a JSON string, for messages that quote a name or value.
func Quote(s string) string {
	return string(AppendString(nil, s))
}

// AppendString appends s as a JSON string literal. It escapes only what JSON
// requires (quote, backslash, control characters) and replaces invalid UTF-8
// with U+FFFD, so every line toolcall writes is valid JSON and valid UTF-8.
// Unlike encoding/json it leaves <, > and & alone: the stream is not HTML.
//
// It is on the hot path of every text event, so it looks at eight bytes at a
// time (skipPlain), copies runs that need no escaping in one append, and
// decodes UTF-8 only where a byte is not ASCII. Where the CPU has AVX2, a
// kernel in assembly (escape_amd64.s) copies and escapes ASCII text 32
// bytes at a time first, and leaves the rest of this loop the bytes it
// does not know (other control characters, non-ASCII) and the last few.
func AppendString(dst []byte, s string) []byte {
	if n := len(s); n >= 8 && n <= 16 && escapeMask(load64(s[:8]))|escapeMask(load64(s[n-8:])) == 0 {
		// A short string with nothing to escape, as most ids and names
		// are: its one or two words (overlapping under sixteen bytes)
		// tested at once, and copied whole.
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	dst = append(dst, '"')
	start := 0
	i := 0
	kernelAt := 0 // where the kernel may be called again
	for i < len(s) {
		if haveKernel && i >= kernelAt && len(s)-i >= kernelMin && s[i] < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			from := i
			dst, i = appendKernel(dst, s, i)
			start = i
			if i-from < 64 {
				// A call pays only over a run of ASCII: where other
				// bytes come often, this loop goes on alone for a while.
				kernelAt = i + 256
			}
		}
		i = skipPlain(s, i)
		if i == len(s) {
			break
		}
		c := s[i] // not ASCII, or to be escaped
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

// AppendSlack is the room beyond StringLen that AppendString may ask of
// dst: given StringLen(s)+AppendSlack bytes free, it never copies dst to
// a larger one. The kernel asks for room for its next piece escaped
// twice over, rather than look ahead, so that a buffer being grown is
// grown once for a long string.
const AppendSlack = 64 << 10

// StringLen is how many bytes AppendString(nil, s) appends, quotes
// included, counted without writing them: a caller that bounds what it
// will write (the refs of a call, each control character of which takes
// six bytes as \u0001) decides before it builds anything, and may size
// its buffer once (with AppendSlack).
func StringLen(s string) int {
	n := 2
	for i := 0; ; {
		j := skipPlain(s, i)
		n += j - i
		if j == len(s) {
			return n
		}
		c := s[j]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				n += 6
			} else {
				n += size
			}
			i = j + size
			continue
		}
		switch c {
		case '"', '\\', '\n', '\r', '\t':
			n += 2
		default:
			n += 6
		}
		i = j + 1
	}
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

// skipPlain returns the index of the first byte from i on that needs a
// look (a control character, quote, backslash or non-ASCII byte), or
// len(s). It looks at two words of eight bytes at a time, then one, then
// at the last few bytes one by one.
func skipPlain(s string, i int) int {
	for ; i+16 <= len(s); i += 16 {
		m0 := escapeMask(load64(s[i : i+8]))
		m1 := escapeMask(load64(s[i+8 : i+16]))
		if m0|m1 != 0 {
			if m0 != 0 {
				return i + bits.TrailingZeros64(m0)>>3
			}
			return i + 8 + bits.TrailingZeros64(m1)>>3
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if m := escapeMask(load64(s[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if needsLook[s[i]] {
			return i
		}
	}
	return i
}

// needsLook marks the bytes skipPlain stops at: control characters, '"',
// '\\' and those not ASCII; one load each, where four comparisons were.
var needsLook = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf
	}
	return t
}()

// load64 reads the eight bytes of w little-endian; the compiler merges it
// into one load, and checks the bounds once, where w is sliced.
func load64(w string) uint64 {
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// escapeMask has the high bit set in the byte of w (little-endian) that is
// the first control character, quote, backslash or non-ASCII byte, and is
// zero when there is none. Only the lowest set bit is exact, which is all
// its callers use: a subtraction borrows only from a byte it flags, so the
// bytes below the first flagged one are plain, and bytes above it may be
// flagged or not.
//
//	w - 0x20 per byte   sets the high bit of a byte below 0x20
//	| w                 and of a byte of 0x80 or more
//	(w ^ '"') - 1       of a quote, which the xor made zero
//	(w ^ '\\') - 1      of a backslash
func escapeMask(w uint64) uint64 {
	ctl := w - 0x20*lsb
	quote := (w ^ '"'*lsb) - lsb
	bslash := (w ^ '\\'*lsb) - lsb
	return (ctl | w | quote | bslash) & msb
}
