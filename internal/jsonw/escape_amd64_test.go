//go:build !purego

package jsonw

import (
	"strings"
	"testing"
)

// withKernel runs f with the assembly kernel on or off.
func withKernel(on bool, f func()) {
	was := haveKernel
	haveKernel = on && was
	defer func() { haveKernel = was }()
	f()
}

// The kernel changes no output: every string of FuzzAppendStringSimple's
// corpus and beyond, escaped with it and without.
func FuzzKernel(f *testing.F) {
	if !haveKernel {
		f.Skip("no AVX2 here")
	}
	// Each seed is past kernelMin, so that mutations start in the kernel.
	long := strings.Repeat("plain ", kernelMin/6+1)
	for _, s := range []string{
		"",
		long,
		strings.Repeat("line\n", 30) + "tab\tcr\rquote\"back\\slash",
		long + strings.Repeat("x", 31) + "\x01" + strings.Repeat("y", 40),
		strings.Repeat("é", 20) + strings.Repeat("a", 130) + "\xff" + strings.Repeat("b", 33),
		long + strings.Repeat("\u2028", 12) + strings.Repeat("\n", 64) + "\x7f\x1f\x80",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var off, on []byte
		withKernel(false, func() { off = AppendString([]byte("prefix"), s) })
		withKernel(true, func() { on = AppendString([]byte("prefix"), s) })
		if string(on) != string(off) {
			t.Fatalf("AppendString(%q) = %s with the kernel, %s without", s, on, off)
		}
	})
}

// A string longer than one kernel call's piece, escapes falling across the
// pieces' edges, and dst buffers with every little room left.
func TestKernelPieces(t *testing.T) {
	if !haveKernel {
		t.Skip("no AVX2 here")
	}
	s := strings.Repeat(strings.Repeat("a", 31)+"\n", 3*kernelPiece/32+7) + "tail\"é"
	for room := range 70 {
		dst := make([]byte, 5, 5+room)
		var off, on []byte
		withKernel(false, func() { off = AppendString(dst, s) })
		withKernel(true, func() { on = AppendString(dst, s) })
		if string(on) != string(off) {
			t.Fatalf("room %d: outputs differ (%d and %d bytes)", room, len(on), len(off))
		}
	}
}

func BenchmarkKernel(b *testing.B) {
	texts := map[string]string{
		"ascii": strings.Repeat("The committee reviewed the quarterly figures and noted that revenue rose, while costs held steady across most regions.\n", 64<<10/120),
		"utf8":  strings.Repeat("Le comité a examiné les chiffres trimestriels — la hausse des revenus, « stable » ailleurs. 委員会は四半期の数字を検討した。\n", 64<<10/150),
		"short": "lookup_customer_record",
		"line":  "The committee reviewed the quarterly figures and noted that revenue rose.",
	}
	for _, name := range []string{"ascii", "utf8", "short", "line"} {
		text := texts[name]
		for _, on := range []bool{false, true} {
			mode := "go"
			if on {
				mode = "avx2"
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				var buf []byte
				withKernel(on, func() {
					for b.Loop() {
						buf = AppendString(buf[:0], text)
					}
				})
			})
		}
	}
}
