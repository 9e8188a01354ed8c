package jsonw

import (
	"encoding/json"
	"fmt"
	"math/bits"
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

// StringLen counts what AppendString writes: six bytes for a control
// character, an invalid byte, U+2028; two for a quote, a backslash, a
// newline; the rest as it is.
func TestStringLen(t *testing.T) {
	for _, s := range []string{"", "plain", "\x01\x02", "\"\\\n\r\t\b\f", "\xff\xfe", "\u2028\u2029", "日本語", "é\x00",
		strings.Repeat("\x01", 1000), strings.Repeat("abc\"", 100) + "\xff", strings.Repeat("x", 200) + "\x1f"} {
		if n, want := StringLen(s), len(AppendString(nil, s)); n != want {
			t.Errorf("StringLen(%q) = %d, want %d", s, n, want)
		}
	}
	if n := StringLen(strings.Repeat("\x01", 1<<20)); n != 6<<20+2 {
		t.Errorf("a MiB of control bytes: %d, want %d", n, 6<<20+2)
	}
	// Room made with StringLen and AppendSlack is used, not copied into a
	// larger dst: a ref of many megabytes is one copy (sized exactly, dst
	// was grown by the kernel near its end, which doubled it).
	for _, s := range []string{strings.Repeat("plain text ", 100000), strings.Repeat("\x01", 100000), strings.Repeat("ab\"c\n\x01é", 30000) + strings.Repeat("x", 33)} {
		dst := make([]byte, 0, StringLen(s)+AppendSlack)
		out := AppendString(dst, s)
		if len(out) != StringLen(s) || &out[0] != &dst[:1][0] {
			t.Errorf("%d bytes into a dst of that room and the slack: copied (cap %d -> %d)", len(out), cap(dst), cap(out))
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "abc", "a\"b\\c\n", "\xff\xfe", "日本語テキスト12345678", strings.Repeat("x", 17) + "\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if n := StringLen(s); n != len(out) {
			t.Fatalf("StringLen(%q) = %d, but AppendString wrote %d bytes: %s", s, n, len(out), out)
		}
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

// appendStringSimple is AppendString written a character at a time, the
// reference the word-at-a-time one is held to.
func appendStringSimple(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r < 0x20:
			dst = AppendControl(dst, byte(r))
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, fmt.Sprintf(`\u%04x`, r)...)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// The word-at-a-time AppendString writes what the simple one does, and
// encoding/json (but for \b and \f), for any bytes, wherever in a word
// the byte to escape falls.
func FuzzAppendStringSimple(f *testing.F) {
	for _, s := range []string{"", "abcdefgh\"", "abcdefg\\", "\x1f\x20\x21", "\x7f\x80", "ab\xe2\x80\xa8cdefghij\xe2\x80\xa9", "\xed\xa0\x80 surrogate", "0123456\xf0\x9f\x98\x80", "\xf4\x90\x80\x80", "ok\xc0\xaf", "\b\f\\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := string(appendStringSimple(nil, s))
		// Every offset within a word, so each byte is tried in each lane.
		for pad := range 8 {
			in := strings.Repeat("x", pad) + s
			w := string(appendStringSimple(nil, in))
			if got := string(AppendString(nil, in)); got != w {
				t.Fatalf("AppendString(%q) = %s, want %s", in, got, w)
			}
		}
		if got := string(AppendString(nil, s)); got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if enc := encodingJSON(t, s); enc != want {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, want, enc)
		}
	})
}

// encodingJSON is s as encoding/json writes it without HTML escaping, but
// for \b and \f, which it has written short since Go 1.22 and toolcall
// writes as \u0008 and \u000c, as before.
func encodingJSON(t *testing.T, s string) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(buf.String(), "\n")
	var b strings.Builder
	for i := 0; i < len(out); i++ {
		if out[i] != '\\' {
			b.WriteByte(out[i])
			continue
		}
		i++
		switch out[i] {
		case 'b':
			b.WriteString(`\u0008`)
		case 'f':
			b.WriteString(`\u000c`)
		default:
			b.WriteByte('\\')
			b.WriteByte(out[i])
		}
	}
	return b.String()
}

// checkEscapeMask fails t unless escapeMask's lowest set bit for w is on
// the first byte to escape, or no bit is set and there is none.
func checkEscapeMask(t *testing.T, w uint64) {
	t.Helper()
	want := 8
	for k := range 8 {
		if c := byte(w >> (8 * k)); c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			want = k
			break
		}
	}
	m := escapeMask(w)
	got := 8
	if m != 0 {
		got = bits.TrailingZeros64(m) >> 3
	}
	if got != want {
		t.Fatalf("escapeMask(%#016x) = %#016x: first byte %d, want %d", w, m, got, want)
	}
}

func FuzzEscapeMask(f *testing.F) {
	for _, w := range []uint64{0, 0x2020202020202020, 0x1f20222020202020, 0x5c00000000000080, 0x7f7f7f7f7f7f7f7f, 0x2100212121212121} {
		f.Add(w)
	}
	f.Fuzz(checkEscapeMask)
}

// Every word whose low four bytes come from a set holding each boundary of
// escapeMask's tests (a borrow moves up at most through them), the high
// four repeating them.
func TestEscapeMaskBoundaries(t *testing.T) {
	edges := []uint64{0x00, 0x01, 0x1f, 0x20, 0x21, '"' - 1, '"', '"' + 1, '\\' - 1, '\\', '\\' + 1, 0x7f, 0x80, 0x81, 0x9f, 0xa0, 0xff}
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				for _, d := range edges {
					low := a | b<<8 | c<<16 | d<<24
					checkEscapeMask(t, low|low<<32)
				}
			}
		}
	}
}

func BenchmarkAppendStringText(b *testing.B) {
	for name, para := range map[string]string{
		"ascii": "The committee reviewed the quarterly figures and noted that revenue rose, while costs held steady across most regions.\n",
		"utf8":  "Le comité a examiné les chiffres trimestriels — la hausse des revenus, « stable » ailleurs. 委員会は四半期の数字を検討した。\n",
	} {
		text := strings.Repeat(para, 64<<10/len(para))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var buf []byte
			for b.Loop() {
				buf = AppendString(buf[:0], text)
			}
		})
	}
}

// The short strings of a call event: its id, name and format.
func BenchmarkAppendStringShort(b *testing.B) {
	words := []string{"call_1234", "get_weather", "json", "hermes", "lookup_customer_record"}
	n := 0
	for _, w := range words {
		n += len(w)
	}
	b.SetBytes(int64(n))
	var buf []byte
	for b.Loop() {
		buf = buf[:0]
		for _, w := range words {
			buf = AppendString(buf, w)
		}
	}
}
