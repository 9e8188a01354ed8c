package parse

import "github.com/toolcall/toolcall/parse/jsonrepair"

// leanShort is what leanObject and flatObjectEnd return when their input
// ends before the object does; 0 is what they return for any object they
// do not read.
const leanShort = -1

// leanKey and leanStr mark the bytes leanObject takes in a key and in a
// string value.
var leanKey, leanStr = func() (k, s [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		k[c] = true
	}
	k['_'] = true
	for c := 0x20; c < 0x7f; c++ {
		s[c] = c != '"' && c != '\\'
	}
	return k, s
}()

// leanObject reads the object at the start of src when it is written as
// most calls are: strict JSON with no whitespace, keys of lowercase letters
// and '_', each value a string of printable ASCII without escapes or an
// object or array (jsonrepair.CompactEnd), at most len(m.At) members. It
// returns what jsonrepair.AppendCompact would for such an object, which
// it copies byte for byte: its length n, Result.Last, and its members in
// m. flat says every value that is not a string is an object
// flatObjectEnd reads: one level deep, no escapes.
//
// n is 0 for anything else, which AppendCompact reads; and leanShort when
// src ends before the object does, all of it so far read as such an object
// (when the cut is not inside a nested value that flatObjectEnd does not
// read): nothing but more input can finish it, so there is nothing to
// transcode yet.
func leanObject(src []byte, m *jsonMembers) (n, last int, flat bool) {
	if len(src) < 2 {
		if len(src) == 1 && src[0] == '{' {
			return leanShort, 0, false
		}
		return 0, 0, false
	}
	if src[0] != '{' || src[1] != '"' {
		return 0, 0, false
	}
	m.N = 0
	flat = true
	i := 1
	for {
		if m.N == len(m.At) {
			return 0, 0, false
		}
		if i >= len(src) {
			return leanShort, 0, false
		}
		if src[i] != '"' {
			return 0, 0, false
		}
		key := i
		if k := callKey(src[i:]); k > 0 {
			i += k
		} else {
			i++
			for i < len(src) && leanKey[src[i]] {
				i++
			}
			if i+1 >= len(src) && (i == len(src) || src[i] == '"') {
				return leanShort, 0, false
			}
			if src[i] != '"' || src[i+1] != ':' {
				return 0, 0, false
			}
			i += 2
		}
		if i >= len(src) {
			return leanShort, 0, false
		}
		val := i
		switch src[i] {
		case '"':
			i++
			for i < len(src) && leanStr[src[i]] {
				i++
			}
			if i >= len(src) {
				return leanShort, 0, false
			}
			if src[i] != '"' {
				return 0, 0, false
			}
			i++
		case '{', '[':
			k := flatObjectEnd(src[i:])
			if k == leanShort {
				return leanShort, 0, false
			}
			if k == 0 {
				var ok bool
				if k, ok = jsonrepair.CompactEnd(src[i:], 1); !ok {
					return 0, 0, false
				}
				flat = false
			}
			i += k
		default:
			return 0, 0, false
		}
		m.At[m.N] = [2]int{key, val}
		m.N++
		if i >= len(src) {
			return leanShort, 0, false
		}
		switch src[i] {
		case ',':
			i++
		case '}':
			return i + 1, key, flat
		default:
			return 0, 0, false
		}
	}
}

// flatObjectEnd returns the length of the object at the start of b when
// it is flat and simple, as most arguments are: strict JSON with no
// whitespace, each key and string value printable ASCII without escapes,
// each other value an integer, true, false or null. It returns leanShort
// when b ends before such an object does, and 0 for anything else
// (jsonrepair.CompactEnd reads that); never an end CompactEnd would
// refuse.
func flatObjectEnd(b []byte) int {
	if len(b) < 2 {
		if len(b) == 1 && b[0] == '{' {
			return leanShort
		}
		return 0
	}
	if b[0] != '{' {
		return 0
	}
	if b[1] == '}' {
		return 2
	}
	i := 1
	for {
		// A key.
		if i >= len(b) {
			return leanShort
		}
		if b[i] != '"' {
			return 0
		}
		i++
		for i < len(b) && leanStr[b[i]] {
			i++
		}
		if i+1 >= len(b) && (i == len(b) || b[i] == '"') {
			return leanShort
		}
		if b[i] != '"' || b[i+1] != ':' {
			return 0
		}
		i += 2
		if i >= len(b) {
			return leanShort
		}
		// Its value.
		switch c := b[i]; {
		case c == '"':
			i++
			for i < len(b) && leanStr[b[i]] {
				i++
			}
			if i >= len(b) {
				return leanShort
			}
			if b[i] != '"' {
				return 0
			}
			i++
		case c == '-' || c >= '0' && c <= '9':
			if c == '-' {
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
		case c == 't' && i+4 <= len(b) && string(b[i:i+4]) == "true",
			c == 'n' && i+4 <= len(b) && string(b[i:i+4]) == "null":
			i += 4
		case c == 'f' && i+5 <= len(b) && string(b[i:i+5]) == "false":
			i += 5
		default:
			return 0
		}
		if i >= len(b) {
			return leanShort
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1
		default:
			return 0
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
