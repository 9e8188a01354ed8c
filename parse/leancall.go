package parse

import (
	"encoding/binary"
	"math/bits"

	"github.com/toolcall/toolcall/parse/jsonrepair"
)

// leanShort is what leanObject and flatObjectEnd return when their input
// ends before the object does; 0 is what they return for any object they
// do not read.
const leanShort = -1

// leanKey and leanStr mark the bytes leanObject takes in a key and in a
// string value; leanSpace JSON's whitespace, the only bytes it drops.
var leanKey, leanStr, leanSpace = func() (k, s, sp [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		k[c] = true
	}
	k['_'] = true
	for c := 0x20; c < 0x7f; c++ {
		s[c] = c != '"' && c != '\\'
	}
	for _, c := range " \t\n\r" {
		sp[c] = true
	}
	return k, s, sp
}()

// leanWord returns i moved over the bytes of leanStr at b[i] that the
// word of eight there holds: to the first byte not in it, or eight on when
// all are (or not at all, with fewer than eight left). The loop after it
// goes on from there a byte at a time: a key or a short value, as most
// are, ends within the word, for one test instead of one per byte.
func leanWord(b []byte, i int) int {
	if i+8 > len(b) {
		return i
	}
	if m := leanStop(binary.LittleEndian.Uint64(b[i:])); m != 0 {
		return i + bits.TrailingZeros64(m)>>3
	}
	return i + 8
}

// leanStop has the high bit set in the byte of w (little-endian) that is
// the first not in leanStr (a control character, '"', '\\', DEL or a
// byte not ASCII), and is zero when there is none. As in jsonw's
// escapeMask, only the lowest set bit is exact: a borrow or a carry
// starts only at a byte that is flagged itself, and moves up from it.
//
//	w - 0x20 per byte   sets the high bit of a byte below 0x20
//	| w                 and of a byte of 0x80 or more
//	| w + 1 per byte    and of DEL (0x7f)
//	(w ^ '"') - 1       of a quote, which the xor made zero
//	(w ^ '\\') - 1      of a backslash
func leanStop(w uint64) uint64 {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	ctl := w - 0x20*lsb
	del := w + lsb
	quote := (w ^ '"'*lsb) - lsb
	bslash := (w ^ '\\'*lsb) - lsb
	return (ctl | w | del | quote | bslash) & msb
}

// leanCopy is where leanObject notes the whitespace of an object written
// with it between its tokens (as Python's json.dumps writes it, and with
// it most chat templates' calls), for end to copy the object without it:
// what jsonrepair.AppendCompact would append. An object with none is not
// copied: gaps stays 0.
//
// The runs are noted as they are found and the bytes between them copied
// in one loop at the end, sixteen at a time: a call has a dozen runs, and
// a copy at each, in the middle of the reading, cost more than the reading
// (a function call there makes the reading put its state aside each time).
type leanCopy struct {
	gaps     int // bytes of whitespace dropped so far
	runs     int // runs of it; the first len(from) are noted
	from, to [32]int
}

// space skips the whitespace at src[i], which there is, and notes it; it
// returns where it ends.
func (c *leanCopy) space(src []byte, i int) int {
	k := i + 1
	for k < len(src) && leanSpace[src[k]] {
		k++
	}
	if r := c.runs; r < len(c.from) {
		c.from[r], c.to[r] = i, k
	}
	c.runs++
	c.gaps += k - i
	return k
}

// end returns the object leanObject read, src[:n], without its whitespace,
// in buf's array or a new one; false when it had too many runs of it to
// note.
func (c *leanCopy) end(buf, src []byte, n int) ([]byte, bool) {
	if c.runs > len(c.from) {
		return nil, false
	}
	size := n - c.gaps
	if cap(buf) < size+16 {
		buf = make([]byte, 2*size+16)
	}
	buf = buf[:size+16]
	from := c.from[:c.runs]
	to := c.to[:len(from)]
	o, at, r := 0, 0, 0 // where the next piece goes, where it is in src, its run
	// Pieces of up to sixteen bytes, as most are, moved whole: what lands
	// past one (o+16 <= size+16) is written over by the next.
	for ; r < len(from); r++ {
		f := from[r]
		if f-at > 16 || at+16 > len(src) {
			break
		}
		*(*[16]byte)(buf[o : o+16]) = *(*[16]byte)(src[at : at+16])
		o += f - at
		at = to[r]
	}
	for ; r < len(from); r++ {
		o += copy(buf[o:], src[at:from[r]])
		at = to[r]
	}
	o += copy(buf[o:], src[at:n])
	return buf[:o], true
}

// skip is space where there may be no whitespace at src[i].
func (c *leanCopy) skip(src []byte, i int) int {
	if i < len(src) && leanSpace[src[i]] {
		return c.space(src, i)
	}
	return i
}

// leanObject reads the object at the start of src when it is written as
// most calls are: strict JSON, keys of lowercase letters and '_', each
// value a string of printable ASCII without escapes or an object or array
// (jsonrepair.CompactEnd), at most len(m.At) members, and whitespace only
// between tokens and not inside the objects and arrays CompactEnd reads.
// It returns what jsonrepair.AppendCompact would for such an object: its
// length n in src, Result.Last, and its members in m, all but n offsets in
// the object without its whitespace; that is src[:n] itself when c.gaps
// is 0, else what c.end gives (c starts with no gaps and no runs). flat says
// every value that is not a string is an object flatObjectEnd reads: one
// level deep, no escapes.
//
// n is 0 for anything else, which AppendCompact reads; and leanShort when
// src ends before the object does, all of it so far read as such an object
// (when the cut is not inside a nested value that flatObjectEnd does not
// read): nothing but more input can finish it, so there is nothing to
// transcode yet.
//
// Whitespace is looked for only where the compact form has no match, so
// compact objects, as the JSONL protocol writes them, pay little for it.
func leanObject(src []byte, m *jsonMembers, c *leanCopy) (n, last int, flat bool) {
	if len(src) < 2 || src[0] != '{' {
		if len(src) == 1 && src[0] == '{' {
			return leanShort, 0, false
		}
		return 0, 0, false
	}
	m.N = 0
	flat = true
	i := 1
	gaps := 0 // c.gaps, kept at hand
	for {
		if m.N == len(m.At) {
			return 0, 0, false
		}
		// A key.
		if i >= len(src) || src[i] != '"' {
			i = c.skip(src, i)
			if gaps = c.gaps; i >= len(src) {
				return leanShort, 0, false
			}
			if src[i] != '"' {
				return 0, 0, false
			}
		}
		key := i - gaps
		if k := callKey(src[i:]); k > 0 {
			i += k
		} else {
			i++
			for i < len(src) && leanKey[src[i]] {
				i++
			}
			if i >= len(src) {
				return leanShort, 0, false
			}
			if src[i] != '"' {
				return 0, 0, false
			}
			i = c.skip(src, i+1)
			if gaps = c.gaps; i >= len(src) {
				return leanShort, 0, false
			}
			if src[i] != ':' {
				return 0, 0, false
			}
			i++
		}
		// Its value.
	value:
		if i >= len(src) {
			return leanShort, 0, false
		}
		val := i - gaps
		switch src[i] {
		case '"':
			i++
			for i = leanWord(src, i); i < len(src) && leanStr[src[i]]; i++ {
			}
			if i >= len(src) {
				return leanShort, 0, false
			}
			if src[i] != '"' {
				return 0, 0, false
			}
			i++
		case '{', '[':
			k := flatObjectEnd(src, i, c)
			if k == leanShort {
				return leanShort, 0, false
			}
			if k == 0 {
				// Not flat: strict and with no whitespace at all, or
				// left to AppendCompact.
				if k, ok := jsonrepair.CompactEnd(src[i:], 1); ok && c.gaps == gaps {
					i += k
				} else {
					return 0, 0, false
				}
				flat = false
			} else {
				i, gaps = k, c.gaps
			}
		default:
			if !leanSpace[src[i]] {
				return 0, 0, false
			}
			i = c.space(src, i)
			gaps = c.gaps
			goto value
		}
		m.At[m.N] = [2]int{key, val}
		m.N++
		// A ',' or the end.
	next:
		if i >= len(src) {
			return leanShort, 0, false
		}
		switch src[i] {
		case ',':
			i++
		case '}':
			i++
			return i, key, flat
		default:
			if !leanSpace[src[i]] {
				return 0, 0, false
			}
			i = c.space(src, i)
			gaps = c.gaps
			goto next
		}
	}
}

// flatObjectEnd returns where the object at src[i] ends when it is flat
// and simple, as most arguments are: strict JSON, each key and string
// value printable ASCII without escapes, each other value an integer,
// true, false or null, and whitespace only between tokens, which it drops
// as leanObject does (c). It returns leanShort when src ends before such
// an object does, and 0 for anything else (jsonrepair.CompactEnd reads
// that); never an end AppendCompact would refuse.
func flatObjectEnd(src []byte, i int, c *leanCopy) int {
	b := src
	if i+1 >= len(b) {
		if i+1 == len(b) && b[i] == '{' {
			return leanShort
		}
		return 0
	}
	if b[i] != '{' {
		return 0
	}
	i++
	if b[i] != '"' {
		if i = c.skip(b, i); i >= len(b) {
			return leanShort
		}
		if b[i] == '}' {
			return i + 1
		}
	}
	for {
		// A key.
		if i >= len(b) || b[i] != '"' {
			if i = c.skip(b, i); i >= len(b) {
				return leanShort
			}
			if b[i] != '"' {
				return 0
			}
		}
		i++
		for i = leanWord(b, i); i < len(b) && leanStr[b[i]]; i++ {
		}
		if i+1 >= len(b) && (i == len(b) || b[i] == '"') {
			return leanShort
		}
		if b[i] != '"' {
			return 0
		}
		i++
		if b[i] != ':' {
			if i = c.skip(b, i); i >= len(b) {
				return leanShort
			}
			if b[i] != ':' {
				return 0
			}
		}
		i++
		// Its value.
	value:
		if i >= len(b) {
			return leanShort
		}
		switch v := b[i]; {
		case v == '"':
			i++
			for i = leanWord(b, i); i < len(b) && leanStr[b[i]]; i++ {
			}
			if i >= len(b) {
				return leanShort
			}
			if b[i] != '"' {
				return 0
			}
			i++
		case v == '-' || v >= '0' && v <= '9':
			if v == '-' {
				i++
			}
			if i < len(b) && b[i] == '0' {
				i++
			} else {
				k := i
				for i < len(b) && b[i] >= '0' && b[i] <= '9' {
					i++
				}
				if i == len(b) {
					return leanShort
				}
				if i == k {
					return 0
				}
			}
		case leanSpace[v]:
			i = c.space(b, i)
			goto value
		case v == 't' && i+4 <= len(b) && string(b[i:i+4]) == "true",
			v == 'n' && i+4 <= len(b) && string(b[i:i+4]) == "null":
			i += 4
		case v == 'f' && i+5 <= len(b) && string(b[i:i+5]) == "false":
			i += 5
		default:
			return 0
		}
		// A ',' or the end.
	next:
		if i >= len(b) {
			return leanShort
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1
		default:
			if !leanSpace[b[i]] {
				return 0
			}
			i = c.space(b, i)
			goto next
		}
	}
}

// callKey returns the length of the key and ':' a call most often has at
// the start of b ("name":, "arguments": ...), which it compares whole
// rather than a byte at a time; 0 for any other.
func callKey(b []byte) int {
	// Each comparison with a constant is a few word loads, not a call.
	switch {
	case len(b) < 7:
	case string(b[:7]) == `"name":`:
		return 7
	case string(b[:7]) == `"type":`:
		return 7
	case string(b[:5]) == `"id":`:
		return 5
	case len(b) >= 12 && string(b[:12]) == `"arguments":`:
		return 12
	case len(b) >= 13 && string(b[:13]) == `"parameters":`:
		return 13
	}
	return 0
}
