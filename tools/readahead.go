package tools

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"sync/atomic"
)

type numberedLine struct {
	b       []byte
	n       int
	tooLong bool // b is the parse_error that answers a line over MaxLine
}

// aheadReader reads Exec's input ahead of the calls it runs, in a goroutine
// of its own, and keeps what it needs to say, once ctx is done, how many
// calls it had read and Exec never took up.
type aheadReader struct {
	lines chan numberedLine // closed at the end of the input, or when ctx is done
	err   chan error        // then the read error, if any

	// Set in the reading goroutine, read once it has given up (sending
	// is 0): the last line number read, the calls it held when ctx was
	// done, and whether the input was read to its end.
	sending, lastLine, dropped atomic.Int64
	readAll                    atomic.Bool
}

func readAhead(ctx context.Context, r io.Reader, maxLine int) *aheadReader {
	lr := &aheadReader{lines: make(chan numberedLine, 64), err: make(chan error, 1)}
	go func() {
		tooLong := func(l LongLine) error {
			return lr.send(ctx, numberedLine{l.AppendJSON(nil, maxLine), l.N, true})
		}
		err := readLines(r, lineOptions{max: maxLine, tooLong: tooLong}, func(line []byte, n int) error {
			return lr.send(ctx, numberedLine{bytes.Clone(line), n, false})
		})
		lr.readAll.Store(err == nil)
		lr.err <- err
		close(lr.lines)
	}()
	return lr
}

// send hands l on, unless ctx is done: then it counts l if it is a call.
func (lr *aheadReader) send(ctx context.Context, l numberedLine) error {
	lr.lastLine.Store(int64(l.n))
	if ctx.Err() == nil { // no more lines once interrupted
		lr.sending.Store(1)
		defer lr.sending.Store(0)
		select {
		case lr.lines <- l:
			return nil
		case <-ctx.Done():
		}
	}
	if !l.tooLong && isCall(l.b) {
		lr.dropped.Add(1)
	}
	return ctx.Err()
}

// leftUnread fills in st what the reader left unread once ctx is done:
// the calls read ahead and never handled, so that none is dropped unsaid,
// and where reading stopped.
func (lr *aheadReader) leftUnread(st *ExecStats) {
	for lr.sending.Load() != 0 { // a reader caught mid-send gives up at once
		runtime.Gosched()
	}
drain:
	for {
		select {
		case l, ok := <-lr.lines:
			if !ok {
				break drain
			}
			if !l.tooLong && isCall(l.b) {
				st.Unread++
			}
		default:
			break drain
		}
	}
	st.Unread += int(lr.dropped.Load())
	st.LastLine = int(lr.lastLine.Load())
	st.ReadAll = lr.readAll.Load()
}

// isCall reports whether an input line is a tool_call event.
func isCall(line []byte) bool {
	typ, err := EventType(line)
	return err == nil && typ == TypeToolCall
}
