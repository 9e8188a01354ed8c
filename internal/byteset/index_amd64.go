//go:build !purego

package byteset

import "golang.org/x/sys/cpu"

// indexBlocks returns the index of the first byte of b's whole 32-byte
// blocks that is in the set whose tables are lo and hi (see Set), or
// len(b)&^31 when there is none. It needs AVX2 (index_amd64.s).
//
//go:noescape
func indexBlocks(b []byte, lo, hi *[32]byte) int

// onePass: indexBlocks can run here. Tests turn it off to compare.
var onePass = cpu.X86.HasAVX2
