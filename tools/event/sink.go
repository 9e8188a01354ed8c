package event

import (
	"errors"
	"io"
)

// Sink takes the events of a stream as values, in order. Inside the
// library the stages hand their events to a sink; the sinks at the edge
// write them (JSONL), show them (run's View) or keep them (a recording),
// and a filter (run's redactor) is a sink that hands each event on to
// another, changed. Nothing reads back a line it wrote.
type Sink interface {
	// Emit takes one event. The sink may keep e only until Emit returns:
	// the caller may reuse it, and the bytes it points to, after.
	Emit(e Event) error
	// Flush hands on or writes whatever the sink holds back, at the end
	// of the stream (a redactor holds a text event that may end in the
	// start of a secret; a view, the answer it shows last).
	Flush() error
}

// JSONL is the sink that writes each event as one line of JSON: encoded
// with its own AppendJSON (hand-written, keys in a fixed order) into one
// buffer, and written whole with one Write, so that a reader of a pipe
// sees each event as it happens and a killed process leaves no half line.
type JSONL struct {
	w   io.Writer
	buf []byte
}

// NewJSONL writes the events it is given to w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: w} }

// Emit writes e and its newline.
func (s *JSONL) Emit(e Event) error {
	s.buf = append(e.AppendJSON(s.buf[:0]), '\n')
	if cap(s.buf) > maxKeptBuffer {
		defer func() { s.buf = nil }()
	}
	_, err := s.w.Write(s.buf)
	return err
}

// maxKeptBuffer is the largest line buffer JSONL keeps between events,
// so that one huge event does not pin its memory for the rest of the
// stream.
const maxKeptBuffer = 1 << 20

// Flush does nothing: each line is written as its event comes.
func (s *JSONL) Flush() error { return nil }

// Discard is the sink that keeps nothing: for a run whose events are
// not wanted (a conversation rebuilt from its recording).
var Discard Sink = discard{}

type discard struct{}

func (discard) Emit(Event) error { return nil }
func (discard) Flush() error     { return nil }

// Tee hands each event to every sink of its list in turn; the first
// error stops the event there and is returned. Flush flushes them all and
// returns their errors joined.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Emit(e Event) error {
	for _, s := range t {
		if err := s.Emit(e); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Flush() error {
	var errs []error
	for _, s := range t {
		errs = append(errs, s.Flush())
	}
	return errors.Join(errs...)
}
