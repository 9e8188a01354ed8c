package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHead(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"añb", 2, "a…"},                             // ñ is two bytes: not split
		{"a😀b", 4, "a…"},                             // nor is a four-byte character
		{"\x80\x80\x80\x80\x80", 3, "\x80\x80\x80…"}, // not UTF-8: cut where asked
		{"abc", 0, "…"},
	} {
		if got := Head(c.s, c.n); got != c.want {
			t.Errorf("Head(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestRunes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"ééé", 3, "ééé"}, // six bytes, three characters
		{"éééé", 3, "ééé…"},
		{"abc", 0, "…"},
	} {
		if got := Runes(c.s, c.n); got != c.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// A cut of valid UTF-8 is valid UTF-8, no longer than asked, and as long
// as it can be.
func FuzzBoundary(f *testing.F) {
	f.Add("añb😀c", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		i := Boundary(s, n)
		if i < 0 || i > len(s) || n >= 0 && i > n {
			t.Fatalf("Boundary(%q, %d) = %d", s, n, i)
		}
		if utf8.ValidString(s) {
			if !utf8.ValidString(s[:i]) {
				t.Fatalf("Boundary(%q, %d) = %d splits a character", s, n, i)
			}
			if n > 0 && n < len(s) && i < n-utf8.UTFMax+1 {
				t.Fatalf("Boundary(%q, %d) = %d backs off too far", s, n, i)
			}
		}
		if h := Head(s, n); n >= 0 && len(strings.TrimSuffix(h, Ellipsis)) > max(n, 0) && len(s) > n {
			t.Fatalf("Head(%q, %d) = %q is too long", s, n, h)
		}
	})
}
