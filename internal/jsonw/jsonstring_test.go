package jsonw

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain ascii text that is long enough", `"plain ascii text that is long enough"`},
		{`a "quoted" \ path`, `"a \"quoted\" \\ path"`},
		{"line\nbreak\tand\rreturn", `"line\nbreak\tand\rreturn"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"<tag> & more", `"<tag> & more"`},
		{"héllo wörld ✓ 日本", `"héllo wörld ✓ 日本"`},
		{"bad \xff byte", `"bad \ufffd byte"`},
		{"cut \xe2\x9c", `"cut \ufffd\ufffd"`},
		{"sep\u2028par\u2029", `"sep\u2028par\u2029"`},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := string(AppendBytes(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendBytes(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "abc", "a\"b\\c\n", "\xff\xfe", "日本語テキスト12345678", strings.Repeat("x", 17) + "\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if !utf8.Valid(out) {
			t.Fatalf("AppendString(%q) is not valid UTF-8: %q", s, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("AppendString(%q) = %s, not JSON: %v", s, out, err)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		// Each invalid byte becomes its own U+FFFD, as encoding/json does.
		if utf8.ValidString(s) && back != want {
			t.Fatalf("round trip of %q = %q", s, back)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again.\n", 1<<10)
	b.SetBytes(int64(len(prose)))
	var buf []byte
	for b.Loop() {
		buf = AppendString(buf[:0], prose)
	}
}
