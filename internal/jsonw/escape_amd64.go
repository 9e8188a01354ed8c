//go:build !purego

package jsonw

import (
	"slices"

	"golang.org/x/sys/cpu"
)

// escapeASCII copies src to dst as AppendString writes it, without the
// quotes, for as long as src holds printable ASCII, quotes, backslashes,
// newlines, carriage returns and tabs, and at least 32 bytes are left: it
// returns how many bytes of src it read and of dst it wrote. dst must have
// room for 2*len(src) bytes: each byte becomes at most two, and the stores
// past what it writes (at most 130 bytes from where it is, while 129 or
// more are left to read) never pass that. It needs AVX2 (escape_amd64.s).
//
//go:noescape
func escapeASCII(dst []byte, src string) (nsrc, ndst int)

// haveKernel: escapeASCII can run here. Tests turn it off to compare.
var haveKernel = cpu.X86.HasAVX2

// kernelPiece bounds the src of one escapeASCII call, so that the room it
// needs in dst stays small whatever the length of the string.
const kernelPiece = 32 << 10

// AppendSlack must cover the room the kernel asks for (see appendKernel).
const _ = uint(AppendSlack - 2*kernelPiece)

// appendKernel appends s[i:] escaped for as long as escapeASCII goes, and
// returns dst and where it stopped: at a byte AppendString must look at
// itself, or among the last bytes of s.
func appendKernel(dst []byte, s string, i int) ([]byte, int) {
	for len(s)-i >= 32 {
		n := min(len(s)-i, kernelPiece)
		dst = slices.Grow(dst, 2*n)
		nsrc, ndst := escapeASCII(dst[len(dst):cap(dst)], s[i:i+n])
		dst = dst[:len(dst)+ndst]
		i += nsrc
		if nsrc == 0 {
			break
		}
	}
	return dst, i
}
