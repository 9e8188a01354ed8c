package jsonrepair

// The fast path of lenient JSON: input that is already strict JSON is found
// with word-at-a-time tests and copied whole, or, when it has whitespace
// between its tokens (a model's "pretty" JSON), copied without it.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// noFastPath turns the fast path off, for tests comparing it with run.
var noFastPath bool

// AppendCompact is Append's fast path on its own, for a caller that reads
// many values that need no repair: when src starts with an object or
// array that Append, in any mode, would copy whole (strict JSON, perhaps
// with whitespace between tokens, which is dropped), it appends what
// Append would and returns Result.N and Result.Last; Cut is what it
// appended, and nothing else of Result is set. m is set to where the
// members of the top-level object lie in what it appended (m.N is -1 when
// there are more than len(m.At); 0 for an array). For anything else ok is
// false, dst is unchanged, and Append must read src.
func AppendCompact(dst, src []byte, m *Members) (out []byte, n, last int, ok bool) {
	out, res, ok := copyCompact(dst, src, m)
	return out, res.N, res.Last, ok
}

// CompactEnd returns the length of the object or array at the start of
// src when it is strict JSON with no whitespace at all, which Append would
// copy byte for byte as a value nested in outer containers; ok is false
// for anything else. It lets a caller that knows the shape of a value read
// its known parts itself and leave the rest to this.
func CompactEnd(src []byte, outer int) (n int, ok bool) {
	sp := spaces{outer: outer}
	n, _, ok = compactEnd(src, &sp)
	return n, ok && sp.n == 0 && !noFastPath
}

// copyCompact is appendJSON's fast path: see compactEnd. m, when not nil,
// is set to where the top-level members lie in what it appends, or m.N to
// -1.
func copyCompact(dst, src []byte, m *Members) ([]byte, Result, bool) {
	sp := spaces{mem: m}
	if m != nil {
		m.N = 0
	}
	n, last, ok := compactEnd(src, &sp)
	if !ok || noFastPath {
		if m != nil {
			m.N = -1
		}
		return dst, Result{}, false
	}
	if sp.n == 0 {
		return append(dst, src[:n]...), Result{N: n, Cut: n, Last: last}, true
	}
	start := len(dst)
	if sp.runs > len(sp.at) {
		dst = stripSpace(dst, src[:n])
	} else {
		from := 0
		for _, r := range sp.at[:sp.runs] {
			dst = append(dst, src[from:r[0]]...)
			from = r[1]
		}
		dst = append(dst, src[from:n]...)
	}
	return dst, Result{N: n, Cut: len(dst) - start, Last: last}, true
}

// spaces records the whitespace compactEnd skips: how much, and where
// while there are few runs of it (a call's "key": value, ... has a dozen).
type spaces struct {
	n    int // bytes
	runs int // runs skipped; the first len(at) are in at
	at   [16][2]int
	mem  *Members // where to record the top-level members, if anywhere
	// outer is how many containers the value is inside (CompactEnd).
	outer int
}

// Members says where the members of the top-level object lie in the
// compact JSON AppendCompact wrote for it, so that a caller reading the object
// need not scan it again: member k's key (its opening quote) starts at
// At[k][0] and its value at At[k][1]; the value ends one byte before the
// next member's key (at its ','), the last one before the closing '}'.
type Members struct {
	N  int // how many members; -1 when not recorded (see AppendMembers)
	At [6][2]int
}

// member records a member of the top-level object: its key at key and its
// value at val, both offsets in what copyCompact writes.
func (sp *spaces) member(key, val int) {
	m := sp.mem
	if m == nil || m.N < 0 {
		return
	}
	if m.N == len(m.At) {
		m.N = -1
		return
	}
	m.At[m.N] = [2]int{key, val}
	m.N++
}

// skip skips the whitespace at src[i], which there is, and records it.
func (sp *spaces) skip(src []byte, i int) int {
	k := spaceEnd(src, i)
	if sp.runs < len(sp.at) {
		sp.at[sp.runs] = [2]int{i, k}
	}
	sp.runs++
	sp.n += k - i
	return k
}

// isSpace marks JSON's whitespace, the only bytes the fast path skips.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// spaceEnd returns the index of the first byte at or after i that is not
// JSON whitespace.
func spaceEnd(src []byte, i int) int {
	for i < len(src) && isSpace[src[i]] {
		i++
	}
	return i
}

// stripSpace appends src, strict JSON as compactEnd accepted it, without
// the whitespace between its tokens.
func stripSpace(dst, src []byte) []byte {
	run := 0
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '"':
			i = compactStrEnd(src, i+1)
		case isSpace[c]:
			dst = append(dst, src[run:i]...)
			i = spaceEnd(src, i)
			run = i
		default:
			i++
		}
	}
	return append(dst, src[run:]...)
}

// compactEnd reports whether src starts with an object or array that
// repairer.run would copy unchanged but for whitespace between tokens, in
// any mode, and if so its length, Result.Last and how many bytes of
// whitespace run drops from it. It accepts only strict JSON whose
// whitespace is JSON's four bytes (the transcoder drops them), strings
// with only JSON escapes (kept as written, \u surrogates included) and
// valid UTF-8 (else U+FFFD), numbers in JSON form (else fixed), and at
// most 64 levels; anything else, a value cut by the end of src included,
// is left to run. Only a container: a top-level scalar may be followed by
// what changes its reading (python string joining, a number's suffix).
// Python mode reads such JSON as plain mode does: joining needs a string
// where ',' or a closer stands. What follows the closing bracket is the
// caller's, as there.
func compactEnd(src []byte, sp *spaces) (end, last int, ok bool) {
	n := len(src)
	i := 0
	if n > 0 && isSpace[src[0]] {
		i = sp.skip(src, 0)
	}
	if i == n || src[i] != '{' && src[i] != '[' {
		return 0, 0, false
	}
	var objs uint64 // bit k set: the container k levels out from the innermost is an object
	depth := 0
	for {
		// A value at i, after any whitespace.
		if i < n && isSpace[src[i]] {
			i = sp.skip(src, i)
		}
		if i >= n {
			return 0, 0, false
		}
		switch c := src[i]; {
		case c == '{' || c == '[':
			if depth+sp.outer == 64 {
				return 0, 0, false
			}
			objs = objs<<1 | uint64(c>>5&1) // '{' is 0x7b, '[' is 0x5b
			depth++
			i++
			if c == '{' && depth == 1 {
				last = i - sp.n
			}
			if i < n && isSpace[src[i]] {
				i = sp.skip(src, i)
			}
			if i < n && src[i] == c+2 { // empty: '}' is '{'+2, ']' is '['+2
				i++
				depth--
				objs >>= 1
				break
			}
			if c == '[' {
				continue
			}
			if i = compactKey(src, i, sp); i < 0 {
				return 0, 0, false
			}
			if depth == 1 {
				sp.member(last, i-sp.n)
			}
			continue
		case c == '"':
			if i = compactStrEnd(src, i+1); i < 0 {
				return 0, 0, false
			}
		case c == '-' || c >= '0' && c <= '9':
			if i = compactNumEnd(src, i); i < 0 {
				return 0, 0, false
			}
		case c == 't' && i+4 <= n && string(src[i:i+4]) == "true",
			c == 'n' && i+4 <= n && string(src[i:i+4]) == "null":
			i += 4
		case c == 'f' && i+5 <= n && string(src[i:i+5]) == "false":
			i += 5
		default:
			return 0, 0, false
		}
		// After a value: closers, then a ',' or the end.
		for {
			if depth == 0 {
				return i, last, true
			}
			if i < n && isSpace[src[i]] {
				i = sp.skip(src, i)
			}
			if i >= n {
				return 0, 0, false
			}
			c := src[i]
			if c == '}' && objs&1 == 1 || c == ']' && objs&1 == 0 {
				i++
				depth--
				objs >>= 1
				continue
			}
			if c != ',' {
				return 0, 0, false
			}
			i++
			if objs&1 == 1 {
				if depth == 1 {
					last = i - sp.n
				}
				if i = compactKey(src, i, sp); i < 0 {
					return 0, 0, false
				}
				if depth == 1 {
					sp.member(last, i-sp.n)
				}
			}
			break
		}
	}
}

// compactKey returns the index past the ':' of the key at or after i (past
// whitespace, which it adds to sp), or -1.
func compactKey(src []byte, i int, sp *spaces) int {
	if i < len(src) && isSpace[src[i]] {
		i = sp.skip(src, i)
	}
	if i >= len(src) || src[i] != '"' {
		return -1
	}
	if i = compactStrEnd(src, i+1); i < 0 {
		return -1
	}
	if i < len(src) && isSpace[src[i]] {
		i = sp.skip(src, i)
	}
	if i >= len(src) || src[i] != ':' {
		return -1
	}
	return i + 1
}

// compactStrEnd returns the index past the closing quote of the string whose
// body starts at i when str would copy it unchanged, else -1.
func compactStrEnd(src []byte, i int) int {
	n := len(src)
	for {
		// Keys and names end within a few bytes, where a byte at a time
		// is cheaper than setting up the word-at-a-time test.
		e := min(n, i+16)
		for i < e && !strByteSpecial[src[i]] {
			i++
		}
		if i == e {
			for ; i+8 <= n; i += 8 {
				if m := dqMask(binary.LittleEndian.Uint64(src[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
			}
			for i < n && !strByteSpecial[src[i]] {
				i++
			}
		}
		if i >= n {
			return -1
		}
		switch c := src[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 < n && jsonEscape[src[i+1]] {
				i += 2
			} else if i+6 <= n && src[i+1] == 'u' && isHexByte(src[i+2]) && isHexByte(src[i+3]) &&
				isHexByte(src[i+4]) && isHexByte(src[i+5]) {
				i += 6
			} else {
				return -1
			}
		case c == '\'':
			i++
		case c < 0x20:
			return -1
		default: // not ASCII: str replaces what DecodeRune refuses
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				return -1
			}
			i += size
		}
	}
}

// compactNumEnd returns the index past the JSON number at i, or -1 (also
// for a number with an exponent, left to the transcoder). The caller then
// needs ',' or a closer there, which refuses 01 and the like.
func compactNumEnd(src []byte, i int) int {
	n := len(src)
	digits := func(i int) int {
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		return i
	}
	if src[i] == '-' {
		i++
	}
	if i < n && src[i] == '0' {
		i++
	} else if j := digits(i); j > i {
		i = j
	} else {
		return -1
	}
	if i < n && src[i] == '.' {
		if j := digits(i + 1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		// An exponent may take the number beyond a float64: the
		// transcoder reads it and says so (Result.Exp).
		return -1
	}
	return i
}
