package chattemplate

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzReadGGUF reads arbitrary GGUF headers: whatever the bytes claim
// (counts, lengths, nesting), the read ends with a template or an error,
// within memory the bytes themselves bound. The seeds are issue 31's: a
// header of nested array headers (which overflowed the stack), and
// counts far beyond the file.
func FuzzReadGGUF(f *testing.F) {
	f.Add(ggufNested(2))
	f.Add(ggufNested(100))
	w := newGGUF(1)
	w.str("tokenizer.ggml.tokens")
	w.le(uint32(ggufArray))
	w.le(uint32(ggufString))
	w.le(uint64(1 << 24)) // claimed, not there
	f.Add(w.Bytes())
	w = newGGUF(1)
	w.str("tokenizer.chat_template")
	w.le(uint32(ggufString))
	w.le(uint64(maxSource)) // claimed, not there
	f.Add(w.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.HasPrefix(b, []byte("GGUF")) {
			return
		}
		tp, err := readGGUF(bufio.NewReader(bytes.NewReader(b)))
		if err == nil && len(tp.Source) > len(b) {
			t.Fatalf("a template of %d bytes from a file of %d", len(tp.Source), len(b))
		}
	})
}
