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
		// Lines of prose, one escape in most 64-byte steps, quotes that
		// come in pairs.
		strings.Repeat("The figures rose, \"as expected\", while costs held steady across regions.\n", 6),
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

// Every one or two bytes of each kind at every place in strings long
// enough for the kernel's 64-byte step, against the Go loop: the step's
// escape stored one to the right, at its first and last byte and past it,
// and the steps it gives up to the 32-byte one.
func TestKernelPlaces(t *testing.T) {
	if !haveKernel {
		t.Skip("no AVX2 here")
	}
	kinds := []byte{'\n', '"', '\\', '\r', '\t', 0x01, 0x1f, 0x7f, 0x80, 0xe9}
	check := func(b []byte) {
		t.Helper()
		s := string(b)
		var off, on []byte
		withKernel(false, func() { off = AppendString([]byte("prefix"), s) })
		withKernel(true, func() { on = AppendString([]byte("prefix"), s) })
		if string(on) != string(off) {
			t.Fatalf("AppendString(%q) = %s with the kernel, %s without", s, on, off)
		}
	}
	for _, n := range []int{128, 129, 130, 192, 193, 257} {
		b := []byte(strings.Repeat("x", n))
		for i := range n {
			for _, c := range kinds {
				b[i] = c
				check(b)
				for j := i + 1; j < min(n, i+70); j++ {
					for _, d := range []byte{'\n', '"', 0x80} {
						b[j] = d
						check(b)
						b[j] = 'x'
					}
				}
				b[i] = 'x'
			}
		}
	}
}

func BenchmarkKernel(b *testing.B) {
	texts := map[string]string{
		"ascii": strings.Repeat("The committee reviewed the quarterly figures and noted that revenue rose, while costs held steady across most regions.\n", 64<<10/120),
		"utf8":  strings.Repeat("Le comité a examiné les chiffres trimestriels — la hausse des revenus, « stable » ailleurs. 委員会は四半期の数字を検討した。\n", 64<<10/150),
		"code":  strings.Repeat("\tif s == \"a\" {\n\t\treturn \"b\\n\"\n\t}\n", 64<<10/30),
		"short": "lookup_customer_record",
		"line":  "The committee reviewed the quarterly figures and noted that revenue rose.",
	}
	for _, name := range []string{"ascii", "utf8", "code", "short", "line"} {
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
