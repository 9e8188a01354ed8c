package parse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"testing/iotest"
)

// failAfter writes n buffers, then fails.
type failAfter struct {
	n   int
	out bytes.Buffer
}

var errWrite = errors.New("disk full")

func (w *failAfter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errWrite
	}
	w.n--
	return w.out.Write(p)
}

// When the reader of the output goes away, Stream stops with EPIPE rather
// than hang or lose the error. (On a process's own stdout the same write
// kills it with SIGPIPE instead: see testdata/script/parse_closed_stdout.txtar.)
func TestStreamBrokenPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	pr.Close()
	in := proseWithCalls(4<<20, 1<<20)
	_, err = Stream(t.Context(), bytes.NewReader(in), pw, Options{})
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Stream = %v, want EPIPE", err)
	}
}

// When the input fails, or the output does, Stream returns only after
// every event of what arrived before has been written: the output is the
// events of the input that came (with its last partial call or marker
// taken as it stands), whole lines.
func TestStreamFlushesOnEarlyExit(t *testing.T) {
	in := proseWithCalls(2<<20, 64<<10)
	cut := len(in) - 777
	var want bytes.Buffer
	if _, err := Stream(t.Context(), bytes.NewReader(in[:cut]), &want, Options{}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("connection reset")
	var got bytes.Buffer
	r := io.MultiReader(iotest.HalfReader(bytes.NewReader(in[:cut])), iotest.ErrReader(boom))
	st, err := Stream(t.Context(), r, &got, Options{})
	if !errors.Is(err, boom) {
		t.Fatalf("Stream = %v, want %v", err, boom)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("output after a read error differs from the output of the same bytes: %d bytes, want %d", got.Len(), want.Len())
	}
	if n := bytes.Count(got.Bytes(), []byte("\n")); st.Events != n || st.Calls == 0 {
		t.Fatalf("stats %+v for %d lines", st, n)
	}

	// The output fails after its third write: what was written is whole
	// lines, a prefix of the full output.
	w := &failAfter{n: 3}
	if _, err := Stream(t.Context(), bytes.NewReader(in), w, Options{}); err != errWrite {
		t.Fatalf("Stream = %v, want %v", err, errWrite)
	}
	out := w.out.Bytes()
	if len(out) == 0 || out[len(out)-1] != '\n' || !bytes.HasPrefix(want.Bytes(), out) {
		t.Fatalf("output before a write error is not whole lines of the full output (%d bytes)", len(out))
	}
}
