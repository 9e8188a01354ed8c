package run

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxSSELine bounds one line of a stream, so a server that never sends a
// newline cannot make us hold an unbounded buffer.
const maxSSELine = 16 << 20

var (
	errSSELineTooLong = errors.New("a line of the stream is longer than 16 MiB")
	// errSSECut is a stream that ended in the middle of a line.
	errSSECut = errors.New("the stream ended in the middle of a line")
)

// sseEvent is one server-sent event.
type sseEvent struct {
	data []byte // the data lines joined with "\n"; valid until the next call
	name string // the "event:" field; "" for the default "message"
	line int    // the line of the stream where its data began (1-based)
}

// sseReader reads the text/event-stream format the OpenAI-compatible
// servers send: "data:" lines, several of them joined by "\n", an event
// ended by a blank line, ":" comments, LF or CRLF line ends.
type sseReader struct {
	r       *bufio.Reader
	line    int
	ev      sseEvent
	hasData bool
	long    []byte // a line longer than the bufio buffer
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next event. At the end of the stream it returns io.EOF;
// data lines not yet followed by a blank line are still delivered first,
// because some servers close the stream without the final blank line.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && s.hasData {
				return s.dispatch(), nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.dispatch(), nil
			}
			s.ev.name = ""
			continue
		}
		if line[0] == ':' {
			continue // a comment, often a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if s.hasData {
				s.ev.data = append(s.ev.data, '\n')
			} else {
				s.ev.data = s.ev.data[:0]
				s.ev.line = s.line
				s.hasData = true
			}
			s.ev.data = append(s.ev.data, value...)
		case "event":
			s.ev.name = string(value)
		}
		// id and retry are for browsers reconnecting; we never reconnect a
		// half-read reply (that would repeat text).
	}
}

func (s *sseReader) dispatch() sseEvent {
	ev := s.ev
	s.hasData = false
	s.ev.name = ""
	return ev
}

// readLine returns the next line without its line end. The slice is valid
// until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.long) > maxSSELine {
				return nil, errSSELineTooLong
			}
			line, err = s.r.ReadSlice('\n')
			s.long = append(s.long, line...)
		}
		line = s.long
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			return nil, errSSECut
		}
		return nil, err
	}
	s.line++
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}
