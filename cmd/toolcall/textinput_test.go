package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Text passes however the reads cut its UTF-8 sequences, and whatever
// lies past the first block; a NUL byte or bytes that are not UTF-8 in
// the first block are refused, at the byte where they stand.
func TestTextOnly(t *testing.T) {
	text := strings.Repeat("naïve € 𝄞 ", 2000) // 2-, 3- and 4-byte sequences across the block's end
	pastBlock := text[:textBlock+5] + "\x00\xff" + text
	for name, r := range map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"halves":   func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	} {
		for _, ok := range []string{text, pastBlock, "", "cut at the end \xe2\x82"} {
			got, err := io.ReadAll(textOnly(r(ok), "in"))
			if err != nil || !bytes.Equal(got, []byte(ok)) {
				t.Errorf("%s: text refused: %v", name, err)
			}
		}
		for in, at := range map[string]int{
			"abc\x00":                    3,
			"ab\xffc":                    2,
			"naïve \xe2\x82\x41":         7,    // a sequence broken off
			"\xef\xbb\xbfok\xc0\xaf":     5,    // an overlong '/'
			text[:4000] + "\xed\xa0\x80": 4000, // a surrogate
		} {
			_, err := io.ReadAll(textOnly(r(in), "in"))
			var nt *notTextError
			if !errors.As(err, &nt) || nt.offset != at {
				t.Errorf("%s: %q: %v; want refused at byte %d", name, in[max(0, len(in)-12):], err, at)
			}
		}
	}
}

func BenchmarkTextOnly(b *testing.B) {
	data := bytes.Repeat([]byte("the model said a word. "), 1<<16)
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := textOnly(bytes.NewReader(data), "in")
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
	}
}
