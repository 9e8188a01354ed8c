package tools

import (
	"bufio"
	"errors"
	"io"
)

// lineBufferSize is what ReadLines reads at a time; longer lines are
// gathered in a buffer of their own.
const lineBufferSize = 64 << 10

// keepLineBuffer is the largest gathering buffer kept between lines, so one
// huge event does not pin its memory for the rest of the stream.
const keepLineBuffer = 1 << 20

// ReadLines calls fn with each non-blank line of r and its 1-based line
// number (blank lines count, so numbers match what an editor shows). The
// line excludes its "\n" or "\r\n"; a last line without a newline is read
// too. Lines may be of any length: memory grows with the longest line, not
// with the stream. The slice is only valid during the call to fn.
//
// ReadLines stops at the first error from fn or from r and returns it; it
// returns nil at the end of r.
func ReadLines(r io.Reader, fn func(line []byte, n int) error) error {
	return readLines(r, fn, nil)
}

// readLines is ReadLines that also calls drained, when it is not nil,
// whenever every line read so far has been handed to fn and the next read
// may wait for input. A stage that gathers its output calls Write there:
// one write for all the lines of a burst of input, and nothing held back
// while the input pauses.
func readLines(r io.Reader, fn func(line []byte, n int) error, drained func() error) error {
	br := bufio.NewReaderSize(r, lineBufferSize)
	var long []byte
	n := 0
	for {
		if drained != nil && br.Buffered() == 0 {
			if err := drained(); err != nil {
				return err
			}
		}
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		if len(line) > 0 {
			n++
			line = trimLineEnd(line)
			if !blankLine(line) {
				if ferr := fn(line, n); ferr != nil {
					return ferr
				}
			}
		}
		if cap(long) > keepLineBuffer {
			long = nil
		} else {
			long = long[:0]
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// trimLineEnd drops a trailing "\n" and then a "\r".
func trimLineEnd(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// blankLine reports whether b holds only spaces and tabs.
func blankLine(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
