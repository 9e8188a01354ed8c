package tools

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// lineBufferSize is what readLines reads at a time; longer lines are
// gathered in a buffer of their own.
const lineBufferSize = 64 << 10

// keepLineBuffer is the largest gathering buffer kept between lines, so one
// huge event does not pin its memory for the rest of the stream.
const keepLineBuffer = 1 << 20

// DefaultMaxLine is the longest input line validate and exec read when
// no limit is given (--max-line).
const DefaultMaxLine = 64 << 20

// LongLine is a line longer than the limit: its number, its byte offset in
// the input, its length (to the limit and the rest) and its first bytes.
type LongLine struct {
	N      int
	Offset int64
	Size   int64
	Head   []byte
}

// AppendJSON appends the parse_error event that stands for l in the
// output, without the trailing newline: what happened, the start of the
// line as raw, and the line's byte offset in the input. It is written
// here, as event.ParseError writes it (a test there holds the two
// together), since package event imports this one.
func (l *LongLine) AppendJSON(dst []byte, max int) []byte {
	dst = append(dst, `{"type":"parse_error","error":`...)
	dst = jsonw.AppendString(dst, fmt.Sprintf("line %d is %d bytes long, more than the limit of %d (--max-line); it was skipped", l.N, l.Size, max))
	dst = append(dst, `,"raw":`...)
	dst = jsonw.AppendBytes(dst, trimPartialRuneEnd(l.Head))
	dst = append(dst, `,"offset":`...)
	return append(strconv.AppendInt(dst, l.Offset, 10), '}')
}

// longLineHead is how much of a long line is kept to show what it was.
const longLineHead = 256

// lineOptions are the bounds and hooks of readLines.
type lineOptions struct {
	// max, when > 0, is the longest line handed to fn. A longer one is
	// read to its end without being kept, and goes to tooLong instead.
	max     int
	tooLong func(LongLine) error
	// drained, when set, is called whenever every line read so far has
	// been handed on and the next read may wait for input. A stage that
	// gathers its output calls Write there: one write for all the lines
	// of a burst of input, and nothing held back while the input pauses.
	drained func() error
}

// readLines calls fn with each non-blank line of r and its 1-based line
// number (blank lines count, so numbers match what an editor shows), within
// opts' bounds. The line excludes its "\n" or "\r\n"; a last line without a
// newline is read too. The slice is only valid during the call to fn.
//
// readLines stops at the first error from fn or from r and returns it; it
// returns nil at the end of r.
func readLines(r io.Reader, opts lineOptions, fn func(line []byte, n int) error) error {
	br := bufio.NewReaderSize(r, lineBufferSize)
	var long []byte
	var size, offset int64 // of the line being read; where it starts
	n := 0
	for {
		if opts.drained != nil && br.Buffered() == 0 {
			if err := opts.drained(); err != nil {
				return err
			}
		}
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			switch {
			case opts.max <= 0 || size <= int64(opts.max):
				long = append(long, chunk...)
			case len(long) >= longLineHead:
				long = long[:longLineHead] // too long: its head is all that is shown
			default:
				long = append(long, chunk[:min(len(chunk), longLineHead-len(long))]...)
			}
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		if size > 0 {
			n++
			content := size // the line's length, without its newline
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				content--
			}
			if opts.max > 0 && content > int64(opts.max) {
				head := trimLineEnd(line)
				ll := LongLine{N: n, Offset: offset, Size: content, Head: head[:min(len(head), longLineHead)]}
				if ferr := opts.tooLong(ll); ferr != nil {
					return ferr
				}
			} else if line = trimLineEnd(line); !blankLine(line) {
				if ferr := fn(line, n); ferr != nil {
					return ferr
				}
			}
		}
		offset += size
		size = 0
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

// ReadLines is the bounded, line-numbered JSONL reader of every stage,
// for a caller outside this package (run's recordings): fn gets each
// non-blank line and its 1-based number, the line valid only during the
// call; a line longer than max bytes is not kept, and goes to tooLong
// instead (max <= 0: DefaultMaxLine). It stops at the first error of fn,
// tooLong or r, and returns nil at the end of r.
func ReadLines(r io.Reader, max int, tooLong func(LongLine) error, fn func(line []byte, n int) error) error {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return readLines(r, lineOptions{max: max, tooLong: tooLong}, fn)
}
