package tools

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// Lines up to the limit pass; one byte more is a LongLine, with its number,
// offset, length and start, and the lines after it are read as usual. The
// newline (and a "\r" before it, which is part of the line) decide nothing
// on their own.
func TestReadLinesLimit(t *testing.T) {
	const max = 100
	atLimit := strings.Repeat("a", max)
	over := strings.Repeat("b", max+1)
	huge := strings.Repeat("c", 5*lineBufferSize+3) // gathered over several reads
	in := atLimit + "\n" + over + "\n" + "ok\n" + huge + "\r\n" + atLimit
	type got struct {
		n    int
		line string
	}
	var lines []got
	var long []LongLine
	err := readLines(iotest.HalfReader(strings.NewReader(in)), lineOptions{max: max, tooLong: func(l LongLine) error {
		l.Head = bytes.Clone(l.Head)
		long = append(long, l)
		return nil
	}}, func(line []byte, n int) error {
		lines = append(lines, got{n, string(line)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{1, atLimit}, {3, "ok"}, {5, atLimit}}
	if diff := cmp.Diff(want, lines, cmp.AllowUnexported(got{})); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	wantLong := []LongLine{
		{N: 2, Offset: max + 1, Size: max + 1, Head: []byte(over)},
		{N: 4, Offset: (max + 1) + (max + 2) + 3, Size: int64(len(huge)) + 1, Head: []byte(huge[:longLineHead])},
	}
	if diff := cmp.Diff(wantLong, long); diff != "" {
		t.Errorf("long lines (-want +got):\n%s", diff)
	}
}

// A line far over the limit is not held: what is kept of it stays within
// the limit, however long it is.
func TestReadLinesLongLineMemory(t *testing.T) {
	const max = 1 << 20
	var kept int
	r := io.MultiReader(&repeatReader{b: 'x', n: 64 << 20}, strings.NewReader("\nnext\n"))
	var lines []string
	err := readLines(r, lineOptions{max: max, tooLong: func(l LongLine) error {
		kept = cap(l.Head)
		if l.Size != 64<<20 || l.N != 1 {
			t.Errorf("long line %d of %d bytes, want line 1 of %d", l.N, l.Size, 64<<20)
		}
		return nil
	}}, func(line []byte, n int) error {
		lines = append(lines, string(line))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if kept > max+lineBufferSize {
		t.Errorf("kept a buffer of %d bytes for a line over a %d limit", kept, max)
	}
	if len(lines) != 1 || lines[0] != "next" {
		t.Errorf("lines after the long one: %q", lines)
	}
}

// repeatReader yields n copies of b.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

func TestValidateAnswersALongLineWithAParseError(t *testing.T) {
	in := `{"type":"text","content":"` + strings.Repeat("é", 100) + `"}` + "\n" + `{"type":"text","content":"short"}` + "\n"
	var out bytes.Buffer
	st, err := Validate(context.Background(), strings.NewReader(in), &out, testTools(), ValidateOptions{MaxLine: 100})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if st.TooLong != 1 || len(lines) != 2 {
		t.Fatalf("stats %+v, output:\n%s", st, out.String())
	}
	ev := gjson.Parse(lines[0])
	if ev.Get("type").Str != "parse_error" || !strings.Contains(ev.Get("error").Str, "line 1 is 228 bytes long, more than the limit of 100") ||
		ev.Get("offset").Int() != 0 || !strings.HasPrefix(ev.Get("raw").Str, `{"type":"text","content":"éé`) {
		t.Errorf("event %s", lines[0])
	}
	if lines[1] != `{"type":"text","content":"short"}` {
		t.Errorf("the next line: %s", lines[1])
	}
}
