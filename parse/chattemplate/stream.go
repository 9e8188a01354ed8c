package chattemplate

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/parse"
)

// AutoPrefix marks the format of a call that auto-detection read where
// the template's own syntax read none (see Stream).
const AutoPrefix = "auto:"

// maxHold bounds the events Stream holds back before the template's
// syntax has read a call: past it, the template's events are written and
// auto-detection's are dropped, so memory stays bounded on long prose.
const maxHold = 4 << 20

// Stream parses r with opts (the options the template's derivation gave)
// and writes the events to w, as parse.Stream does, but is never worse
// than auto-detection: r is parsed at the same time with auto, and when
// the template's syntax reads no call in it while auto-detection reads
// one, auto-detection's events are written instead, each call's format
// prefixed with AutoPrefix ("auto:hermes"). Until the template's syntax
// reads a call (or maxHold bytes of its events wait), its events are held
// back, so the choice can still be made.
func Stream(ctx context.Context, r io.Reader, w io.Writer, opts, auto parse.Options) (parse.Stats, error) {
	c := &chooser{w: w}
	derivedR, derivedW := io.Pipe()
	autoR, autoW := io.Pipe()
	var wg sync.WaitGroup
	var dStats, aStats parse.Stats
	var dErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		dStats, dErr = parse.Stream(ctx, derivedR, sink{c, false}, opts)
		derivedR.CloseWithError(errDone)
	}()
	go func() {
		defer wg.Done()
		// Auto-detection only ever replaces: an error of its own leaves
		// the template's events.
		var err error
		aStats, err = parse.Stream(ctx, autoR, sink{c, true}, auto)
		if err != nil {
			c.dropAuto()
		}
		autoR.CloseWithError(errDone)
	}()
	_, err := io.Copy(teeWriter{derivedW, autoW}, r)
	derivedW.CloseWithError(err)
	autoW.CloseWithError(err)
	wg.Wait()
	if dErr != nil {
		err = dErr
	}
	usedAuto, werr := c.finish()
	if err == nil {
		err = werr
	}
	if usedAuto {
		return aStats, err
	}
	return dStats, err
}

// errDone closes a pipe whose parser has finished.
var errDone = io.ErrClosedPipe

// teeWriter writes to the template's parser, and to auto-detection's
// while it still reads.
type teeWriter struct{ derived, auto *io.PipeWriter }

func (t teeWriter) Write(p []byte) (int, error) {
	if t.auto != nil {
		_, _ = t.auto.Write(p) // an error means it stopped: see chooser.dropAuto
	}
	return t.derived.Write(p)
}

// chooser holds both parsers' events until it knows whose to write.
type chooser struct {
	mu       sync.Mutex
	w        io.Writer
	decided  bool // the template's events go straight to w
	noAuto   bool // auto-detection's events are dropped
	derived  bytes.Buffer
	auto     bytes.Buffer
	autoCall bool // auto-detection read a call
}

// sink is one parser's side of a chooser.
type sink struct {
	c    *chooser
	auto bool
}

// toolCallLine reports whether a line of JSONL is a tool_call event: the
// writer puts "type" first.
func toolCallLine(b []byte) bool { return bytes.Contains(b, []byte(`{"type":"tool_call"`)) }

func (s sink) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.auto {
		if !c.decided && !c.noAuto {
			c.auto.Write(p)
			c.autoCall = c.autoCall || toolCallLine(p)
		}
		return len(p), nil
	}
	if c.decided {
		return c.w.Write(p)
	}
	c.derived.Write(p)
	if toolCallLine(p) || c.derived.Len() > maxHold {
		c.decided = true
		c.auto.Reset()
		_, err := c.w.Write(c.derived.Bytes())
		c.derived.Reset()
		return len(p), err
	}
	return len(p), nil
}

func (c *chooser) dropAuto() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noAuto = true
	c.auto.Reset()
}

// finish writes what is still held: auto-detection's events when only
// they have a call, else the template's. It reports which.
func (c *chooser) finish() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.decided {
		return false, nil
	}
	if c.noAuto || !c.autoCall {
		_, err := c.w.Write(c.derived.Bytes())
		return false, err
	}
	var out []byte
	for line := range bytes.Lines(c.auto.Bytes()) {
		out = append(out, markAuto(line)...)
	}
	_, err := c.w.Write(out)
	return true, err
}

// markAuto prefixes the format of a tool_call line with AutoPrefix.
func markAuto(line []byte) []byte {
	if !toolCallLine(line) {
		return line
	}
	f := gjson.GetBytes(line, "format")
	if f.Type != gjson.String || f.Index <= 0 {
		return line
	}
	at := f.Index + 1 // past the opening quote
	out := make([]byte, 0, len(line)+len(AutoPrefix))
	out = append(out, line[:at]...)
	out = append(out, AutoPrefix...)
	return append(out, line[at:]...)
}
