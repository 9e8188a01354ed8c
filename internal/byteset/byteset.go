// Package byteset finds the first of a few bytes in a slice, in one pass
// over it: on amd64 with AVX2, 32 bytes at a time against all of them
// (index_amd64.s); elsewhere, or with the purego build tag, with one
// bytes.IndexByte per byte of the set, each stopping at the best match so
// far.
package byteset

import "bytes"

// Set is one to eight bytes to look for.
type Set struct {
	s string
	// The kernel's tables: byte k of the set is bit k of lo[c&15] and of
	// hi[c>>4], so that a byte c is in the set exactly when the two
	// entries share a bit. Each is written twice, for the two 16-byte
	// lanes of a 32-byte register.
	lo, hi [32]byte
	has    [256]bool
}

// New returns the set of the bytes of s, which holds one to eight bytes.
func New(s string) *Set {
	if len(s) == 0 || len(s) > 8 {
		panic("byteset: a set holds one to eight bytes")
	}
	set := &Set{s: s}
	for k := range len(s) {
		c := s[k]
		for lane := 0; lane < 32; lane += 16 {
			set.lo[lane+int(c&15)] |= 1 << k
			set.hi[lane+int(c>>4)] |= 1 << k
		}
		set.has[c] = true
	}
	return set
}

// Index returns the index of the first byte of b that is in set, or -1.
func Index(b []byte, set *Set) int {
	if onePass {
		i := 0
		if len(b) >= 32 {
			i = indexBlocks(b, &set.lo, &set.hi)
			if i < len(b)&^31 {
				return i
			}
		}
		for ; i < len(b); i++ {
			if set.has[b[i]] {
				return i
			}
		}
		return -1
	}
	best, limit := -1, len(b)
	for k := range len(set.s) {
		if j := bytes.IndexByte(b[:limit], set.s[k]); j >= 0 {
			best, limit = j, j
		}
	}
	return best
}

// OnePass reports whether Index looks at each byte once, whatever the
// size of the set. Where it does not, a caller that searches the same
// bytes again and again may do better keeping its own position per byte
// of the set.
func OnePass() bool { return onePass }
