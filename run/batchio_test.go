package run

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toolcall/toolcall/tools/event"
)

// writes records every write it is given.
type writes struct{ got [][]byte }

func (w *writes) Write(p []byte) (int, error) {
	w.got = append(w.got, bytes.Clone(p))
	return len(p), nil
}

// A transcript larger than memory holds goes through a file and comes back
// the same, in writes of whole lines only, each event with its request.
func TestSpoolWholeLines(t *testing.T) {
	for _, size := range []int{100, spoolMemory * 3} {
		var want bytes.Buffer
		sp := &spool{}
		rs := requestSink{id: `r"1`, next: event.NewJSONL(sp)}
		for i := 0; want.Len() < size; i++ {
			content := strings.Repeat("x", i%5000)
			line := fmt.Sprintf(`{"type":"text","content":"%s"}`+"\n", content)
			fmt.Fprintf(&want, `{"request":"r\"1",`+"%s", line[1:])
			if err := rs.Emit(&event.TextEvent{Type: event.TypeText, Content: []byte(content)}); err != nil {
				t.Fatal(err)
			}
		}
		if (sp.f != nil) != (size > spoolMemory) {
			t.Errorf("size %d: spooled to a file: %v", size, sp.f != nil)
		}
		var w writes
		if err := sp.copyTo(&w); err != nil {
			t.Fatal(err)
		}
		sp.discard()
		if got := bytes.Join(w.got, nil); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("size %d: the copy differs (%d bytes, want %d)", size, len(got), want.Len())
		}
		for i, p := range w.got {
			if !bytes.HasSuffix(p, []byte("\n")) {
				t.Errorf("size %d: write %d ends inside a line", size, i)
			}
		}
	}
}

// A line past the limit is reported and skipped; the lines after it are
// read, numbered as an editor numbers them, and a last line without a
// newline too.
func TestReadLinesTooLong(t *testing.T) {
	in := "short\n" + strings.Repeat("y", 100) + "\n\nafter\r\n" + strings.Repeat("z", 100)
	lr := readLines(iotest.OneByteReader(strings.NewReader(in)), 50)
	defer lr.stop()
	var got []string
	for l := range lr.c {
		switch {
		case errors.Is(l.err, errLineTooLong):
			got = append(got, fmt.Sprintf("%d:(too long)", l.n))
		case l.err != nil:
			t.Fatal(l.err)
		default:
			got = append(got, fmt.Sprintf("%d:%s", l.n, l.text))
		}
	}
	if want := "1:short,2:(too long),4:after,5:(too long)"; strings.Join(got, ",") != want {
		t.Errorf("lines %q, want %s", got, want)
	}
}
