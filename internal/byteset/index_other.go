//go:build !amd64 || purego

package byteset

// Without the AVX2 kernel of index_amd64.s (another architecture, or the
// purego build tag), Index calls bytes.IndexByte for each byte of the set.
var onePass = false

func indexBlocks(b []byte, lo, hi *[32]byte) int { panic("byteset: no kernel") }
