package termsafe

import (
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, unchanged", "plain text, unchanged"},
		{"é ü 日本 ✓", "é ü 日本 ✓"},
		// The attacks: a window title, a clipboard write, a clear screen,
		// a forged line of toolcall's own, a NUL, a C1 CSI, a text
		// reversed by a bidirectional override, a byte that is not UTF-8.
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"bad gateway\ntoolcall: the run matches golden.jsonl", `bad gateway\ntoolcall: the run matches golden.jsonl`},
		{"over\rtoolcall: ok", `over\rtoolcall: ok`},
		{"a\x00b\x7fc\td", `a\x00b\x7fc\td`},
		{"\u009b31m", `\u009b31m`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"\xff\xfe ok", `\xff\xfe ok`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTextKeepsLinesAndTabs(t *testing.T) {
	in := "line 1\n\tline 2 \x1b[31mred\x1b[0m\r\n"
	want := "line 1\n\tline 2 \\x1b[31mred\\x1b[0m\\r\n"
	if got := Text(in); got != want {
		t.Errorf("Text(%q) = %q, want %q", in, got, want)
	}
}

// Text that needs nothing is not copied.
func TestCleanTextIsNotCopied(t *testing.T) {
	s := "nothing to escape here, déjà vu"
	if n := testing.AllocsPerRun(100, func() { _ = Line(s) }); n != 0 {
		t.Errorf("Line allocates %v times on clean text", n)
	}
}

func FuzzLineHasNoControls(f *testing.F) {
	f.Add("\x1b]0;x\x07\n\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Line(%q) = %q, not UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || hidden(r) {
				t.Fatalf("Line(%q) keeps %U", s, r)
			}
		}
	})
}
