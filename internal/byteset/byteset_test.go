package byteset

import (
	"bytes"
	"strings"
	"testing"
)

// naive is Index a byte at a time: the reference. (bytes.IndexAny is
// not: it reads set as UTF-8.)
func naive(b []byte, set string) int {
	for i, c := range b {
		if strings.IndexByte(set, c) >= 0 {
			return i
		}
	}
	return -1
}

// withOnePass runs f with the one-pass kernel on or off (off only, where
// there is none).
func withOnePass(on bool, f func()) {
	was := onePass
	onePass = on && was
	defer func() { onePass = was }()
	f()
}

func check(t *testing.T, b []byte, set string) {
	t.Helper()
	want := naive(b, set)
	s := New(set)
	for _, on := range []bool{false, true} {
		withOnePass(on, func() {
			if got := Index(b, s); got != want {
				t.Fatalf("Index(%q, %q) = %d with onePass %v, want %d", b, set, got, onePass, want)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	sets := []string{"<", "<[{>`", "<[{>`(", "\x00\xff", "abcdefgh"}
	for _, set := range sets {
		for n := range 100 {
			b := bytes.Repeat([]byte{'.'}, n)
			check(t, b, set)
			for at := range n {
				for _, c := range []byte(set) {
					b[at] = c
					check(t, b, set)
					if at+1 < n {
						b[n-1] = set[0]
						check(t, b, set)
						b[n-1] = '.'
					}
					b[at] = '.'
				}
			}
		}
	}
}

func FuzzIndex(f *testing.F) {
	f.Add([]byte(strings.Repeat("prose ", 20)+"<tool_call>"), "<[{>`")
	f.Add([]byte(strings.Repeat("x", 64)+"("), "<[{>`(")
	f.Add([]byte("\x00\x80\xff"+strings.Repeat("\x7f", 40)), "\xff")
	f.Fuzz(func(t *testing.T, b []byte, set string) {
		if len(set) == 0 || len(set) > 8 {
			return
		}
		check(t, b, set)
	})
}

func BenchmarkIndex(b *testing.B) {
	prose := bytes.Repeat([]byte("The committee reviewed the quarterly figures and noted that revenue rose, while costs held steady across most regions.\n"), 64<<10/120)
	set := New("<[{>`")
	for _, on := range []bool{false, true} {
		mode := "indexbyte"
		if on {
			mode = "onepass"
		}
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(len(prose)))
			withOnePass(on, func() {
				for b.Loop() {
					if Index(prose, set) != -1 {
						b.Fatal("found")
					}
				}
			})
		})
	}
}
