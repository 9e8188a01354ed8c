package parse

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// streamByWrites is Stream with the streamWriter's readRaw hidden, so
// that unpack writes model text to it from its own buffer, as it does to
// any modelOutput: the reference for the path that reads into the
// Parser's buffer.
func streamByWrites(t *testing.T, r io.Reader) string {
	t.Helper()
	var out bytes.Buffer
	s := &streamWriter{ctx: t.Context(), w: &out}
	p, err := NewParser(Options{}, s.add)
	if err != nil {
		t.Fatal(err)
	}
	s.p = p
	if err := unpack(r, struct{ modelOutput }{s}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Stream reads model text straight into the Parser's buffer (readRaw):
// its events are those of the same input written to the Parser piece by
// piece, however the reads cut the input.
func TestStreamReadRaw(t *testing.T) {
	files, err := filepath.Glob("testdata/formats/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata/formats/*.txt", err)
	}
	inputs := map[string][]byte{
		// A call straddles each readSize boundary somewhere among these.
		"prose with calls": proseWithCalls(3*readSize+1000, 70<<10),
		"no newline":       bytes.Repeat([]byte("a"), 3*readSize+7),
		"text then a call at readSize": append(bytes.Repeat([]byte("x\n"), readSize/2-5),
			`<tool_call>{"name":"f","arguments":{"a":1}}</tool_call>tail`...),
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = b
	}
	readers := map[string]func([]byte) io.Reader{
		"whole":    func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"halves":   func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"7 bytes":  func(b []byte) io.Reader { return &slowReader{b, 7} },
		"odd 64K":  func(b []byte) io.Reader { return &slowReader{b, 64<<10 + 3} },
	}
	for name, in := range inputs {
		want := streamByWrites(t, bytes.NewReader(in))
		for rname, r := range readers {
			if rname == "one byte" && len(in) > 64<<10 {
				continue // slow, and the 7-byte reads cover it
			}
			var got strings.Builder
			if _, err := Stream(t.Context(), r(in), &got, Options{}); err != nil {
				t.Fatalf("%s, %s: %v", name, rname, err)
			}
			if got.String() != want {
				t.Fatalf("%s read %s: the events differ from those of the same input written:\ngot:\n%.2000s\nwant:\n%.2000s", name, rname, got.String(), want)
			}
		}
	}
}
