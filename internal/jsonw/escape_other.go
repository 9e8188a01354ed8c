//go:build !amd64 || purego

package jsonw

// Without the AVX2 kernel of escape_amd64.s (another architecture, or the
// purego build tag), AppendString is Go alone.
var haveKernel = false

func appendKernel(dst []byte, s string, i int) ([]byte, int) { return dst, i }
